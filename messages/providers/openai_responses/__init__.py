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

import functools
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..._message import Message
from .._arguments import OnLoss, on_loss_of
from .._base import (
    ChatResponse,
    Conversion,
    Loss,
    Losses,
    LossWarning,
    Provider,
    StreamAccumulator,
    conversation_given,
    parser,
)
from ._format import format_body
from ._import import parse_messages
from ._parse import parse_response
from ._read import NAME, failure
from ._stream import ResponsesStream
from ._tools import format_tools, parse_tools

if TYPE_CHECKING:
    from ...tools import Toolbox, ToolDefinition

__all__ = ["PROVIDER", "OpenAIResponsesProvider", "ResponsesStream"]


class OpenAIResponsesProvider(Provider):
    """The Responses API wire format."""

    name = NAME
    tool_mappings = True

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
        conversation: Iterable[Message] | None = None,
        tools: Iterable[ToolDefinition | Mapping[str, Any]] | Toolbox | None = (),
        *,
        on_loss: OnLoss = "warn",
        messages: Iterable[Message] | None = None,
        previous_response_id: str | bool | None = None,
    ) -> Conversion:
        """``Provider.convert``, with ``previous_response_id`` as in ``format_request``."""
        how = on_loss_of(on_loss, False)
        formatter = functools.partial(self._format, previous_response_id=previous_response_id)
        given = conversation_given(conversation, messages)
        return Conversion(*self._request(given, tools, how, formatter, "convert"))

    def format_request(
        self,
        conversation: Iterable[Message] | None = None,
        tools: Iterable[ToolDefinition | Mapping[str, Any]] | Toolbox | None = (),
        *,
        strict: bool = False,
        on_loss: OnLoss = "warn",
        messages: Iterable[Message] | None = None,
        previous_response_id: str | bool | None = None,
    ) -> dict[str, Any]:
        """``Provider.format_request``, plus ``previous_response_id``.

        ``previous_response_id``: True sends only what follows the last response
        this provider parsed into the conversation, with its id (everything when there
        is none); a response id sends what follows that response. ``tools`` may also
        hold built-in tool mappings (``{"type": "web_search"}``), passed through.
        """
        how = on_loss_of(on_loss, strict)
        formatter = functools.partial(self._format, previous_response_id=previous_response_id)
        given = conversation_given(conversation, messages)
        return self._request(given, tools, how, formatter, "format_request")[0]

    def _format(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition | Mapping[str, Any]],
        previous_response_id: str | bool | None = None,
    ) -> tuple[dict[str, Any], Sequence[Loss]]:
        return format_body(messages, tools, self.tag, previous_response_id)

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
