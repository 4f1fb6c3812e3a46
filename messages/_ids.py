"""Message ids: unique across processes, time-ordered, cheap to make.

An id is 32 lowercase hex digits: 12 of Unix time in milliseconds, 8 of a random
per-process prefix, 12 of a per-process counter (40 bits used). Ids made later sort later
(lexicographically) within a process, and across processes to the millisecond.

Hot path: a message does not format its id when it is built. It stores two ints,
the clock's nanoseconds (in its created_at slot) and a sequence number (in its id
slot), and formats the id and the ``created_at`` datetime from them the first
time either is read. Building the string eagerly cost ~340 ns per message; the
two ints cost ~40 ns (one combined int, ``ns << 40 | seq``, cost ~85: the big-int
shift and or).
"""

from __future__ import annotations

import itertools
import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime, timezone
    from typing import Any

    UTC: timezone

__all__ = [
    "UTC",
    "counter",
    "new_id",
    "now",
    "stamp_created_at",
    "stamp_id",
    "stamp_text",
    "text_created_at",
    "time_ns",
]

# datetime is imported when a timestamp is first needed, not by `import messages`.
_EPOCH: Any = None
_timedelta: Any = None
_datetime: Any = None


def _init_datetime() -> datetime:
    global _EPOCH, _timedelta, _datetime, UTC
    from datetime import datetime, timedelta, timezone

    UTC = timezone.utc
    _datetime, _timedelta = datetime, timedelta
    _EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
    return _EPOCH  # type: ignore[no-any-return]


def __getattr__(name: str) -> Any:
    if name == "UTC":
        _init_datetime()
        return UTC
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_SEQ_BITS = 40
_SEQ_MASK = (1 << _SEQ_BITS) - 1

_prefix = os.urandom(4).hex()
counter = itertools.count()
"""The per-process sequence: the low 40 bits of an id are ``next(counter)``."""
time_ns = time.time_ns


def _reseed() -> None:
    # After fork, parent and child would otherwise mint the same ids. The counter
    # is kept, so a stamp made before the fork but formatted in the child cannot
    # collide with one the child makes after it.
    global _prefix, _last_ms
    _prefix = os.urandom(4).hex()
    _last_ms = -1


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reseed)


_last_ms = -1
_last_head = ""


def stamp_id(ns: int, seq: int) -> str:
    """Format the id string of a clock reading (ns since the epoch) and a sequence number."""
    # Hot path: the 20-digit head (milliseconds and process prefix) is shared by
    # every id of the same millisecond, so it is formatted once per millisecond.
    global _last_ms, _last_head
    ms = ns // 1_000_000
    if ms != _last_ms:
        head = f"{ms:012x}{_prefix}"
        _last_ms, _last_head = ms, head
    else:
        head = _last_head
        if ms != _last_ms:  # another thread moved the cache on meanwhile
            head = f"{ms:012x}{_prefix}"
    return f"{head}{seq & _SEQ_MASK:012x}"


def stamp_created_at(ns: int) -> datetime:
    """Return the aware UTC datetime (microsecond precision) of a clock reading in ns."""
    epoch = _EPOCH or _init_datetime()
    return epoch + _timedelta(microseconds=ns // 1000)  # type: ignore[no-any-return]


# (second, "YYYY-MM-DDTHH:MM:SS") of the last stamp_text call, one tuple so that
# threads never see the second of one call with the text of another.
_last_second: tuple[int, str] = (-1, "")


def stamp_text(ns: int) -> str:
    """The canonical created_at text of a clock reading in ns: ``YYYY-MM-DDTHH:MM:SS.ffffffZ`` (UTC).

    The same instant as ``stamp_created_at(ns)``, without building a datetime.
    """
    # Hot path: a fresh message's first encode. Formatting via a datetime cost
    # ~2.5 us (timedelta arithmetic, isoformat, hashing it for the text cache);
    # the seconds head is shared by every message of the same second, so it is
    # formatted once per second (~0.2 us on a hit).
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
    if _EPOCH is None:
        _init_datetime()
    if _Z_OK:
        return _datetime.fromisoformat(s)  # type: ignore[no-any-return]
    return _datetime.fromisoformat(s[:-1]).replace(tzinfo=UTC)  # type: ignore[no-any-return]


# datetime.fromisoformat reads a "Z" suffix from Python 3.11 on.
_Z_OK = sys.version_info >= (3, 11)


def new_id() -> str:
    """Return a fresh id string."""
    return stamp_id(time_ns(), next(counter))


def now() -> datetime:
    """The current time as an aware UTC datetime."""
    if _EPOCH is None:
        _init_datetime()
    return _datetime.now(UTC)  # type: ignore[no-any-return]
