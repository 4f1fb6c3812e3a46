"""The one place that builds value objects past their frozen ``__setattr__``.

Two kinds of callers use it:

* Decoders and provider parsers, which have checked what they read while building
  the error path, build through the trusted functions at the bottom of this module
  (``message``, ``tool_call_message``, ``tool_result_message``, ``tool_call``, the
  parts and deltas, and ``trusted`` for the rest). Nothing is checked twice.
* The hot classes (the messages and ``ToolCall``) take their ``__init__`` from the
  factories here. Each runs the same field checks as the class's ``__post_init__``
  (see ``_fields``) on its arguments and then stores them. A user's dataclass
  subclass gets the generated ``__init__``, which stores the fields and calls
  ``__post_init__``: both ways check alike.

The trick, and its figures: a frozen dataclass refuses ``self.x = v``, so a field is
stored through its slot descriptor (``object.__setattr__`` or the descriptor's
``__set__``, ~45 ns a field). Here an object is built as the class's *mutable twin*
(``twin_of``: a subclass with the same layout and the plain ``object`` attribute
hooks, so CPython specialises each store to a few ns) and then switched to the class
(~35 ns). ``UserMessage("...")``: ~470 ns through slot setters, ~330 ns here (Python
3.11, 2 cores; ``benchmarks/bench_core.py``). Twins never escape this module: every
function returns an object whose ``type`` is the class asked for.
"""

from __future__ import annotations

from ._fields import check_cache, check_created_at, check_id, check_mapping, check_str
from ._frozen import EMPTY
from ._ids import counter, new_id, time_ns
from ._parts import TextPart
from .errors import ident, reject

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, TypeVar

    from ._frozen import FrozenDict

    T = TypeVar("T")

__all__ = [
    "chat_response",
    "content_message_init",
    "message",
    "plain_message",
    "plain_tool_call_message",
    "stream_delta",
    "text_part",
    "tool_call",
    "tool_call_delta",
    "tool_call_init",
    "tool_call_message",
    "tool_call_message_init",
    "tool_result_message",
    "tool_result_message_init",
    "trusted",
    "trusted_fields",
    "twin_of",
    "usage",
]

_new = object.__new__
_set_class = object.__dict__["__class__"].__set__
_next = counter.__next__


# -- mutable twins -------------------------------------------------------------------------


def _make_twin(cls: type) -> Any:
    namespace: dict[str, Any] = {
        "__slots__": (),
        "__setattr__": object.__setattr__,
        "__delattr__": object.__delattr__,
        "__module__": cls.__module__,
        "__qualname__": f"{cls.__qualname__}.<building>",
        "__doc__": f"{cls.__name__} while it is being built (never escapes _build).",
    }
    # A lazily formatted field (a message's id and created_at, see _ids) is stored
    # through the slot it stands in for: a plain slot store, not a Python __set__.
    for klass in cls.__mro__:
        for name, value in vars(klass).items():
            slot = getattr(value, "slot", None)
            if slot is not None and name not in namespace and hasattr(slot, "__set__"):
                namespace[name] = slot
    return type(cls.__name__, (cls,), namespace)


_TWINS: dict[type, Any] = {}


def twin_of(cls: type) -> Any:
    """The mutable twin of ``cls``, made on first use and kept."""
    twin = _TWINS.get(cls)
    if twin is None:
        twin = _TWINS[cls] = _make_twin(cls)
    return twin


# -- the common message fields -------------------------------------------------------------


def _common(
    self: Any,
    name: object,
    metadata: object,
    extras: object,
    id: object,
    created_at: object,
    cache: object,
) -> None:
    """Check and store the common fields on a message being built (a twin)."""
    self.name = None if name is None else check_str(name, "name")
    self.metadata = check_mapping(metadata, "metadata")
    self.extras = check_mapping(extras, "extras")
    self.cache = check_cache(cache)
    if id is None:
        if created_at is None:
            self.created_at = time_ns()
            self.id = _next()
        else:  # the id is made now, from the clock, not from created_at
            self.created_at = check_created_at(created_at)
            self.id = new_id()
    else:
        self.id = check_id(id)
        self.created_at = time_ns() if created_at is None else check_created_at(created_at)


_OPTIONS = ("name", "metadata", "extras", "id", "created_at", "cache")
_OPTION_NAMES = frozenset(_OPTIONS)


def _options(self: Any, options: dict[str, Any]) -> tuple[Any, ...]:
    """The common fields a message's ``__init__`` got as keywords, in ``_common``'s order;
    an unknown keyword is a TypeError, as Python's own."""
    for key in options:
        if key not in _OPTION_NAMES:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument {ident(key)}"
            )
    return tuple([options.get(key) for key in _OPTIONS])


# -- __init__ of the hot classes -------------------------------------------------------------
#
# The common fields (name, metadata, extras, id, created_at, cache) are keyword-only.
# Each ``__init__`` takes them as ``**options``: a keyword-only parameter left at its
# default costs a dict lookup per call in CPython 3.11 (~25 ns for the six of them,
# of ~400 ns for ``UserMessage("...")``), an empty ``**options`` nothing of the kind,
# and ``if options`` is one test where six ``is None`` were. ``signature`` is the
# class's declared ``__init__`` (the typed one in ``_message``): the ``__init__``
# made here takes its name and docstring, and ``inspect.signature`` shows its
# signature through ``__wrapped__``.


def _signed(init: Callable[..., None], signature: Callable[..., None]) -> Callable[..., None]:
    init.__wrapped__ = signature  # type: ignore[attr-defined]
    init.__qualname__ = signature.__qualname__
    init.__doc__ = signature.__doc__
    return init


def content_message_init(
    check: Callable[[object], Any], signature: Callable[..., None]
) -> Callable[..., None]:
    """The ``__init__`` of a message whose own field is ``content``; ``check`` checks it."""

    def __init__(self: Any, content: Any, **options: Any) -> None:  # noqa: N807
        common = _options(self, options) if options else None
        if content.__class__ is not str:
            content = check(content)
        cls = self.__class__
        try:
            _set_class(self, _TWINS[cls])
        except KeyError:
            _set_class(self, twin_of(cls))
        self.content = content
        if common is None:
            # hot path: the usual call passes only content (saves the _common call, ~70 ns)
            self.name = None
            self.metadata = EMPTY
            self.extras = EMPTY
            self.cache = None
            self.created_at = time_ns()
            self.id = _next()
        else:
            _common(self, *common)
        self.__class__ = cls

    return _signed(__init__, signature)


def tool_result_message_init(
    check: Callable[[object], Any],
    check_head: Callable[[object, object, object], tuple[str, bool, str | None]],
    signature: Callable[..., None],
) -> Callable[..., None]:
    """The ``__init__`` of ToolResultMessage; ``check_head`` checks id, is_error and tool_name."""

    def __init__(  # noqa: N807  (becomes the class's __init__)
        self: Any,
        tool_call_id: str,
        content: Any,
        is_error: bool = False,
        tool_name: str | None = None,
        **options: Any,
    ) -> None:
        common = _options(self, options) if options else None
        if (
            tool_call_id.__class__ is not str
            or not tool_call_id
            or (is_error is not False and is_error is not True)
            or (tool_name is not None and (tool_name.__class__ is not str or not tool_name))
        ):
            tool_call_id, is_error, tool_name = check_head(tool_call_id, is_error, tool_name)
        if content.__class__ is not str:
            content = check(content)
        cls = self.__class__
        try:
            _set_class(self, _TWINS[cls])
        except KeyError:
            _set_class(self, twin_of(cls))
        self.tool_call_id = tool_call_id
        self.content = content
        self.is_error = is_error
        self.tool_name = tool_name
        if common is None:
            self.name = None
            self.metadata = EMPTY
            self.extras = EMPTY
            self.cache = None
            self.created_at = time_ns()
            self.id = _next()
        else:
            _common(self, *common)
        self.__class__ = cls

    return _signed(__init__, signature)


def tool_call_message_init(
    call_type: type,
    check_content: Callable[[object], Any],
    check_calls: Callable[[object, object], tuple[tuple[Any, ...], tuple[Any, ...]]],
    signature: Callable[..., None],
) -> Callable[..., None]:
    """The ``__init__`` of ToolCallMessage; ``check_calls`` checks both call tuples."""

    def __init__(  # noqa: N807  (becomes the class's __init__)
        self: Any,
        tool_calls: Any = (),
        content: Any = None,
        invalid_tool_calls: Any = (),
        **options: Any,
    ) -> None:
        common = _options(self, options) if options else None
        # hot path: one or two valid calls of the exact type, in a tuple, with distinct
        # ids and no invalid calls, need no set of ids
        if not (
            tool_calls.__class__ is tuple
            and invalid_tool_calls.__class__ is tuple
            and not invalid_tool_calls
            and (n := len(tool_calls))
            and n <= 2
            and tool_calls[0].__class__ is call_type
            and (
                n == 1
                or (
                    tool_calls[1].__class__ is call_type and tool_calls[0].id != tool_calls[1].id  # type: ignore[attr-defined]
                )
            )
        ):
            tool_calls, invalid_tool_calls = check_calls(tool_calls, invalid_tool_calls)
        if content is not None and content.__class__ is not str:
            content = check_content(content)
        cls = self.__class__
        try:
            _set_class(self, _TWINS[cls])
        except KeyError:
            _set_class(self, twin_of(cls))
        self.tool_calls = tool_calls
        self.invalid_tool_calls = invalid_tool_calls
        self.content = content
        if common is None:
            self.name = None
            self.metadata = EMPTY
            self.extras = EMPTY
            self.cache = None
            self.created_at = time_ns()
            self.id = _next()
        else:
            _common(self, *common)
        self.__class__ = cls

    return _signed(__init__, signature)


def tool_call_init(
    check_call_id: Callable[[object], str],
    known_names: set[str],
    check_name: Callable[[object], str],
    check_arguments: Callable[[object], tuple[FrozenDict, str | None]],
    check_extras: Callable[[object], FrozenDict],
) -> Callable[..., None]:
    """The ``__init__`` of ToolCall."""

    def __init__(  # noqa: N807  (becomes the class's __init__)
        self: Any,
        id: str,
        name: str,
        arguments: Any = EMPTY,
        extras: Mapping[str, Any] | None = None,
    ) -> None:
        if id.__class__ is not str or not id:
            id = check_call_id(id)
        if name.__class__ is not str or name not in known_names:
            name = check_name(name)
        frozen, raw = check_arguments(arguments)
        cls = self.__class__
        try:
            _set_class(self, _TWINS[cls])
        except KeyError:
            _set_class(self, twin_of(cls))
        self.id = id
        self.name = name
        self.arguments = frozen
        self.extras = EMPTY if extras is None or extras is EMPTY else check_extras(extras)
        self._raw = raw
        self.__class__ = cls

    return __init__


# -- trusted builders for decoders and parsers -----------------------------------------------
#
# ``cls`` is a built-in class, or a subclass that adds no fields (a subclass with
# fields of its own is built through its constructor by the codec, so that its own
# checks run). ``created_at`` may also be the canonical UTC text
# ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (already checked by the caller): it is kept as
# text until ``created_at`` is read, and the encoder writes it back as it is.


def message(
    cls: type[T],
    content: Any,
    name: str | None = None,
    metadata: FrozenDict = EMPTY,
    extras: FrozenDict = EMPTY,
    id: str | None = None,
    created_at: Any = None,
    cache: Any = None,
) -> T:
    """A System/Developer/User/Assistant message (or such a subclass), unchecked."""
    try:
        self = _new(_TWINS[cls])
    except KeyError:
        self = _new(twin_of(cls))
    self.content = content
    self.name = name
    self.metadata = metadata
    self.extras = extras
    self.cache = cache
    if id is None:
        if created_at is None:
            self.created_at = time_ns()
            self.id = _next()
        else:  # the id is made now, from the clock, not from created_at
            self.created_at = created_at
            self.id = new_id()
    else:
        self.id = id
        self.created_at = time_ns() if created_at is None else created_at
    self.__class__ = cls
    return self  # type: ignore[no-any-return]


def plain_message(cls: type[T], content: Any, id: str | None, created_at: Any) -> T:
    """``message`` without name, metadata and extras (the usual decoded dict)."""
    try:
        self = _new(_TWINS[cls])
    except KeyError:
        self = _new(twin_of(cls))
    self.content = content
    self.name = None
    self.metadata = EMPTY
    self.extras = EMPTY
    self.cache = None
    if id is None:
        if created_at is None:
            self.created_at = time_ns()
            self.id = _next()
        else:
            self.created_at = created_at
            self.id = new_id()
    else:
        self.id = id
        self.created_at = time_ns() if created_at is None else created_at
    self.__class__ = cls
    return self  # type: ignore[no-any-return]


def plain_tool_call_message(
    cls: type[T],
    tool_calls: tuple[Any, ...],
    content: Any,
    invalid_tool_calls: tuple[Any, ...],
    id: str | None,
    created_at: Any,
) -> T:
    """``tool_call_message`` without name, metadata and extras (the usual decoded dict)."""
    try:
        self = _new(_TWINS[cls])
    except KeyError:
        self = _new(twin_of(cls))
    self.tool_calls = tool_calls
    self.invalid_tool_calls = invalid_tool_calls
    self.content = content
    self.name = None
    self.metadata = EMPTY
    self.extras = EMPTY
    self.cache = None
    if id is None:
        if created_at is None:
            self.created_at = time_ns()
            self.id = _next()
        else:
            self.created_at = created_at
            self.id = new_id()
    else:
        self.id = id
        self.created_at = time_ns() if created_at is None else created_at
    self.__class__ = cls
    return self  # type: ignore[no-any-return]


def tool_call_message(
    cls: type[T],
    tool_calls: tuple[Any, ...],
    content: Any = None,
    invalid_tool_calls: tuple[Any, ...] = (),
    name: str | None = None,
    metadata: FrozenDict = EMPTY,
    extras: FrozenDict = EMPTY,
    id: str | None = None,
    created_at: Any = None,
    cache: Any = None,
) -> T:
    """A ToolCallMessage (or such a subclass), unchecked."""
    try:
        self = _new(_TWINS[cls])
    except KeyError:
        self = _new(twin_of(cls))
    self.tool_calls = tool_calls
    self.invalid_tool_calls = invalid_tool_calls
    self.content = content
    self.name = name
    self.metadata = metadata
    self.extras = extras
    self.cache = cache
    if id is None:
        if created_at is None:
            self.created_at = time_ns()
            self.id = _next()
        else:
            self.created_at = created_at
            self.id = new_id()
    else:
        self.id = id
        self.created_at = time_ns() if created_at is None else created_at
    self.__class__ = cls
    return self  # type: ignore[no-any-return]


def tool_result_message(
    cls: type[T],
    tool_call_id: str,
    content: Any,
    is_error: bool = False,
    tool_name: str | None = None,
    name: str | None = None,
    metadata: FrozenDict = EMPTY,
    extras: FrozenDict = EMPTY,
    id: str | None = None,
    created_at: Any = None,
    cache: Any = None,
) -> T:
    """A ToolResultMessage (or such a subclass), unchecked."""
    try:
        self = _new(_TWINS[cls])
    except KeyError:
        self = _new(twin_of(cls))
    self.tool_call_id = tool_call_id
    self.content = content
    self.is_error = is_error
    self.tool_name = tool_name
    self.name = name
    self.metadata = metadata
    self.extras = extras
    self.cache = cache
    if id is None:
        if created_at is None:
            self.created_at = time_ns()
            self.id = _next()
        else:
            self.created_at = created_at
            self.id = new_id()
    else:
        self.id = id
        self.created_at = time_ns() if created_at is None else created_at
    self.__class__ = cls
    return self  # type: ignore[no-any-return]


def plain_tool_result_message(
    cls: type[T],
    tool_call_id: str,
    content: Any,
    is_error: bool,
    tool_name: str | None,
    id: str | None,
    created_at: Any,
) -> T:
    """``tool_result_message`` without name, metadata, extras and cache (the usual decoded
    dict): four arguments fewer, 13,284 -> 13,063 instructions for from_dict of a result."""
    try:
        self = _new(_TWINS[cls])
    except KeyError:
        self = _new(twin_of(cls))
    self.tool_call_id = tool_call_id
    self.content = content
    self.is_error = is_error
    self.tool_name = tool_name
    self.name = None
    self.metadata = EMPTY
    self.extras = EMPTY
    self.cache = None
    if id is None:
        if created_at is None:
            self.created_at = time_ns()
            self.id = _next()
        else:
            self.created_at = created_at
            self.id = new_id()
    else:
        self.id = id
        self.created_at = time_ns() if created_at is None else created_at
    self.__class__ = cls
    return self  # type: ignore[no-any-return]


def tool_call(
    cls: type[T],
    id: str,
    name: str,
    arguments: FrozenDict,
    extras: FrozenDict = EMPTY,
    raw: str | None = None,
) -> T:
    """A ToolCall (or such a subclass), unchecked; ``raw`` is the arguments text received."""
    try:
        self = _new(_TWINS[cls])
    except KeyError:
        self = _new(twin_of(cls))
    self.id = id
    self.name = name
    self.arguments = arguments
    self.extras = extras
    self._raw = raw
    self.__class__ = cls
    return self  # type: ignore[no-any-return]


# -- responses and stream deltas (providers build one per response or per event) ---------
#
# ``cls`` is the class asked for; each of these stores the fields named in its
# signature (tests/test_build.py holds them to the classes' fields). A ChatResponse
# with its Usage: ~0.75 us through slot setters, ~0.3 us here.


def usage(
    cls: type[T],
    input_tokens: int,
    output_tokens: int,
    total_tokens: int,
    cached_input_tokens: int | None = None,
    cache_creation_input_tokens: int | None = None,
    reasoning_tokens: int | None = None,
) -> T:
    """A Usage of checked counts."""
    try:
        self = _new(_TWINS[cls])
    except KeyError:
        self = _new(twin_of(cls))
    self.input_tokens = input_tokens
    self.output_tokens = output_tokens
    self.total_tokens = total_tokens
    self.cached_input_tokens = cached_input_tokens
    self.cache_creation_input_tokens = cache_creation_input_tokens
    self.reasoning_tokens = reasoning_tokens
    self.__class__ = cls
    return self  # type: ignore[no-any-return]


def chat_response(
    cls: type[T],
    message: Any,
    finish_reason: Any,
    usage: Any,
    model: str | None,
    invalid_tool_calls: tuple[Any, ...],
    provider_finish_reason: str | None,
    refusal: str | None,
    id: str | None,
    error: str | None,
) -> T:
    """A ChatResponse of checked values."""
    try:
        self = _new(_TWINS[cls])
    except KeyError:
        self = _new(twin_of(cls))
    self.message = message
    self.finish_reason = finish_reason
    self.usage = usage
    self.model = model
    self.invalid_tool_calls = invalid_tool_calls
    self.provider_finish_reason = provider_finish_reason
    self.refusal = refusal
    self.id = id
    self.error = error
    self.__class__ = cls
    return self  # type: ignore[no-any-return]


def stream_delta(cls: type[T], kind: str, text: str, tool_call: Any) -> T:
    """A StreamDelta of checked values."""
    try:
        self = _new(_TWINS[cls])
    except KeyError:
        self = _new(twin_of(cls))
    self.kind = kind
    self.text = text
    self.tool_call = tool_call
    self.__class__ = cls
    return self  # type: ignore[no-any-return]


def tool_call_delta(
    cls: type[T], index: int, id: str | None, name: str | None, arguments_delta: str | None
) -> T:
    """A ToolCallDelta of checked values."""
    try:
        self = _new(_TWINS[cls])
    except KeyError:
        self = _new(twin_of(cls))
    self.index = index
    self.id = id
    self.name = name
    self.arguments_delta = arguments_delta
    self.__class__ = cls
    return self  # type: ignore[no-any-return]


_set_text = TextPart.__dict__["text"].__set__


def text_part(text: str) -> TextPart:
    """A TextPart of a str the caller has checked."""
    p: TextPart = _new(TextPart)
    _set_text(p, text)
    return p


# Per class: its fields' slot setters in field order (see ``trusted``).
_SETTERS: dict[type, tuple[tuple[str, Callable[[Any, Any], None]], ...]] = {}


def _setters(cls: type) -> tuple[tuple[str, Callable[[Any, Any], None]], ...]:
    import dataclasses

    out = []
    for f in dataclasses.fields(cls):
        for klass in cls.__mro__:
            slot = klass.__dict__.get(f.name)
            if slot is not None and hasattr(slot, "__set__"):
                out.append((f.name, slot.__set__))
                break
        else:  # pragma: no cover - every field of a slotted dataclass has a slot
            reject(f"{cls.__name__}.{f.name} has no slot", f.name)
    setters = _SETTERS[cls] = tuple(out)
    return setters


def trusted(cls: type[T], *values: Any) -> T:
    """Any frozen slotted dataclass from its field values in field order, unchecked.

    For the value classes that are not built in hot loops (usage, responses, losses,
    envelopes, repairs, definitions): one slot-setter call per field, no twin.
    """
    setters = _SETTERS.get(cls) or _setters(cls)
    if len(values) != len(setters):
        raise TypeError(f"{cls.__name__} has {len(setters)} fields, {len(values)} given")
    self = _new(cls)
    for (_, store), value in zip(setters, values, strict=True):
        store(self, value)
    return self


def trusted_fields(cls: type[T], values: Mapping[str, Any]) -> T:
    """``trusted`` with the values by field name; every field must be given."""
    setters = _SETTERS.get(cls) or _setters(cls)
    self = _new(cls)
    for name, store in setters:
        store(self, values[name])
    return self
