"""The Bedrock provider object: each direction delegated to its module, behind one guard."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..._message import Message
from ...errors import DecodeError, MessageError, ValidationError
from .._base import GUARDED_ERRORS, ChatResponse, Loss, Provider, format_error
from ._common import NAME, entry_error
from ._format import format_messages
from ._request import read_request
from ._response import read_response
from ._stream import BedrockStream
from ._tools import derived_tools, format_tools, parse_tools

if TYPE_CHECKING:
    from ...tools import ToolDefinition


class BedrockProvider(Provider):
    """The Amazon Bedrock Converse (and ConverseStream) wire format."""

    name = NAME

    # -- requests ---------------------------------------------------------------------

    def _format(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition]
    ) -> tuple[dict[str, Any], Sequence[Loss]]:
        """The ``messages``, ``system`` and ``toolConfig`` of a Converse request, and every loss."""
        try:
            body, losses, called = format_messages(messages, self.tag)
            if tools:
                body["toolConfig"] = {"tools": format_tools(tools)}
            elif called or _has_results(body):
                body["toolConfig"] = {"tools": derived_tools(called)}
        except MessageError:
            raise
        except GUARDED_ERRORS as exc:
            raise _format_failure(exc, messages) from None
        return body, losses.items

    def format_tools(self, tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
        """``toolConfig.tools`` entries: ``toolSpec`` with name, description and ``inputSchema.json``."""
        return format_tools(tools)

    def parse_tools(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[ToolDefinition]:
        """The tool specs of a request body, a ``toolConfig`` or a ``tools`` list (``strict=False``)."""
        try:
            return parse_tools(body_or_list)
        except DecodeError:
            raise
        except Exception as exc:
            raise entry_error(exc, "toolConfig") from None

    # -- import a conversation ----------------------------------------------------------

    def parse_messages(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[Message]:
        """Import a conversation written as a Converse request body (or its ``messages``)."""
        try:
            return read_request(body_or_list, self.tag)
        except DecodeError:
            raise
        except Exception as exc:
            raise entry_error(exc, "messages") from None

    # -- responses ---------------------------------------------------------------------

    def parse_response(self, body: Mapping[str, Any]) -> ChatResponse:
        """Parse a Converse response body (an AWS error body gives an ERROR response)."""
        try:
            return read_response(body, self.tag)
        except DecodeError:
            raise
        except Exception as exc:
            raise entry_error(exc) from None

    def stream(self) -> BedrockStream:
        """A fresh accumulator for one ConverseStream (feed each event the SDK yields)."""
        return BedrockStream(self.tag)


def _has_results(body: Mapping[str, Any]) -> bool:
    return any("toolResult" in b for turn in body["messages"] for b in turn["content"])


def _format_failure(exc: BaseException, messages: Sequence[object]) -> ValidationError:
    """What a formatting failure means: an item that is not a message, else state in extras
    that was edited by hand or stored corrupt."""
    for i, m in enumerate(messages):
        if not isinstance(m, Message):
            return ValidationError(
                f"cannot format a message of type {type(m).__name__}", f"messages[{i}]"
            )
    return format_error(exc)


PROVIDER = BedrockProvider()
"""The Bedrock provider object ``get_provider("bedrock")`` returns."""
