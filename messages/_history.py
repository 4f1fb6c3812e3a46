"""A thread-safe conversation that refuses an illegal turn order.

The rules are in ``_ordering``; this module keeps the messages, an id index and
the ordering state under one lock. Readers get immutable snapshots (tuples of
the message objects themselves, cached until the next change, so repeated
snapshots cost nothing). A rejected change raises and leaves the history exactly
as it was.

Besides the ordering rules, a history refuses a second message with an id it
already holds (rule ``duplicate_id``), so that ``get``/``replace``/``remove`` by
id are unambiguous: one index maps each id to its position.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ._collections import _decode_messages
from ._json import dumps_compact, json_type, loads
from ._message import Message
from ._ordering import (
    DEVELOPER,
    INSTRUCTIONS,
    SYSTEM,
    USER,
    OrderingPolicy,
    OrderingState,
    advance,
    check_sequence,
    kind_of,
)
from ._tokens import estimate_tokens
from ._tool_call import InvalidToolCall, ToolCall
from .errors import DecodeError, OrderingError, UnknownIdError, ValidationError

if TYPE_CHECKING:
    from ._registry import MessageRegistry

__all__ = ["ConversationHistory"]

_NKINDS = 6


def _duplicate(message_id: str, index: int) -> OrderingError:
    return OrderingError(
        f"a message with id {message_id!r} is already in the history",
        rule="duplicate_id",
        index=index,
    )


_INSTRUCTIONS = (SYSTEM, DEVELOPER)


def _cut(kinds: list[int], counts: list[int], max_tokens: int, starts: Sequence[object]) -> int:
    """Where ``truncate`` cuts: the first message of what it keeps (``len(kinds)``: drop all).

    System and developer messages before the cut are kept anyway. Whole turns go
    first: while a later user message remains, the cut falls on one, so no answer
    loses its question. Past the last user message (an agent's run of tool rounds) it
    may fall on any place the policy lets a conversation start (``starts``, the
    transition table's row for that), so the newest rounds stay. A tool result is
    never such a place, so a call and its results stay together.
    """
    instructions = sum(c for k, c in zip(kinds, counts, strict=True) if k in _INSTRUCTIONS)
    budget = max_tokens - instructions
    rest = sum(counts) - instructions
    last_user = max((p for p, k in enumerate(kinds) if k == USER), default=-1)
    for p, k in enumerate(kinds):
        if k in _INSTRUCTIONS:
            continue
        if rest <= budget and (k == USER or p > last_user):
            entry = starts[k]
            if isinstance(entry, int) and entry >= 0:
                return p
        rest -= counts[p]
    return len(kinds)


class ConversationHistory:
    """An ordered, thread-safe conversation checked against an :class:`OrderingPolicy`.

    ``add`` is O(1): the policy's transition table and the set of pending tool
    calls are checked against a small state instead of the whole sequence.
    """

    __slots__ = ("_ids", "_items", "_lock", "_policy", "_snapshot", "_state")

    _items: list[Message]
    _ids: dict[str, int]
    _snapshot: tuple[Message, ...] | None
    _state: OrderingState

    def __init__(
        self, messages: Iterable[Message] = (), *, policy: OrderingPolicy | None = None
    ) -> None:
        if policy is None:
            policy = OrderingPolicy.strict()
        elif not isinstance(policy, OrderingPolicy):
            raise ValidationError(
                f"expected an OrderingPolicy, got {type(policy).__name__}", "policy"
            )
        self._policy = policy
        # An RLock, so a callback (a token counter) that reads the history cannot deadlock.
        self._lock = threading.RLock()
        self._items = []
        self._ids = {}
        self._snapshot = ()
        self._state = OrderingState(policy)
        if messages:
            self.extend(messages)

    @property
    def policy(self) -> OrderingPolicy:
        """The ordering policy this history enforces."""
        return self._policy

    # -- adding ------------------------------------------------------------------------

    def add(self, message: Message) -> None:
        """Append one message, or raise OrderingError and change nothing."""
        with self._lock:
            i = len(self._items)
            kind_of(message, i)  # a non-message raises here, before its id is read
            mid = message.id
            if mid in self._ids:
                raise _duplicate(mid, i)
            advance(self._state, message, i)
            self._ids[mid] = i
            self._items.append(message)
            self._snapshot = None

    def extend(self, messages: Iterable[Message]) -> None:
        """Append several messages: all of them, or none (OrderingError) if any is illegal."""
        given: object = messages  # what a caller without a type checker may pass
        if not isinstance(given, Iterable):
            got = type(given).__name__
            raise ValidationError(f"expected an iterable of messages, got {got}", "messages")
        batch = list(messages)
        if not batch:
            return
        with self._lock:
            state = self._state.copy()
            n = len(self._items)
            new_ids: dict[str, int] = {}
            for j, m in enumerate(batch, n):
                kind_of(m, j)
                mid = m.id
                if mid in self._ids or mid in new_ids:
                    raise _duplicate(mid, j)
                new_ids[mid] = j
                advance(state, m, j)
            self._items.extend(batch)
            self._ids.update(new_ids)
            self._state = state
            self._snapshot = None

    # -- reading -----------------------------------------------------------------------

    def messages(self) -> tuple[Message, ...]:
        """An immutable snapshot of the messages (the message objects are shared, not copied)."""
        with self._lock:
            snap = self._snapshot
            if snap is None:
                snap = self._snapshot = tuple(self._items)
            return snap

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages())

    def __len__(self) -> int:
        return len(self._items)

    def len(self) -> int:
        """The number of messages (same as ``len(history)``)."""
        return len(self._items)

    @property
    def last(self) -> Message | None:
        """The last message, or None when empty."""
        with self._lock:
            items = self._items
            return items[-1] if items else None

    def get(self, id: str, default: Message | None = None) -> Message | None:
        """The message with this id, or ``default``; O(1)."""
        with self._lock:
            i = self._ids.get(id)
            return default if i is None else self._items[i]

    def __contains__(self, id: object) -> bool:
        """Whether a message with this id is in the history."""
        with self._lock:
            return id in self._ids

    @property
    def pending_tool_calls(self) -> tuple[ToolCall | InvalidToolCall, ...]:
        """The calls of the last tool-call message that have no result yet, in call order.

        Invalid calls are pending like valid ones, after them: answer each (usually with
        ``ToolResult.error(call.id, ...)``, or ``Toolbox.run``).
        """
        with self._lock:
            return tuple(self._state.pending.values())

    def validate(self) -> None:
        """Check the whole sequence from scratch; raise OrderingError at the first violation."""
        snap = self.messages()
        check_sequence(self._policy, snap)
        seen: set[str] = set()
        for i, m in enumerate(snap):
            if m.id in seen:
                raise _duplicate(m.id, i)
            seen.add(m.id)

    def __repr__(self) -> str:
        with self._lock:
            n, pending = len(self._items), len(self._state.pending)
        return f"ConversationHistory(len={n}, policy={self._policy.name}, pending={pending})"

    # -- changing ----------------------------------------------------------------------

    def clear(self) -> None:
        """Remove every message."""
        with self._lock:
            self._items = []
            self._ids = {}
            self._snapshot = ()
            self._state = OrderingState(self._policy)

    def _commit(self, items: list[Message], state: OrderingState) -> None:
        self._items = items
        self._ids = {m.id: i for i, m in enumerate(items)}
        self._state = state
        self._snapshot = None

    def replace(self, id: str, message: Message) -> Message:
        """Put ``message`` where the message with ``id`` is; return the old one.

        UnknownIdError (a KeyError and a MessageError) when no message has ``id``;
        OrderingError (nothing changed) when the new sequence would break the
        policy or repeat an id.
        """
        with self._lock:
            index = self._ids
            i = index.get(id)
            if i is None:
                raise UnknownIdError(id)
            kind_of(message, i)
            mid = message.id
            if mid != id and mid in index:
                raise _duplicate(mid, i)
            items = self._items.copy()
            old = items[i]
            items[i] = message
            state = check_sequence(self._policy, items)
            self._commit(items, state)
            return old

    def remove(self, id: str) -> Message:
        """Remove the message with ``id`` and return it.

        UnknownIdError (a KeyError and a MessageError) when no message has ``id``;
        OrderingError (nothing changed) when the remaining sequence would break
        the policy, e.g. removing a tool call whose results follow.
        """
        with self._lock:
            i = self._ids.get(id)
            if i is None:
                raise UnknownIdError(id)
            items = self._items.copy()
            old = items.pop(i)
            state = check_sequence(self._policy, items)
            self._commit(items, state)
            return old

    def truncate(
        self, max_tokens: int, counter: Callable[[Message], int] | None = None
    ) -> tuple[Message, ...]:
        """Drop the oldest turns until the history fits ``max_tokens``; return what was dropped.

        ``counter(message) -> int`` counts tokens (default: :func:`estimate_tokens`).
        System and developer messages are always kept, so the result can exceed
        ``max_tokens`` when they alone do. A tool-call message and its results go
        together. While a later user message remains the cut falls on a user message
        (whole turns go, no answer loses its question); past the last one (an agent's
        tool rounds) it falls on any place the policy lets a conversation start
        (under strict: only a user message), so what remains passes ``validate()``.
        The counter runs under the history's lock and must not change the history.
        """
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 0:
            raise ValidationError("must be a non-negative int", "max_tokens")
        count = estimate_tokens if counter is None else counter
        with self._lock:
            items = self._items
            counts = [count(m) for m in items]
            if sum(counts) <= max_tokens:
                return ()
            kinds = [kind_of(m, i) for i, m in enumerate(items)]
            # The kept part follows the instructions. (Under require_system_first a
            # valid history starts with one; otherwise the table's "empty" and
            # "instructions" rows agree, so one row serves both.)
            starts = self._state.table[INSTRUCTIONS * _NKINDS : (INSTRUCTIONS + 1) * _NKINDS]
            cut = _cut(kinds, counts, max_tokens, starts)
            kept = [m for m, k in zip(items[:cut], kinds, strict=False) if k in _INSTRUCTIONS]
            removed = [
                m for m, k in zip(items[:cut], kinds, strict=False) if k not in _INSTRUCTIONS
            ]
            if not removed:
                return ()
            kept.extend(items[cut:])
            self._commit(kept, check_sequence(self._policy, kept))
            return tuple(removed)

    # -- dict and JSON -----------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """``{"policy": {...flags}, "messages": [canonical dicts]}``."""
        from ._codec import message_to_dict

        snap = self.messages()
        return {"policy": self._policy.to_dict(), "messages": [message_to_dict(m) for m in snap]}

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], registry: MessageRegistry | None = None
    ) -> ConversationHistory:
        """Rebuild from :meth:`to_dict` output; DecodeError (with the path) on any bad input.

        A sequence that breaks its policy is bad input too: the DecodeError names the
        rule, and its path the message.
        """
        try:
            return cls._from_dict(data, registry)
        except DecodeError:
            raise
        except RecursionError:
            raise DecodeError("nested too deeply", "") from None
        except Exception as exc:  # a Mapping whose methods fail: only its type is named
            raise DecodeError(f"malformed input ({type(exc).__name__})", "") from None

    @classmethod
    def _from_dict(
        cls, data: Mapping[str, Any], registry: MessageRegistry | None
    ) -> ConversationHistory:
        if not isinstance(data, Mapping):
            raise DecodeError(f"expected an object, got {json_type(data)}", "")
        for key in data:
            if key not in ("policy", "messages"):
                raise DecodeError("unknown key; expected policy and messages", str(key))
        raw_policy = data.get("policy")
        policy = (
            OrderingPolicy.strict()
            if raw_policy is None
            else OrderingPolicy.from_dict(raw_policy, "policy")
        )
        items = _decode_messages(data.get("messages", []), "messages", registry)
        try:
            return cls(items, policy=policy)
        except OrderingError as exc:
            raise DecodeError(f"[{exc.rule}] {exc.message}", f"messages[{exc.index}]") from None

    def to_json(self) -> str:
        """:meth:`to_dict` as compact JSON."""
        return dumps_compact(self.to_dict())

    @classmethod
    def from_json(
        cls, text: str | bytes, registry: MessageRegistry | None = None
    ) -> ConversationHistory:
        """Rebuild from :meth:`to_json` output."""
        return cls.from_dict(loads(text), registry)
