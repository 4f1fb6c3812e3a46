"""The Anthropic provider object: each direction delegated to its module, behind one guard."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..._message import Message
from ...errors import DecodeError
from .._base import ChatResponse, Loss, Provider
from ._common import NAME, entry_error
from ._format import format_messages
from ._request import read_request
from ._response import read_response
from ._stream import AnthropicStream
from ._tools import format_tools, parse_tools

if TYPE_CHECKING:
    from ...tools import ToolDefinition


class AnthropicProvider(Provider):
    """The Anthropic Messages API wire format.

    ``system_in_place``: send a system (or developer) message that comes after the
    first turn inside ``messages``, where it sits, as ``role: "system"`` when the
    API's placement rules allow it (models that take mid-conversation system
    messages); by default it is moved to the top-level ``system`` (a loss), which
    every model takes. A system message imported from a request that had it inside
    ``messages`` goes back there either way.
    """

    name = NAME

    def __init__(self, *, system_in_place: bool = False) -> None:
        self.system_in_place = system_in_place

    # -- requests ---------------------------------------------------------------------

    def _format(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition]
    ) -> tuple[dict[str, Any], Sequence[Loss]]:
        """A Messages API body: ``system``, ``messages`` and ``tools``, and every loss."""
        body, losses = format_messages(messages, self.tag, self.system_in_place)
        if tools:
            body["tools"] = format_tools(tools)
        return body, losses.items

    def format_tools(self, tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
        """``tools`` entries: name, description and ``input_schema`` (closed when strict)."""
        return format_tools(tools)

    def parse_tools(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[ToolDefinition]:
        """The tool definitions of a request body (or a ``tools`` list), ``strict=False``.

        ``input_schema`` is kept exactly as given, so formatting gives it back. A
        missing description becomes the tool's name (ToolDefinition requires one).
        """
        try:
            return parse_tools(body_or_list)
        except DecodeError:
            raise
        except Exception as exc:
            raise entry_error(exc, "tools") from None

    # -- import a conversation ----------------------------------------------------------

    def parse_messages(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[Message]:
        """Import a conversation written as a Messages API request body (or its ``messages``)."""
        try:
            return read_request(body_or_list, self.tag)
        except DecodeError:
            raise
        except Exception as exc:
            raise entry_error(exc, "messages") from None

    # -- responses ---------------------------------------------------------------------

    def parse_response(self, body: Mapping[str, Any]) -> ChatResponse:
        """Parse a Messages API response body (an ``error`` body gives an ERROR response)."""
        try:
            return read_response(body, self.tag)
        except DecodeError:
            raise
        except Exception as exc:
            raise entry_error(exc) from None

    def stream(self) -> AnthropicStream:
        """A fresh accumulator for one SSE stream (feed each ``data:`` payload)."""
        return AnthropicStream(self.tag)


PROVIDER = AnthropicProvider()
"""The Anthropic provider object ``get_provider("anthropic")`` returns."""
