"""Reading chat-completions tool calls: responses and stored requests alike.

One decoder for a ``tool_calls`` array wherever it appears: a call whose arguments
are not a JSON object or whose name breaks the name rule is an InvalidToolCall
kept as the model wrote it (the agent loop answers it like a valid call), never a
DecodeError for the whole input; a call of a type this package does not model
(OpenAI's ``custom`` tools, free-form input) is an InvalidToolCall too, its entry
kept verbatim in ``extras[tag]["tool_call"]`` and sent back to that provider only.
What is broken beyond that (a missing name, an id or arguments of the wrong JSON
type) is a DecodeError with its path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._build import tool_call
from ..._frozen import EMPTY, FrozenDict
from ..._ids import DERIVED_ID_PREFIX, call_id_of, derive_call_id
from ..._json import json_type
from ..._part_codec import object_text
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import DecodeError, ident
from .._base import as_list, as_mapping, freeze_decoded, raw_json_text, tool_name_valid
from ._readers import freeze_arguments, text_arguments, unique_ids

__all__ = ["read_call", "read_calls", "read_legacy_call"]


def read_calls(
    raw: object, path: str, seed: str, tag: str
) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """A ``tool_calls`` array: (valid calls, invalid calls), ids unique across both.

    ``seed`` makes the ids derived for calls the wire left without one (the response
    id or model; ``request\\x1f<index>`` for a stored conversation); entries of other
    call types are kept under ``tag``.
    """
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for j, item in enumerate(as_list(raw, path)):
        where = f"{path}[{j}]"
        call = read_call(as_mapping(item, where), where, seed, j, tag)
        if isinstance(call, ToolCall):
            calls.append(call)
        else:
            invalid.append(call)
    return unique_ids(calls, invalid, path)


def read_call(
    entry: Mapping[str, Any], where: str, seed: str, j: int, tag: str
) -> ToolCall | InvalidToolCall:
    """Entry ``j`` of a ``tool_calls`` array, at ``where``."""
    fn = entry.get("function")
    kind = entry.get("type")
    if fn is None and isinstance(kind, str) and kind != "function":
        return _kept_entry(entry, kind, where, seed, j, tag)
    fn_path = f"{where}.function"
    fn = as_mapping(fn, fn_path)
    kept = EMPTY
    if not (_CALL_KEYS.issuperset(entry) and _FUNCTION_KEYS.issuperset(fn)):
        kept = _kept_keys(entry, fn, where, tag)
    name = _name(fn.get("name"), fn_path)
    args = fn.get("arguments")
    call_id = _call_id(entry.get("id"), where, seed, j, name, args)
    return _call(name, call_id, args, fn_path, kept)


def read_legacy_call(raw: object, path: str, seed: str, j: int | str) -> ToolCall | InvalidToolCall:
    """A deprecated ``function_call`` object: one call, its id derived (the wire has none)."""
    fc = as_mapping(raw, path)
    name = _name(fc.get("name"), path)
    args = fc.get("arguments")
    return _call(name, _call_id(None, path, seed, j, name, args), args, path, EMPTY)


def _name(value: object, fn_path: str) -> str:
    """A call's function name, which must be a string (a name that breaks the name rule
    makes the call invalid, not the input)."""
    if isinstance(value, str):
        return value
    what = "required" if value is None else f"a string, got {json_type(value)}"
    raise DecodeError(f"tool name is {what}", f"{fn_path}.name")


def _call_id(value: object, where: str, seed: str, j: int | str, name: str, args: object) -> str:
    """A call's id, or one derived from ``seed``, its position ``j`` and the call when the
    wire has none."""
    if value is None or value == "":
        text = args if isinstance(args, str) else ""
        return call_id_of(DERIVED_ID_PREFIX, f"{seed}\x1f{j}\x1f{name}\x1f{text}")
    if not isinstance(value, str):
        raise DecodeError(f"expected a string, got {json_type(value)}", f"{where}.id")
    return value


def _call(
    name: str, call_id: str, args: object, fn_path: str, kept: FrozenDict
) -> ToolCall | InvalidToolCall:
    """A call of a checked name and id: a ToolCall, or an InvalidToolCall kept as the
    model wrote it when its arguments are not a JSON object or its name breaks the rule.
    ``fn_path`` is the path of the object holding the name and arguments; ``kept`` the
    call's extras (its kept keys)."""
    frozen, problem = _arguments(args, fn_path)
    if not tool_name_valid(name):
        problem = f"{fn_path}.name: invalid tool name {ident(name)}"
    text = args if isinstance(args, str) else None
    if problem is not None:
        if text is None:
            text = raw_json_text(args) if isinstance(args, Mapping) else ""
        return InvalidToolCall(call_id, name, text, problem, kept)
    return tool_call(ToolCall, call_id, name, frozen, kept, text)


def _arguments(args: object, fn_path: str) -> tuple[FrozenDict, str | None]:
    """A call's arguments: (the object, None), or (EMPTY, why the call is invalid)."""
    if args is None:
        return EMPTY, None
    if isinstance(args, str):
        frozen = object_text(args)  # exactly an object's text, the usual case
        if frozen is not None:
            return frozen, None
    where = f"{fn_path}.arguments"
    try:
        if isinstance(args, str):
            return text_arguments(args, where), None
        if isinstance(args, Mapping):
            # an object instead of its text (some servers); one that JSON cannot hold
            # (NaN from a lenient decoder) makes the call invalid
            return freeze_arguments(args, where), None
    except DecodeError as exc:
        return EMPTY, str(exc)
    raise DecodeError(f"expected a JSON string, got {json_type(args)}", where)


#: The keys of a call entry and of its function object that the call is made of. A
#: call's ``index`` (its position, which some servers write in a message too) is not
#: kept: the position is the call's place in the list.
_CALL_KEYS = frozenset(("id", "type", "function", "index"))
_FUNCTION_KEYS = frozenset(("name", "arguments"))


def _kept_keys(tc: Mapping[str, Any], fn: Mapping[str, Any], where: str, tag: str) -> FrozenDict:
    """The call's extras holding the keys of its entry (``keys``) and of its function
    object (``function_keys``) that it has no field for, under ``tag``; sent back to
    that provider only (another one reports them)."""
    own: dict[str, Any] = {}
    keys = {k: v for k, v in tc.items() if k not in _CALL_KEYS}
    if keys:
        own["keys"] = freeze_decoded(keys, where)
    fn_keys = {k: v for k, v in fn.items() if k not in _FUNCTION_KEYS}
    if fn_keys:
        own["function_keys"] = freeze_decoded(fn_keys, f"{where}.function")
    return FrozenDict({tag: FrozenDict(own)}) if own else EMPTY


def _kept_entry(
    tc: Mapping[str, Any], kind: str, where: str, seed: str, j: int, tag: str
) -> InvalidToolCall:
    """A call of another type (``{"type": "custom", "custom": {"name", "input"}}``): an
    invalid call with its name and input, the entry kept verbatim under ``tag``."""
    body = tc.get(kind)
    name: object = None
    raw: object = ""
    if isinstance(body, Mapping):
        name = body.get("name")
        raw = body.get("input", body.get("arguments", ""))
    name = name if isinstance(name, str) else None
    raw = raw if isinstance(raw, str) else raw_json_text(raw)
    call_id = tc.get("id")
    if call_id is None or call_id == "":
        call_id = derive_call_id(DERIVED_ID_PREFIX, seed, j, kind, name or "", raw)
    elif not isinstance(call_id, str):
        raise DecodeError(f"expected a string, got {json_type(call_id)}", f"{where}.id")
    entry = freeze_decoded(tc, where)
    extras = FrozenDict({tag: FrozenDict({"tool_call": entry})})
    error = f"{where}: a {ident(kind)} tool call, not a function call (kept as written)"
    return InvalidToolCall(call_id, name, raw, error, extras)
