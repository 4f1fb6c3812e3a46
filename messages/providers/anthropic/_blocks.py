"""Assistant turns: their content blocks read once, in order, into one message.

One reader (``read_assistant``) serves a response and a request's assistant turn;
a finished stream gathers its blocks into the same ``AssistantTurn``. Each block is
kept in wire order as it is read: text as ``str`` (made a TextPart at the end only
when the layout is kept), reasoning as ReasoningPart, calls valid and invalid,
unknown blocks and the keys of known blocks no canonical field carries.
``AssistantTurn.message`` then decides once:

* the layout is kept (a request always; a response with unknown blocks or extra
  keys such as citations): each text block stays its own part, in place, and
  ``extras[tag]["order"]`` records where the calls sat among the parts;
* otherwise (the usual response): reasoning parts first, then the text joined,
  then the calls, with ``order`` only when an invalid call came before a valid one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..._build import message, text_part, tool_call_message, trusted
from ..._frozen import EMPTY, FrozenDict
from ..._ids import DERIVED_ID_PREFIX, derive_call_id
from ..._json import json_type
from ..._message import AssistantMessage, ToolCallMessage
from ..._parts import ContentPart, ReasoningPart
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import DecodeError, ident
from .._base import freeze_decoded, opt_str, required_str
from ._common import KNOWN_KEYS
from ._tools import read_call


class AssistantTurn:
    """The blocks of one assistant turn, in wire order, as they are read."""

    __slots__ = ("calls", "invalid", "keys", "parts", "reasoning", "seq", "tag", "unknown")

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.parts: list[str | ReasoningPart] = []  # a str per text block
        self.seq: list[str] = []  # "p" a part, "c" a call, "i" an invalid call
        self.calls: list[ToolCall] = []
        self.invalid: list[InvalidToolCall] = []
        self.unknown: list[FrozenDict] = []
        self.keys: list[FrozenDict] = []
        self.reasoning = False

    def add_text(self, text: str) -> None:
        self.parts.append(text)
        self.seq.append("p")

    def add_reasoning(self, part: ReasoningPart) -> None:
        self.parts.append(part)
        self.seq.append("p")
        self.reasoning = True

    def add_call(self, call: ToolCall | InvalidToolCall) -> None:
        if isinstance(call, ToolCall):
            self.calls.append(call)
            self.seq.append("c")
        else:
            self.invalid.append(call)
            self.seq.append("i")

    def add_unknown(self, blk: Mapping[str, Any], index: int, path: str) -> None:
        self.unknown.append(unknown_item(blk, index, path))

    def keep_keys(self, blk: Mapping[str, Any], kind: str, prefix: str, index: int) -> None:
        """Keep the keys of the known block ``prefix[index]`` that its part has no field for."""
        known = KNOWN_KEYS[kind]
        if not known.issuperset(blk):
            extra = {k: v for k, v in blk.items() if k not in known}
            self.keys.append(keys_item(index, kind, extra, f"{prefix}[{index}]"))

    def message(
        self,
        request: bool,
        metadata: FrozenDict = EMPTY,
        more: Mapping[str, Any] | None = None,
        where: str = "content",
    ) -> AssistantMessage:
        """The turn as one message (module docstring); ``more`` joins its state."""
        calls, invalid = self.calls, self.invalid
        if request:
            _no_repeated_ids(calls, invalid, where)
        else:
            calls, invalid = _repeats_made_invalid(calls, invalid, self.tag, where)
        state: dict[str, Any] = dict(more) if more else {}
        content: str | tuple[ContentPart, ...]
        if request or self.unknown or self.keys:
            content = self._kept_layout(state)
        elif not self.reasoning:
            content = "".join([p for p in self.parts if isinstance(p, str)])
        else:
            content = self._reasoning_first()
        if invalid and calls and "order" not in state:
            # an invalid call before a valid one: the calls' order is kept too
            call_order = "".join([s for s in self.seq if s != "p"])
            if "ic" in call_order:
                n_parts = len(content) if isinstance(content, tuple) else 1 if content else 0
                state["order"] = "p" * n_parts + call_order
        extras = FrozenDict({self.tag: FrozenDict(state)}) if state else EMPTY
        if calls or invalid:
            return tool_call_message(
                ToolCallMessage, tuple(calls), content or None, tuple(invalid), None, metadata,
                extras,
            )  # fmt: skip
        return message(AssistantMessage, content, None, metadata, extras)

    def _kept_layout(self, state: dict[str, Any]) -> tuple[ContentPart, ...]:
        """Each block its own part, in place; where the calls sat, the unknown blocks
        and the kept keys go in ``state``."""
        order = "".join(self.seq)
        if "cp" in order or "ip" in order or "ic" in order:
            state["order"] = order
        if self.unknown:
            state["unknown"] = tuple(self.unknown)
        if self.keys:
            state["keys"] = tuple(self.keys)
        return tuple([text_part(p) if isinstance(p, str) else p for p in self.parts])

    def _reasoning_first(self) -> tuple[ContentPart, ...]:
        """The reasoning parts, then the text joined into one part."""
        reasoned: list[ContentPart] = [p for p in self.parts if not isinstance(p, str)]
        text = "".join([p for p in self.parts if isinstance(p, str)])
        if text:
            reasoned.append(text_part(text))
        return tuple(reasoned)


# -- reading blocks -----------------------------------------------------------------------

#: A block reader: (turn, block, prefix, index); paths are made only when needed.
_Reader = Callable[[AssistantTurn, Mapping[str, Any], str, int], None]


def _text(turn: AssistantTurn, blk: Mapping[str, Any], prefix: str, j: int) -> None:
    text = blk.get("text")
    if type(text) is not str:
        text = required_str(blk, "text", f"{prefix}[{j}]")
    turn.add_text(text)
    turn.keep_keys(blk, "text", prefix, j)


def _tool_use(turn: AssistantTurn, blk: Mapping[str, Any], prefix: str, j: int) -> None:
    turn.add_call(read_call(blk.get("id"), blk.get("name"), blk.get("input"), None, prefix, j))
    turn.keep_keys(blk, "tool_use", prefix, j)


def _thinking(turn: AssistantTurn, blk: Mapping[str, Any], prefix: str, j: int) -> None:
    path = f"{prefix}[{j}]"
    text = required_str(blk, "thinking", path)
    sig = opt_str(blk.get("signature"), f"{path}.signature")
    turn.add_reasoning(trusted(ReasoningPart, text, sig or None, False, turn.tag))
    turn.keep_keys(blk, "thinking", prefix, j)


def _redacted_thinking(turn: AssistantTurn, blk: Mapping[str, Any], prefix: str, j: int) -> None:
    data = required_str(blk, "data", f"{prefix}[{j}]")
    turn.add_reasoning(trusted(ReasoningPart, data, None, True, turn.tag))
    turn.keep_keys(blk, "redacted_thinking", prefix, j)


_READERS: dict[str, _Reader] = {
    "text": _text,
    "tool_use": _tool_use,
    "thinking": _thinking,
    "redacted_thinking": _redacted_thinking,
}
#: Blocks of a user turn, refused in an assistant turn.
_USER_ONLY = frozenset(("image", "document", "tool_result"))


def read_assistant(
    blocks: Sequence[Any],
    prefix: str,
    tag: str,
    request: bool,
    metadata: FrozenDict = EMPTY,
    more: Mapping[str, Any] | None = None,
) -> AssistantMessage:
    """The message of an assistant turn's content blocks (``more`` joins its state)."""
    turn = AssistantTurn(tag)
    for j, blk in enumerate(blocks):
        if not isinstance(blk, (dict, Mapping)):
            raise DecodeError(f"expected an object, got {json_type(blk)}", f"{prefix}[{j}]")
        kind = blk.get("type")
        if not isinstance(kind, str):
            raise DecodeError("expected a block type string", f"{prefix}[{j}].type")
        reader = _READERS.get(kind)
        if reader is not None:
            reader(turn, blk, prefix, j)
        elif kind in _USER_ONLY:
            raise DecodeError(
                f"a {kind} block is not allowed in an assistant message", f"{prefix}[{j}].type"
            )
        else:
            turn.add_unknown(blk, j, f"{prefix}[{j}]")
    return turn.message(request, metadata, more, prefix)


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


# -- repeated ids -------------------------------------------------------------------------


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
    seen: set[str] = set()
    kept: list[ToolCall] = []
    out: list[InvalidToolCall] = []
    every: list[ToolCall | InvalidToolCall] = [*calls, *invalid]
    for k, c in enumerate(every):
        if c.id not in seen:
            seen.add(c.id)
            if isinstance(c, ToolCall):
                kept.append(c)
            else:
                out.append(c)
            continue
        new_id = derive_call_id(DERIVED_ID_PREFIX, tag, "repeated", c.id, k)
        raw = c.arguments_json if isinstance(c, ToolCall) else c.raw_arguments
        error = f"{where}: a repeated tool_use id {ident(c.id)}"
        out.append(InvalidToolCall(new_id, c.name, raw, error))
        seen.add(new_id)
    return kept, out
