"""``Toolbox``: the tools a model may call, and running the calls it makes.

A tool is a function and its :class:`ToolDefinition`. Running a call checks the
arguments against the definition, builds the keyword arguments with the
``arguments_as`` rules (:func:`._arguments.keyword_arguments`, plan-cached), calls
the function and turns what it returned into the result's content. Whatever the
model sent and whatever the tool did, ``run`` answers with a :class:`ToolResult`:
the model gets an error result it can act on, the loop goes on. Only the caller's
own mistakes raise (a value that is not a call, a message that is not a message),
and exceptions that are not an ``Exception`` (``KeyboardInterrupt``,
``SystemExit``, ``asyncio.CancelledError``) propagate.

The async side (``arun``, ``arun_all``) lives in :mod:`._toolbox_async`, imported
on first use: ``asyncio`` is slow to import and a sync agent loop never needs it.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import json
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any, overload

from .._build import tool_result_message
from .._frozen import SCALARS
from .._json import show_name
from .._lazy import LazyModule
from .._message import Message, ToolResultMessage
from .._parts import PART_TYPES
from .._tool_call import InvalidToolCall, ToolCall
from .._tool_result import ToolResult
from ..errors import MessageError, ValidationError, ident
from ._arguments import keyword_arguments
from ._tool_definition import ToolDefinition

__all__ = ["MAX_REASON", "Toolbox", "ToolSpec"]

#: Characters kept of a text the error result quotes that this package did not
#: write: an exception's message from the tool, an invalid call's ``error``.
MAX_REASON = 500

#: How many tool names an "unknown tool" result lists.
_NAMES_SHOWN = 20

#: A tool as ``Toolbox(tools)`` takes it: a function, or a definition and its function.
ToolSpec = Callable[..., Any] | tuple[ToolDefinition, Callable[..., Any]]


class Tool:
    """One entry: the definition, the function, and what running it needs."""

    __slots__ = ("definition", "fn", "is_async", "name", "target")

    def __init__(self, definition: ToolDefinition, fn: Callable[..., Any]) -> None:
        self.definition = definition
        self.fn = fn
        self.name = definition.name
        self.target = _signature_target(fn)
        # An instance with `async def __call__` is a coroutine function too.
        self.is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(self.target)


def _signature_target(fn: Any) -> Callable[..., Any]:
    """What keyword_arguments reads ``fn``'s parameters from.

    A function, method or class is read itself. A callable instance is read through
    its bound ``__call__``, whose plan _arguments caches by the method's function (the
    instance itself would be compiled again on every call). An instance whose
    ``__call__`` is not Python code (a ``functools.partial``) has no such stand-in.
    """
    target: Callable[..., Any] = fn
    if inspect.isfunction(fn) or inspect.ismethod(fn) or isinstance(fn, type):
        return target
    if inspect.isfunction(type(fn).__call__):
        target = fn.__call__
    return target


class Toolbox:
    """The tools a model may call, each a function and its :class:`ToolDefinition`.

    ``tools`` holds functions (their definitions made with
    :meth:`ToolDefinition.from_function`) or ``(definition, function)`` pairs.
    ``definitions`` is what to send to a provider; ``run(call)`` answers one call
    and ``run_all(message)`` every call of a message; ``arun`` / ``arun_all`` do
    the same in async code. Safe to share across threads and tasks: ``add`` takes
    a lock and replaces the table, running reads it without one.
    """

    __slots__ = ("_definitions", "_lock", "_tools")

    def __init__(self, tools: Iterable[ToolSpec] = ()) -> None:
        self._lock = threading.Lock()
        self._tools: dict[str, Tool] = {}
        self._definitions: tuple[ToolDefinition, ...] = ()
        if isinstance(tools, (ToolDefinition, str, Mapping)) or not isinstance(tools, Iterable):
            raise ValidationError(
                f"expected a list of tools (functions or (ToolDefinition, function) pairs), "
                f"got {type(tools).__name__}",
                "tools",
            )
        for i, spec in enumerate(tools):
            try:
                if isinstance(spec, tuple):
                    if len(spec) != 2:
                        raise ValidationError(
                            f"expected a (ToolDefinition, function) pair, got a tuple of "
                            f"{len(spec)} items"
                        )
                    self.add(spec[0], spec[1])
                else:
                    self.add(spec)
            except MessageError as exc:
                raise exc.at(f"tools[{i}]") from None

    @overload
    def add(self, fn_or_definition: Callable[..., Any], fn: None = None) -> ToolDefinition: ...

    @overload
    def add(self, fn_or_definition: ToolDefinition, fn: Callable[..., Any]) -> ToolDefinition: ...

    def add(
        self,
        fn_or_definition: Callable[..., Any] | ToolDefinition,
        fn: Callable[..., Any] | None = None,
    ) -> ToolDefinition:
        """Add a function, or a definition and the function that runs it; return the definition.

        A function alone is described by ``ToolDefinition.from_function``. With a
        definition, the function must fit it: it takes every parameter the
        definition has (or ``**kwargs``) and requires none that the definition
        leaves optional. A name already in the toolbox is a ValidationError.
        """
        if isinstance(fn_or_definition, ToolDefinition):
            definition = fn_or_definition
            if fn is None:
                raise ValidationError(
                    f"the definition {ident(definition.name)} needs the function that runs "
                    f"it: add(definition, fn)",
                    "fn",
                )
            if not callable(fn):
                raise ValidationError(f"expected a callable, got {type(fn).__name__}", "fn")
            tool = Tool(definition, fn)
            _check_fits(definition, tool.target)
        else:
            if fn is not None:
                raise ValidationError(
                    "fn goes with a ToolDefinition: add(fn) or add(definition, fn)", "fn"
                )
            if not callable(fn_or_definition):
                raise ValidationError(
                    f"expected a function or a ToolDefinition, got "
                    f"{type(fn_or_definition).__name__}"
                )
            definition = ToolDefinition.from_function(fn_or_definition)
            tool = Tool(definition, fn_or_definition)
        with self._lock:
            if definition.name in self._tools:
                raise ValidationError(
                    f"a tool named {ident(definition.name)} is already in the toolbox", "name"
                )
            # Copy on write: run() reads self._tools without the lock.
            tools = dict(self._tools)
            tools[definition.name] = tool
            self._definitions = (*self._definitions, definition)
            self._tools = tools
        return definition

    @property
    def definitions(self) -> tuple[ToolDefinition, ...]:
        """The definitions to offer the model, in the order the tools were added."""
        return self._definitions

    def get(self, name: str) -> ToolDefinition | None:
        """The definition of the tool called ``name``, or None."""
        tool = self._tools.get(name)
        return None if tool is None else tool.definition

    def __contains__(self, name: object) -> bool:
        """Whether a tool is called ``name``."""
        return name in self._tools

    def __len__(self) -> int:
        """How many tools there are."""
        return len(self._tools)

    def __repr__(self) -> str:
        names = [ident(d.name) for d in self._definitions[:_NAMES_SHOWN]]
        more = len(self._definitions) - len(names)
        return f"Toolbox([{', '.join(names)}{f', ... {more} more' if more else ''}])"

    def run(self, call: ToolCall | InvalidToolCall) -> ToolResult:
        """Run one call and return its result; never raises for the tool's or the model's sake.

        An unknown tool, an invalid call, arguments that break the definition, an
        ``Exception`` from the function and a return value that cannot be written
        each give ``ToolResult.error`` with a short reason. A coroutine function
        gives an error result too: run it with :meth:`arun`.
        """
        ready = prepare(self._tools, call)
        if isinstance(ready, ToolResult):  # an error
            return ready
        tool, call, kwargs = ready
        if tool.is_async:
            return _failed(
                call, f"tool {ident(tool.name)} is a coroutine function: run it with arun"
            )
        return as_result(invoke(tool, call, kwargs))

    def run_all(self, message: Message) -> tuple[ToolResultMessage, ...]:
        """Answer every call of ``message`` (invalid ones included), in call order, one after another.

        A message without calls gives ``()``.
        """
        tools = self._tools
        out = []
        for call in calls_of(message):
            ready = prepare(tools, call)
            if isinstance(ready, ToolResult):  # an error
                out.append(as_message(ready))
                continue
            tool, valid, kwargs = ready
            if tool.is_async:
                result: ToolResult | ToolResultMessage = _failed(
                    call, f"tool {ident(tool.name)} is a coroutine function: run it with arun_all"
                )
            else:
                result = invoke(tool, valid, kwargs)
            out.append(as_message(result))
        return tuple(out)

    async def arun(self, call: ToolCall | InvalidToolCall) -> ToolResult:
        """Run one call in async code: a coroutine function is awaited, a plain one runs in a worker thread.

        Otherwise as :meth:`run`.
        """
        return as_result(await _async.arun(self._tools, call))

    async def arun_all(self, message: Message) -> tuple[ToolResultMessage, ...]:
        """Run every call of ``message`` concurrently; the results come back in call order.

        If the caller is cancelled, or a tool raises something that is not an
        ``Exception`` (``asyncio.CancelledError`` included), the calls still
        running are cancelled and awaited, and the exception propagates. A plain
        function already running in its worker thread cannot be stopped: it runs
        to its end, and what it returns is dropped.
        """
        return await _async.arun_all(self._tools, message)


def _check_fits(definition: ToolDefinition, fn: Callable[..., Any]) -> None:
    """Raise ValidationError unless every call the definition accepts can call ``fn``.

    ``fn`` must take each of the definition's properties by keyword (or have
    ``**kwargs``), and require only parameters the definition requires. Types are
    not compared: a value ``fn``'s hints refuse is an error result when it comes.
    """
    from . import _typehints as th

    try:
        node = th.Walker().callable(fn)
    except RecursionError:  # only when the caller's own stack is already deep
        raise ValidationError("type hints nested too deeply", "fn") from None
    if node.no_signature:  # a builtin without a signature: nothing to compare
        return
    params = {f.name: f for f in node.fields if f.kind in th.NAMED}
    takes_any = any(f.kind is th.VAR_KEYWORD for f in node.fields)
    schema = definition.parameters
    props = schema.get("properties")
    names = list(props) if isinstance(props, Mapping) else []
    required = schema.get("required")
    required_names = set(required) if isinstance(required, (list, tuple)) else set()
    problems = []
    if not takes_any:
        extra = [n for n in names if n not in params]
        if extra:
            problems.append("it does not take " + _listed(extra))
    needs = [n for n, f in params.items() if f.required and n not in required_names]
    if needs:
        problems.append("it requires " + _listed(needs) + ", which the definition does not")
    stuck = [
        f.name
        for f in node.fields
        if f.kind is inspect.Parameter.POSITIONAL_ONLY and not f.optional
    ]
    if stuck:
        problems.append("it has positional-only parameters without defaults: " + _listed(stuck))
    if problems:
        raise ValidationError(
            f"the function does not fit the definition {ident(definition.name)}: "
            + "; ".join(problems),
            "fn",
        )


def _listed(names: list[str]) -> str:
    shown = ", ".join(show_name(n) for n in names[:8])
    return shown + (f" and {len(names) - 8} more" if len(names) > 8 else "")


# --------------------------------------------------------------------- running


def calls_of(message: Message) -> tuple[ToolCall | InvalidToolCall, ...]:
    """The calls of ``message`` in call order: valid ones, then invalid ones."""
    if not isinstance(message, Message):
        raise ValidationError(f"expected a Message, got {type(message).__name__}", "message")
    invalid = message.invalid_tool_calls
    return (*message.tool_calls, *invalid) if invalid else message.tool_calls


def prepare(
    tools: dict[str, Tool], call: ToolCall | InvalidToolCall
) -> tuple[Tool, ToolCall, dict[str, Any]] | ToolResult:
    """The tool, the call and its checked keyword arguments, or the error result that answers it."""
    if isinstance(call, ToolCall):
        tool = tools.get(call.name)
        if tool is None:
            return _failed(call, _unknown(tools, call.name))
        try:
            tool.definition.validate_arguments(call)
            kwargs = keyword_arguments(tool.target, call.arguments, "arguments")
        except ValidationError as exc:  # a path and types, never a value
            return _failed(call, f"invalid arguments: {exc}")
        return tool, call, kwargs
    if isinstance(call, InvalidToolCall):
        reason = f"invalid tool call: {_cut(call.error)}"
        if call.name and call.name not in tools:
            reason += "; " + _unknown(tools, call.name)
        return _failed(call, reason)
    raise ValidationError(
        f"expected a ToolCall or an InvalidToolCall, got {type(call).__name__}", "call"
    )


def invoke(tool: Tool, call: ToolCall, kwargs: dict[str, Any]) -> ToolResult | ToolResultMessage:
    """Call a plain function and turn what it returns into the call's result."""
    try:
        value = tool.fn(**kwargs)
    except Exception as exc:  # the tool's failure is the model's answer; BaseException propagates
        return raised(call, exc)
    return finish(call, value)


def raised(call: ToolCall, exc: Exception) -> ToolResult:
    """The error result for an exception from the tool: its type name and (cut) message."""
    name = type(exc).__name__
    try:
        text = str(exc)
    except Exception:  # an exception whose __str__ fails: its type says enough
        text = ""
    return _failed(call, f"{name}: {_cut(text)}" if text else name)


def finish(call: ToolCall, value: Any) -> ToolResult | ToolResultMessage:
    """The result for what the tool returned (see :func:`content`); never raises."""
    try:
        if isinstance(value, ToolResult):
            # The tool chose its content and is_error; the id and name are the call's.
            return dataclasses.replace(value, tool_call_id=call.id, tool_name=call.name)
        if isinstance(value, ToolResultMessage):
            # A new message answering this call; the tool's name, metadata and extras
            # kept. id and created_at None: a new id, and the time now (the fields are
            # typed str and datetime, the constructor takes None for "new").
            renewed: dict[str, Any] = {"id": None, "created_at": None}
            return dataclasses.replace(value, tool_call_id=call.id, tool_name=call.name, **renewed)
        return ToolResult(call.id, content(value), False, call.name)
    except _Unwritable as exc:
        return _failed(call, exc.reason())
    except ValidationError as exc:  # a part a tool result cannot hold: a type, not content
        return _failed(call, f"the tool returned parts a tool result cannot hold ({exc})")
    except RecursionError:
        return _failed(call, "the tool returned a value nested too deeply (or circular)")
    except Exception as exc:  # a user mapping or part that fails while being read
        return _failed(call, f"the tool's return value could not be read ({type(exc).__name__})")


def content(value: Any) -> str | tuple[Any, ...]:
    """What the tool returned as result content; raises _Unwritable.

    A ``str`` as is; a content part, or a list or tuple of them, as parts; anything
    else as compact JSON (dataclasses, NamedTuples and mappings as objects, enum
    members as their values).
    """
    if isinstance(value, str):
        return str.__str__(value)  # a str subclass as plain text
    if isinstance(value, _PARTS):
        return (value,)  # the result checks which parts it may hold
    if type(value) in (list, tuple) and value and all(isinstance(p, _PARTS) for p in value):
        return tuple(value)
    if inspect.isawaitable(value):
        close = getattr(value, "close", None)
        if close is not None:  # a coroutine never awaited warns when collected
            close()
        raise _Unwritable(f"the tool returned an awaitable ({type(value).__name__}): use arun")
    return to_json(value)


_PARTS = tuple(PART_TYPES)


def as_result(answer: ToolResult | ToolResultMessage) -> ToolResult:
    """The ToolResult of an answer (a tool may return a whole message)."""
    return answer.result if isinstance(answer, ToolResultMessage) else answer


def as_message(answer: ToolResult | ToolResultMessage) -> ToolResultMessage:
    """The message that answers the call."""
    if isinstance(answer, ToolResultMessage):
        return answer
    # The result is checked: build the message without checking it again.
    return tool_result_message(
        ToolResultMessage, answer.tool_call_id, answer.content, answer.is_error, answer.tool_name
    )


def _failed(call: ToolCall | InvalidToolCall, reason: str) -> ToolResult:
    # An invalid call's name may be empty: tool_name is then None.
    return ToolResult(call.id, reason, True, call.name or None)


def _unknown(tools: Mapping[str, Any], name: str) -> str:
    names = [ident(n) for n in list(tools)[:_NAMES_SHOWN]]
    if not names:
        return f"unknown tool {ident(name)}; there are no tools"
    more = len(tools) - len(names)
    listed = ", ".join(names) + (f" and {more} more" if more > 0 else "")
    return f"unknown tool {ident(name)}; the tools are {listed}"


def _cut(text: str) -> str:
    """A text this package did not write, cut to MAX_REASON characters."""
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 3] + "..."


# ------------------------------------------------------------------ JSON content


class _Unwritable(Exception):
    """The return value cannot be written as JSON; internal, becomes an error result."""

    def __init__(self, detail: str, segment: str = "") -> None:
        super().__init__(detail)
        self.detail = detail
        self.segments = [segment] if segment else []  # innermost first

    def reason(self) -> str:
        if not self.segments:
            return self.detail
        return f"{self.detail} (at result{''.join(reversed(self.segments))})"


# Not _json.dumps_compact: that one escapes non-ASCII (for storage), and "Zürich"
# as "Z\u00fcrich" costs the model tokens for nothing.
_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def to_json(value: Any) -> str:
    """``value`` as compact JSON text for the model; raises _Unwritable."""
    try:
        return _ENCODER.encode(_plain(value))
    except ValueError:  # NaN or an infinity (allow_nan=False), or an int over the digit limit
        raise _Unwritable(
            "the tool returned a number JSON cannot write (NaN, an infinity or too many digits)"
        ) from None


def _plain(v: Any) -> Any:
    """``v`` as values json writes as they are meant (a NamedTuple as an object, not an array).

    Mappings, lists and tuples are rebuilt with their values made plain; the path
    of a value that cannot be written is added while the error unwinds.
    """
    t = type(v)
    if t in SCALARS:
        return v
    if isinstance(v, Mapping):
        return _mapping(v)
    if isinstance(v, tuple) and isinstance(getattr(t, "_fields", None), tuple):  # a NamedTuple
        return _record(zip(t._fields, v, strict=False))
    if isinstance(v, (list, tuple)):
        return _items(v)
    if isinstance(v, enum.Enum):
        return _plain(v.value)
    if isinstance(v, (str, int, float)):  # subclasses json writes as their base
        return v
    if isinstance(v, _PARTS):  # parts are dataclasses too: a list of parts alone is content
        raise _Unwritable(f"the tool returned a {t.__name__} among other values")
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        # Fields named _like_this are the class's own business, not the result's.
        fields = dataclasses.fields(v)
        return _record((f.name, getattr(v, f.name)) for f in fields if f.name[:1] != "_")
    raise _Unwritable(f"the tool returned a {t.__name__}, which JSON cannot write")


def _mapping(v: Mapping[Any, Any]) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for k, x in v.items():
        if not (isinstance(k, (str, int, float)) or k is None):  # what json writes as a key
            raise _Unwritable(f"the tool returned a mapping with a {type(k).__name__} key")
        try:
            out[k] = _plain(x)
        except _Unwritable as exc:
            exc.segments.append("[*]")  # a key is part of the result: never shown
            raise
    return out


def _items(v: Any) -> list[Any]:
    out: list[Any] = []
    for i, x in enumerate(v):
        try:
            out.append(_plain(x))
        except _Unwritable as exc:
            exc.segments.append(f"[{i}]")
            raise
    return out


def _record(fields: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """A dataclass's or NamedTuple's fields as an object; field names are code, so shown."""
    out: dict[str, Any] = {}
    for name, x in fields:
        try:
            out[name] = _plain(x)
        except _Unwritable as exc:
            exc.segments.append("." + name)
            raise
    return out


# The async side is imported on first use (asyncio is heavy); see _lazy.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from . import _toolbox_async as _async
else:
    _async = LazyModule("._toolbox_async", __package__, globals(), "_async")
