"""ChatHistoryStorage: one session's typed history, loaded lazily and saved when changed.

State, all under one re-entrant lock (so two threads may share a storage, and a
hook may call back into it):

* ``_history`` — a ConversationHistory, or None until first use (lazy load).
* ``_stored`` — how many leading messages of the history are known to be stored.
* ``_pending`` — the messages added since then, in order (while ``_rewrite`` is
  false the history is exactly the stored messages followed by these).
* ``_rewrite`` — something other than an append changed (a removal, replacement,
  truncation, clear): the next save must replace the stored session.
* ``_revision`` — the revision of the stored session that the history is based
  on (see :class:`VersionedBackend`).

So ``save()`` writes nothing when nothing changed, only the new messages after
appends, and the whole session otherwise. Appending merges with what other
writers appended meanwhile (when the backend reports that others wrote, the
revision is left as it was: this storage's view is behind). A rewrite goes
through only while the stored session is still at ``_revision``; otherwise it is
a ConflictError and nothing is written, so a rewrite never drops another writer's
messages.

A save is planned (hooks, truncation, the records to write) and finished (the
state updated after the write) by methods shared with AsyncChatHistoryStorage,
which does the writing in between without blocking its event loop.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .._message import Message
from .._ordering import kind_of
from ..errors import DecodeError, OrderingError, StorageError, ValidationError
from ._backend import Backend, Record, Revision, VersionedBackend
from ._config import DROP, ChatHistoryConfig
from ._identity import SessionIdentity
from ._rows import where
from ._versioned import Unversioned

if TYPE_CHECKING:
    import os

    from .._history import ConversationHistory
    from .._ordering import OrderingPolicy
    from .._repair import Repair
    from .._tool_call import InvalidToolCall, ToolCall

__all__ = ["ChatHistoryStorage"]

_DEFAULT_CONFIG = ChatHistoryConfig()


@dataclass(frozen=True, slots=True)
class _Write:
    """What a save writes: the whole session (``rewrite``) or the records to append."""

    rewrite: bool
    records: list[Record]
    count: int  # messages written
    expected: Revision  # the revision the history is based on


class ChatHistoryStorage:
    """The messages of one session, kept in a backend; typed messages in and out.

    Loads on first use, keeps the messages in a ConversationHistory (the config's
    policy, lenient by default), runs the config's hooks, and on ``save()`` writes
    only when something changed, truncating first when the last message's usage
    says the context window is exceeded. Thread-safe.

    A stored session is a history: ``add``, ``extend``, ``last``,
    ``pending_tool_calls``, ``validate``, ``messages`` and ``len`` are
    ConversationHistory's, with its ordering rules; ``history()`` is a
    ConversationHistory copy of the session.
    """

    __slots__ = (
        "_backend",
        "_config",
        "_history",
        "_identity",
        "_in_before_save",
        "_io",
        "_lock",
        "_owns_backend",
        "_pending",
        "_repairs",
        "_revision",
        "_rewrite",
        "_stored",
        "_truncated_for",
    )

    def __init__(
        self,
        backend: Backend,
        identity: SessionIdentity,
        config: ChatHistoryConfig | None = None,
    ) -> None:
        if not isinstance(identity, SessionIdentity):
            raise ValidationError(
                f"expected a SessionIdentity, got {type(identity).__name__}", "identity"
            )
        if not isinstance(backend, Backend):
            raise ValidationError(
                f"expected a Backend (load, save, delete, list_sessions), "
                f"got {type(backend).__name__}",
                "backend",
            )
        if config is None:
            config = _DEFAULT_CONFIG
        elif not isinstance(config, ChatHistoryConfig):
            raise ValidationError(
                f"expected a ChatHistoryConfig or None, got {type(config).__name__}", "config"
            )
        self._backend = backend
        self._identity = identity
        self._config = config
        # Looked up once: a backend without revisions gets digests (see _versioned).
        self._io: VersionedBackend | Unversioned = (
            backend if isinstance(backend, VersionedBackend) else Unversioned(backend)
        )
        self._lock = threading.RLock()
        self._revision: Revision = None
        self._history: ConversationHistory | None = None
        self._stored = 0
        self._pending: list[Message] = []
        self._repairs: tuple[Repair, ...] = ()
        self._rewrite = False
        self._truncated_for: str | None = None
        self._owns_backend = False
        self._in_before_save = False

    @classmethod
    def sqlite(
        cls,
        path: str | os.PathLike[str],
        identity: SessionIdentity,
        config: ChatHistoryConfig | None = None,
    ) -> ChatHistoryStorage:
        """A storage over its own SQLiteBackend at ``path`` (the embedded default).

        ``close()`` (or leaving a ``with`` block) closes that backend. A program
        that keeps many sessions open shares one ``SQLiteBackend(path)`` between
        their storages instead (one connection, thread-safe).
        """
        from .sqlite import SQLiteBackend

        storage = cls(SQLiteBackend(path), identity, config)
        storage._owns_backend = True
        return storage

    # -- plumbing -----------------------------------------------------------------

    def __repr__(self) -> str:
        with self._lock:
            h = self._history
            state = "not loaded" if h is None else f"messages={len(h)}"
            dirty = h is not None and self._is_dirty()
        return f"ChatHistoryStorage(key={self._identity.key!r}, {state}, dirty={dirty})"

    def __enter__(self) -> ChatHistoryStorage:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the backend if this storage created it (see :meth:`sqlite`); no save."""
        if self._owns_backend:
            close = getattr(self._backend, "close", None)
            if close is not None:
                close()

    @property
    def backend(self) -> Backend:
        """The backend the session is kept in."""
        return self._backend

    @property
    def identity(self) -> SessionIdentity:
        """Which session this is."""
        return self._identity

    @property
    def config(self) -> ChatHistoryConfig:
        """Truncation settings and hooks."""
        return self._config

    @property
    def loaded(self) -> bool:
        """Whether the stored messages were loaded yet (loading happens on first use)."""
        return self._history is not None

    @property
    def repairs(self) -> tuple[Repair, ...]:
        """What ``repair_on_load`` changed in the stored messages at the last load."""
        return self._repairs

    @property
    def dirty(self) -> bool:
        """Whether ``save()`` would write: something changed since the last load or save."""
        with self._lock:
            h = self._history
            return h is not None and self._is_dirty()

    def _is_dirty(self) -> bool:
        return self._rewrite or bool(self._pending)

    def _policy(self) -> OrderingPolicy:
        policy = self._config.policy
        if policy is None:
            from .._ordering import OrderingPolicy

            policy = OrderingPolicy.lenient()
        return policy

    def _ensure(self) -> ConversationHistory:
        # Called with the lock held.
        h = self._history
        if h is None:
            h = self._load()
        return h

    def _load(self) -> ConversationHistory:
        records, revision = self._io.load_versioned(self._identity)
        return self._loaded(records, revision)

    def _loaded(self, records: list[Record] | None, revision: Revision) -> ConversationHistory:
        """Take ``records`` as the stored session (with the lock held); runs ``on_after_load``."""
        from .._history import ConversationHistory

        msgs = [] if records is None else self._decode(records)
        policy = self._policy()
        repairs: tuple[Repair, ...] = ()
        try:
            h = ConversationHistory(msgs, policy=policy)
        except OrderingError as exc:
            if not self._config.repair_on_load:
                raise self._ordering_error(exc) from None
            from .._repair import repair

            fixed, repairs = repair(msgs, policy)
            try:
                h = ConversationHistory(fixed, policy=policy)
            except OrderingError as again:
                raise self._ordering_error(again) from None
        self._history = h
        self._revision = revision
        self._repairs = repairs
        self._stored = len(msgs)
        self._pending = []
        # A repaired history differs from what is stored: the next save writes it.
        self._rewrite = bool(repairs)
        self._truncated_for = None
        hook = self._config.on_after_load
        if hook is not None:
            hook(self)
        return h

    def _ordering_error(self, exc: OrderingError) -> StorageError:
        index = exc.index if exc.index >= 0 else None
        return StorageError(
            f"stored messages break the ordering policy: [{exc.rule}] {exc.message}",
            where(self._identity.key, index),
        )

    def _decode(self, records: object) -> list[Message]:
        from .._codec import from_dict

        key = self._identity.key
        if not isinstance(records, (list, tuple)):
            raise StorageError(
                f"backend returned {type(records).__name__}, expected a list", where(key)
            )
        msgs: list[Message] = []
        for i, record in enumerate(records):
            if type(record) is not dict:
                raise StorageError(
                    f"expected a message object, got {type(record).__name__}", where(key, i)
                )
            try:
                m = from_dict(record)
            except DecodeError as exc:
                raise StorageError(exc.message, where(key, i, exc.path)) from None
            if not isinstance(m, Message):
                raise StorageError("expected a message object", where(key, i))
            msgs.append(m)
        return msgs

    def _records(self, msgs: Sequence[Message]) -> list[Record]:
        records = [m.to_dict() for m in msgs]
        if not self._config.store_meta:
            for r in records:
                r.pop("metadata", None)
        return records

    # -- reading ------------------------------------------------------------------

    def messages(self) -> tuple[Message, ...]:
        """The messages, oldest first (the same classes and ids that were added)."""
        with self._lock:
            return self._ensure().messages()

    def last(self) -> Message | None:
        """The newest message, or None when there is none (``ConversationHistory.last``)."""
        with self._lock:
            return self._ensure().last

    def last_message(self) -> Message | None:
        """The newest message, or None: another name for :meth:`last`."""
        return self.last()

    def pending_tool_calls(self) -> tuple[ToolCall | InvalidToolCall, ...]:
        """The calls of the last tool-call message that have no result yet, in call order.

        As ``ConversationHistory.pending_tool_calls``: invalid calls too, after the valid ones.
        """
        with self._lock:
            return self._ensure().pending_tool_calls

    def validate(self) -> None:
        """Check the whole session from scratch against its policy (``ConversationHistory.validate``).

        Raises OrderingError at the first violation.
        """
        with self._lock:
            self._ensure().validate()

    def history(self) -> ConversationHistory:
        """A new ConversationHistory holding the session's messages, under its policy.

        A snapshot: changing it does not change the session, nor the other way round.
        """
        from .._history import ConversationHistory

        with self._lock:
            h = self._ensure()
            return ConversationHistory(h.messages(), policy=h.policy)

    def get(self, message_id: str) -> Message | None:
        """The message with this id, or None."""
        with self._lock:
            return self._ensure().get(message_id)

    def len(self) -> int:
        """How many messages the session holds (including unsaved ones)."""
        with self._lock:
            return len(self._ensure())

    def __len__(self) -> int:
        return self.len()

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages())

    # -- changing -----------------------------------------------------------------

    def add(self, message: Message) -> Message | None:
        """Add a message (after ``on_before_add``); return what was added, None if dropped.

        A message the ordering policy refuses raises OrderingError and changes
        nothing. ``save()`` writes it.
        """
        with self._lock:
            h = self._ensure()
            if self._config.on_before_add is not None:
                kind_of(message, len(h))  # a non-message is refused before the hook sees it
                kept = self._before_add(message)
                if kept is None:
                    return None
                message = kept
            h.add(message)
            self._pending.append(message)
            after = self._config.on_after_add
            if after is not None:
                after(message, self)
            return message

    def add_message(self, message: Message) -> Message | None:
        """Add a message: another name for :meth:`add`."""
        return self.add(message)

    def extend(self, messages: ConversationHistory | Iterable[Message]) -> tuple[Message, ...]:
        """Add several messages, all or none; return those added (after ``on_before_add``).

        ``messages`` is a ConversationHistory (to save an existing history into
        the session) or any iterable of messages. ``on_before_add`` runs for each
        message first, then the batch is checked as ``ConversationHistory.extend``
        checks it: if any message breaks the policy, OrderingError and nothing is
        added. ``on_after_add`` then runs for each message added. ``save()``
        writes them.
        """
        batch = _batch(messages)
        with self._lock:
            h = self._ensure()
            for i, m in enumerate(batch, len(h)):
                kind_of(m, i)  # a non-message is refused before any hook sees it
            if self._config.on_before_add is not None:
                batch = [kept for m in batch if (kept := self._before_add(m)) is not None]
            h.extend(batch)
            self._pending.extend(batch)
            after = self._config.on_after_add
            if after is not None:
                for m in batch:
                    after(m, self)
            return tuple(batch)

    def _before_add(self, message: Message) -> Message | None:
        """``on_before_add``'s verdict on ``message``: what to add, or None to drop it."""
        before = self._config.on_before_add
        if before is None:
            return message
        result = before(message, self)
        if result is DROP:
            return None
        if result is None:
            return message
        if not isinstance(result, Message):
            raise ValidationError(
                f"on_before_add returned {type(result).__name__}; expected a Message, None or DROP",
                "on_before_add",
            )
        return result

    def replace(self, message_id: str, message: Message) -> Message:
        """Put ``message`` where the message with this id is; return the old one.

        KeyError when no message has the id; OrderingError (nothing changed) when
        the result would break the policy.
        """
        with self._lock:
            old: Message = self._ensure().replace(message_id, message)
            self._rewrite = True
            return old

    def remove(self, message_id: str) -> Message:
        """Remove the message with this id and return it (KeyError when there is none)."""
        with self._lock:
            removed: Message = self._ensure().remove(message_id)
            self._rewrite = True
            return removed

    def clear(self) -> None:
        """Remove every message (the stored session is emptied on the next save)."""
        with self._lock:
            h = self._ensure()
            if len(h) or self._stored:
                h.clear()
                self._rewrite = True

    def truncate(
        self, max_tokens: int, counter: Callable[[Message], int] | None = None
    ) -> tuple[Message, ...]:
        """Drop the oldest turns until the messages fit ``max_tokens``; return what was dropped.

        The rules of ``ConversationHistory.truncate`` (system and developer messages
        stay, whole turns go, a tool call goes with its results; ``counter``
        defaults to ``estimate_tokens``). The next ``save()`` writes the result.
        """
        with self._lock:
            removed = self._ensure().truncate(max_tokens, counter)
            if removed:
                self._rewrite = True
            return removed

    # -- persisting ---------------------------------------------------------------

    def save(self) -> bool:
        """Write the changes, if any; return whether anything was written.

        Runs ``on_before_save``, then truncation when the last message's
        ``metadata["usage"]["total_tokens"]`` exceeds the budget, then writes the
        new messages only (after appends) or the whole session. A rewrite while
        another writer has saved since this storage loaded raises ConflictError
        and writes nothing (the changes stay here; ``reload()`` and apply them
        again). A ``save()`` from inside ``on_before_save`` does nothing (the outer
        save writes everything).
        """
        with self._lock:
            plan = self._plan_save()
            if plan is None:
                return False
            io = self._io
            if plan.rewrite:
                revision = io.save_versioned(self._identity, plan.records, plan.expected)
                self._saved(plan, revision, True)
            else:
                # Only the new messages are encoded and written; no snapshot of
                # the whole history is taken.
                revision, current = io.append_versioned(self._identity, plan.records, plan.expected)
                self._saved(plan, revision, current)
            return True

    def _plan_save(self) -> _Write | None:
        """What ``save`` must write, after the hook and truncation (the lock held)."""
        h = self._history
        if h is None or self._in_before_save or not self._is_dirty():
            return None
        hook = self._config.on_before_save
        if hook is not None:
            self._in_before_save = True
            try:
                hook(self)
            finally:
                self._in_before_save = False
            h = self._ensure()
        self._truncate(h)
        if not self._is_dirty():
            return None
        if self._rewrite:
            msgs = h.messages()
            return _Write(True, self._records(msgs), len(msgs), self._revision)
        pending = self._pending
        return _Write(False, self._records(pending), len(pending), self._revision)

    def _saved(self, plan: _Write, revision: Revision, current: bool) -> None:
        """Record that ``plan`` was written (the lock held)."""
        if plan.rewrite:
            self._stored = plan.count
        else:
            self._stored += plan.count
        if current:
            self._revision = revision
        # else others wrote meanwhile: this view is behind, and a rewrite based
        # on it must fail, so the revision stays the one it was loaded at.
        self._pending = []
        self._rewrite = False

    def reload(self) -> None:
        """Load the stored messages again (discarding unsaved changes); runs ``on_after_load``."""
        with self._lock:
            self._history = None
            self._load()

    def delete(self) -> None:
        """Delete the stored session and forget the messages held here."""
        with self._lock:
            self._backend.delete(self._identity)
            self._forget()

    def _forget(self) -> None:
        """Drop the loaded state (the lock held): the next use loads again."""
        self._history = None
        self._revision = None
        self._stored = 0
        self._pending = []
        self._rewrite = False
        self._truncated_for = None

    # -- truncation ---------------------------------------------------------------

    def _truncate(self, h: ConversationHistory) -> None:
        last = h.last
        if last is None:
            return
        total = _total_tokens(last)
        config = self._config
        if total is None or total <= config.max_prompt_tokens:
            return
        if self._truncated_for == last.id:
            return  # this usage report was acted on already; don't cut again
        msgs = h.messages()
        custom = config.truncation
        if custom is not None:
            kept = _checked_truncation(custom(msgs, total, config))
            if kept is not None and (
                kept != msgs or any(a.id != b.id for a, b in zip(kept, msgs, strict=True))
            ):
                self._set_messages(h, kept)
        elif h.truncate(max(0, config.max_prompt_tokens), _calibrated_counter(msgs, total)):
            # whole turns go, oldest first, under any policy (ConversationHistory.truncate)
            self._rewrite = True
        self._truncated_for = last.id

    def _set_messages(self, h: ConversationHistory, msgs: tuple[Message, ...]) -> None:
        from .._history import ConversationHistory

        # Validate before touching anything: a refused sequence leaves h as it was.
        ConversationHistory(msgs, policy=self._policy())
        h.clear()
        h.extend(msgs)
        self._rewrite = True


def _batch(messages: object) -> list[Message]:
    """The messages ``extend`` was given, as a list (ValidationError when not iterable)."""
    from .._history import ConversationHistory

    if isinstance(messages, (ConversationHistory, ChatHistoryStorage)):
        return list(messages.messages())
    if not isinstance(messages, Iterable):
        raise ValidationError(
            f"expected a ConversationHistory or an iterable of messages, "
            f"got {type(messages).__name__}",
            "messages",
        )
    return list(messages)


def _checked_truncation(kept: Any) -> tuple[Message, ...] | None:
    """What a custom truncation returned, as a tuple of messages (None: keep all).

    Anything else is the callback's bug: a ValidationError naming it, before any
    change, instead of a TypeError from deep inside ``save()``.
    """
    if kept is None:
        return None
    try:
        items = tuple(iter(kept))
    except TypeError:
        raise ValidationError(
            f"returned {type(kept).__name__}; expected a sequence of messages or None",
            "truncation",
        ) from None
    for i, m in enumerate(items):
        if not isinstance(m, Message):
            raise ValidationError(
                f"returned {type(m).__name__} at position {i}; expected a Message",
                f"truncation[{i}]",
            )
    return items


def _total_tokens(message: Message) -> int | None:
    usage = message.metadata.get("usage")
    if not isinstance(usage, dict):
        return None
    total = usage.get("total_tokens")
    if type(total) is not int:
        return None
    return total


def _calibrated_counter(msgs: Sequence[Message], total: int) -> Callable[[Message], int]:
    """estimate_tokens scaled so that the messages sum to the provider's reported total.

    The provider's count is exact for the whole conversation but not per message;
    the estimate says how the total splits between messages.
    """
    from .._tokens import estimate_tokens

    estimated = sum(estimate_tokens(m) for m in msgs)
    scale = total / estimated if estimated else 1.0

    def counter(message: Message) -> int:
        return math.ceil(estimate_tokens(message) * scale)

    return counter
