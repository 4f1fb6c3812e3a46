"""Deeply immutable JSON-like values: ``FrozenDict`` and ``FrozenList``.

Arguments, metadata, extras and schemas are stored frozen so that no caller can
change a value object after it was built, and so that messages stay hashable.
``FrozenDict`` subclasses ``dict`` on purpose: ``json.dumps`` then encodes it on
its C fast path, which keeps ``to_json`` close to ``json.dumps`` of a plain dict.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from .errors import ValidationError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

__all__ = [
    "EMPTY",
    "FrozenDict",
    "FrozenList",
    "freeze",
    "freeze_mapping",
    "mutable_twin",
    "support_own_init",
    "thaw",
    "twin_of",
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

_SCALARS = frozenset((str, int, bool, type(None)))


def _fail(path: str, message: str) -> NoReturn:
    raise ValidationError(message, path)


def freeze(value: Any, path: str = "", depth: int = 0) -> Any:
    """Return a deeply frozen copy of a JSON-like value.

    Accepts ``str``, ``int``, finite ``float``, ``bool``, ``None``, mappings with
    string keys and lists/tuples. Anything else raises ValidationError naming the
    path and the type.
    """
    t = type(value)
    if t in _SCALARS:
        return value
    if t is FrozenDict or t is FrozenList:
        return value
    if t is float:
        if not math.isfinite(value):
            _fail(path, "non-finite float is not JSON")
        return value
    if depth >= MAX_DEPTH:
        _fail(path, f"nested deeper than {MAX_DEPTH} levels")
    if t is dict or isinstance(value, Mapping):
        return _freeze_items(value.items(), path, depth + 1)
    if t is list or t is tuple:
        return FrozenList([freeze(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)])
    if isinstance(value, (str, int, float)):  # str/int/float subclasses, e.g. enums
        return _plain_scalar(value, path)
    _fail(path, f"unsupported type {t.__name__}; expected a JSON value")


def _plain_scalar(value: Any, path: str) -> Any:
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    f = float(value)
    if not math.isfinite(f):
        _fail(path, "non-finite float is not JSON")
    return f


def _freeze_items(items: Iterable[tuple[Any, Any]], path: str, depth: int) -> FrozenDict:
    out: dict[str, Any] = {}
    for k, v in items:
        if type(k) is not str:
            _fail(path, f"mapping key of type {type(k).__name__}; keys must be strings")
        t = type(v)
        if t in _SCALARS:
            out[k] = v
            continue
        if t is dict and depth < MAX_DEPTH:
            # hot path: a nested flat object of scalars (metadata["usage"]) is copied
            # in one C call after one scan, with no path string and no freeze frame
            for kk, vv in v.items():
                if type(kk) is not str or type(vv) not in _SCALARS:
                    break
            else:
                out[k] = FrozenDict(v) if v else EMPTY
                continue
        out[k] = freeze(v, f"{path}.{k}" if path else k, depth)
    return FrozenDict(out)


def freeze_mapping(value: Mapping[str, Any] | None, path: str) -> FrozenDict:
    """Freeze a mapping field (metadata, extras, arguments); ``None`` gives EMPTY."""
    if value is None:
        return EMPTY
    t = type(value)
    if t is FrozenDict:
        return value  # type: ignore[return-value]
    if t is dict:
        # Hot path: a flat dict of scalars (the usual tool arguments) is copied
        # in one C call after one scan, instead of being rebuilt item by item.
        if not value:
            return EMPTY
        for k, v in value.items():
            if type(k) is not str or type(v) not in _SCALARS:
                break
        else:
            return FrozenDict(value)
        return _freeze_items(value.items(), path, 1)
    if not isinstance(value, Mapping):
        _fail(path, f"expected a mapping, got {t.__name__}")
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


# -- building frozen slotted objects fast ------------------------------------------------


def mutable_twin(cls: type) -> Any:
    """Return a subclass of the frozen slotted ``cls`` that builders may assign to.

    Hot path: a frozen dataclass refuses ``self.x = v``, so fields would be stored
    through the slot descriptors' ``__set__`` (~40 ns each). A builder instead
    allocates this twin (the same layout, with the plain ``object`` attribute
    hooks, so CPython specialises each store to a few ns), stores the fields and
    then sets ``__class__`` to ``cls`` (~35 ns). Instances of the twin never escape
    a builder; ``type(x) is cls`` holds for what it returns.
    """
    return type(
        cls.__name__,
        (cls,),
        {
            "__slots__": (),
            "__setattr__": object.__setattr__,
            "__delattr__": object.__delattr__,
            "__module__": cls.__module__,
            "__qualname__": f"{cls.__qualname__}.<building>",
            "__doc__": f"{cls.__name__} while it is being built (never escapes a builder).",
        },
    )


_TWINS: dict[type, Any] = {}


def twin_of(cls: type) -> Any:
    """The mutable twin of ``cls``, made on first use and kept (see ``mutable_twin``)."""
    twin = _TWINS.get(cls)
    if twin is None:
        twin = _TWINS[cls] = mutable_twin(cls)
    return twin


_SHIMS: dict[type, type] = {}


def _init_shim(base: type) -> type:
    """A subclass of ``base`` whose ``__init__`` builds through ``base`` and copies the slots."""
    shim = _SHIMS.get(base)
    if shim is not None:
        return shim
    slots = [
        d
        for klass in base.__mro__
        for name in klass.__dict__.get("__slots__", ())
        if (d := klass.__dict__.get(name)) is not None and hasattr(d, "__set__")
    ]

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:  # noqa: N807  (becomes the shim's __init__)
        built = base.__new__(base, *args, **kwargs)
        for d in slots:
            try:
                value = d.__get__(built, base)
            except AttributeError:  # a slot the base leaves unset until read
                continue
            d.__set__(self, value)

    shim = type(
        f"_{base.__name__}Init",
        (base,),
        {
            "__slots__": (),
            "__init__": __init__,
            "_init_shim": True,
            "__module__": base.__module__,
            "__doc__": f"Lets a subclass of {base.__name__} call super().__init__(...).",
        },
    )
    _SHIMS[base] = shim
    return shim


def _allocate(cls: type, *args: Any, **kwargs: Any) -> Any:
    return object.__new__(cls)


def support_own_init(cls: type, concrete: frozenset[type]) -> None:
    """Let a subclass of a class in ``concrete`` define ``__init__`` and call ``super().__init__``.

    The classes in ``concrete`` build in ``__new__`` and keep ``object.__init__``
    (see ``mutable_twin``: a Python ``__init__`` would cost every construction
    ~50 ns). A subclass that defines its own ``__init__`` gets a plain allocating
    ``__new__`` and, between it and its concrete base, a class whose ``__init__``
    takes the base's arguments.
    """
    if "__init__" not in cls.__dict__ or "_init_shim" in cls.__dict__:
        return
    bases = cls.__bases__
    shimmed = tuple(_init_shim(b) if b in concrete else b for b in bases)
    if shimmed == bases:
        return
    if "__new__" not in cls.__dict__:
        cls.__new__ = staticmethod(_allocate)  # type: ignore[assignment,method-assign]
    cls.__bases__ = shimmed
