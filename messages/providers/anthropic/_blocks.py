"""Assistant turns: their content blocks read once, in order, into one message.

One reader (``read_assistant``) serves a response, a request's assistant turn and
(through ``Turn``) a finished stream. It keeps every block in wire order as it
goes: text as ``str`` (made a TextPart at the end only when the layout is kept),
reasoning as ReasoningPart, calls valid and invalid, unknown blocks and the keys of
known blocks no canonical field carries. ``Turn.message`` then decides once:

* the layout is kept (a request always; a response with unknown blocks or extra
  keys such as citations): each text block stays its own part, in place, and
  ``extras[tag]["order"]`` records where the calls sat among the parts;
* otherwise (the usual response): reasoning parts first, then the text joined,
  then the calls, with ``order`` only when an invalid call came before a valid one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..._build import message, text_part, tool_call_message
from ..._frozen import EMPTY, FrozenDict
from ..._ids import DERIVED_ID_PREFIX, derive_call_id
from ..._json import json_type
from ..._message import AssistantMessage, ToolCallMessage
from ..._parts import ContentPart, ReasoningPart
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import DecodeError, ident
from .._base import freeze_decoded, opt_str, required_str
from ._common import KNOWN_KEYS, state_extras
from ._tools import read_call


class Turn:
    """The blocks of one assistant turn, in wire order."""

    __slots__ = ("calls", "invalid", "keys", "layout", "parts", "seq", "unknown")

    def __init__(self) -> None:
        self.parts: list[str | ContentPart] = []  # str: a text block
        self.calls: list[ToolCall] = []
        self.invalid: list[InvalidToolCall] = []
        self.unknown: list[FrozenDict] = []
        self.keys: list[FrozenDict] = []
        self.seq: list[str] = []  # "p" a part, "c" a call, "i" an invalid call
        self.layout = False  # unknown blocks or kept keys: keep each block in place

    def add_call(self, call: ToolCall | InvalidToolCall) -> None:
        """Add a call read from a block (valid or not)."""
        if call.__class__ is ToolCall:
            self.calls.append(call)
            self.seq.append("c")
        else:
            self.invalid.append(call)  # type: ignore[arg-type]
            self.seq.append("i")

    def add_unknown(self, block: Mapping[str, Any], index: int, path: str) -> None:
        """Keep a block the canonical model has no part for (it goes back at ``index``)."""
        self.unknown.append(unknown_item(block, index, path))
        self.layout = True

    def add_keys(self, index: int, kind: str, keys: Mapping[str, Any], path: str) -> None:
        """Keep keys of the known block at ``index`` that no canonical field carries."""
        self.keys.append(keys_item(index, kind, keys, path))
        self.layout = True

    def message(
        self,
        tag: str,
        *,
        request: bool,
        metadata: FrozenDict = EMPTY,
        more: Mapping[str, Any] | None = None,
        where: str = "content",
    ) -> AssistantMessage:
        """The turn as a message (see the module docstring); ``more`` joins its state."""
        parts = self.parts
        calls = self.calls
        invalid = self.invalid
        if len(calls) + len(invalid) > 1:
            if request:
                _no_repeated_ids(calls, invalid, where)
            else:
                calls, invalid = _repeats_made_invalid(calls, invalid, tag, where)
        layout = request or self.layout
        state: dict[str, Any] = dict(more) if more else {}
        content: Any
        if layout:
            content = tuple(text_part(p) if p.__class__ is str else p for p in parts)
            order = "".join(self.seq)
            if "cp" in order or "ip" in order or "ic" in order:
                state["order"] = order
            if self.unknown:
                state["unknown"] = tuple(self.unknown)
            if self.keys:
                state["keys"] = tuple(self.keys)
        else:
            texts = [p for p in parts if p.__class__ is str]
            text = texts[0] if len(texts) == 1 else "".join(texts)
            content = text
            if len(texts) < len(parts):  # reasoning parts first, then the text
                reasoning = [p for p in parts if p.__class__ is not str]
                content = (*reasoning, text_part(text)) if text else tuple(reasoning)
            if invalid and calls and "ic" in "".join(s for s in self.seq if s != "p"):
                n = 0 if content == "" else (len(content) if type(content) is tuple else 1)
                state["order"] = "p" * n + "".join(s for s in self.seq if s != "p")
        extras = state_extras(tag, state)
        if calls or invalid:
            return tool_call_message(
                ToolCallMessage,
                tuple(calls),
                content if content not in ("", ()) else None,
                tuple(invalid),
                None,
                metadata,
                extras,
            )
        return message(AssistantMessage, content, None, metadata, extras)


def read_assistant(blocks: Sequence[Any], prefix: str, tag: str, turn: Turn) -> None:
    """Read the content blocks of an assistant turn into ``turn``."""
    parts = turn.parts
    seq = turn.seq
    for j, blk in enumerate(blocks):
        if blk.__class__ is not dict and not isinstance(blk, Mapping):
            raise DecodeError(f"expected an object, got {json_type(blk)}", f"{prefix}[{j}]")
        kind = blk.get("type")
        # hot path: the common block types first, by string equality; their paths
        # are formatted only when needed
        if kind == "text":
            text = blk.get("text")
            if text.__class__ is not str:
                text = required_str(blk, "text", f"{prefix}[{j}]")
            parts.append(text)
            seq.append("p")
            if len(blk) > 2:  # citations or other keys (both known keys are there)
                extra_keys(blk, kind, j, f"{prefix}[{j}]", turn)
            continue
        if kind == "tool_use":
            turn.add_call(
                read_call(blk.get("id"), blk.get("name"), blk.get("input"), None, prefix, j)
            )
        elif kind == "thinking":
            path = f"{prefix}[{j}]"
            text = required_str(blk, "thinking", path)
            sig = opt_str(blk.get("signature"), f"{path}.signature")
            parts.append(ReasoningPart(text, sig or None, False, tag))
            seq.append("p")
        elif kind == "redacted_thinking":
            data = required_str(blk, "data", f"{prefix}[{j}]")
            parts.append(ReasoningPart(data, None, True, tag))
            seq.append("p")
        elif kind.__class__ is not str:
            raise DecodeError("expected a block type string", f"{prefix}[{j}].type")
        elif kind in ("image", "document", "tool_result"):
            raise DecodeError(
                f"a {kind} block is not allowed in an assistant message", f"{prefix}[{j}].type"
            )
        else:
            turn.add_unknown(blk, j, f"{prefix}[{j}]")
            continue
        if not KNOWN_KEYS[kind].issuperset(blk):
            extra_keys(blk, kind, j, f"{prefix}[{j}]", turn)


def extra_keys(blk: Mapping[str, Any], kind: str, index: int, path: str, turn: Turn) -> None:
    """Keep the keys of a known block that its part has no field for."""
    known = KNOWN_KEYS[kind]
    extra = {k: v for k, v in blk.items() if k not in known}
    if extra:
        turn.add_keys(index, kind, extra, path)


def unknown_item(blk: Mapping[str, Any], index: int, path: str, within: bool = False) -> FrozenDict:
    """The kept form of a block the canonical model has no part for."""
    kind = blk.get("type")
    item = {
        "index": index,
        "path": path,
        "type": kind if type(kind) is str else "",
        "value": freeze_decoded(blk, path),
    }
    if within:
        item["within"] = "tool_result"
    return FrozenDict(item)


def keys_item(
    index: int, kind: str, keys: Mapping[str, Any], path: str, within: bool = False
) -> FrozenDict:
    """The kept form of keys of a known block (put back on the block at ``index``)."""
    item: dict[str, Any] = {"index": index, "type": kind, "keys": freeze_decoded(keys, path)}
    if within:
        item["within"] = "tool_result"
    return FrozenDict(item)


def _no_repeated_ids(calls: list[ToolCall], invalid: list[InvalidToolCall], where: str) -> None:
    seen: set[str] = set()
    every: list[ToolCall | InvalidToolCall] = [*calls, *invalid]
    for k, c in enumerate(every):
        if c.id in seen:
            raise DecodeError(
                f"duplicate tool_use id {ident(c.id)} within the message",
                f"{where}.tool_use[{k}].id",
            )
        seen.add(c.id)


def _repeats_made_invalid(
    calls: list[ToolCall], invalid: list[InvalidToolCall], tag: str, where: str
) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """A response's calls with each repeated id made an invalid call of a derived id.

    A repeated id cannot be answered apart from the first, and ids are unique within
    a message: the repeat keeps its name and arguments, under an id derived from the
    turn (the same response gives the same id).
    """
    n = len(calls)
    if n == 2 and not invalid and calls[0].id != calls[1].id:  # hot path: no set
        return calls, invalid
    seen: set[str] = set()
    kept: list[ToolCall] = []
    out: list[InvalidToolCall] = []
    every: list[ToolCall | InvalidToolCall] = [*calls, *invalid]
    for k, c in enumerate(every):
        if c.id not in seen:
            seen.add(c.id)
            if k < n:
                kept.append(c)  # type: ignore[arg-type]
            else:
                out.append(c)  # type: ignore[arg-type]
            continue
        new_id = derive_call_id(DERIVED_ID_PREFIX, tag, "repeated", c.id, k)
        raw = c.arguments_json if isinstance(c, ToolCall) else c.raw_arguments
        error = f"{where}: a repeated tool_use id {ident(c.id)}"
        out.append(InvalidToolCall(new_id, c.name, raw, error))
        seen.add(new_id)
    return kept, out
