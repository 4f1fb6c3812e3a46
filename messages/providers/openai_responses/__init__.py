"""The OpenAI Responses API (``POST /v1/responses``), both directions.

Also served, in its item format, by xAI, Groq (beta), Mistral (preview), Ollama,
vLLM (gpt-oss) and OpenRouter: give each endpoint its own origin
(``get_provider("openai_responses", origin="vllm")``) so that opaque state from one
never reaches another.

* ``format_request`` gives ``{"input": [...], "instructions"?, "tools"?}`` (see
  ``_format`` for the rules, ``_tools`` for tool definitions);
  ``previous_response_id=True`` (or a response id) sends only what follows a
  stored response, with its id.
* ``parse_response`` reads a Response object (``_parse``); ``stream()`` takes the
  parsed payload of each SSE event (``_stream``); ``parse_messages`` reads a
  request body (``_import``).
* Reasoning items are ReasoningParts (summary text; ``encrypted_content`` as the
  signature; item id in the turn's layout); ``function_call`` items are tool calls
  (``call_id`` the id, item keys in ``extras[tag]``); ``function_call_output``
  items are tool results; ``custom_tool_call`` and built-in tool items are kept
  verbatim. All of it goes back only to this provider (this tag); elsewhere it is
  a Loss. What is kept where: ``_read``.

When to use ``previous_response_id``: when responses are stored (``store`` left
true) and the conversation continues on the same endpoint and account, it sends
only the new items (results, the user's next message) and the server supplies the
rest, encrypted reasoning included. Replay everything instead (the default) with
``store: false`` and ``include: ["reasoning.encrypted_content"]`` in the request
when responses are not stored (zero data retention), when the conversation moved
here from another provider or was edited, or when it must not depend on the
server keeping state: reasoning then travels as ``encrypted_content``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..._message import Message
from ...errors import MessageError
from .._base import (
    GUARDED_ERRORS,
    ChatResponse,
    Conversion,
    Losses,
    LossWarning,
    Provider,
    StreamAccumulator,
    format_error,
    parser,
)
from ._format import format_body
from ._import import parse_messages
from ._parse import parse_response
from ._read import NAME, failure
from ._stream import ResponsesStream
from ._tools import format_tools, parse_tools

if TYPE_CHECKING:
    from ...tools import ToolDefinition

__all__ = ["PROVIDER", "OpenAIResponsesProvider", "ResponsesStream"]


class OpenAIResponsesProvider(Provider):
    """The Responses API wire format."""

    name = NAME

    def stream(self) -> StreamAccumulator:
        """A fresh accumulator for one streamed response."""
        return ResponsesStream(self.tag)

    def format_tools(
        self, tools: Sequence[ToolDefinition | Mapping[str, Any]]
    ) -> list[dict[str, Any]]:
        """The ``tools`` part of a request (each loss warns, as in ``format_request``).

        Built-in tool definitions (mappings such as ``{"type": "web_search"}``) pass
        through unchanged.
        """
        losses = Losses()
        out = format_tools(tools, losses)
        for loss in losses.items:
            warnings.warn(LossWarning(f"{self.name}: {loss}"), stacklevel=2)
        return out

    def parse_tools(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[ToolDefinition]:
        """The function tools of a request body (or a ``tools`` list); DecodeError when malformed."""
        try:
            return parse_tools(body_or_list)
        except Exception as exc:
            raise failure(exc, "tools") from None

    def convert(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition | Mapping[str, Any]] = (),
        *,
        previous_response_id: str | bool | None = None,
    ) -> Conversion:
        """Format a request and list every loss instead of warning.

        ``previous_response_id``: True sends only what follows the last response
        this provider parsed into ``messages``, with its id (everything when there is
        none); a response id sends what follows that response.
        """
        body, losses = self._format(messages, tools, previous_response_id)
        return Conversion(body, tuple(losses))

    def format_request(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition | Mapping[str, Any]] = (),
        *,
        strict: bool = False,
        previous_response_id: str | bool | None = None,
    ) -> dict[str, Any]:
        """The message part of a request body; each loss warns (or raises when ``strict``)."""
        body, losses = self._format(messages, tools, previous_response_id)
        self._report(losses, strict, stacklevel=2)
        return body

    def _format(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition | Mapping[str, Any]] = (),
        previous_response_id: str | bool | None = None,
    ) -> tuple[dict[str, Any], Sequence[Any]]:
        try:
            return format_body(messages, tools, self.tag, previous_response_id)
        except MessageError:
            raise
        except GUARDED_ERRORS as exc:
            raise format_error(exc) from None

    @parser
    def parse_response(self, body: Mapping[str, Any]) -> ChatResponse:
        """Parse a Response object (or an error body: finish_reason ERROR)."""
        return parse_response(body, self.tag)

    @parser
    def parse_messages(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[Message]:
        """Import a conversation written as a Responses request body (or its ``input`` list)."""
        return parse_messages(body_or_list, self.tag)


PROVIDER = OpenAIResponsesProvider()
"""The OpenAI Responses provider."""
