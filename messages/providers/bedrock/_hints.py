"""Cache hints (``Message.cache``) as ``cachePoint`` blocks, both ways.

A hint is a ``{"cachePoint": {"type": "default"}}`` block (with ``"ttl"`` when the hint
has one: ``"5m"`` or ``"1h"``) right after the blocks of its message: after a system
message's text in ``system``, after a tool result's ``toolResult`` block, after a user
or assistant message's content. Reading a request gives a ``cachePoint`` that ends a
message's blocks back as the message's hint; one anywhere else (between two blocks of
one message) is kept as a block of the message, and one with other keys too.

Bedrock takes at most four cache checkpoints a request (kept ones count) and wants
the longer lifetimes first: beyond four, the earliest hints are dropped (a Loss; the
latest cover the longest prefixes), and a 1h hint after a shorter checkpoint is sent
with the default lifetime (a Loss).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..._cache import TTLS, CacheHint
from .._base import Losses
from .._cache_hints import MAX_CONTROLS, hint_loss

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


def limit_points(
    system: list[Any],
    turns: list[dict[str, Any]],
    marks: list[tuple[dict[str, Any], int]],
    losses: Losses,
) -> None:
    """Bedrock's rules on the checkpoints of a request (module docstring), applied to the
    hints among them (``marks``: each hint's block and message)."""
    owner = {id(block): i for block, i in marks}
    found: list[tuple[list[Any], dict[str, Any], int | None]] = [
        (system, b, owner.get(id(b))) for b in system if "cachePoint" in b
    ]
    for turn in turns:
        content = turn["content"]
        found += [(content, b, owner.get(id(b))) for b in content if "cachePoint" in b]
    excess = len(found) - MAX_CONTROLS
    if excess > 0:
        rule = f"dropped: Bedrock takes at most {MAX_CONTROLS} cache checkpoints a request; the earliest hints are dropped first"
        for container, block, i in list(found):
            if excess and i is not None:
                container[:] = [b for b in container if b is not block]
                hint_loss(losses, i, rule)
                found.remove((container, block, i))
                excess -= 1
    shorter = False
    for _, block, i in found:
        point = block["cachePoint"]
        if not isinstance(point, Mapping) or point.get("ttl") != "1h":
            shorter = True
        elif shorter and i is not None:
            block["cachePoint"] = {"type": _DEFAULT}
            rule = "sent with the default ttl: Bedrock wants 1h checkpoints before shorter ones"
            losses.add(f"messages[{i}].cache.ttl", "cache hint ttl 1h", rule)
