"""Deeply immutable JSON-like values: ``FrozenDict`` and ``FrozenList``.

Arguments, metadata, extras and schemas are stored frozen so that no caller can
change a value object after it was built, and so that messages stay hashable.
``FrozenDict`` subclasses ``dict`` on purpose: ``json.dumps`` then encodes it on
its C fast path, which keeps ``to_json`` close to ``json.dumps`` of a plain dict.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from .errors import ValidationError, reject

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

__all__ = [
    "EMPTY",
    "SCALARS",
    "FrozenDict",
    "FrozenList",
    "freeze",
    "freeze_mapping",
    "is_plain",
    "thaw",
]

#: Nesting deeper than this is refused, so that no input can exhaust the stack.
MAX_DEPTH = 200


class FrozenDict(dict):  # type: ignore[type-arg]  # dict[str, Any] at runtime would need typing
    """An immutable, hashable ``dict`` whose values are themselves frozen."""

    __slots__ = ("_hash",)
    _hash: int

    def _immutable(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("FrozenDict is immutable")

    __setitem__ = _immutable
    __delitem__ = _immutable
    __ior__ = _immutable  # type: ignore[assignment,unused-ignore]
    clear = _immutable
    pop = _immutable
    popitem = _immutable
    setdefault = _immutable
    update = _immutable

    def __hash__(self) -> int:  # type: ignore[override]
        try:
            return self._hash
        except AttributeError:
            h = hash(frozenset(self.items()))
            object.__setattr__(self, "_hash", h)
            return h

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict[str, Any]]]:
        return (FrozenDict, (dict(self),))

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict:
        return self

    def __repr__(self) -> str:
        return f"FrozenDict({dict.__repr__(self)})"


class FrozenList(tuple):  # type: ignore[type-arg]  # tuple[Any, ...] at runtime would need typing
    """An immutable JSON array: a ``tuple`` that also equals a ``list`` with the same items.

    Frozen values are compared with what callers wrote (``call.arguments ==
    {"tags": ["a"]}``, ``parameters["required"] == ["city"]``), so a frozen array
    must equal the list it was made from; it stays a tuple for hashing and JSON.
    """

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is list:
            return len(self) == len(other) and tuple.__eq__(self, tuple(other))
        return tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__

    def __reduce__(self) -> tuple[type[FrozenList], tuple[tuple[Any, ...]]]:
        return (FrozenList, (tuple(self),))

    def __copy__(self) -> FrozenList:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenList:
        return self


EMPTY: FrozenDict = FrozenDict()

SCALARS: frozenset[type] = frozenset((str, int, float, bool, type(None)))
"""The JSON scalar types: stored as they are (a float only when it is finite)."""


def is_plain(value: object) -> bool:
    """Whether ``value`` is a JSON scalar that is stored as it is (a finite float included)."""
    if isinstance(value, float):
        return type(value) is float and math.isfinite(value)
    return type(value) in SCALARS


def freeze(value: Any, path: str = "", depth: int = 0) -> Any:
    """Return a deeply frozen copy of a JSON-like value.

    Accepts ``str``, ``int``, finite ``float``, ``bool``, ``None``, mappings with
    string keys and lists/tuples. Anything else raises ValidationError naming the
    path and the type.
    """
    t = type(value)
    if t in SCALARS:
        if t is float and not math.isfinite(value):
            reject("non-finite float is not JSON", path)
        return value
    if t is FrozenDict or t is FrozenList:
        return value
    if depth >= MAX_DEPTH:
        reject(f"nested deeper than {MAX_DEPTH} levels", path)
    if t is dict or isinstance(value, Mapping):
        return _freeze_items(value.items(), path, depth + 1)
    if t is list or t is tuple:
        return FrozenList([freeze(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)])
    if isinstance(value, (str, int, float)):  # str/int/float subclasses, e.g. enums
        return _plain_scalar(value, path)
    raise ValidationError(f"unsupported type {t.__name__}; expected a JSON value", path)


def _plain_scalar(value: Any, path: str) -> Any:
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    f = float(value)
    if not math.isfinite(f):
        reject("non-finite float is not JSON", path)
    return f


def _freeze_items(items: Iterable[tuple[Any, Any]], path: str, depth: int) -> FrozenDict:
    out: dict[str, Any] = {}
    for k, v in items:
        if type(k) is not str:
            reject(f"mapping key of type {type(k).__name__}; keys must be strings", path)
        if is_plain(v):
            out[k] = v
        else:
            out[k] = freeze(v, f"{path}.{k}" if path else k, depth)
    return FrozenDict(out)


def freeze_mapping(value: Mapping[str, Any] | None, path: str) -> FrozenDict:
    """Freeze a mapping field (metadata, extras, arguments); ``None`` gives EMPTY."""
    if value is None:
        return EMPTY
    if isinstance(value, FrozenDict):
        return value
    t = type(value)
    if t is dict:
        # A flat dict of JSON scalars (the usual tool arguments) is copied in one step.
        for k, v in value.items():
            t = type(v)
            if type(k) is not str or t not in SCALARS or (t is float and not math.isfinite(v)):
                return _freeze_items(value.items(), path, 1)
        return FrozenDict(value) if value else EMPTY
    if not isinstance(value, Mapping):
        reject(f"expected a mapping, got {t.__name__}", path)
    if not value:
        return EMPTY
    return _freeze_items(value.items(), path, 1)


def thaw(value: Any) -> Any:
    """Return a plain, mutable ``dict``/``list`` copy of a frozen value."""
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [thaw(v) for v in value]
    return value
