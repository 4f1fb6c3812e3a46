"""Cache hints (``Message.cache``) on the wire: the shapes and the rules every provider shares.

A ``CacheHint`` marks the end of a cacheable prompt prefix. Providers with explicit
breakpoints carry it on the last content block of its message: Anthropic and
OpenRouter as ``cache_control`` (``{"type": "ephemeral"}``, with ``ttl``), OpenAI
(chat completions and the Responses API) as ``prompt_cache_breakpoint``
(``{"mode": "explicit"}``; its lifetime is the request's ``prompt_cache_options``,
so a hint's ``ttl`` is a Loss there). Every other provider reports the hint as a
Loss. Parsing a request reads such a key on a message's last block back as the
message's hint (when it is one this module writes), so that formatting gives the
same body; anywhere else it stays a kept key of its block.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .._cache import CacheHint
from ._base import Losses

__all__ = [
    "BREAKPOINT_KEY",
    "CONTROL_KEY",
    "WHAT",
    "breakpoint_hint",
    "control",
    "control_hint",
    "hint_loss",
    "no_breakpoints",
    "openai_breakpoint",
]

#: Anthropic's and OpenRouter's key of a content block.
CONTROL_KEY: Final = "cache_control"
#: OpenAI's key of an input content part (chat completions and Responses).
BREAKPOINT_KEY: Final = "prompt_cache_breakpoint"
#: What a Loss about a hint names.
WHAT: Final = "cache hint"

_TTLS: Final = frozenset(("5m", "1h"))
_NO_TTL: Final = CacheHint()
_BY_TTL: Final = {ttl: CacheHint(ttl) for ttl in _TTLS}


def control(hint: CacheHint) -> dict[str, Any]:
    """The ``cache_control`` object of a hint (a new dict each time)."""
    ttl = hint.ttl
    return {"type": "ephemeral"} if ttl is None else {"type": "ephemeral", "ttl": ttl}


def control_hint(value: object) -> CacheHint | None:
    """The hint a ``cache_control`` value is, or None when it holds anything else
    (another type, another ttl, more keys): then it stays a kept key as it came."""
    if not isinstance(value, Mapping) or value.get("type") != "ephemeral":
        return None
    if len(value) == 1:
        return _NO_TTL
    ttl = value.get("ttl")
    if len(value) == 2 and type(ttl) is str and ttl in _TTLS:
        return _BY_TTL[ttl]
    return None


def openai_breakpoint() -> dict[str, Any]:
    """The ``prompt_cache_breakpoint`` object (a new dict each time)."""
    return {"mode": "explicit"}


def breakpoint_hint(value: object) -> CacheHint | None:
    """The hint a ``prompt_cache_breakpoint`` value is (exactly ``{"mode": "explicit"}``),
    or None (it then stays a kept key as it came)."""
    if isinstance(value, Mapping) and len(value) == 1 and value.get("mode") == "explicit":
        return _NO_TTL
    return None


def hint_loss(losses: Losses, i: int, rule: str) -> None:
    """A Loss for the hint of message ``i``."""
    losses.add(f"messages[{i}].cache", WHAT, rule)


def no_breakpoints(name: str, how: str = "") -> str:
    """The rule of a provider that takes no breakpoints (``how``: how it caches, if it does)."""
    return f"dropped: {name} takes no cache breakpoints" + (f" ({how})" if how else "")
