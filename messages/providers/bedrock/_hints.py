"""Cache hints (``Message.cache``) as ``cachePoint`` blocks, both ways.

A hint is a ``{"cachePoint": {"type": "default"}}`` block (with ``"ttl"`` when the hint
has one: ``"5m"`` or ``"1h"``) right after the blocks of its message: after a system
message's text in ``system``, after a tool result's ``toolResult`` block, after a user
or assistant message's content. Reading a request gives a ``cachePoint`` that ends a
message's blocks back as the message's hint; one anywhere else (between two blocks of
one message) is kept as a block of the message, and one with other keys too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..._cache import TTLS, CacheHint

_DEFAULT: Final = "default"


def cache_point(hint: CacheHint) -> dict[str, Any]:
    """The ``cachePoint`` block of a hint (a new dict each time)."""
    point = {"type": _DEFAULT} if hint.ttl is None else {"type": _DEFAULT, "ttl": hint.ttl}
    return {"cachePoint": point}


def read_point(block: Mapping[str, Any]) -> CacheHint | None:
    """The hint a ``cachePoint`` block is, or None when it holds anything else (it is then
    kept as it came)."""
    if len(block) != 1:
        return None
    point = block.get("cachePoint")
    if not isinstance(point, Mapping) or point.get("type") != _DEFAULT:
        return None
    if len(point) == 1:
        return CacheHint()
    ttl = point.get("ttl")
    if len(point) == 2 and type(ttl) is str and ttl in TTLS:
        return CacheHint(ttl)
    return None
