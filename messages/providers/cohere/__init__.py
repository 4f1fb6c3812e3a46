"""Cohere v2 chat (``POST https://api.cohere.com/v2/chat``): requests, responses, streams.

Cohere v2 looks like chat completions in its messages (roles ``system``, ``user``,
``assistant``, ``tool``; ``tool_calls`` with arguments as a JSON string) but not in
its responses (no ``choices``: one ``message`` with a content list, ``finish_reason``
in capitals, ``usage`` with ``billed_units`` and ``tokens``) nor its streams (typed
events such as ``content-delta``), and it has fields of its own (``tool_plan``,
``citations``, ``documents``, ``thinking`` blocks). So it is its own package, which
reuses the chat-completions family's shared readers of tool calls and tool
definitions. Modules: ``_format`` (messages -> request), ``_read`` (content blocks
and the assistant turn), ``_request`` (request -> messages), ``_response``
(response -> ChatResponse), ``_stream`` (events -> ChatResponse), ``_tools``
(definitions both ways), ``_common`` (names, finish reasons, usage, kept state).

The rules (every one that loses something is a ``Loss``):

* System text is a string (or the text blocks it was read from, while it is
  unchanged); ``developer`` messages are sent as ``system`` (Loss). User content is
  a string or ``text`` / ``image_url`` blocks (``detail`` kept); audio and file
  parts are dropped (Loss). Messages take no ``name`` and no cache breakpoint (Loss).
* An assistant turn is ``content`` (``text`` and ``thinking`` blocks), ``tool_plan``
  and ``tool_calls``. ``thinking`` is a ``ReasoningPart`` tagged with the provider's
  tag, sent back in place to this provider only; anyone else's reasoning is a Loss
  (and this provider's is a Loss elsewhere). The tool plan ("a chain-of-thought
  style reflection and plan", in Cohere's words) is reasoning too: a
  ``ReasoningPart`` after the leading thinking blocks, its place kept in
  ``extras[tag]["plan"]``, sent back as ``tool_plan``. Text is ``content``, beside
  the calls too (what another provider writes before a call).
* ``citations`` of a turn are kept in ``extras[tag]["citations"]`` and sent back with
  the turn to this provider only (a Loss elsewhere). A request's top-level
  ``documents`` are kept on its first message (``extras[tag]["documents"]``) and
  sent back top-level (a Loss elsewhere).
* Tool results: content is a string or ``text`` / ``document`` blocks. A document is a
  text part (its data string, or its data object as compact JSON) and goes back to
  Cohere as the same document (``id`` kept); elsewhere its text is sent and the
  document's shape is a Loss. Images in a tool result are dropped (Loss). The wire
  has no error flag: a failed result's text is prefixed ``Error: `` (Loss). A result
  that answers no call of the turn before it is dropped, a call left without a
  result once the conversation goes on gets an error result (each a Loss).
* An invalid tool call goes back as the model wrote it (the arguments are a string).
* Blocks of a type not modelled here are kept (``extras[tag]["unknown"]``) and put
  back at their index for this provider only.
* Responses: ``COMPLETE`` and ``STOP_SEQUENCE`` are STOP, ``MAX_TOKENS`` LENGTH,
  ``TOOL_CALL`` TOOL_CALLS, ``ERROR`` and ``TIMEOUT`` ERROR, anything else OTHER.
  Usage: ``tokens`` (what the model read and wrote; ``billed_units`` when absent),
  ``cached_tokens`` the cached input. An error body (``{"message": "..."}``) is an
  ERROR response.
"""

from __future__ import annotations

from ._provider import PROVIDER, CohereProvider
from ._stream import CohereStream

__all__ = ["PROVIDER", "CohereProvider", "CohereStream"]
