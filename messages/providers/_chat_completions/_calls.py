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
from ..._fields import check_tool_name, known_tool_name
from ..._frozen import EMPTY, SCALARS, FrozenDict
from ..._ids import DERIVED_ID_PREFIX, call_id_of, derive_call_id
from ..._json import json_type
from ..._part_codec import object_text, scan_once
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import DecodeError, ValidationError, ident
from .._base import Provider, as_list, as_mapping, freeze_decoded, raw_json_text
from ._readers import freeze_arguments, text_arguments, unique_ids

__all__ = ["read_calls", "read_legacy_call"]


def read_calls(
    raw: object, path: str, seed: str, provider: Provider
) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """A ``tool_calls`` array: (valid calls, invalid calls), ids unique across both.

    ``seed`` makes the ids derived for calls the wire left without one (the response
    id or model; ``request\\x1f<index>`` for a stored conversation); entries of other
    call types are kept under the ``provider``'s tag.
    """
    items = raw if raw.__class__ is list else as_list(raw, path)
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    for j, item in enumerate(items):
        tc = item if item.__class__ is dict else as_mapping(item, f"{path}[{j}]")
        # hot path: subscripts for the keys every call has (a get is a call; ~250
        # instructions a call), gets when one is missing (a Mapping's missing key is
        # a KeyError)
        try:
            fn = tc["function"]
            call_id = tc["id"]
        except KeyError:
            fn, call_id = tc.get("function"), tc.get("id")
        if fn.__class__ is not dict:
            kind = tc.get("type")
            if fn is None and kind.__class__ is str and kind != "function":
                invalid.append(_kept_entry(tc, kind, f"{path}[{j}]", seed, j, provider.tag))
                continue
            fn = as_mapping(fn, f"{path}[{j}].function")
        try:
            name = fn["name"]
            args = fn["arguments"]
        except KeyError:
            name, args = fn.get("name"), fn.get("arguments")
        # hot path: arguments that are exactly the text of a JSON object are scanned
        # once, here (the C scanner, see _part_codec); with a known name and an id the
        # call is built here too (~0.2 us less per call). Anything else, and every
        # error, goes to _call with what was read and scanned. A flat object is
        # object_text written out (no frame: OpenAI two-call parse 64,490 -> 63,641
        # instructions); anything nested goes to object_text itself.
        frozen: Any = None
        if args.__class__ is str:
            try:
                frozen, end = scan_once(args, 0)
            except Exception:
                frozen = None
            else:
                if frozen.__class__ is not dict or end != len(args):
                    frozen = None
                else:
                    for v in frozen.values():
                        if v.__class__ not in SCALARS:
                            frozen = object_text(args)
                            break
                    else:
                        frozen = FrozenDict(frozen) if frozen else EMPTY
        # keys beside id, type and function (or name and arguments): kept (hot path: two
        # len() and two in-tests a call tell the usual call)
        kept = EMPTY
        # (Mistral numbers its calls: an ``index`` beside them is not kept either)
        if (
            len(fn) != 2
            or "type" not in tc
            or "id" not in tc
            or (len(tc) != 3 and (len(tc) != 4 or "index" not in tc))
        ):
            kept = _kept_keys(tc, fn, f"{path}[{j}]", provider.tag)
        if (
            frozen is not None
            and name.__class__ is str
            and name in known_tool_name
            and call_id.__class__ is str
            and call_id
        ):
            calls.append(tool_call(ToolCall, call_id, name, frozen, kept, args))
            continue
        where = f"{path}[{j}]"
        c = _call(name, call_id, args, frozen, where, f"{where}.function", seed, j, kept)
        if isinstance(c, InvalidToolCall):
            invalid.append(c)
        else:
            calls.append(c)
    n = len(calls)
    if not invalid and (n < 2 or (n == 2 and calls[0].id != calls[1].id)):
        return calls, invalid  # hot path: the usual one call or pair, no check call
    return unique_ids(calls, invalid, path)


def _call(
    name: object,
    call_id: object,
    args: object,
    scanned: FrozenDict | None,
    where: str,
    fn: str,
    seed: str,
    j: int | str,
    kept: FrozenDict = EMPTY,
) -> ToolCall | InvalidToolCall:
    """One call from its fields as read (the usual case aside): normalised, invalid, or a
    DecodeError for what is broken beyond a model's mistake. ``scanned`` is what
    ``object_text`` made of text arguments (None: not exactly an object's text);
    ``where`` is the call's path, ``fn`` the path of the object holding its name and
    arguments; ``kept`` the call's extras (its kept keys)."""
    if name.__class__ is not str:
        what = "required" if name is None else f"a string, got {json_type(name)}"
        raise DecodeError(f"tool name is {what}", f"{fn}.name")
    raw_args = args if args.__class__ is str else None
    if call_id is None or call_id == "":
        call_id = call_id_of(DERIVED_ID_PREFIX, f"{seed}\x1f{j}\x1f{name}\x1f{raw_args or ''}")
    elif call_id.__class__ is not str:
        raise DecodeError(f"expected a string, got {json_type(call_id)}", f"{where}.id")
    assert isinstance(name, str) and isinstance(call_id, str)
    frozen: FrozenDict = EMPTY
    raw = raw_args  # the text an invalid call keeps
    problem: str | None = None
    if raw_args is not None:
        if scanned is not None:
            frozen = scanned
        else:
            try:
                frozen = text_arguments(raw_args, f"{fn}.arguments")
            except DecodeError as exc:
                problem = str(exc)
    elif isinstance(args, Mapping):
        # an object instead of its text (some servers); one that JSON cannot hold
        # (NaN from a lenient decoder) is invalid, kept as a lenient encoder writes it
        try:
            frozen = freeze_arguments(args, f"{fn}.arguments")
        except DecodeError as exc:
            problem = str(exc)
    elif args is not None:
        raise DecodeError(f"expected a JSON string, got {json_type(args)}", f"{fn}.arguments")
    if name not in known_tool_name:
        try:
            check_tool_name(name)
        except ValidationError:
            problem = f"{fn}.name: invalid tool name {ident(name)}"
    if problem is not None:
        if raw is None:
            raw = raw_json_text(args) if isinstance(args, Mapping) else ""
        return InvalidToolCall(call_id, name, raw, problem, kept)
    return tool_call(ToolCall, call_id, name, frozen, kept, raw_args)


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


def read_legacy_call(raw: object, path: str, seed: str, j: int | str) -> ToolCall | InvalidToolCall:
    """A deprecated ``function_call`` object: one call, its id derived (the wire has none)."""
    fc = as_mapping(raw, path)
    args = fc.get("arguments")
    scanned = object_text(args) if args.__class__ is str else None
    return _call(fc.get("name"), None, args, scanned, path, path, seed, j)
