"""Steps to messages: a model turn's steps, a user's input, a function result.

The Interactions input is a string, one content item, a list of content items, or a
list of steps (``user_input``, ``model_output``, ``thought``, ``function_call``,
``function_result`` and the built-in tools' steps); the launch-era API also took a
list of turns (``{"role": "user" | "model", "content": ...}`` whose content list held
the same typed items). All of them are read here; ``ModelTurn`` also reads the steps
of a response and of a stream.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ... import _build
from ..._frozen import EMPTY, FrozenDict
from ..._ids import DERIVED_ID_PREFIX, derive_call_id
from ..._json import json_type
from ..._message import AssistantMessage, Message, ToolCallMessage, ToolResultMessage, UserMessage
from ..._parts import ContentPart, ReasoningPart, TextPart
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import DecodeError
from .._base import raw_json_text, tool_name_valid, unique_calls
from .._json_results import json_object_of
from ._content import CONTENT_TYPES, parse_item
from ._wire import (
    INPUT,
    KEYS,
    LAYOUT,
    OUTPUT_KEYS,
    RESULT,
    STEP,
    SUMMARIES,
    UNKNOWN,
    array,
    frozen,
    mapping,
    opt_string,
    state,
    string,
    type_of,
)

__all__ = ["ModelTurn", "default_layout", "input_messages", "parse_content"]

_THOUGHT_KEYS: Final = frozenset(("type", "signature", "summary"))
_CALL_KEYS: Final = frozenset(("type", "id", "name", "arguments"))
_RESULT_KEYS: Final = frozenset(("type", "call_id", "name", "result", "is_error"))
_OUTPUT_KEYS: Final = frozenset(("type", "content"))


def default_layout(parts: Sequence[ContentPart], calls: int, invalid: int) -> str:
    """The layout a turn is formatted in when none is kept: its parts, then its calls."""
    letters = ["t" if type(p) is ReasoningPart else "o" for p in parts]
    return "".join(letters) + "c" * calls + "x" * invalid


def parse_content(
    items: Sequence[Any], path: str
) -> tuple[list[ContentPart], list[FrozenDict], list[FrozenDict]]:
    """The parts of a content list, its unknown items (with their index) and the keys
    kept for its parts."""
    parts: list[ContentPart] = []
    unknown: list[FrozenDict] = []
    keys: list[FrozenDict] = []
    for j, raw in enumerate(items):
        where = f"{path}[{j}]"
        item = mapping(raw, where)
        kind = type_of(item)
        if kind not in CONTENT_TYPES:
            value = frozen(item, where)
            unknown.append(FrozenDict(index=j, path=where, type=_kind_name(kind), value=value))
            continue
        part, kept = parse_item(item, where)
        if kept:
            keys.append(FrozenDict(index=len(parts), keys=frozen(kept, where)))
        parts.append(part)
    return parts, unknown, keys


def _kind_name(kind: Any) -> str:
    return kind if isinstance(kind, str) else "unknown"


def _content_list(value: Any, path: str) -> Sequence[Any]:
    """A step's or turn's ``content``: a list, a lone string (one text), or none."""
    if value is None:
        return ()
    if type(value) is str:
        return ({"type": "text", "text": value},)
    return array(value, path)


class ModelTurn:
    """The steps of one model turn as they are read, then its AssistantMessage."""

    __slots__ = (
        "calls",
        "invalid",
        "keys",
        "layout",
        "output_steps",
        "parts",
        "step_keys",
        "summaries",
        "tag",
        "unknown",
    )

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.parts: list[ContentPart] = []
        self.calls: list[ToolCall] = []
        self.invalid: list[InvalidToolCall] = []
        self.layout: list[str] = []
        self.unknown: list[FrozenDict] = []
        self.keys: list[FrozenDict] = []
        self.summaries: list[FrozenDict] = []
        self.step_keys: list[FrozenDict] = []  # keys of model_output steps, by ordinal
        self.output_steps = 0

    def __bool__(self) -> bool:
        return bool(self.layout)

    def add(self, step: Mapping[str, Any], path: str, key: str = "") -> None:
        """Read one step of the turn (``key`` makes a derived call id unique)."""
        kind = step.get("type")
        if kind == "thought":
            self.thought(step, path)
        elif kind == "model_output" and step.get("content"):
            self.output(_content_list(step.get("content"), f"{path}.content"), path)
            more = {k: v for k, v in step.items() if k not in _OUTPUT_KEYS}
            if more:  # an error status, say: put back on the same step
                index = self.output_steps - 1
                self.step_keys.append(FrozenDict(index=index, keys=frozen(more, path)))
        elif kind == "function_call":
            self.call(step, path, key)
        else:
            value = frozen(step, path)
            self.unknown.append(FrozenDict(path=path, type=_kind_name(kind), value=value))
            self.layout.append("u")

    def thought(self, step: Mapping[str, Any], path: str) -> None:
        signature = opt_string(step.get("signature"), f"{path}.signature") or None
        summary = step.get("summary")
        items = () if summary is None else array(summary, f"{path}.summary")
        texts = []
        for j, raw in enumerate(items):
            item = mapping(raw, f"{path}.summary[{j}]")
            if item.get("type") == "text":
                texts.append(string(item.get("text"), f"{path}.summary[{j}].text"))
        index = len(self.parts)
        simple = summary is None or (
            len(items) == len(texts) == 1 and set(items[0]) == {"type", "text"} and texts[0] != ""
        )
        if not simple:
            self.summaries.append(FrozenDict(index=index, summary=frozen(summary, path)))
        more = {k: v for k, v in step.items() if k not in _THOUGHT_KEYS}
        if more or step.get("signature") == "":
            if step.get("signature") == "":
                more["signature"] = ""
            self.keys.append(FrozenDict(index=index, keys=frozen(more, path)))
        text = "".join(texts)
        self.parts.append(_build.trusted(ReasoningPart, text, signature, False, self.tag))
        self.layout.append("t")

    def output(self, items: Sequence[Any], path: str) -> None:
        self.output_steps += 1
        if self.layout and self.layout[-1] in ("o", "m"):
            self.layout.append("|")
        for j, raw in enumerate(items):
            where = f"{path}.content[{j}]"
            item = mapping(raw, where)
            if item.get("type") != "text":
                kind = _kind_name(item.get("type"))
                value = frozen(item, where)
                self.unknown.append(FrozenDict(path=where, type=kind, value=value))
                self.layout.append("m")
                continue
            part, kept = parse_item(item, where)
            if kept:
                self.keys.append(FrozenDict(index=len(self.parts), keys=frozen(kept, where)))
            self.parts.append(part)
            self.layout.append("o")

    def call(self, step: Mapping[str, Any], path: str, key: str) -> None:
        name = step.get("name")
        args = step.get("arguments")
        more = {k: v for k, v in step.items() if k not in _CALL_KEYS}
        extras = FrozenDict({self.tag: FrozenDict(step=frozen(more, path))}) if more else EMPTY
        call_id = opt_string(step.get("id"), f"{path}.id")
        if not call_id:
            n = len(self.calls) + len(self.invalid)
            call_id = derive_call_id(DERIVED_ID_PREFIX, key, n, name, raw_json_text(args))
        if type(name) is str and tool_name_valid(name) and isinstance(args, (dict, Mapping)):
            arguments = frozen(args, f"{path}.arguments")
            self.calls.append(_build.tool_call(ToolCall, call_id, name, arguments, extras))
            self.layout.append("c")
            return
        raw = args if type(args) is str else raw_json_text(args)
        error = (
            "a tool name that breaks the name rule"
            if isinstance(args, (dict, Mapping))
            else ("arguments that are not a JSON object")
        )
        bad_name = name if type(name) is str else None
        self.invalid.append(
            InvalidToolCall(call_id, bad_name, raw, f"{path}: {error}", extras=extras)
        )
        self.layout.append("x")

    def state(self, **more: Any) -> FrozenDict:
        """This turn's state for ``extras[tag]`` (with ``more``)."""
        layout = "".join(self.layout)
        kept = (
            None
            if layout == default_layout(self.parts, len(self.calls), len(self.invalid))
            else layout
        )
        return state(
            **{LAYOUT: kept, UNKNOWN: tuple(self.unknown), KEYS: tuple(self.keys)},
            **{SUMMARIES: tuple(self.summaries), OUTPUT_KEYS: tuple(self.step_keys)},
            **more,
        )

    def message(self, metadata: Mapping[str, Any] | None = None, **more: Any) -> AssistantMessage:
        """The turn as an AssistantMessage (a ToolCallMessage when it has calls), built
        from the values checked while reading (a repeated call id makes the repeat an
        invalid call, as every provider's response parser does)."""
        own = self.state(**more)
        extras = FrozenDict({self.tag: own}) if own else EMPTY
        meta = frozen(dict(metadata), "metadata") if metadata else EMPTY
        parts = self.parts
        content: str | tuple[ContentPart, ...] | None
        if (
            len(parts) == 1
            and type(parts[0]) is TextPart
            and parts[0].text
            and not any(k["index"] == 0 for k in self.keys)
        ):
            content = parts[0].text
        else:
            content = tuple(parts)
        if not (self.calls or self.invalid):
            return _build.message(AssistantMessage, content or "", None, meta, extras)
        calls, repeated = unique_calls(self.calls, "tool_calls")
        invalid = (*self.invalid, *repeated)
        ids = [c.id for c in calls] + [c.id for c in invalid]
        if len(set(ids)) != len(ids):  # invalid calls sharing an id: the checks say so
            return ToolCallMessage(calls, content or None, invalid, metadata=meta, extras=extras)
        return _build.tool_call_message(
            ToolCallMessage, tuple(calls), content or None, invalid, None, meta, extras
        )


# -- requests ---------------------------------------------------------------------------


def _user(items: Sequence[Any], path: str, tag: str, **more: Any) -> UserMessage:
    parts, unknown, keys = parse_content(items, path)
    own = state(**{UNKNOWN: tuple(unknown), KEYS: tuple(keys)}, **more)
    extras = {tag: own} if own else None
    if len(parts) == 1 and type(parts[0]) is TextPart and not keys and not unknown:
        return UserMessage(parts[0].text, extras=extras)
    return UserMessage(tuple(parts), extras=extras)


def _result(step: Mapping[str, Any], path: str, tag: str) -> ToolResultMessage:
    call_id = string(step.get("call_id"), f"{path}.call_id")
    name = opt_string(step.get("name"), f"{path}.name")
    error = step.get("is_error")
    if error is not None and type(error) is not bool:
        raise DecodeError(f"expected a boolean, got {json_type(error)}", f"{path}.is_error")
    raw = step.get("result")
    more = {k: v for k, v in step.items() if k not in _RESULT_KEYS}
    if step.get("is_error") is False:
        more["is_error"] = False
    kept = {STEP: frozen(more, path)} if more else {}
    content: str | tuple[ContentPart, ...]
    if type(raw) is str:
        content = raw
        if error is not True and json_object_of(raw) is not None:
            kept[RESULT] = "string"  # a string holding a JSON object goes back as a string
    elif isinstance(raw, (list, tuple)):
        parts, unknown, keys = parse_content(raw, f"{path}.result")
        content = tuple(parts)
        kept.update({UNKNOWN: tuple(unknown), KEYS: tuple(keys)})
    else:
        value = frozen(mapping(raw, f"{path}.result"), f"{path}.result")
        content = raw_json_text(value)
        kept[RESULT] = "object"
    own = state(**kept)
    return ToolResultMessage(
        call_id, content, error is True, name, extras={tag: own} if own else None
    )


def _turn_steps(turn: Mapping[str, Any], path: str) -> list[tuple[Mapping[str, Any], str]]:
    """A launch-era turn as the steps it stands for: runs of content items become one
    ``user_input`` / ``model_output`` step, the other items are steps."""
    role = string(turn.get("role"), f"{path}.role")
    if role not in ("user", "model"):
        raise DecodeError("expected role user or model", f"{path}.role")
    wrap = "user_input" if role == "user" else "model_output"
    out: list[tuple[Mapping[str, Any], str]] = []
    run: list[Any] = []
    items = _content_list(turn.get("content"), f"{path}.content")
    for j, raw in enumerate(items):
        item = mapping(raw, f"{path}.content[{j}]")
        if type_of(item) in CONTENT_TYPES:
            run.append(item)
            continue
        if run:
            out.append(({"type": wrap, "content": run}, f"{path}.content"))
            run = []
        out.append((item, f"{path}.content[{j}]"))
    if run or not out:
        out.append(({"type": wrap, "content": run}, f"{path}.content"))
    return out


def _steps(items: Sequence[Any], path: str) -> list[tuple[Mapping[str, Any], str]]:
    """The steps of an input list (turns and loose content items read as steps)."""
    out: list[tuple[Mapping[str, Any], str]] = []
    run: list[Any] = []
    for j, raw in enumerate(items):
        where = f"{path}[{j}]"
        item = mapping(raw, where)
        if type_of(item) in CONTENT_TYPES and "role" not in item:
            run.append(item)
            continue
        if run:
            out.append(({"type": "user_input", "content": run}, path))
            run = []
        if "type" not in item and "role" in item:
            out.extend(_turn_steps(item, where))
        else:
            out.append((item, where))
    if run:
        out.append(({"type": "user_input", "content": run}, path))
    return out


def _loose(item: Any) -> bool:
    """Whether an input list entry is a content item (the input is then one user turn)."""
    return (
        isinstance(item, (dict, Mapping)) and type_of(item) in CONTENT_TYPES and "role" not in item
    )


def input_messages(value: Any, path: str, tag: str) -> list[Message]:
    """The messages of a request's ``input``."""
    if type(value) is str:
        return [UserMessage(value, extras={tag: FrozenDict({INPUT: True})})]
    shape = None
    if isinstance(value, (dict, Mapping)):
        shape = "item" if type_of(value) in CONTENT_TYPES else None
        value = [value]
    items = array(value, path)
    if items and all(_loose(item) for item in items):
        return [_user(items, path, tag, **{INPUT: shape or "content"})]
    out: list[Message] = []
    turn = ModelTurn(tag)
    for n, (step, where) in enumerate(_steps(items, path)):
        kind = step.get("type")
        if kind in ("user_input", "function_result"):
            if turn:
                out.append(turn.message())
                turn = ModelTurn(tag)
            if kind == "function_result":
                out.append(_result(step, where, tag))
            else:
                content = _content_list(step.get("content"), f"{where}.content")
                out.append(_user(content, f"{where}.content", tag))
        else:
            turn.add(step, where, f"input:{n}")
    if turn:
        out.append(turn.message())
    return out
