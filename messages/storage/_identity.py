"""Which conversation a stored history belongs to, and the storage key derived from it.

Agent, session and scope names come from outside (user ids, URLs, chat titles), so
the key is *encoded*, never trusted: a readable slug of each name (ASCII letters,
digits, ``_`` and ``-``; every other character becomes ``_``; at most 32 characters)
followed by a hash of the exact triple. The slug keeps directory listings readable;
the hash keeps two identities apart even when their slugs agree (``a/b`` and ``a_b``,
a Cyrillic and a Latin ``a``, two names that differ after the 32nd character,
``Agent`` and ``agent`` on a case-insensitive file system). The key is one safe file
name component: no separator, no leading dot, no NUL, at most 131 characters.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .._json import dumps_compact
from ..errors import ValidationError

__all__ = ["SessionIdentity", "by_session", "key_prefix"]

_SLUG_LEN = 32
_DIGEST_LEN = 32  # hex digits: 128 bits, so a collision is not a practical concern
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def _slug(name: str) -> str:
    return "".join([c if c in _SAFE else "_" for c in name[:_SLUG_LEN]])


def _check_name(value: object, field_name: str, *, optional: bool = False) -> None:
    if value is None and optional:
        return
    if not isinstance(value, str):
        expected = "a str or None" if optional else "a str"
        raise ValidationError(f"expected {expected}, got {type(value).__name__}", field_name)
    if not value:
        hint = " (use None for no scope)" if optional else ""
        raise ValidationError(f"must not be empty{hint}", field_name)


def key_prefix(agent: str, scope: str | None) -> str:
    """The start shared by the keys of every session of ``agent`` in ``scope``."""
    return f"{_slug(agent)}.{'' if scope is None else _slug(scope)}."


@dataclass(frozen=True, slots=True)
class SessionIdentity:
    """One stored conversation: an agent's session, optionally inside a scope (e.g. a user).

    Identities that differ in any of the three names never share storage, and
    ``list_sessions(agent, scope)`` only sees sessions of that exact scope.
    """

    agent: str
    session: str
    scope: str | None = None
    key: str = field(init=False, repr=False, compare=False)
    """The storage key: a single safe file name component, unique to this triple."""

    def __post_init__(self) -> None:
        import hashlib  # here, not at import: it loads OpenSSL

        _check_name(self.agent, "agent")
        _check_name(self.session, "session")
        _check_name(self.scope, "scope", optional=True)
        # The exact names, JSON-encoded as ASCII, so lone surrogates hash too.
        exact = dumps_compact([self.agent, self.session, self.scope]).encode("ascii")
        digest = hashlib.sha256(exact).hexdigest()[:_DIGEST_LEN]
        key = f"{key_prefix(self.agent, self.scope)}{_slug(self.session)}.{digest}"
        object.__setattr__(self, "key", key)

    def with_session(self, session: str) -> SessionIdentity:
        """The identity of another session of the same agent and scope."""
        return SessionIdentity(self.agent, session, self.scope)


def by_session(identity: SessionIdentity) -> str:
    """Sort key of ``list_sessions`` results: the session name."""
    return identity.session
