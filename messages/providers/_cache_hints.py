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

from collections.abc import Callable, Mapping
from typing import Any, Final

from .._cache import TTLS, CacheHint
from ._base import Losses

__all__ = [
    "BREAKPOINT_KEY",
    "CONTROL_KEY",
    "MAX_CONTROLS",
    "NOT_SENT",
    "WHAT",
    "breakpoint_hint",
    "breakpoint_ttl_rule",
    "collect_control",
    "control",
    "control_hint",
    "hint_loss",
    "input_only_rule",
    "kept_rule",
    "lift_kept",
    "limit_controls",
    "mark_last",
    "missed",
    "no_breakpoints",
    "no_part_rule",
    "openai_breakpoint",
]

#: Anthropic's and OpenRouter's key of a content block.
CONTROL_KEY: Final = "cache_control"
#: OpenAI's key of an input content part (chat completions and Responses).
BREAKPOINT_KEY: Final = "prompt_cache_breakpoint"
#: What a Loss about a hint names.
WHAT: Final = "cache hint"

_NO_TTL: Final = CacheHint()
_BY_TTL: Final = {ttl: CacheHint(ttl) for ttl in TTLS}


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
    if len(value) == 2 and type(ttl) is str and ttl in TTLS:
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


# -- the rules of the Losses every carrying provider shares ------------------------------

#: The rule of a hint on a message that is not sent (a result that answers no call, ...).
NOT_SENT: Final = "dropped: its message is not sent"


def no_part_rule(what: str) -> str:
    """The rule of a hint on a message with nothing to carry it (``what``: "content block")."""
    return f"dropped: its message has no {what} to mark"


def kept_rule(key: str) -> str:
    """The rule of a hint whose part keeps its own ``key`` (from a parsed request),
    sent in its place: one key, never two."""
    return f"dropped: the {key} kept on its block is sent instead"


def input_only_rule(name: str) -> str:
    """The rule of a hint on an assistant message where breakpoints go on input parts only."""
    return f"dropped: {name} takes {BREAKPOINT_KEY} on input parts only, not on assistant messages"


def breakpoint_ttl_rule(name: str) -> str:
    """The rule of a hint's ttl where a breakpoint lives as long as the request says."""
    return (
        f"dropped: {name} breakpoints live as long as the request's prompt_cache_options.ttl says"
    )


# -- formatting: the hint on a message's last part --------------------------------------


def mark_last(
    content: Any,
    key: str,
    value: Any,
    text_type: str,
    markable: Callable[[Any], bool] | None = None,
    start: int = 0,
) -> tuple[Any, Any]:
    """A message's content (a string or a list of parts, changed in place) with ``value``
    as ``key`` on its last part (the last that ``markable`` accepts, at ``start`` or
    after; a non-empty string becomes one part of ``text_type``), and the value that
    part carries: ``value``, or the one it kept from a parsed request (one key, never
    two: the kept one stays); None when no part takes it."""
    if isinstance(content, str):
        if content:
            return [{"type": text_type, "text": content, key: value}], value
        return content, None
    for j in range(len(content) - 1, start - 1, -1):
        part = content[j]
        if markable is None or markable(part):
            if key in part:
                return content, part[key]
            content[j] = {**part, key: value}
            return content, value
    return content, None


def missed(losses: Losses, i: int, placed: Any, value: Any, key: str, rule: str) -> bool:
    """Whether message ``i``'s hint (``value``) is on the wire as ``mark_last`` left it
    (``placed``); if not, a Loss: ``rule`` when no part took it, or a kept ``key`` that
    says something else was sent in its place."""
    if placed is value:
        return False
    if placed is None:
        hint_loss(losses, i, rule)
    elif placed != value:
        hint_loss(losses, i, kept_rule(key))
    return True


# -- Anthropic's rules on cache_control (Anthropic, and Claude behind OpenRouter) ---------

#: The most ``cache_control`` blocks Anthropic takes in one request.
MAX_CONTROLS: Final = 4


def collect_control(
    block: Any, owner: Mapping[int, int], found: list[tuple[dict[str, Any], int | None]]
) -> None:
    """Note a block with a ``cache_control`` and the message whose hint it is (``owner``:
    ``id`` of each hint's value -> its message; None: a key kept from a request)."""
    if isinstance(block, dict) and CONTROL_KEY in block:
        found.append((block, owner.get(id(block[CONTROL_KEY]))))


def limit_controls(
    found: list[tuple[dict[str, Any], int | None]], losses: Losses, who: str, why: str = ""
) -> None:
    """Anthropic's rules on the ``cache_control`` blocks of a request (``found``, in
    prefix order, by ``collect_control``), applied to the hints among them.

    At most four a request (the keys kept from a parsed request count too): beyond,
    the earliest hints are dropped, each a Loss, since the latest cover the longest
    prefixes (an agent loop moves its breakpoint forward each turn); kept keys are
    the request's own and stay. A 1h hint after a shorter breakpoint (the API wants
    the longer lifetimes first) is sent with the default ttl, a Loss. ``who`` names
    the provider in the rules and ``why`` follows them (e.g. whose rule it is).
    """
    excess = len(found) - MAX_CONTROLS
    if excess > 0:
        rule = (
            f"dropped: {who} takes at most {MAX_CONTROLS} cache_control blocks a request{why};"
            " the earliest hints are dropped first"
        )
        left = []
        for block, i in found:
            if excess and i is not None:
                del block[CONTROL_KEY]
                hint_loss(losses, i, rule)
                excess -= 1
            else:
                left.append((block, i))
        found = left
    shorter = False
    for block, i in found:
        value = block[CONTROL_KEY]
        if not isinstance(value, Mapping) or value.get("ttl") != "1h":
            shorter = True
        elif shorter and i is not None:
            block[CONTROL_KEY] = {"type": "ephemeral"}
            rule = f"sent with the default ttl: {who} wants 1h breakpoints before shorter ones"
            losses.add(f"messages[{i}].cache.ttl", "cache hint ttl 1h", rule + why)


# -- parsing -----------------------------------------------------------------------------

_READ: Final = {CONTROL_KEY: control_hint, BREAKPOINT_KEY: breakpoint_hint}


def lift_kept(kept: list[Any], index: int, key: str) -> CacheHint | None:
    """The hint kept as ``key`` on the part at ``index`` (a message's last), taken out of
    ``kept`` (the kept keys of its parts: ``{"index", "keys", ...}`` records by index,
    dicts or FrozenDicts); None, ``kept`` unchanged, when that part has no such key or
    one the formatter would not write (then it stays a kept key as it came)."""
    if not kept:
        return None
    entry = kept[-1]
    keys = entry["keys"]
    if entry["index"] != index or key not in keys:
        return None
    hint = _READ[key](keys[key])
    if hint is not None:
        if len(keys) > 1:
            rest = type(keys)({k: v for k, v in keys.items() if k != key})
            kept[-1] = type(entry)({**entry, "keys": rest})
        else:
            kept.pop()
    return hint
