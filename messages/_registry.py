"""Which message class decodes a dict: role first, then ordered predicates.

Each role maps to an ordered tuple of candidates ``(cls, predicate)``. Decoding
takes the first candidate whose predicate accepts the dict; the last candidate
is the fallback and is used when no earlier one matched (its own predicate is
not consulted). The default registry has one class per role except
``assistant``: ``ToolCallMessage`` when ``tool_calls`` is non-empty (or a legacy
``function_call`` is present), else ``AssistantMessage``.

Thread safety: the table is an immutable mapping of tuples. ``register`` and
``unregister`` build a new table under a lock and swap it in with one
assignment, so decoders running in other threads read either the old or the
new table, never a half-built one, and never take the lock.
"""

from __future__ import annotations

import _thread
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, overload

from ._lazy import LazyModule
from ._message import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
    builtin_base,
)
from ._role import MessageRole
from .errors import ValidationError

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["MessageRegistry", "Predicate", "default_registry", "has_tool_calls"]

Predicate = Callable[[Mapping[str, Any]], bool]
"""Decides from the raw dict whether a candidate class should decode it."""

# One table entry: (fallback class, ((class, predicate), ...) tried in order first).
# A role with a single class has an empty predicate tuple.
_Entry = tuple[type[Message], tuple[tuple[type[Message], Predicate], ...]]


def has_tool_calls(d: Mapping[str, Any]) -> bool:
    """Default predicate of ToolCallMessage: non-empty ``tool_calls`` or a legacy ``function_call``."""
    return bool(d.get("tool_calls")) or d.get("function_call") is not None


def _no_tool_calls(d: Mapping[str, Any]) -> bool:
    return not has_tool_calls(d)


def _always(d: Mapping[str, Any]) -> bool:
    return True


def _default_predicate(base: type[Message]) -> Predicate:
    if base is ToolCallMessage:
        return has_tool_calls
    if base is AssistantMessage:
        return _no_tool_calls
    return _always


_RoleLike = MessageRole | str


class MessageRegistry:
    """Role → ordered candidate classes with predicates; picks the class that decodes a dict.

    ``MessageRegistry()`` starts with the built-in classes. Register your own
    subclasses of the message classes with :meth:`register`; they then decode
    (and so round-trip) as themselves.
    """

    __slots__ = ("_lock", "_table")

    _table: dict[str, _Entry]

    def __init__(self) -> None:
        # _thread, not threading: the same lock, without importing threading at import time
        self._lock = _thread.allocate_lock()
        self._table = {
            "system": (SystemMessage, ()),
            "developer": (DeveloperMessage, ()),
            "user": (UserMessage, ()),
            "assistant": (AssistantMessage, ((ToolCallMessage, has_tool_calls),)),
            "tool": (ToolResultMessage, ()),
        }

    # -- reading ----------------------------------------------------------------

    def candidates(self, role: _RoleLike) -> tuple[tuple[type[Message], Predicate | None], ...]:
        """The candidates of ``role`` in the order they are tried; the fallback is last (predicate None)."""
        fallback, tried = self._table[MessageRole.parse(role).value]
        return (*tried, (fallback, None))

    def resolve(self, role: _RoleLike, d: Mapping[str, Any]) -> type[Message]:
        """The class that decodes ``d`` for ``role``: the first matching candidate, else the fallback."""
        fallback, tried = self._table[MessageRole.parse(role).value]
        for cls, predicate in tried:
            if predicate(d):
                return cls
        return fallback

    @overload
    def decode(self, d: Mapping[str, Any]) -> Message: ...

    @overload
    def decode(self, d: Sequence[Mapping[str, Any]]) -> list[Message]: ...

    def decode(self, d: Any) -> Message | list[Message]:
        """Decode a canonical message dict (or a list of them) with this registry."""
        result: Message | list[Message] = _codec.from_dict(d, registry=self)
        return result

    def copy(self) -> MessageRegistry:
        """An independent registry with the same candidates."""
        new = MessageRegistry()
        new._table = dict(self._table)
        return new

    def __repr__(self) -> str:
        roles = ", ".join(
            f"{role}: [{', '.join(c.__name__ for c, _ in (*tried, (fb, None)))}]"
            for role, (fb, tried) in self._table.items()
        )
        return f"MessageRegistry({roles})"

    # -- changing ---------------------------------------------------------------

    def register(
        self,
        role: _RoleLike,
        cls: type[Message],
        predicate: Predicate | None = None,
        before: type[Message] | None = None,
    ) -> None:
        """Add ``cls`` as a candidate for ``role``.

        ``predicate(d)`` says whether ``cls`` should decode dict ``d``; None means
        the predicate of the built-in class it derives from (ToolCallMessage
        subclasses: "has tool calls"; AssistantMessage subclasses: "has none";
        other roles: always). The candidate goes first, or just before the
        candidate ``before``. Registering a class again moves it. ``cls`` must
        subclass a built-in message class of that role. Dataclass fields it adds
        are encoded under their own names and given back to its constructor when
        decoding, so its checks run (their values must be JSON).
        """
        r = MessageRole.parse(role)
        base = _check_class(cls, r)
        if predicate is None:
            predicate = _default_predicate(base)
        elif not callable(predicate):
            raise ValidationError(
                f"predicate must be callable, got {type(predicate).__name__}", "predicate"
            )
        with self._lock:
            fallback, tried = self._table[r.value]
            order = [(c, p) for c, p in (*tried, (fallback, None)) if c is not cls]
            if not order:  # cls was the only candidate: it stays the fallback
                order = [(cls, None)]
            else:
                at = 0
                if before is not None:
                    for i, (c, _) in enumerate(order):
                        if c is before:
                            at = i
                            break
                    else:
                        raise ValidationError(
                            f"{getattr(before, '__name__', type(before).__name__)} is not a "
                            f"candidate for role {r.value}",
                            "before",
                        )
                order.insert(at, (cls, predicate))
            self._swap(r.value, order)

    def unregister(self, role: _RoleLike, cls: type[Message]) -> None:
        """Remove ``cls`` from the candidates of ``role`` (the last candidate cannot be removed)."""
        r = MessageRole.parse(role)
        with self._lock:
            fallback, tried = self._table[r.value]
            order = [(c, p) for c, p in (*tried, (fallback, None)) if c is not cls]
            if len(order) == len(tried) + 1:
                raise ValidationError(
                    f"{getattr(cls, '__name__', type(cls).__name__)} is not a candidate "
                    f"for role {r.value}",
                    "cls",
                )
            if not order:
                raise ValidationError(f"cannot remove the only candidate for role {r.value}", "cls")
            self._swap(r.value, order)

    def _swap(self, role: str, order: list[tuple[type[Message], Predicate | None]]) -> None:
        # The last candidate becomes the fallback; the rest keep their predicates.
        # Copy-on-write: a new dict is built and assigned in one step.
        fallback = order[-1][0]
        tried = tuple((c, p if p is not None else _always) for c, p in order[:-1])
        table = dict(self._table)
        table[role] = (fallback, tried)
        self._table = table


def _check_class(cls: object, role: MessageRole) -> type[Message]:
    if not isinstance(cls, type) or not issubclass(cls, Message):
        raise ValidationError(
            f"expected a subclass of a message class, got {getattr(cls, '__name__', type(cls).__name__)}",
            "cls",
        )
    base = builtin_base(cls)
    if base is None:
        raise ValidationError(
            f"{cls.__name__} does not derive from a concrete message class "
            "(SystemMessage, DeveloperMessage, UserMessage, AssistantMessage, "
            "ToolCallMessage or ToolResultMessage)",
            "cls",
        )
    if base.role is not role:
        raise ValidationError(
            f"{cls.__name__} has role {base.role.value}, not {role.value}", "role"
        )
    return base


default_registry: MessageRegistry = MessageRegistry()
"""The registry ``from_dict`` / ``from_json`` / ``Message.from_dict`` use unless given another."""

# The codec imports this module; this one reaches the codec on first use (no cycle).
if TYPE_CHECKING:
    from . import _codec
else:
    _codec = LazyModule("._codec", __package__, globals(), "_codec")
