"""A tool call requested by the model, and one whose arguments could not be parsed."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import FunctionType, MethodType

from . import _json
from ._build import tool_call_init
from ._fields import (
    check_arguments,
    check_id,
    check_mapping,
    check_opt_str,
    check_str,
    check_tool_name,
    known_tool_name,
)
from ._frozen import EMPTY, FrozenDict, thaw
from ._lazy import LazyModule
from .errors import ValidationError, ident

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

__all__ = ["InvalidToolCall", "ToolCall", "check_tool_name"]

_KNOWN_NAMES = known_tool_name  # the names already found valid (see _fields)


def _call_id(value: object) -> str:
    return check_id(value, "id")


def _extras(value: object) -> FrozenDict:
    return check_mapping(value, "extras")


@dataclass(frozen=True, slots=True, init=False, repr=False)
class ToolCall:
    """A call of a named tool with JSON-object arguments, stored deeply immutable.

    ``arguments`` may be given as a mapping or as a JSON string; a string is parsed
    once and kept, so ``arguments_json`` gives back exactly what was received.
    ``extras`` holds provider-opaque state of the call (e.g. a Gemini thought
    signature), tagged with the provider that produced it.
    """

    id: str
    name: str
    arguments: Mapping[str, Any] = field(default=EMPTY, repr=False)
    extras: Mapping[str, Any] = field(default=EMPTY, repr=False)
    # The arguments text: the one received, or made on first read of arguments_json.
    _raw: str | None = field(default=None, init=False, repr=False, compare=False)

    if TYPE_CHECKING:

        def __init__(
            self,
            id: str,
            name: str,
            arguments: Mapping[str, Any] | str = EMPTY,
            extras: Mapping[str, Any] | None = None,
        ) -> None: ...

    else:
        # hot path: positional parameters with defaults (keyword-only ones cost a
        # dict lookup each per call, ~50 ns); see _build for the stores
        __init__ = tool_call_init(_call_id, _KNOWN_NAMES, check_tool_name, check_arguments, _extras)

    def __post_init__(self) -> None:
        store = object.__setattr__
        store(self, "id", _call_id(self.id))
        store(self, "name", check_tool_name(self.name))
        frozen, raw = check_arguments(self.arguments)
        store(self, "arguments", frozen)
        store(self, "_raw", raw)
        store(self, "extras", _extras(self.extras))

    @property
    def arguments_json(self) -> str:
        """The arguments as a compact JSON string (the original string when decoded from one)."""
        raw = self._raw
        if raw is None:
            # a cache filled on first read (equal text in every thread that fills it)
            raw = _json.dumps_compact(self.arguments)
            _set_raw(self, raw)
        return raw

    def get(self, key: str, default: Any = None) -> Any:
        """Return one argument, or ``default`` when it is absent."""
        return self.arguments.get(key, default)

    def arguments_as(self, cls: Callable[..., T]) -> T:
        """Build ``cls`` (dataclass, TypedDict, NamedTuple or callable) from the arguments."""
        return build_from_arguments(cls, self.arguments, "arguments")

    def with_arguments(self, arguments: Mapping[str, Any] | str) -> ToolCall:
        """Return a copy with other arguments."""
        return dataclasses.replace(self, arguments=arguments)  # type: ignore[arg-type]  # text too

    def to_dict(self) -> dict[str, Any]:
        """This call as ``{"id", "type": "function", "function": {"name", "arguments"}}`` plus extras."""
        return _part_codec.tool_call_to_dict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ToolCall:
        """Decode a canonical tool call dict (``arguments`` as JSON text or an object)."""
        return _part_codec.tool_call_from_dict(d)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(id={ident(self.id)}, name={ident(self.name)}, arguments={len(self.arguments)} keys)"


_set_raw: Any = ToolCall.__dict__["_raw"].__set__
raw_arguments: Callable[[ToolCall], str | None] = ToolCall.__dict__["_raw"].__get__
"""The arguments text a call was built from, or made by ``arguments_json``; None before."""


@dataclass(frozen=True, slots=True, repr=False)
class InvalidToolCall:
    """A tool call the model got wrong, kept as written and never repaired.

    ``raw_arguments`` is the arguments text as received (not a JSON object, or not
    JSON at all); ``name`` the name as received (None when there was none), which
    may break the name rule; ``error`` says what is wrong, without the content.
    ``id`` is the wire's id, or one derived from the call when the wire gave none.
    ``extras`` keeps provider-opaque state of the call, as for ToolCall.
    Answer it like a valid call: ``ToolResult.error(call.id, "...")``.
    """

    id: str
    name: str | None
    raw_arguments: str = field(repr=False)
    error: str
    extras: Mapping[str, Any] = field(default=EMPTY, repr=False)

    def __post_init__(self) -> None:
        store = object.__setattr__
        store(self, "id", _call_id(self.id))
        store(self, "name", check_opt_str(self.name, "name"))
        store(self, "raw_arguments", check_str(self.raw_arguments, "raw_arguments"))
        store(self, "error", check_str(self.error, "error"))
        store(self, "extras", _extras(self.extras))

    def to_dict(self) -> dict[str, Any]:
        """This call as a canonical ``tool_calls`` entry: the raw name and arguments text."""
        return _part_codec.invalid_call_to_dict(self)

    def __repr__(self) -> str:
        return (
            f"InvalidToolCall(id={ident(self.id)}, name={ident(self.name) if self.name is not None else None}, "
            f"raw_len={len(self.raw_arguments)}, error={self.error!r})"
        )


# -- arguments_as: building a target from the arguments ----------------------------------
#
# A target is compiled once into a _Record plan, cached per target: for each field,
# the value types it takes unchanged and a converter for everything else. A
# converter takes a frozen JSON value and returns what the annotation asks for (a
# list for list[int], an Enum member, a built nested dataclass...), or raises
# _Mismatch. The path is paid for only on failure: each container appends its
# segment while the _Mismatch unwinds, and the top level formats the error.


def build_from_arguments(cls: Callable[..., T], args: Mapping[str, Any], path: str) -> T:
    """Build ``cls`` from (frozen) arguments checked against its type hints, or raise ValidationError."""
    key = _plan_key(cls)
    plan = None if key is None else _PLANS.get(key)
    if plan is None:
        plan = _plan_for(cls, key)
    try:
        return plan.build(args, cls)  # type: ignore[no-any-return]
    except _Mismatch as exc:
        err = exc
    except RecursionError:
        err = _Mismatch("nested too deeply")
    # Raised outside the except blocks: no __context__ chain (the constructor's own
    # exception may quote argument values).
    segments = err.segments
    segments.reverse()
    raise ValidationError(_render(_name_of(cls), err), path + "".join(segments))


class _Mismatch(Exception):
    """A value does not fit; internal, always turned into a ValidationError."""

    def __init__(self, detail: str, owner: _Record | None = None, rejected: bool = False) -> None:
        super().__init__(detail)
        self.detail = detail
        self.owner = owner  # the record whose keys or constructor failed
        self.rejected = rejected  # the constructor raised; detail is the exception type
        self.segments: list[str] = []  # path segments, innermost first


def _render(target: str, err: _Mismatch) -> str:
    owner = err.owner
    if owner is not None and not err.segments:  # the target itself
        if err.rejected:
            return f"arguments rejected by {target} ({err.detail})"
        return f"arguments do not fit {target}: {err.detail}"
    if owner is not None:
        if err.rejected:
            return f"arguments do not fit {target}: rejected by {owner.name} ({err.detail})"
        return f"arguments do not fit {target}: {err.detail} for {owner.name}"
    return f"arguments do not fit {target}: {err.detail}"


def _kind(value: object) -> str:
    """The JSON type of a value for messages (``integer`` for ints): never the value."""
    if value is None:
        return "null"
    t = type(value)
    if t is str:
        return "string"
    if t is bool:
        return "boolean"
    if t is int:
        return "integer"
    if t is float:
        return "number"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, (tuple, list)):
        return "array"
    return t.__name__


def _expected(label: str, value: object) -> _Mismatch:
    return _Mismatch(f"expected {label}, got {_kind(value)}")


_MISSING: Any = object()
_NO_HINT: Any = object()  # no annotation, or one that does not resolve: not checked
_NONE_TYPE = type(None)
_PLAIN: frozenset[type] = frozenset((str, int, float, bool, _NONE_TYPE))
_ALL_KINDS = frozenset(("null", "boolean", "integer", "number", "string", "array", "object"))


class _Conv:
    """How one annotation is applied: ``fn(value)`` converts or raises _Mismatch.

    ``passes`` are value types ``fn`` would return unchanged, so callers skip the
    call for them (hot path: a str field costs one set lookup, no call); ``kinds``
    the JSON types it accepts (a Union picks the branch error to report with them).
    """

    __slots__ = ("fn", "kinds", "label", "passes")

    def __init__(
        self, fn: Callable[[Any], Any], passes: frozenset[type], kinds: frozenset[str], label: str
    ) -> None:
        self.fn = fn
        self.passes = passes
        self.kinds = kinds
        self.label = label


def _to_str(v: Any) -> Any:
    if type(v) is str:
        return v
    raise _expected("str", v)


def _to_int(v: Any) -> Any:
    t = type(v)
    if t is int:
        return v
    if t is float and v.is_integer():  # 3.0 is an integer in JSON Schema too
        return int(v)
    raise _expected("int", v)


def _to_float(v: Any) -> Any:
    t = type(v)
    if t is float:
        return v
    if t is int:
        try:
            return float(v)
        except OverflowError:
            raise _Mismatch("expected float, got an integer too large for a float") from None
    raise _expected("float", v)


def _to_bool(v: Any) -> Any:
    if type(v) is bool:
        return v
    raise _expected("bool", v)


def _to_none(v: Any) -> Any:
    if v is None:
        return None
    raise _expected("None", v)


def _kinds(*names: str) -> frozenset[str]:
    return frozenset(names)


_ANY = _Conv(thaw, _PLAIN, _ALL_KINDS, "any value")
_STR = _Conv(_to_str, frozenset((str,)), _kinds("string"), "str")
_INT = _Conv(_to_int, frozenset((int,)), _kinds("integer"), "int")
_FLOAT = _Conv(_to_float, frozenset((float,)), _kinds("number", "integer"), "float")
_BOOL = _Conv(_to_bool, frozenset((bool,)), _kinds("boolean"), "bool")
_NONE = _Conv(_to_none, frozenset((_NONE_TYPE,)), _kinds("null"), "None")
_SCALAR_CONVS: dict[Any, _Conv] = {
    str: _STR,
    int: _INT,
    float: _FLOAT,
    bool: _BOOL,
    None: _NONE,
    _NONE_TYPE: _NONE,
}


def _array(item: _Conv, make: Callable[[list[Any]], Any] | None, label: str) -> _Conv:
    passes, conv = item.passes, item.fn

    def fn(v: Any) -> Any:
        if not isinstance(v, (tuple, list)):
            raise _expected(label, v)
        out: list[Any] = []
        append = out.append
        try:
            for x in v:
                append(x if type(x) in passes else conv(x))
        except _Mismatch as exc:
            exc.segments.append(f"[{len(out)}]")
            raise
        if make is None:
            return out
        try:
            return make(out)
        except TypeError:  # set[X] of an unhashable X
            raise _Mismatch(f"the items of {label} are not hashable") from None

    return _Conv(fn, frozenset(), _kinds("array"), label)


def _fixed_tuple(items: list[_Conv], label: str) -> _Conv:
    n = len(items)

    def fn(v: Any) -> Any:
        if not isinstance(v, (tuple, list)):
            raise _expected(label, v)
        if len(v) != n:
            raise _Mismatch(f"expected {label} ({n} items), got an array of {len(v)} items")
        out: list[Any] = []
        append = out.append
        try:
            for c, x in zip(items, v, strict=True):
                append(x if type(x) in c.passes else c.fn(x))
        except _Mismatch as exc:
            exc.segments.append(f"[{len(out)}]")
            raise
        return tuple(out)

    return _Conv(fn, frozenset(), _kinds("array"), label)


def _mapping(value: _Conv, label: str) -> _Conv:
    passes, conv = value.passes, value.fn

    def fn(v: Any) -> Any:
        if not isinstance(v, dict):
            raise _expected(label, v)
        out: dict[str, Any] = {}
        try:
            for k, x in v.items():
                out[k] = x if type(x) in passes else conv(x)
        except _Mismatch as exc:
            # The key is data, not a field name of the target: not in the path.
            exc.segments.append(".*")
            raise
        return out

    return _Conv(fn, frozenset(), _kinds("object"), label)


def _union(branches: list[_Conv], label: str) -> _Conv:
    passes = frozenset().union(*(b.passes for b in branches))

    def fn(v: Any) -> Any:
        t = type(v)
        for b in branches:  # an exact fit first: 1 stays an int in int | float
            if t in b.passes:
                return v
        errors: list[tuple[_Conv, _Mismatch]] = []
        for b in branches:
            try:
                return b.fn(v)
            except _Mismatch as exc:  # noqa: PERF203 - trying each branch is the point
                errors.append((b, exc))
        kind = _kind(v)
        # When exactly one branch takes this JSON type, its (deeper) error is the useful one.
        fitting = [exc for b, exc in errors if kind in b.kinds]
        if len(fitting) == 1:
            raise fitting[0]
        raise _expected(label, v)

    return _Conv(fn, passes, frozenset().union(*(b.kinds for b in branches)), label)


def _choice(table: dict[tuple[type, Any], Any], label: str) -> _Conv:
    """Literal values or Enum members, keyed by (JSON type, value): True is not 1."""

    def fn(v: Any) -> Any:
        try:
            return table[type(v), v]
        except (KeyError, TypeError):
            pass
        # 1.0 is the integer 1 in JSON (and 1 the number 1.0), as for int and float fields.
        t = type(v)
        other = (int, int(v)) if t is float and v.is_integer() else (float, v) if t is int else None
        if other is not None and other in table:
            return table[other]
        raise _expected(label, v)

    return _Conv(fn, frozenset(), frozenset(_kind(v) for _, v in table), label)


def _record_conv(rec: _Record) -> _Conv:
    build = rec.build  # its fields may still be compiling (a recursive type): looked up per call

    def fn(v: Any) -> Any:
        if not isinstance(v, dict):
            raise _expected(rec.name, v)
        return build(v)

    return _Conv(fn, frozenset(), _kinds("object"), rec.name)


class _Record:
    """The compiled plan of one target: its fields, how to call it, what it accepts."""

    __slots__ = ("fields", "make", "name", "names", "var_kw")

    def __init__(self, name: str, make: Callable[..., Any] | None) -> None:
        self.name = name
        self.make = make  # None for a TypedDict: the dict itself is the result
        # (name, types taken as they are, converter, required: True / False / None,
        # None meaning "None when missing").
        self.fields: tuple[tuple[str, frozenset[type], Callable[[Any], Any], bool | None], ...] = ()
        self.names: frozenset[str] = frozenset()
        self.var_kw: _Conv | None = None  # **kwargs: other keys are taken and converted

    def build(self, args: Mapping[str, Any], target: Any = None) -> Any:
        """Check and convert ``args`` and call the target with them.

        ``target``: the callable to call, when the plan was compiled for another
        one of the same shape (a function with the same code, a bound method of
        another instance); nested records call their own type.
        """
        # Hot path: one dict lookup and one set lookup per field; converters are
        # called only for values that are not already what the field wants.
        kw: dict[str, Any] = {}
        missing = False
        filled = 0
        for name, passes, conv, required in self.fields:
            v = args.get(name, _MISSING)
            if v is _MISSING:
                if required:
                    missing = True
                elif required is None:
                    kw[name] = None
                    filled += 1
            elif type(v) in passes:
                kw[name] = v
            else:
                try:
                    kw[name] = conv(v)
                except _Mismatch as exc:
                    exc.segments.append("." + name)
                    raise
        if missing or len(kw) - filled != len(args):
            self._misfit(args, kw)
        make = self.make
        if make is None:
            return kw
        if target is not None:
            make = target
        try:
            return make(**kw)
        except RecursionError:  # out of stack, wherever it struck: reported as such
            raise
        except Exception as exc:  # any failure of the target is a misfit
            raise _Mismatch(type(exc).__name__, self, rejected=True) from None

    def _misfit(self, args: Mapping[str, Any], kw: dict[str, Any]) -> None:
        unknown = [k for k in args if k not in self.names]
        var = self.var_kw
        if unknown and var is not None:
            for k in unknown:
                x = args[k]
                try:
                    kw[k] = x if type(x) in var.passes else var.fn(x)
                except _Mismatch as exc:
                    # A keyword name, shown like a field name when it looks like one.
                    exc.segments.append(f".{k}" if k.isidentifier() and len(k) <= 64 else ".*")
                    raise
            unknown = []
        missing = [name for name, _, _, required in self.fields if required and name not in args]
        if missing or unknown:
            raise _Mismatch(_misfit_detail(sorted(missing), sorted(unknown)), self)


def _misfit_detail(missing: list[str], unknown: list[str]) -> str:
    bits = []
    if missing:
        bits.append("missing " + ", ".join(missing))
    if unknown:
        # Unexpected keys are named, as validate_arguments does, but only short
        # printable ones and at most a few: a key is not a place to hide content.
        shown = [
            k if len(k) <= 64 and k.isprintable() else f"<key of length {len(k)}>"
            for k in unknown[:8]
        ]
        more = f" and {len(unknown) - 8} more" if len(unknown) > 8 else ""
        bits.append("unexpected " + ", ".join(shown) + more)
    return "; ".join(bits)


def _name_of(cls: object) -> str:
    name = getattr(cls, "__name__", None)
    return name if isinstance(name, str) else type(cls).__name__


# Compiled plans by the shape of their target (see _plan_key). Bounded: the oldest
# entry goes first. The keys hold no target itself (no instance, no closure), and a
# plan never calls the target it was compiled for: build() is given the one at hand.
_PLANS: dict[Any, _Record] = {}
_PLANS_MAX = 256


def _plan_key(target: Any) -> Any:
    """What a compiled plan depends on, as a cache key; None when it is not cacheable.

    A class is its own key. A function is keyed by its code and annotations (a new
    lambda or closure from the same ``def`` shares them), a bound method by its
    function's. Anything else (a partial, a callable instance) is compiled per call.
    """
    if isinstance(target, type):
        return target
    fn = target
    if type(target) is MethodType:
        fn = target.__func__
    if type(fn) is not FunctionType:
        return None
    # A decorator's wrapper (functools.wraps) shares its code with every other
    # wrapper: the signature is the wrapped function's, so that one is the key;
    # a hand-set __signature__ is not keyed at all.
    while True:
        attrs = fn.__dict__
        if "__signature__" in attrs:
            return None
        inner = attrs.get("__wrapped__")
        if inner is None:
            break
        if type(inner) is not FunctionType:
            return None
        fn = inner
    try:
        notes = tuple(fn.__annotations__.items())
        hash(notes)
    except TypeError:  # an unhashable annotation
        return None
    defaults = fn.__defaults__
    kw_defaults = fn.__kwdefaults__
    return (
        type(target) is MethodType,
        fn.__code__,
        notes,
        0 if defaults is None else len(defaults),
        () if kw_defaults is None else tuple(kw_defaults),
    )


def _no_target(**kwargs: Any) -> Any:
    raise RuntimeError("a cached plan of a function is called with its target")


def _plan_for(target: Any, key: Any) -> _Record:
    plan = _Compiler().target(target)
    if key is not None:
        if not isinstance(target, type):
            plan.make = _no_target  # a cached plan keeps no function, method or instance
        try:
            if len(_PLANS) >= _PLANS_MAX:
                del _PLANS[next(iter(_PLANS))]
            _PLANS[key] = plan
        except (KeyError, RuntimeError, StopIteration):  # a racing thread
            pass
    return plan


class _Compiler:
    """Compiles one target's plan; nested records are shared (recursive types)."""

    def __init__(self) -> None:
        # Imported here, not at module level: `import messages` does not load typing.
        import typing

        from . import _schema

        self.typing = typing
        self.schema = _schema
        self.records: dict[Any, _Record] = {}

    def target(self, target: Any) -> _Record:
        if self.schema._is_record(target):
            return self.record(target)
        rec = _Record(_name_of(target), target)
        self.signature_fields(rec, target, None)
        return rec

    def record(self, tp: Any) -> _Record:
        rec = self.records.get(tp)
        if rec is not None:
            return rec
        typeddict = self.schema._is_typeddict(tp)
        rec = self.records[tp] = _Record(_name_of(tp), None if typeddict else tp)
        hints = self.class_hints(tp)
        if not typeddict:
            self.signature_fields(rec, tp, hints)
            return rec
        required_keys: frozenset[str] = tp.__required_keys__
        fields: list[tuple[str, Any, bool]] = []
        for name in tp.__annotations__:
            hint = hints.get(name, _NO_HINT)
            explicit = None
            if hint is not _NO_HINT:  # NotRequired[...] even where __required_keys__ missed it
                hint, explicit = self.schema._strip_qualifiers(hint)
            fields.append((name, hint, name in required_keys if explicit is None else explicit))
        self.set_fields(rec, fields)
        return rec

    def signature_fields(self, rec: _Record, target: Any, hints: dict[str, Any] | None) -> None:
        try:
            sig = inspect.signature(target)
        except (TypeError, ValueError):  # a builtin without a signature: pass everything on
            rec.var_kw = _ANY
            return
        if hints is None:
            hints = self.callable_hints(target, sig)
        fields: list[tuple[str, Any, bool]] = []
        for p in sig.parameters.values():
            if p.kind is p.VAR_KEYWORD:
                rec.var_kw = self.conv(hints.get(p.name, _NO_HINT))
            elif p.kind is p.POSITIONAL_OR_KEYWORD or p.kind is p.KEYWORD_ONLY:
                fields.append((p.name, hints.get(p.name, _NO_HINT), p.default is p.empty))
        self.set_fields(rec, fields)

    def set_fields(self, rec: _Record, fields: list[tuple[str, Any, bool]]) -> None:
        compiled = []
        for name, hint, required in fields:
            c = self.conv(hint)
            # A required Optional[X] may be left out: the generated schema does not
            # list it in "required" (see _schema), so it is passed as None.
            fill = required and hint is not _NO_HINT and self.schema._is_optional(hint)
            compiled.append((name, c.passes, c.fn, None if fill else required))
        rec.fields = tuple(compiled)
        rec.names = frozenset(name for name, _, _ in fields)

    def class_hints(self, tp: type) -> dict[str, Any]:
        try:
            return self.typing.get_type_hints(tp, include_extras=True)
        except Exception:  # one bad annotation: resolve the others one by one
            import sys

            hints: dict[str, Any] = {}
            for base in reversed(tp.__mro__):
                module = getattr(sys.modules.get(base.__module__), "__dict__", {})
                # get_type_hints looks in the module before the class namespace.
                for name, value in inspect.get_annotations(base).items():
                    hints[name] = self.resolve(value, dict(vars(base)), module)
            return hints

    def callable_hints(self, target: Any, sig: inspect.Signature) -> dict[str, Any]:
        try:
            resolved = inspect.signature(target, eval_str=True)
            return {n: p.annotation for n, p in resolved.parameters.items()}
        except Exception:  # one bad annotation: resolve the others one by one
            module = _globals_of(target)
            return {n: self.resolve(p.annotation, module, None) for n, p in sig.parameters.items()}

    def resolve(self, value: Any, globalns: dict[str, Any], localns: Any) -> Any:
        """One annotation (maybe a string); _NO_HINT when it does not resolve."""
        if value is inspect.Parameter.empty:
            return _NO_HINT
        import types

        holder = types.SimpleNamespace(__annotations__={"x": value})
        try:
            return self.typing.get_type_hints(holder, globalns, localns, include_extras=True)["x"]
        except Exception:  # an unresolvable annotation is not checked
            return _NO_HINT

    def conv(self, hint: Any) -> _Conv:
        """The converter for one annotation; unknown annotations are not checked."""
        try:
            return self._conv(hint)
        except Exception:  # an annotation object this code cannot read is not checked
            return _ANY

    def _conv(self, hint: Any) -> _Conv:
        if hint is _NO_HINT or hint is inspect.Parameter.empty:
            return _ANY
        typing = self.typing
        try:
            scalar = _SCALAR_CONVS.get(hint)
        except TypeError:  # an unhashable annotation object
            scalar = None
        if scalar is not None:
            return scalar
        if hint is typing.Any or hint is object:
            return _ANY
        schema = self.schema
        if schema._is_record(hint):
            return _record_conv(self.record(hint))
        origin = typing.get_origin(hint)
        args = typing.get_args(hint)
        if origin is typing.Annotated or schema._qualifier(origin) is not None:
            return self.conv(args[0])
        if isinstance(hint, dataclasses.InitVar):
            return self.conv(hint.type)
        if origin is typing.Union or origin is _UnionType:
            branches = [self.conv(a) for a in args]
            return _union(branches, " | ".join(b.label for b in branches))
        if origin is typing.Literal:
            return self.literal(args)
        import enum

        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            members = list(hint)
            table = _choice_table([(m.value, m) for m in members])
            values = ", ".join(repr(m.value) for m in members)
            return _choice(table, f"{hint.__name__} ({_shorten(values)})")
        if origin is not None and schema._is_record(origin):  # a generic dataclass alias
            return _record_conv(self.record(origin))
        base = origin if origin is not None else hint
        if base in schema._SEQUENCES:
            return self.array(hint, base, args)
        if base in schema._MAPPINGS:
            return self.mapping(base, args)
        supertype = getattr(hint, "__supertype__", None)  # typing.NewType
        if supertype is not None:
            return self.conv(supertype)
        return _ANY

    def literal(self, args: tuple[Any, ...]) -> _Conv:
        import enum

        table = _choice_table([(a.value if isinstance(a, enum.Enum) else a, a) for a in args])
        label = "Literal[" + _shorten(", ".join(repr(a) for a in args)) + "]"
        return _choice(table, label)

    def array(self, hint: Any, base: Any, args: tuple[Any, ...]) -> _Conv:
        name = _name_of(base)
        if base is tuple:
            # tuple[()]: 3.10 spells its args ((),), 3.11+ (); bare tuple / typing.Tuple have none.
            bare = hint is tuple or hint is self.typing.Tuple
            if args == ((),) or (not args and not bare):
                return _fixed_tuple([], "tuple[()]")
            if args and not (len(args) == 2 and args[1] is Ellipsis):
                items = [self.conv(a) for a in args]
                return _fixed_tuple(items, f"tuple[{', '.join(c.label for c in items)}]")
        item = self.conv(args[0]) if args else _ANY
        label = f"{name}[{item.label}]" if args else name
        make: Callable[[list[Any]], Any] | None
        if base is tuple:
            make = tuple
        elif base in self.schema._SETS:
            make = set if base is set or name == "MutableSet" else frozenset
        else:
            make = None  # list, Sequence, MutableSequence: a list
        return _array(item, make, label)

    def mapping(self, base: Any, args: tuple[Any, ...]) -> _Conv:
        name = _name_of(base)
        if not args:
            return _mapping(_ANY, name)
        key = self.conv(args[0])
        # JSON keys are strings: dict[int, X] is not checked.
        if key is not _STR and key is not _ANY:
            return _ANY
        value = self.conv(args[1])
        return _mapping(value, f"{name}[str, {value.label}]")


def _choice_table(pairs: list[tuple[Any, Any]]) -> dict[tuple[type, Any], Any]:
    table: dict[tuple[type, Any], Any] = {}
    for value, result in pairs:
        try:
            table.setdefault((type(value), value), result)
        except TypeError:  # noqa: PERF203 - compile time only; unhashable never equals JSON
            continue
    return table


def _shorten(text: str) -> str:
    """Type-defined values (never an argument) for a label, shortened."""
    return text if len(text) <= 120 else text[:117] + "..."


def _globals_of(target: Any) -> dict[str, Any]:
    """The namespace a callable's string annotations are evaluated in."""
    import functools
    import sys
    import types

    obj = target
    for _ in range(20):  # partial of a bound method of ... : unwrap a few layers
        if isinstance(obj, functools.partial):
            obj = obj.func
        elif isinstance(obj, types.MethodType):
            obj = obj.__func__
        else:
            break
    if isinstance(obj, type):
        init = getattr(obj, "__init__", None)
        g = getattr(init, "__globals__", None)
        if isinstance(g, dict):
            return g
    else:
        g = getattr(inspect.unwrap(obj), "__globals__", None)
        if isinstance(g, dict):
            return g
    module = sys.modules.get(getattr(obj, "__module__", None) or "")
    return getattr(module, "__dict__", {})


_UnionType = type(int | str)


# The codec is imported on first use (import time); see _lazy.
if TYPE_CHECKING:
    from . import _part_codec
else:
    _part_codec = LazyModule("._part_codec", __package__, globals(), "_part_codec")
