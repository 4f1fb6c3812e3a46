"""``import IN STORE --agent A --session S``: a transcript appended to a stored session.

The whole input is decoded first (any format the other commands read), then
appended with ``ChatHistoryStorage.extend``: checked against the ordering rules
after the messages already stored, all or nothing. A problem anywhere (a message
that does not decode, one that breaks the order, an id the session holds
already) is reported with its place in the input, exit status 1, and nothing is
written: not even a new store is created. Otherwise one line on stderr says how
many messages were added.
"""

from __future__ import annotations

from .._history import ConversationHistory
from ..errors import MessageError, OrderingError, StorageError, ident
from .decode import Decoded, decode, relocated
from .source import Opened
from .store import Store, session_of
from .terminal import Failure, warn
from .validate import policy_named

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence
    from typing import TypeVar

    from .._message import Message

    _T = TypeVar("_T")

__all__ = ["run"]


def run(args: argparse.Namespace) -> int:
    """Run ``import``; return the exit status."""
    from ..storage import ChatHistoryConfig, ChatHistoryStorage

    identity = session_of(args)
    opened = Opened(args)
    with opened as source:
        decoded = list(decode(source, args.format))
    msgs = [d.message for d in decoded]
    policy = policy_named(args.policy)
    store = Store(args.store, args.table_prefix, create=True)
    if not store.exists():
        # A new store would hold a new session: check the messages as it would,
        # before the store is created, so that an error leaves nothing behind.
        _check(ConversationHistory(policy=policy).extend, msgs, 0, opened.name, decoded)
    with store as backend:
        storage = ChatHistoryStorage(backend, identity, ChatHistoryConfig(policy=policy))
        try:
            stored = storage.len()
            added = _check(storage.extend, msgs, stored, opened.name, decoded)
            storage.save()
        except StorageError as exc:
            raise store.failure(exc) from None
        total = storage.len()
    session = f"session {ident(identity.session)} of agent {ident(identity.agent)}"
    if identity.scope is not None:
        session += f", scope {ident(identity.scope)}"
    warn(f"{store.name}: added {_count(len(added))} to {session} ({_count(total)} in all)")
    return 0


def _check(
    extend: Callable[[list[Message]], _T],
    msgs: list[Message],
    stored: int,
    name: str,
    decoded: Sequence[Decoded],
) -> _T:
    """``extend(msgs)``; an OrderingError becomes a Failure placed in the input."""
    try:
        return extend(msgs)
    except OrderingError as exc:
        i = exc.index - stored
        problem: MessageError = exc
        if 0 <= i < len(decoded):
            problem = relocated(exc, decoded[i].loc or f"message {i}")
        raise Failure(f"{name}: {problem}; nothing was imported") from None


def _count(n: int) -> str:
    return f"{n} message" if n == 1 else f"{n} messages"
