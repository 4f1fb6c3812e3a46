"""Message ids: unique across processes, time-ordered, cheap to make.

An id is 32 lowercase hex digits: 13 of Unix time in microseconds, 7 of a random
per-process prefix, 12 of a per-process counter (40 bits used). Ids made later sort later
(lexicographically) within a process, and across processes to the microsecond. A
message's generated id carries its creation time, so ``_message`` keeps one of the two
once the id is made (``id_time_ns``).

A message does not format its id, nor build its ``created_at`` datetime, when it is
built: ``_message`` keeps the clock reading and a sequence number until either field
is first read, and formats them with the functions here.
"""

from __future__ import annotations

import itertools
import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    import hashlib
    from collections.abc import Callable
    from datetime import datetime, timezone
    from typing import Any

    UTC: timezone  # made on first use (see _epoch)

    from _typeshed import ReadableBuffer

__all__ = [
    "DERIVED_ID_PREFIX",
    "UTC",
    "counter",
    "call_id_of",
    "derive_call_id",
    "new_id",
    "now",
    "stamp_created_at",
    "stamp_id",
    "id_time_ns",
    "stamp_text",
    "text_created_at",
    "time_ns",
]

# datetime is imported when a timestamp is first needed, not by `import messages`.
_EPOCH: datetime | None = None


def _epoch() -> datetime:
    global _EPOCH
    if _EPOCH is None:
        from datetime import UTC, datetime

        _EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
    return _EPOCH


def __getattr__(name: str) -> Any:
    if name == "UTC":
        return _epoch().tzinfo
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_SEQ_BITS = 40
_SEQ_MASK = (1 << _SEQ_BITS) - 1

counter = itertools.count()
"""The per-process sequence: the low 40 bits of an id are ``next(counter)``."""
time_ns = time.time_ns

# The random 8-digit middle of the ids, with the first sequence number it applies
# to. A forked child adds a prefix of its own (parent and child would otherwise make
# the same ids), from the next sequence number on: a message the parent made before
# the fork keeps its parent's prefix, so it has the same id in both processes.
_prefixes: list[tuple[int, str]] = [(0, os.urandom(4).hex()[:7])]


def _reseed() -> None:
    _prefixes.append((next(counter), os.urandom(4).hex()[:7]))


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reseed)


def _prefix_of(seq: int) -> str:
    for first, prefix in reversed(_prefixes):
        if seq >= first:
            return prefix
    return _prefixes[0][1]


def stamp_id(ns: int, seq: int) -> str:
    """Format the id string of a clock reading (ns since the epoch) and a sequence number."""
    first, prefix = _prefixes[-1]
    if seq < first:  # made before this process forked
        prefix = _prefix_of(seq)
    return f"{ns // 1000:013x}{prefix}{seq & _SEQ_MASK:012x}"


def id_time_ns(id: str) -> int:
    """The clock reading (ns, to the microsecond) a ``stamp_id`` id was made from."""
    return int(id[:13], 16) * 1000


def stamp_created_at(ns: int) -> datetime:
    """Return the aware UTC datetime (microsecond precision) of a clock reading in ns."""
    from datetime import timedelta

    return _epoch() + timedelta(microseconds=ns // 1000)


# (second, "YYYY-MM-DDTHH:MM:SS") of the last stamp_text call, one tuple so that
# threads never see the second of one call with the text of another.
_last_second: tuple[int, str] = (-1, "")


def stamp_text(ns: int) -> str:
    """The canonical created_at text of a clock reading in ns: ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (UTC).

    The same instant as ``stamp_created_at(ns)``, without building a datetime.
    """
    # The seconds head is shared by every message of the same second, so it is
    # formatted once per second.
    global _last_second
    second, micro = divmod(ns // 1000, 1_000_000)
    last = _last_second
    if last[0] == second:
        head = last[1]
    else:
        head = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        _last_second = (second, head)
    return f"{head}.{micro:06d}Z"


def text_created_at(s: str) -> datetime:
    """The aware UTC datetime of a canonical timestamp text (``YYYY-MM-DDTHH:MM:SS.ffffffZ``).

    Only for text the codec already checked (a decoded message keeps its
    ``created_at`` text until the datetime is first read).
    """
    from datetime import datetime

    return datetime.fromisoformat(s)


def new_id() -> str:
    """Return a fresh id string."""
    return stamp_id(time_ns(), next(counter))


def now() -> datetime:
    """The current time as an aware UTC datetime."""
    from datetime import datetime

    return datetime.now(_epoch().tzinfo)


# -- derived ids ------------------------------------------------------------------------

#: Prefix of the ids this package makes up for tool calls the wire left without one
#: (``derive_call_id``: same input, same id; 37 characters, within OpenAI's 40). Shared
#: by every decoder and provider, so none of them sends another's made-up id as real.
DERIVED_ID_PREFIX = "call_derived_"


def derive_call_id(prefix: str, *parts: object) -> str:
    """A stable id for a tool call the wire left without one (same input, same id):
    ``call_id_of`` the parts as text, joined with ``"\\x1f"``."""
    return call_id_of(prefix, "\x1f".join([str(p) for p in parts]))


# hashlib.sha256 once an id is derived (hashlib loads OpenSSL: not at import time)
_sha256: Callable[[ReadableBuffer], hashlib._Hash] | None = None


def call_id_of(prefix: str, key: str) -> str:
    """The id ``derive_call_id(prefix, *parts)`` makes, of the parts' text already joined
    into ``key`` with ``"\\x1f"``."""
    global _sha256
    sha = _sha256
    if sha is None:
        import hashlib

        sha = _sha256 = hashlib.sha256
    return prefix + sha(key.encode("utf-8", "surrogatepass")).hexdigest()[:24]
