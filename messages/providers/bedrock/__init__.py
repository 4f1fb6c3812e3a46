"""Amazon Bedrock Converse (``Converse`` and ``ConverseStream``): requests, responses, streams.

One module per concern: ``_format`` (canonical messages -> the ``messages``,
``system`` of a request) with ``_parts`` (content parts as blocks, both ways) and
``_hints`` (cache hints as ``cachePoint`` blocks), ``_request`` (request body ->
messages), ``_response`` (response body -> ChatResponse), ``_stream``
(ConverseStream events -> ChatResponse), ``_blocks`` (the assistant-turn reader the
last three share), ``_tools`` (``toolConfig`` and ``toolUse`` blocks, both ways) and
``_common`` (names, formats, the state kept in extras).

The rules the formatter applies (every rule that loses something is a ``Loss``):

* System and developer messages become the top-level ``system`` (one text block
  each; the blocks of a parsed system prompt go back as they came while its text is
  unchanged). One that comes after the conversation started is moved there (Loss):
  Converse has no system role inside ``messages``.
* Consecutive messages that map to one wire role are merged into one turn; a user
  turn holds its ``toolResult`` blocks first.
* A tool result whose id is not a ``toolUse`` of the assistant turn before it, or
  that answers a call twice, is dropped (Loss). A call left without a result when
  the conversation goes on is answered with an error result (Loss).
* ``toolConfig``: the tools given; with none given and tool blocks in the
  conversation (Bedrock refuses those without a ``toolConfig``), each tool called is
  declared by name with an open schema (see ``_tools``).
* An invalid tool call goes back as a ``toolUse`` with ``input: {}`` (Loss); one
  whose name Bedrock refuses (``^[a-zA-Z0-9_-]{1,64}$``) is not sent (Loss).
* Blank text is never sent; a message left without content is omitted (Loss). The
  final assistant turn's trailing whitespace is stripped (Loss).
* Opaque state is replayed only to the provider (and origin) that produced it: its
  ``tag``. A ``ReasoningPart`` of this tag is a ``reasoningContent`` block
  (``reasoningText`` with its ``signature``, or ``redactedContent`` for a redacted
  one), unchanged and in place. Reasoning of any other provider is dropped (Loss),
  never turned into text; so is another provider's state on a message or call.
* Images, documents and videos map as ``_parts`` says; audio cannot be sent (Loss),
  nor an image URL other than ``s3://`` (Loss), nor an image's ``detail`` (Loss).
* A message's cache hint is a ``cachePoint`` block after its blocks (``_hints``).
* A tool result's text goes as ``text`` blocks; text that was a ``json`` block when
  parsed goes back as ``json``, and a successful result whose text writes a JSON object
  compactly (an MCP ``structuredContent``) goes as ``json`` unless it was read from
  Bedrock as text. ``is_error`` is ``status: "error"``.
* A message's ``name`` has no Converse field (Loss).

Parsing keeps the blocks no part carries (``guardContent``, ``citationsContent``, a
``cachePoint`` between two blocks...) in ``extras[tag]`` and puts them back in place
when the message is formatted for this provider (a Loss for any other).
"""

from __future__ import annotations

from ._provider import PROVIDER, BedrockProvider
from ._stream import BedrockStream

__all__ = ["PROVIDER", "BedrockProvider", "BedrockStream"]
