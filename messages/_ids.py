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
    import hashlib
    from collections.abc import Callable
    from datetime import datetime, timezone
    from typing import Any

    from _typeshed import ReadableBuffer

    UTC: timezone

__all__ = [
    "DERIVED_ID_PREFIX",
    "UTC",
    "LazyCreatedAt",
    "LazyId",
    "counter",
    "call_id_of",
    "derive_call_id",
    "ms_of",
    "new_id",
    "now",
    "stamp_created_at",
    "stamp_id",
    "stamp_id_ms",
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
    global _prefix, _last_head
    _prefix = os.urandom(4).hex()
    _last_head = (-1, "")


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reseed)


# (millisecond, its 20-digit id head), one tuple so that threads never pair the
# millisecond of one call with the head of another.
_last_head: tuple[int, str] = (-1, "")


def stamp_id(ns: int, seq: int) -> str:
    """Format the id string of a clock reading (ns since the epoch) and a sequence number."""
    # Hot path: the 20-digit head (milliseconds and process prefix) is shared by
    # every id of the same millisecond, so it is formatted once per millisecond.
    return stamp_id_ms(ns // 1_000_000, seq)


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


# -- derived ids ------------------------------------------------------------------------

#: Prefix of the ids this package makes up for tool calls the wire left without one
#: (``derive_call_id``: same input, same id; 37 characters, within OpenAI's 40). Shared
#: by every decoder and provider, so none of them sends another's made-up id as real.
DERIVED_ID_PREFIX = "call_derived_"


def derive_call_id(prefix: str, *parts: object) -> str:
    """A stable id for a tool call the wire left without one (same input, same id):
    ``call_id_of`` the parts as text, joined with ``"\\x1f"``."""
    # hot path: str parts joined as they are (map(str) cost ~0.2 us of ~0.9)
    return call_id_of(prefix, "\x1f".join([p if p.__class__ is str else str(p) for p in parts]))


_sha256: Callable[[ReadableBuffer], hashlib._Hash] | None = (
    None  # hashlib.sha256 once an id is derived (hashlib loads OpenSSL, ~3 ms)
)


def call_id_of(prefix: str, key: str) -> str:
    """The id ``derive_call_id(prefix, *parts)`` makes, of the parts' text already joined
    into ``key``. Hot path: a parser that makes an id per call writes its key as one
    f-string and calls this (~430 ns an id, where ``derive_call_id`` of the parts took
    ~880: its list comprehension's frame and an ``import`` statement per call)."""
    global _sha256
    sha = _sha256
    if sha is None:
        import hashlib

        sha = _sha256 = hashlib.sha256
    return prefix + sha(key.encode("utf-8", "surrogatepass")).hexdigest()[:24]


# -- lazily formatted id and created_at --------------------------------------------------
#
# Hot path: a message does not format its id when it is built (~340 ns) and does not
# build its created_at datetime (~250 ns). Its ``id`` slot holds a sequence number and
# its ``created_at`` slot the clock's ns (or, for a decoded message, the canonical
# timestamp text) until the field is first read; the descriptors below, which stand in
# for the dataclass's slot descriptors, format the value then and store it.
#
# Thread safety: each slot's final value is computed from that slot's own content and
# the other slot's content, whatever form the other is in (the ns, its datetime or its
# text all give the same millisecond), and every thread that formats it stores an
# equal value. So readers in any number of threads all see the same id and timestamp,
# whichever of them formats first.


def ms_of(created: Any) -> int:
    """The Unix millisecond of a created_at slot's content, in any of its forms."""
    if created.__class__ is int:
        return created // 1_000_000
    if created.__class__ is str:
        created = text_created_at(created)
    epoch = _EPOCH or _init_datetime()
    return (created - epoch) // _timedelta(milliseconds=1)  # type: ignore[no-any-return]


def stamp_id_ms(ms: int, seq: int) -> str:
    """Format the id string of a Unix millisecond and a sequence number."""
    # Hot path: the head (milliseconds and process prefix) is shared by every id of
    # the same millisecond, so it is formatted once per millisecond.
    global _last_head
    last = _last_head
    if last[0] == ms:
        head = last[1]
    else:
        head = f"{ms:012x}{_prefix}"
        _last_head = (ms, head)
    return f"{head}{seq & _SEQ_MASK:012x}"


class LazyId:
    """The ``id`` field of a message: formatted from its stamp on first read."""

    __slots__ = ("_created", "_get", "_set", "slot")

    def __init__(self, slot: Any, created_slot: Any) -> None:
        self.slot = slot  # the slot descriptor it stands in for (builders store through it)
        self._get = slot.__get__
        self._set = slot.__set__
        self._created = created_slot.__get__

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        v = self._get(obj)
        if v.__class__ is int:
            v = stamp_id_ms(ms_of(self._created(obj)), v)
            self._set(obj, v)
        return v

    def __set__(self, obj: Any, value: Any) -> None:
        self._set(obj, value)

    def raw(self, obj: Any) -> Any:
        """The slot's content: the id, or its sequence number while unformatted."""
        return self._get(obj)


class LazyCreatedAt:
    """The ``created_at`` field of a message: its datetime built on first read."""

    __slots__ = ("_get", "_set", "slot")

    def __init__(self, slot: Any) -> None:
        self.slot = slot  # the slot descriptor it stands in for (builders store through it)
        self._get = slot.__get__
        self._set = slot.__set__

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        v = self._get(obj)
        cls = v.__class__
        if cls is int:
            v = stamp_created_at(v)
            self._set(obj, v)
        elif cls is str:
            v = text_created_at(v)
            self._set(obj, v)
        return v

    def __set__(self, obj: Any, value: Any) -> None:
        self._set(obj, value)

    def raw(self, obj: Any) -> Any:
        """The slot's content: a datetime, or the clock's ns or canonical text while unbuilt."""
        return self._get(obj)
