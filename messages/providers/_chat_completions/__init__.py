"""The OpenAI chat-completions wire format, shared by its dialects (openai, groq, vllm).

A dialect is a :class:`ChatCompletionsProvider` subclass that sets the rules of
:class:`ChatCompletionsFormat` (developer role, the field its reasoning goes back
in, audio and file input, OpenAI strict tools, pairing of tool results) and, when
its stream carries vendor data, a :class:`ChatCompletionsStream` subclass. Ollama
shares the readers, the tool shape and the replay rules.

Modules, one per concern: ``_format`` (requests), ``_parse`` (responses, stored
requests, the provider class), ``_stream`` (streams), ``_calls`` (tool calls,
valid, invalid and of other types), ``_tools`` (tool definitions and OpenAI
strict mode), ``_readers`` (what they all share).
"""

from __future__ import annotations

from ._format import CallIdMap, ChatCompletionsFormat
from ._parse import ChatCompletionsProvider, PartDecoder
from ._readers import (
    FINISH,
    IS_ERROR_RULE,
    FormattingProvider,
    ToolPairing,
    call_state_losses,
    chat_usage,
    error_prefixed,
    foreign_event,
    freeze_arguments,
    kind_at,
    own_extras,
    own_reasoning,
    parse_arguments,
    parser,
    read_error,
    reasoning_to_send,
    reinsert_unknown,
    respond,
    unique_ids,
)
from ._stream import ChatCompletionsStream, UsageReader, plain_usage
from ._tools import function_tools, openai_strict_schema, parse_function_tools

__all__ = [
    "FINISH",
    "IS_ERROR_RULE",
    "ChatCompletionsFormat",
    "ChatCompletionsProvider",
    "CallIdMap",
    "ChatCompletionsStream",
    "FormattingProvider",
    "ToolPairing",
    "call_state_losses",
    "chat_usage",
    "error_prefixed",
    "foreign_event",
    "freeze_arguments",
    "function_tools",
    "kind_at",
    "openai_strict_schema",
    "own_extras",
    "own_reasoning",
    "parse_arguments",
    "parse_function_tools",
    "PartDecoder",
    "UsageReader",
    "parser",
    "plain_usage",
    "read_error",
    "reasoning_to_send",
    "reinsert_unknown",
    "respond",
    "unique_ids",
]
