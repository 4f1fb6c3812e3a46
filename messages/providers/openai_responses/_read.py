"""Readers and names shared by the Responses modules: checked field access, errors,
tool arguments, usage, and the keys of the state this provider keeps in ``extras``.

The state kept under ``extras[tag]`` (``tag`` is ``openai_responses`` or
``openai_responses@origin``), each key present only when needed:

* ``items`` (assistant messages): the layout of the turn's output items, in order,
  one entry each: ``{"message": item}`` (the item without its ``content``) with
  ``"parts"`` (its content parts without their ``text``; absent when the content
  was a string), ``{"reasoning": item}`` (without its texts and
  ``encrypted_content``) with ``"split"`` (the lengths of its summary and content
  texts), or ``{"call": call_id}``. Texts, reasoning and calls themselves are the
  message's parts and calls; the entries say where each goes and hold the rest
  (ids, ``status``, ``phase``, annotations, refusals).
* ``unknown``: items (assistant messages) or content parts (user messages, tool
  results) this package does not model, verbatim: ``{index, path, type, value}``;
  they go back in place, to this provider only.
* ``keys`` (user messages, tool results): ``[{index, keys}]``, the keys of a content
  part the canonical part has no field for (an image by file id, a file URL...).
* ``item``: the keys of a message or ``function_call_output`` item beyond its role
  and content (``type``, ``id``, ``status``...).
* ``split`` (system and developer messages given as ``input_text`` parts): the
  lengths of the parts.
* ``input`` (a leading system or developer message): it was an input item, not
  ``instructions``.
* ``refusal``: the refusal text of a turn; ``response_id``: the id of the stored
  response a turn came from (for ``previous_response_id``).

A function call's item keys (``id``, ``status``...) are its ``ToolCall.extras[tag]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..._frozen import EMPTY, FrozenDict, freeze
from ..._json import json_type, loads
from ..._part_codec import object_text
from ...errors import DecodeError, MessageError, ValidationError
from .. import PROVIDERS
from .._base import Usage, count_at, is_mapping, make_usage, raw_json_text

__all__ = [
    "NAME",
    "array",
    "arguments",
    "error_details",
    "failure",
    "frozen",
    "is_provider_key",
    "mapping",
    "opt_string",
    "string",
    "usage",
]

NAME: Final = "openai_responses"

# Keys of the state kept in extras[tag] (see the module docstring).
ITEMS: Final = "items"
UNKNOWN: Final = "unknown"
KEYS: Final = "keys"
ITEM: Final = "item"
SPLIT: Final = "split"
INPUT: Final = "input"
REFUSAL: Final = "refusal"
RESPONSE_ID: Final = "response_id"

#: Content part types that carry a message's text.
TEXT_PARTS: Final = frozenset(("output_text", "input_text"))

#: Keys of a function_call item that the ToolCall holds (the rest go to its extras).
CALL_FIELDS: Final = frozenset(("type", "call_id", "name", "arguments"))


def failure(exc: BaseException, path: str = "") -> DecodeError:
    """The DecodeError a parser raises for anything that escaped it (never its content)."""
    if isinstance(exc, DecodeError):
        return exc
    if isinstance(exc, MessageError):
        return DecodeError(exc.message, exc.path or path)
    if isinstance(exc, RecursionError):
        return DecodeError("input nested too deeply", path)
    return DecodeError(f"malformed input ({type(exc).__name__})", path)


def mapping(value: Any, path: str) -> Mapping[str, Any]:
    """``value`` if it is a JSON object, else DecodeError at ``path``."""
    if is_mapping(value):
        return value
    raise DecodeError(f"expected an object, got {json_type(value)}", path)


def array(value: Any, path: str) -> Sequence[Any]:
    """``value`` if it is a JSON array, else DecodeError at ``path``."""
    if isinstance(value, (list, tuple)):
        return value
    raise DecodeError(f"expected an array, got {json_type(value)}", path)


def string(value: Any, path: str) -> str:
    """``value`` if it is a string, else DecodeError (``missing`` for null)."""
    if isinstance(value, str):
        return str(value)
    if value is None:
        raise DecodeError("required string is missing", path)
    raise DecodeError(f"expected a string, got {json_type(value)}", path)


def opt_string(value: Any, path: str) -> str | None:
    """``value`` if it is a string or null, else DecodeError."""
    return None if value is None else string(value, path)


def frozen(value: Any, path: str) -> Any:
    """``value`` deeply frozen (a JSON value), DecodeError when it is not one."""
    try:
        return freeze(value, path)
    except ValidationError as exc:
        raise DecodeError(exc.message, exc.path or path) from None


def without(item: Mapping[str, Any], drop: frozenset[str], path: str) -> FrozenDict:
    """The keys of ``item`` outside ``drop``, frozen (EMPTY when there are none)."""
    rest = {k: v for k, v in item.items() if k not in drop}
    kept: FrozenDict = frozen(rest, path) if rest else EMPTY
    return kept


def arguments(raw: Any, path: str) -> tuple[FrozenDict | None, str, str | None]:
    """``(arguments, raw text, error)`` of a call's ``arguments`` field.

    A JSON string that is an object gives the frozen object and no error; a blank
    string means ``{}``; anything else that is text gives ``None`` and the reason
    (an invalid call, kept as written). An object (some servers send one) is
    frozen; another type is a DecodeError.
    """
    if raw is None:
        return EMPTY, "", None
    if isinstance(raw, str):
        return _text_arguments(str(raw), path)
    if not isinstance(raw, Mapping):
        raise DecodeError(f"expected a JSON string, got {json_type(raw)}", path)
    text = raw_json_text(raw)
    try:
        return freeze(raw), text, None
    except ValidationError as exc:
        return None, text, f"{path}: {exc.message}"


def _text_arguments(raw: str, path: str) -> tuple[FrozenDict | None, str, str | None]:
    """``arguments`` given as text (the usual case: exactly an object's text)."""
    args = object_text(raw)
    if args is not None:
        return args, raw, None
    if not raw or raw.isspace():
        return EMPTY, raw, None
    try:
        value = loads(raw)
    except DecodeError as exc:
        return None, raw, f"{path}: {exc.message}"
    if not isinstance(value, dict):
        return None, raw, f"{path}: arguments are not a JSON object"
    try:
        return freeze(value), raw, None
    except ValidationError as exc:
        return None, raw, f"{path}: {exc.message}"


def error_details(value: Any, path: str) -> tuple[str, FrozenDict]:
    """An error (an object or a string) as ``(message, details)``."""
    if isinstance(value, str):
        return value or "error", FrozenDict({"message": value})
    err = mapping(value, path)
    details = frozen({k: v for k, v in err.items() if k != "sequence_number"}, path)
    for key in ("message", "code", "type"):
        v = err.get(key)
        if isinstance(v, str) and v:
            return v, details
    return "error", details


def usage(raw: Any, path: str) -> Usage | None:
    """``input_tokens`` / ``output_tokens`` / ``total_tokens`` with cached, cache-write
    and reasoning tokens from their details; None when the wire has no usage."""
    if raw is None:
        return None
    u = mapping(raw, path)
    inp = count_at(u, "input_tokens", path) or 0
    out = count_at(u, "output_tokens", path) or 0
    total = count_at(u, "total_tokens", path)
    inputs = _details(u, "input_tokens_details", path)
    outputs = _details(u, "output_tokens_details", path)
    cached = count_at(inputs, "cached_tokens", path, "input_tokens_details")
    written = count_at(inputs, "cache_write_tokens", path, "input_tokens_details")
    reasoning = count_at(outputs, "reasoning_tokens", path, "output_tokens_details")
    return make_usage(inp, out, inp + out if total is None else total, cached, written, reasoning)


def _details(u: Mapping[str, Any], key: str, path: str) -> Mapping[str, Any]:
    """A usage's details object (EMPTY when absent)."""
    details = u.get(key)
    return EMPTY if details is None else mapping(details, f"{path}.{key}")


_PROVIDER_NAMES: Final = frozenset((*PROVIDERS, NAME))


def is_provider_key(key: str) -> bool:
    """True when an ``extras`` key names a provider's state (``name`` or ``name@origin``)."""
    return key.partition("@")[0] in _PROVIDER_NAMES


def kind(value: Any) -> str:
    """An item or part ``type`` for a message or a record: the string, else its JSON type."""
    return value if isinstance(value, str) else json_type(value)
