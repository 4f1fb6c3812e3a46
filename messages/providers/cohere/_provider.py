"""The Cohere provider object: each direction delegated to its module, behind one guard."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ..._message import Message
from ...errors import DecodeError
from .._base import ChatResponse, Loss, Provider, guard_error
from ._common import NAME
from ._format import format_messages
from ._request import read_request
from ._response import read_response
from ._stream import CohereStream
from ._tools import format_tools, parse_tools

if TYPE_CHECKING:
    from ...tools import ToolDefinition

_T = TypeVar("_T")


class CohereProvider(Provider):
    """The Cohere v2 chat wire format (``POST /v2/chat``)."""

    name = NAME

    # -- requests ---------------------------------------------------------------------

    def _format(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition]
    ) -> tuple[dict[str, Any], Sequence[Loss]]:
        """A v2 chat body: ``messages``, ``documents`` and ``tools``, and every loss."""
        body, losses = format_messages(messages, self.tag)
        if tools:
            body["tools"] = format_tools(tools)
        return body, losses.items

    def format_tools(self, tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
        """``tools`` entries in the function shape (a strict definition: its closed schema)."""
        return format_tools(tools)

    def parse_tools(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[ToolDefinition]:
        """The tool definitions of a request body (or a ``tools`` list), ``strict=False``."""
        return _decoded(parse_tools, body_or_list, "tools")

    # -- import a conversation ----------------------------------------------------------

    def parse_messages(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[Message]:
        """Import a conversation written as a v2 chat request body (or its ``messages``)."""
        return _decoded(read_request, body_or_list, "messages", self.tag)

    # -- responses ---------------------------------------------------------------------

    def parse_response(self, body: Mapping[str, Any]) -> ChatResponse:
        """Parse a v2 chat response body (an error body gives an ERROR response)."""
        return _decoded(read_response, body, "", self.tag)

    def stream(self) -> CohereStream:
        """A fresh accumulator for one v2 chat stream (feed each ``data:`` payload)."""
        return CohereStream(self.tag)


def _decoded(fn: Callable[..., _T], value: object, path: str, *more: Any) -> _T:
    """``fn(value, *more)``, raising DecodeError and nothing else (a missed case, a
    hostile ``Mapping`` or input nested too deeply included)."""
    try:
        return fn(value, *more)
    except DecodeError:
        raise
    except Exception as exc:
        raise guard_error(exc, path) from None


PROVIDER = CohereProvider()
"""The Cohere provider object ``get_provider("cohere")`` returns."""
