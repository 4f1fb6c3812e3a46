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
from ._parts import ContentPart, ReasoningPart, TextPart

__all__ = ["MEDIA_PART_TOKENS", "MESSAGE_OVERHEAD", "TOOL_CALL_OVERHEAD", "estimate_tokens"]

MESSAGE_OVERHEAD = 4
"""Tokens every message costs besides its content."""
TOOL_CALL_OVERHEAD = 8
"""Tokens every tool call costs besides its name and arguments."""
MEDIA_PART_TOKENS = 85
"""Tokens charged for each image, audio or file part."""


def _quarter(chars: int) -> int:
    """Tokens for ``chars`` characters: four to a token, rounded up."""
    return (chars + 3) // 4


def estimate_tokens(message: Message) -> int:
    """Estimate the tokens of one message: four characters per token plus fixed overheads."""
    tokens = MESSAGE_OVERHEAD + _content_tokens(getattr(message, "content", None))
    if isinstance(message, ToolCallMessage):
        for call in message.tool_calls:
            tokens += TOOL_CALL_OVERHEAD + _quarter(len(call.name) + len(call.arguments_json))
        for bad in message.invalid_tool_calls:
            written = bad.name or ""
            tokens += TOOL_CALL_OVERHEAD + _quarter(len(written) + len(bad.raw_arguments))
    elif isinstance(message, ToolResultMessage):
        tokens += _quarter(len(message.tool_call_id))
    if message.name:
        tokens += _quarter(len(message.name))
    return tokens


def _content_tokens(content: str | tuple[ContentPart, ...] | None) -> int:
    if isinstance(content, str):
        return _quarter(len(content))
    chars = media = 0
    for part in content or ():
        if type(part) is TextPart or type(part) is ReasoningPart:
            chars += len(part.text)
        else:
            media += MEDIA_PART_TOKENS
    return media + _quarter(chars)
