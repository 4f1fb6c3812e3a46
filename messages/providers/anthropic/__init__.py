"""Anthropic Messages API (``POST /v1/messages``): requests, responses and SSE streams.

One module per concern: ``_format`` (canonical messages -> request body) with
``_parts`` (content parts as blocks), ``_request`` (request body -> messages),
``_response`` (response body -> ChatResponse), ``_stream`` (SSE events ->
ChatResponse), ``_blocks`` (the assistant-turn reader the last three share),
``_tools`` (tool definitions and ``tool_use`` blocks, both ways) and ``_common``
(names, the state kept in extras, small readers).

The rules the formatter applies, each documented here and in the README table of
what each provider cannot carry (every rule that loses something is a ``Loss``):

* System and developer messages become the top-level ``system``: a string for one
  message, text blocks (one per message) for several. System blocks parsed from a
  request are kept and sent back verbatim (with their keys) while the
  message text is unchanged (a loss once it is changed). A system message that
  comes after the conversation started is moved there too (a loss), unless it came
  from inside a request's ``messages`` (a mid-conversation system message) or the
  provider is ``AnthropicProvider(system_in_place=True)``: then it is sent where it
  sits, as ``role: "system"``, when it follows a user turn and precedes an
  assistant turn (the API's placement rules; only some models take it).
* Consecutive messages that map to one wire role are merged into one wire message
  (tool results and the user's text share a user message, ``tool_result`` blocks
  first, as the API requires).
* A tool result whose id is not a ``tool_use`` of the preceding assistant message,
  or that answers a call twice, is dropped (Loss): the API rejects it. A call left
  without a result when the conversation goes on is answered with an error result.
* An invalid tool call (arguments that were not a JSON object) goes back as a
  ``tool_use`` with its name and ``input: {}`` (Loss: the wire needs an object); one
  whose name the API refuses (``^[a-zA-Z0-9_-]{1,64}$``) is not sent (Loss).
* Empty text is never sent; a message left with no content is omitted (Loss).
* Opaque state is replayed only to the provider (and origin) that produced it:
  its ``tag``. A ``ReasoningPart`` of this tag with a signature becomes a
  ``thinking`` block, a redacted one a ``redacted_thinking`` block, unchanged and
  in its original position before the ``tool_use`` blocks. Any other reasoning is
  dropped (Loss), never turned into visible text: it was the model's private
  reasoning. Another provider's (or origin's) state on a message or a call is
  dropped too (Loss).
* Audio cannot be sent (Loss); an image's ``detail`` and a message's ``name`` have
  no Anthropic field (Loss). An image in a tool result goes inside the
  ``tool_result`` block. Files become ``document`` blocks (``file`` source for a
  ``file_id``, ``text`` source for ``text/*`` data, else ``base64``; the filename
  is the document ``title``).
* Unknown block types met while parsing are kept in the message's
  ``extras[tag]["unknown"]`` (index, path, type, the block itself) and are
  re-inserted at their index when the message is formatted for the same tag;
  elsewhere they are a loss. Likewise, keys of a known block that the canonical
  model has no field for (``cache_control``, ``citations``, a document's
  ``context``...), inside a tool result's content too, are kept in
  ``extras[tag]["keys"]`` and put back on the block at the same index (a loss when
  the message was changed so that the block is no longer there).
* A message's cache hint (``Message.cache``) is ``cache_control``
  (``{"type": "ephemeral"}``, with ``ttl`` when set) on its last block: the last
  block of its system text (``system`` becomes a block list), its ``tool_result``
  block, the last block of its user or assistant content (a string becomes a text
  block); a block that already has a kept ``cache_control`` keeps its own. A
  message with nothing sent cannot carry it (Loss). The API takes at most four
  ``cache_control`` blocks a request (kept ones count): beyond, the earliest hints
  are dropped (Loss), since the latest cover the longest prefixes; and it wants
  1h breakpoints before shorter ones: a 1h hint after a shorter breakpoint is sent
  with the default ttl (Loss). Parsing a request reads a ``cache_control`` on the
  last block of a message (as above) back as the message's hint.

Parsing keeps a response's ``stop_details`` (the refusal category and
explanation) in ``extras[tag]["stop_details"]``; with stop reason ``refusal`` its
explanation is ``ChatResponse.refusal``.
"""

from __future__ import annotations

from ._provider import PROVIDER, AnthropicProvider
from ._stream import AnthropicStream

__all__ = ["PROVIDER", "AnthropicProvider", "AnthropicStream"]
