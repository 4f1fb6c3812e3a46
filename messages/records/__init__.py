"""Datasets of one conversation per line: fine-tuning sets, batch-API files, chat datasets.

``read(file, format)`` yields a :class:`Record` per line (a conversation, its tools,
its key and the line's other fields), as the lines are read; ``write(records, file,
format)`` writes one line per record. The formats, by the names the command line uses:

``canonical``
    ``{"key"?, "messages": [canonical dicts], "tools"?: [...]}``, plus the record's extras.
``openai-ft``
    OpenAI chat fine-tuning: ``{"messages": [...], "tools"?: [...]}``.
``openai-batch``
    ``{"custom_id", "method": "POST", "url", "body"}`` for ``/v1/chat/completions``
    or ``/v1/responses``.
``anthropic-batch``
    ``{"custom_id", "params"}``: a Message Batches request.
``gemini-batch``
    ``{"key", "request"}``: a batch-mode GenerateContentRequest.
``sharegpt``
    ``{"conversations": [{"from", "value"}], "tools"?: "<JSON text>"}``.

Whatever a format cannot carry is a Loss, located by the output line and the record's
key, and handled as ``write``'s ``on_loss`` says.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._lines import OnLoss, read, write
    from ._record import Record

__all__ = ["FORMAT_NAMES", "OnLoss", "Record", "read", "write"]

FORMAT_NAMES: tuple[str, ...] = (
    "canonical",
    "openai-ft",
    "openai-batch",
    "anthropic-batch",
    "gemini-batch",
    "sharegpt",
)
"""The record formats ``read`` and ``write`` accept (the command line's names)."""

_LAZY = {"Record": "._record", "read": "._lines", "write": "._lines", "OnLoss": "._lines"}


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
