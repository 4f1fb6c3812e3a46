"""A fast, documented estimate of how many tokens a message costs.

The estimate is deliberately simple and provider-neutral (no tokenizer ships with
a zero-dependency library); pass your own ``counter(message) -> int`` to
:meth:`ConversationHistory.truncate` when you need exact numbers. For English
text with the common BPE tokenizers, four characters per token is the usual rule
of thumb; the fixed overheads follow OpenAI's published per-message accounting.

Formula (every division rounds up)::

    tokens = 4                                   # per message: role and delimiters
           + chars(text and reasoning parts) / 4
           + 85 per image, audio or file part    # one low-detail image tile
           + per tool call: 8 + (len(name) + len(arguments_json)) / 4
           + for a tool result: len(tool_call_id) / 4
           + len(name) / 4 when the message has a name
"""

from __future__ import annotations

from ._message import Message, ToolCallMessage, ToolResultMessage
from ._parts import ReasoningPart, TextPart

__all__ = ["MEDIA_PART_TOKENS", "MESSAGE_OVERHEAD", "TOOL_CALL_OVERHEAD", "estimate_tokens"]

MESSAGE_OVERHEAD = 4
"""Tokens every message costs besides its content."""
TOOL_CALL_OVERHEAD = 8
"""Tokens every tool call costs besides its name and arguments."""
MEDIA_PART_TOKENS = 85
"""Tokens charged for each image, audio or file part."""

# What to count besides the content, per message class: 0 nothing, 1 tool calls,
# 2 a tool_call_id. Filled on first sight of a class.
_EXTRA: dict[type, int] = {ToolCallMessage: 1, ToolResultMessage: 2}


def _extra_of(cls: type) -> int:
    extra = (
        1 if issubclass(cls, ToolCallMessage) else 2 if issubclass(cls, ToolResultMessage) else 0
    )
    _EXTRA[cls] = extra
    return extra


def estimate_tokens(message: Message) -> int:
    """Estimate the tokens of one message: ~4 characters per token plus fixed overheads."""
    # hot path: truncate() calls this once per message. A per-class dict says what to
    # count besides the content.
    cls = message.__class__
    extra = _EXTRA.get(cls)
    if extra is None:
        extra = _extra_of(cls)
    content = getattr(message, "content", None)
    tokens = MESSAGE_OVERHEAD
    if content.__class__ is str:
        chars = len(content)
    else:
        chars = 0
        for part in content or ():
            pcls = part.__class__
            if pcls is TextPart or pcls is ReasoningPart:
                chars += len(part.text)
            else:
                tokens += MEDIA_PART_TOKENS
    tokens += (chars + 3) // 4
    if extra == 1:
        for call in message.tool_calls:
            tokens += TOOL_CALL_OVERHEAD + (len(call.name) + len(call.arguments_json) + 3) // 4
        for bad in message.invalid_tool_calls:
            written = bad.name or ""
            tokens += TOOL_CALL_OVERHEAD + (len(written) + len(bad.raw_arguments) + 3) // 4
    elif extra == 2:
        tokens += (len(message.tool_call_id) + 3) // 4  # type: ignore[attr-defined]
    name = message.name
    if name:
        tokens += (len(name) + 3) // 4
    return tokens
