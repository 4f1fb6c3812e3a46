"""Immutable, typed, provider-agnostic model of LLM conversations.

The core value objects are imported eagerly; everything heavier (codecs, history,
envelope, tool definitions) is loaded on first use through a module
``__getattr__`` (PEP 562), so ``import messages`` stays fast. Provider formats and
storage live in the ``messages.providers`` and ``messages.storage`` sub-packages.
"""

from __future__ import annotations

from ._message import (
    AssistantMessage,
    Content,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from ._parts import AudioPart, ContentPart, FilePart, ImagePart, ReasoningPart, TextPart
from ._role import MessageRole
from ._tool_call import InvalidToolCall, ToolCall
from .errors import (
    DecodeError,
    LossError,
    MessageError,
    OrderingError,
    StorageError,
    ValidationError,
)

TYPE_CHECKING = False  # not typing's: `import messages` does not import typing
if TYPE_CHECKING:
    from typing import Any

    from ._cache import CacheHint
    from ._codec import (
        from_dict,
        from_json,
        messages_from_dict,
        messages_from_json,
        to_dict,
        to_json,
    )
    from ._collections import Messages, MessageStore
    from ._envelope import Envelope, EnvelopeType, to_provider_messages
    from ._history import ConversationHistory
    from ._jsonl import dump_jsonl, from_jsonl, iter_jsonl, to_jsonl
    from ._ordering import OrderingPolicy
    from ._registry import MessageRegistry, default_registry
    from ._repair import Repair, repair
    from ._streaming import ToolCallAccumulator, ToolCallDelta
    from ._tokens import estimate_tokens
    from ._tool_result import ToolResult
    from .tools import Toolbox, ToolDefinition

__version__ = "0.1.0"

__all__ = [
    # errors
    "MessageError",
    "ValidationError",
    "DecodeError",
    "OrderingError",
    "StorageError",
    "LossError",
    # roles and content
    "MessageRole",
    "TextPart",
    "ImagePart",
    "AudioPart",
    "FilePart",
    "ReasoningPart",
    "ContentPart",
    "Content",
    "CacheHint",
    # tools
    "ToolCall",
    "InvalidToolCall",
    "ToolResult",
    "ToolDefinition",
    "ToolCallDelta",
    "ToolCallAccumulator",
    "Toolbox",
    # messages
    "Message",
    "SystemMessage",
    "DeveloperMessage",
    "UserMessage",
    "AssistantMessage",
    "ToolCallMessage",
    "ToolResultMessage",
    # codecs
    "to_dict",
    "from_dict",
    "to_json",
    "from_json",
    "messages_from_dict",
    "messages_from_json",
    "to_jsonl",
    "from_jsonl",
    "dump_jsonl",
    "iter_jsonl",
    "MessageRegistry",
    "default_registry",
    # collections and history
    "Messages",
    "MessageStore",
    "ConversationHistory",
    "OrderingPolicy",
    "Repair",
    "repair",
    "estimate_tokens",
    # envelope
    "Envelope",
    "EnvelopeType",
    "to_provider_messages",
]

_LAZY = {
    "CacheHint": "._cache",
    "to_dict": "._codec",
    "from_dict": "._codec",
    "to_json": "._codec",
    "from_json": "._codec",
    "messages_from_dict": "._codec",
    "messages_from_json": "._codec",
    "to_jsonl": "._jsonl",
    "from_jsonl": "._jsonl",
    "dump_jsonl": "._jsonl",
    "iter_jsonl": "._jsonl",
    "MessageRegistry": "._registry",
    "default_registry": "._registry",
    "Messages": "._collections",
    "MessageStore": "._collections",
    "ConversationHistory": "._history",
    "OrderingPolicy": "._ordering",
    "Repair": "._repair",
    "repair": "._repair",
    "estimate_tokens": "._tokens",
    "Envelope": "._envelope",
    "EnvelopeType": "._envelope",
    "to_provider_messages": "._envelope",
    "ToolDefinition": ".tools",
    "ToolResult": "._tool_result",
    "ToolCallDelta": "._streaming",
    "ToolCallAccumulator": "._streaming",
    "Toolbox": ".tools",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
