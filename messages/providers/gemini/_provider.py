"""The Gemini provider object: each direction of the wire format behind one entry point."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..._message import Message
from .._base import (
    ChatResponse,
    Loss,
    Losses,
    LossWarning,
    Provider,
)
from ._format import contents
from ._import import parse_messages
from ._parse import parse_response
from ._stream import GeminiStream
from ._tools import declarations, parse_tools
from ._wire import NAME, decode_failure

if TYPE_CHECKING:
    from ...tools import ToolDefinition


class GeminiProvider(Provider):
    """The Gemini API wire format (``contents`` / ``parts``, REST camelCase; the proto
    snake_case spelling is read too)."""

    name = NAME

    # -- requests ---------------------------------------------------------------------

    def _format(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition]
    ) -> tuple[dict[str, Any], Sequence[Loss]]:
        """A generateContent body: ``systemInstruction``, ``contents`` and ``tools``,
        and every loss."""
        losses = Losses()
        system, system_role, out = contents(messages, self.tag, losses)
        body: dict[str, Any] = {}
        if system:
            body["systemInstruction"] = (
                {"parts": system} if system_role is None else {"role": system_role, "parts": system}
            )
        body["contents"] = out
        if tools:
            body["tools"] = [{"functionDeclarations": declarations(tools, losses)}]
        return body, losses.items

    def format_tools(self, tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
        """``[{"functionDeclarations": [...]}]``; each schema loss warns (LossWarning)."""
        if not tools:
            return []
        losses = Losses()
        out = [{"functionDeclarations": declarations(tools, losses)}]
        for loss in losses.items:
            warnings.warn(LossWarning(f"{self.name}: {loss}"), stacklevel=2)
        return out

    def parse_tools(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[ToolDefinition]:
        """The function declarations of a request body (or its ``tools`` list), ``strict=False``.

        Schemas are kept as given except that type names are lower-cased (the REST
        API also accepts ``"OBJECT"``) and a ``parameters`` Schema's proto field names
        (``any_of``, ``max_items``...) take their JSON Schema spelling. A missing
        description becomes the tool's name.
        """
        try:
            return parse_tools(body_or_list)
        except Exception as exc:  # any input: only DecodeError leaves a parser
            raise decode_failure(exc, "tools") from None

    # -- import a conversation ----------------------------------------------------------

    def parse_messages(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[Message]:
        """Import a conversation written as a generateContent body (or its ``contents``)."""
        try:
            return parse_messages(body_or_list, self.tag)
        except Exception as exc:  # any input: only DecodeError leaves a parser
            raise decode_failure(exc, "contents") from None

    # -- responses ---------------------------------------------------------------------

    def parse_response(self, body: Mapping[str, Any]) -> ChatResponse:
        """Parse a generateContent response body.

        A body with no candidates is a blocked prompt (CONTENT_FILTER) when
        ``promptFeedback.blockReason`` says so, else a DecodeError at ``candidates``.
        """
        try:
            return parse_response(body, self.tag)
        except Exception as exc:  # any input: only DecodeError leaves a parser
            raise decode_failure(exc) from None

    def stream(self) -> GeminiStream:
        """A fresh accumulator for one ``streamGenerateContent?alt=sse`` stream."""
        return GeminiStream(self.tag)


PROVIDER = GeminiProvider()
"""The Gemini provider object ``get_provider("gemini")`` returns."""
