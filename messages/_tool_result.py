"""The outcome of running a tool, before it becomes a message."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ._lazy import LazyModule
from ._message import TOOL_PARTS, ToolResultMessage, check_content
from ._parts import ContentPart, TextPart
from .errors import ValidationError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["ToolResult"]


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool returned for ``tool_call_id``: text or parts, maybe an error."""

    tool_call_id: str
    content: str | Sequence[ContentPart]  # stored as a tuple; any sequence is accepted
    is_error: bool = False
    tool_name: str | None = None

    def __post_init__(self) -> None:
        if type(self.tool_call_id) is not str or not self.tool_call_id:
            raise ValidationError("tool_call_id is required (a non-empty str)", "tool_call_id")
        if type(self.is_error) is not bool:
            raise ValidationError(f"expected bool, got {type(self.is_error).__name__}", "is_error")
        if self.tool_name is not None and (type(self.tool_name) is not str or not self.tool_name):
            raise ValidationError("expected a non-empty str or None", "tool_name")
        content: Any = self.content
        if type(content) is not str:
            object.__setattr__(self, "content", check_content(content, TOOL_PARTS))

    @classmethod
    def success(
        cls, tool_call_id: str, content: str | Sequence[ContentPart], tool_name: str | None = None
    ) -> ToolResult:
        """A successful result."""
        return cls(tool_call_id, content, False, tool_name)

    @classmethod
    def error(cls, tool_call_id: str, message: str, tool_name: str | None = None) -> ToolResult:
        """A failed result whose content is the error message."""
        return cls(tool_call_id, message, True, tool_name)

    @property
    def text(self) -> str:
        """All text of the result joined with no separator."""
        c = self.content
        if type(c) is str:
            return c
        return "".join([p.text for p in c if type(p) is TextPart])

    def to_message(self, **kwargs: Any) -> ToolResultMessage:
        """This result as a ToolResultMessage (``kwargs``: name, metadata, extras, id, created_at)."""
        return ToolResultMessage(
            self.tool_call_id, self.content, self.is_error, self.tool_name, **kwargs
        )

    def to_dict(self) -> dict[str, Any]:
        """This result as ``{"tool_call_id", "content", "is_error"?, "tool_name"?}``."""
        return _codec.tool_result_to_dict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ToolResult:
        """Decode a tool result dict; DecodeError on bad input."""
        return _codec.tool_result_from_dict(d)

    def __repr__(self) -> str:
        size = len(self.content) if type(self.content) is str else len(self.text)
        return (
            f"ToolResult(tool_call_id={self.tool_call_id!r}, is_error={self.is_error}, "
            f"text_len={size})"
        )


# The codec is imported on first use (import time); see _lazy.
if TYPE_CHECKING:
    from . import _codec
else:
    _codec = LazyModule("._codec", __package__, globals(), "_codec")
