"""``ToolCall.arguments_as``: building a dataclass, TypedDict, NamedTuple or call from arguments.

A target is compiled once into a :class:`_Record` plan, cached per target: for
each field, the value types it takes unchanged and a converter for everything
else. A converter takes a frozen JSON value and returns what the annotation asks
for (a list for ``list[int]``, an Enum member, a built nested dataclass...), or
raises :class:`_Mismatch`. The path is paid for only on failure: each container
appends its segment while the _Mismatch unwinds, and the top level formats the
error.

The compiler reads the target through :mod:`._typehints`, the walk the schema
generator shares; an annotation the generator would refuse is not checked here
(its value is passed on as plain JSON).

``null`` for a field that may be left out (a default, ``NotRequired``) counts as
absent: the field gets its default (or is left out of a TypedDict). A field with
no default whose annotation allows ``None`` gets ``None`` when missing or null.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import FunctionType, MethodType

from .._frozen import SCALARS, thaw
from .._json import json_type, show_name
from ..errors import ValidationError

TYPE_CHECKING = False
if TYPE_CHECKING:  # `import messages` loads no typing (import time is latency)
    from typing import Any, TypeVar

    from . import _typehints as th

    T = TypeVar("T")

__all__ = ["build_from_arguments", "keyword_arguments"]


def build_from_arguments(cls: Callable[..., T], args: Mapping[str, Any], path: str) -> T:
    """Build ``cls`` from (frozen) arguments checked against its type hints, or raise ValidationError."""
    key = _plan_key(cls)
    plan = None if key is None else _PLANS.get(key)
    if plan is None:
        plan = _plan_for(cls, key, path)
    try:
        built: T = plan.build(args, cls)
        return built
    except _Mismatch as exc:
        err = exc
    except RecursionError:
        err = _Mismatch("nested too deeply")
    raise _error(cls, err, path)


def keyword_arguments(fn: Callable[..., Any], args: Mapping[str, Any], path: str) -> dict[str, Any]:
    """The keyword arguments ``arguments_as(fn)`` calls ``fn`` with, without calling it.

    Checked and converted as for ``arguments_as``; a ``null`` for a parameter with a
    default is left out (so ``fn``'s default applies), as is a missing one.
    """
    key = _plan_key(fn)
    plan = None if key is None else _PLANS.get(key)
    if plan is None:
        plan = _plan_for(fn, key, path)
    try:
        kwargs: dict[str, Any] = plan.build(args, dict)
        return kwargs
    except _Mismatch as exc:
        err = exc
    except RecursionError:
        err = _Mismatch("nested too deeply")
    raise _error(fn, err, path)


def _error(target: Any, err: _Mismatch, path: str) -> ValidationError:
    """The ValidationError for a misfit of ``target``'s arguments."""
    # Raised by the caller outside its except blocks: no __context__ chain (the
    # target's own exception may quote argument values).
    segments = err.segments
    segments.reverse()
    return ValidationError(_render(show_name(_name_of(target)), err), path + "".join(segments))


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
            return (
                f"arguments do not fit {target}: rejected by {show_name(owner.name)} ({err.detail})"
            )
        return f"arguments do not fit {target}: {err.detail} for {show_name(owner.name)}"
    return f"arguments do not fit {target}: {err.detail}"


def _expected(label: str, value: object) -> _Mismatch:
    return _Mismatch(f"expected {label}, got {json_type(value)}")


_MISSING: Any = object()
_NONE_TYPE = type(None)
_ALL_KINDS = frozenset(("null", "boolean", "integer", "number", "string", "array", "object"))


class _Conv:
    """How one annotation is applied: ``fn(value)`` converts or raises _Mismatch.

    ``passes`` are value types ``fn`` would return unchanged, so callers skip the
    call for them (a str field costs a set lookup, no call); ``kinds`` the JSON
    types it accepts (a Union picks the branch error to report with them).
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


_ANY = _Conv(thaw, SCALARS, _ALL_KINDS, "any value")
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
        for i, x in enumerate(v):
            try:
                out.append(x if type(x) in passes else conv(x))
            except _Mismatch as exc:
                exc.segments.append(f"[{i}]")
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
        for i, (c, x) in enumerate(zip(items, v, strict=True)):
            try:
                out.append(x if type(x) in c.passes else c.fn(x))
            except _Mismatch as exc:
                exc.segments.append(f"[{i}]")
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
            except _Mismatch as exc:
                errors.append((b, exc))
        kind = json_type(v)
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

    return _Conv(fn, frozenset(), frozenset(json_type(v) for _, v in table), label)


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
        # One dict lookup and one set lookup per field; converters are called only
        # for values that are not already what the field wants.
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
            elif v is None and required is False:
                # null for a field that may be left out: absent, so it gets its
                # default. OpenAI strict mode sends null for every parameter the
                # model leaves out, so this is common; caught here rather than as a
                # converter's _Mismatch, which costs an exception per null
                # ("arguments_as(get_weather) with 2 nulls" in benchmarks/bench_tools.py).
                filled -= 1
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


def _plan_for(target: Any, key: Any, path: str) -> _Record:
    """Compile ``target``'s plan and cache it under ``key`` (unless None)."""
    try:
        plan = _Compiler().target(target)
    except RecursionError:  # only when the caller's own stack is already deep
        name = show_name(_name_of(target))
        raise ValidationError(
            f"arguments do not fit {name}: type hints nested too deeply", path
        ) from None
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
    """Compiles one target's plan from its node tree; nested records are shared."""

    def __init__(self) -> None:
        # Imported here, not at module level: `import messages` does not load typing.
        from . import _typehints

        if not _CONVS:
            _CONVS.update(_conv_table())
        self.th = _typehints
        self.walker = _typehints.Walker()
        self.records: dict[Any, _Record] = {}

    def target(self, target: Any) -> _Record:
        node = self.walker.target(target)
        if node.kind != "callable":
            return self.record(node)
        rec = _Record(_name_of(target), target)
        self.set_fields(rec, node)
        return rec

    def record(self, node: th.RecordNode) -> _Record:
        rec = self.records.get(node)
        if rec is None:
            make = None if node.kind == "typeddict" else node.type
            rec = self.records[node] = _Record(node.name, make)
            self.set_fields(rec, node)
        return rec

    def set_fields(self, rec: _Record, node: th.RecordNode) -> None:
        if node.no_signature:  # a builtin without a signature: pass everything on
            rec.var_kw = _ANY
            return
        th = self.th
        has_defaults = node.kind != "typeddict"  # a TypedDict key has none
        compiled = []
        names = []
        for f in node.fields:
            if f.kind is th.VAR_KEYWORD:
                rec.var_kw = self.conv(f.node)
                continue
            if f.kind not in th.NAMED:
                continue
            c = self.conv(f.node)
            required: bool | None
            if f.optional:
                required = False
            elif th.allows_none(f.node):
                # A required Optional[X] may be left out: the generated schema does not
                # list it in "required" (see _schema_gen), so it is passed as None.
                required = None
            else:
                required = True
            passes = c.passes
            if has_defaults and required is False:
                passes = passes - {_NONE_TYPE}  # null means "left out": the default, not None
            compiled.append((f.name, passes, c.fn, required))
            names.append(f.name)
        rec.fields = tuple(compiled)
        rec.names = frozenset(names)

    def conv(self, node: th.Node) -> _Conv:
        """The converter for one node; what this code cannot read is not checked."""
        try:
            return _CONVS[type(node)](self, node)
        except RecursionError:
            raise
        except Exception:  # an annotation object this code cannot read is not checked
            return _ANY

    def scalar(self, node: th.ScalarNode) -> _Conv:
        return _SCALAR_CONVS[node.type]

    def none(self, node: th.NoneNode) -> _Conv:
        return _NONE

    def any(self, node: th.Node) -> _Conv:
        return _ANY

    def annotated(self, node: th.AnnotatedNode) -> _Conv:
        return self.conv(node.base)

    def union(self, node: th.UnionNode) -> _Conv:
        branches = [self.conv(b) for b in node.branches]
        return _union(branches, " | ".join(b.label for b in branches))

    def literal(self, node: th.LiteralNode) -> _Conv:
        import enum

        args = node.values
        table = _choice_table([(a.value if isinstance(a, enum.Enum) else a, a) for a in args])
        label = "Literal[" + _shorten(", ".join(repr(a) for a in args)) + "]"
        return _choice(table, label)

    def enum(self, node: th.EnumNode) -> _Conv:
        members = list(node.type)
        table = _choice_table([(m.value, m) for m in members])
        values = ", ".join(repr(m.value) for m in members)
        return _choice(table, f"{node.type.__name__} ({_shorten(values)})")

    def record_conv(self, node: th.RecordNode) -> _Conv:
        return _record_conv(self.record(node))

    def array(self, node: th.ArrayNode) -> _Conv:
        base = node.origin
        name = _name_of(base)
        item = _ANY if node.item is None else self.conv(node.item)
        label = name if node.item is None else f"{name}[{item.label}]"
        make: Callable[[list[Any]], Any] | None
        if base is tuple:
            make = tuple
        elif node.unique:
            make = set if base is set or name == "MutableSet" else frozenset
        else:
            make = None  # list, Sequence, MutableSequence: a list
        return _array(item, make, label)

    def fixed_tuple(self, node: th.TupleNode) -> _Conv:
        if not node.items:
            return _fixed_tuple([], "tuple[()]")
        items = [self.conv(a) for a in node.items]
        return _fixed_tuple(items, f"tuple[{', '.join(c.label for c in items)}]")

    def mapping(self, node: th.MappingNode) -> _Conv:
        name = _name_of(node.origin)
        if node.key is None or node.value is None:
            return _mapping(_ANY, name)
        key = self.conv(node.key)
        # JSON keys are strings: dict[int, X] is not checked.
        if key is not _STR and key is not _ANY:
            return _ANY
        value = self.conv(node.value)
        return _mapping(value, f"{name}[str, {value.label}]")


def _conv_table() -> dict[type, Callable[[_Compiler, Any], _Conv]]:
    from . import _typehints as th

    return {
        th.ScalarNode: _Compiler.scalar,
        th.NoneNode: _Compiler.none,
        th.AnyNode: _Compiler.any,
        th.UncheckedNode: _Compiler.any,
        th.AnnotatedNode: _Compiler.annotated,
        th.UnionNode: _Compiler.union,
        th.LiteralNode: _Compiler.literal,
        th.EnumNode: _Compiler.enum,
        th.RecordNode: _Compiler.record_conv,
        th.ArrayNode: _Compiler.array,
        th.TupleNode: _Compiler.fixed_tuple,
        th.MappingNode: _Compiler.mapping,
    }


# Filled by the first _Compiler (import time: `import messages` loads no typing).
_CONVS: dict[type, Callable[[_Compiler, Any], _Conv]] = {}


def _choice_table(pairs: list[tuple[Any, Any]]) -> dict[tuple[type, Any], Any]:
    table: dict[tuple[type, Any], Any] = {}
    for value, result in pairs:
        try:
            table.setdefault((type(value), value), result)
        except TypeError:
            continue
    return table


def _shorten(text: str) -> str:
    """Type-defined values (never an argument) for a label, shortened."""
    return text if len(text) <= 120 else text[:117] + "..."
