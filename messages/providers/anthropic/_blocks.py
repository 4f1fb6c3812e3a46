"""Assistant turns: their content blocks read once, in order, into one message.

One reader (``read_assistant``) serves a response and a request's assistant turn;
a finished stream gathers its blocks the same way. Each block is kept in wire
order as it is read: text as ``str`` (made a TextPart at the end only when the
layout is kept), reasoning as ReasoningPart, calls valid and invalid, unknown
blocks and the keys of known blocks no canonical field carries.
``assistant_message`` then decides once:

* the layout is kept (a request always; a response with unknown blocks or extra
  keys such as citations): each text block stays its own part, in place, and
  ``extras[tag]["order"]`` records where the calls sat among the parts;
* otherwise (the usual response): reasoning parts first, then the text joined,
  then the calls, with ``order`` only when an invalid call came before a valid one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..._build import message, text_part, tool_call_message, trusted
from ..._frozen import EMPTY, FrozenDict
from ..._ids import DERIVED_ID_PREFIX, derive_call_id
from ..._json import json_type
from ..._message import AssistantMessage, ToolCallMessage
from ..._parts import ReasoningPart
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import DecodeError, ident
from .._base import freeze_decoded, opt_str, required_str
from ._common import KNOWN_KEYS
from ._tools import read_call


def read_assistant(
    blocks: Sequence[Any],
    prefix: str,
    tag: str,
    request: bool,
    metadata: FrozenDict = EMPTY,
    more: dict[str, Any] | None = None,
) -> AssistantMessage:
    """The message of an assistant turn's content blocks (``more`` joins its state)."""
    parts: list[Any] = []  # a str for a text block, else a ReasoningPart
    seq: list[str] = []  # "p" a part, "c" a call, "i" an invalid call
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] | None = None
    unknown: list[FrozenDict] | None = None
    keys: list[FrozenDict] | None = None
    reasoning = False
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
                keys = extra_keys(keys, blk, kind, j, f"{prefix}[{j}]")
            continue
        if kind == "tool_use":
            call = read_call(blk.get("id"), blk.get("name"), blk.get("input"), None, prefix, j)
            if call.__class__ is ToolCall:
                calls.append(call)
                seq.append("c")
                # hot path: a valid call's block has its three keys and its type, so
                # only a fifth key can be one to keep (no scan: ~0.08 us a call)
                if len(blk) > 4:
                    keys = extra_keys(keys, blk, kind, j, f"{prefix}[{j}]")
                continue
            invalid = [call] if invalid is None else [*invalid, call]  # type: ignore[list-item]
            seq.append("i")
        elif kind == "thinking":
            path = f"{prefix}[{j}]"
            text = required_str(blk, "thinking", path)
            sig = opt_str(blk.get("signature"), f"{path}.signature")
            parts.append(trusted(ReasoningPart, text, sig or None, False, tag))
            seq.append("p")
            reasoning = True
        elif kind == "redacted_thinking":
            data = required_str(blk, "data", f"{prefix}[{j}]")
            parts.append(trusted(ReasoningPart, data, None, True, tag))
            seq.append("p")
            reasoning = True
        elif kind.__class__ is not str:
            raise DecodeError("expected a block type string", f"{prefix}[{j}].type")
        elif kind in ("image", "document", "tool_result"):
            raise DecodeError(
                f"a {kind} block is not allowed in an assistant message", f"{prefix}[{j}].type"
            )
        else:
            item = unknown_item(blk, j, f"{prefix}[{j}]")
            unknown = [item] if unknown is None else [*unknown, item]
            continue
        if not KNOWN_KEYS[kind].issuperset(blk):
            keys = extra_keys(keys, blk, kind, j, f"{prefix}[{j}]")
    return assistant_message(
        parts, seq, calls, invalid, unknown, keys, reasoning, tag, request, metadata, more, prefix
    )


def assistant_message(
    parts: list[Any],
    seq: list[str],
    calls: list[ToolCall],
    invalid: list[InvalidToolCall] | None,
    unknown: list[FrozenDict] | None,
    keys: list[FrozenDict] | None,
    reasoning: bool,
    tag: str,
    request: bool,
    metadata: FrozenDict,
    more: dict[str, Any] | None,
    where: str,
) -> AssistantMessage:
    """An assistant turn's blocks, read in wire order, as one message (module docstring).

    ``parts`` holds a str per text block and a ReasoningPart per thinking block;
    ``seq`` a letter per known block; ``unknown`` and ``keys`` what is kept of the
    rest (None when there is none).
    """
    n = len(calls)
    # hot path: one or two calls with distinct ids and no invalid call need no set
    if invalid is not None or (n > 1 and (n > 2 or calls[0].id == calls[1].id)):
        if request:
            _no_repeated_ids(calls, invalid or [], where)
        else:
            calls, invalid = _repeats_made_invalid(calls, invalid or [], tag, where)
    state = more
    content: Any
    if request or unknown is not None or keys is not None:
        # the layout is kept: each block stays its own part, in place
        content = tuple([text_part(p) if p.__class__ is str else p for p in parts])
        order = "".join(seq)
        if "cp" in order or "ip" in order or "ic" in order:
            state = _more(state, "order", order)
        if unknown is not None:
            state = _more(state, "unknown", tuple(unknown))
        if keys is not None:
            state = _more(state, "keys", tuple(keys))
    elif not reasoning:
        content = parts[0] if len(parts) == 1 else "".join(parts)
    else:  # reasoning parts first, then the text
        texts: list[str] = []
        reasoned: list[Any] = []
        for p in parts:  # hot path: one loop, not two comprehensions (~1,000 instructions)
            if p.__class__ is str:
                texts.append(p)
            else:
                reasoned.append(p)
        text = texts[0] if len(texts) == 1 else "".join(texts)
        if text:
            reasoned.append(text_part(text))
        content = tuple(reasoned)
    if invalid and calls and "order" not in (state or ()):
        # an invalid call before a valid one: the calls' order is kept too
        call_order = "".join([s for s in seq if s != "p"])
        if "ic" in call_order:
            n_parts = 0 if content == "" else (len(content) if type(content) is tuple else 1)
            state = _more(state, "order", "p" * n_parts + call_order)
    extras = EMPTY if state is None else FrozenDict({tag: FrozenDict(state)})
    if calls or invalid:
        return tool_call_message(
            ToolCallMessage,
            tuple(calls),
            content if content not in ("", ()) else None,
            tuple(invalid) if invalid else (),
            None,
            metadata,
            extras,
        )
    return message(AssistantMessage, content, None, metadata, extras)


def _more(state: dict[str, Any] | None, key: str, value: Any) -> dict[str, Any]:
    out = {} if state is None else state
    out[key] = value
    return out


def extra_keys(
    keys: list[FrozenDict] | None, blk: Mapping[str, Any], kind: str, index: int, path: str
) -> list[FrozenDict] | None:
    """``keys`` with the keys of a known block that its part has no field for."""
    known = KNOWN_KEYS[kind]
    extra = {k: v for k, v in blk.items() if k not in known}
    if not extra:
        return keys
    item = keys_item(index, kind, extra, path)
    return [item] if keys is None else [*keys, item]


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
