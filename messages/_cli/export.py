"""``export STORE --agent A --session S``: a stored session written out as JSON Lines.

One canonical message dict per line (``Message.to_dict``), in the session's
order, written by ``messages.to_jsonl``: what ``import`` and every other command
read back. A
session that was never saved is an error (exit status 1) naming the sessions
the agent has in that scope, so that a mistyped name does not pass for an
empty conversation; a session saved empty writes nothing and exits 0.
"""

from __future__ import annotations

from ..errors import StorageError, ident
from .sink import Sink
from .store import Store, session_of
from .terminal import Failure

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from ..storage import Backend, SessionIdentity

__all__ = ["run"]

_LISTED = 10  # sessions named at most when the one asked for is not there


def run(args: argparse.Namespace) -> int:
    """Run ``export``; return the exit status."""
    from .._jsonl import to_jsonl
    from .._ordering import OrderingPolicy
    from ..storage import ChatHistoryConfig, ChatHistoryStorage

    identity = session_of(args)
    store = Store(args.store, args.table_prefix, create=False)
    with store as backend:
        # The loosest policy: a session is written out as it was stored.
        config = ChatHistoryConfig(policy=OrderingPolicy.lenient())
        try:
            msgs = ChatHistoryStorage(backend, identity, config).messages()
            if not msgs and backend.load(identity) is None:
                raise Failure(_missing(store.name, backend, identity))
        except StorageError as exc:
            raise store.failure(exc) from None
    with Sink(args.output) as sink:
        sink.write(to_jsonl(msgs))
    return 0


def _missing(name: str, backend: Backend, identity: SessionIdentity) -> str:
    """What to say when the session is not in the store: the agent's sessions there."""
    where = f"agent {ident(identity.agent)}"
    if identity.scope is not None:
        where += f", scope {ident(identity.scope)}"
    found = [i.session for i in backend.list_sessions(identity.agent, identity.scope)]
    if not found:
        return f"{name}: no session {ident(identity.session)}; {where} has none there"
    names = ", ".join(ident(s) for s in found[:_LISTED])
    more = f" and {len(found) - _LISTED} more" if len(found) > _LISTED else ""
    return f"{name}: no session {ident(identity.session)} of {where}; it has {names}{more}"
