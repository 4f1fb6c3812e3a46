"""Cache hints (``Message.cache``) as ``cache_control`` blocks, both ways.

Formatting puts a hint on the last block of its message (see ``_format``) and notes
it in ``marks``; ``limit_breakpoints`` then applies the API's rules on the whole
request. Parsing a request reads a ``cache_control`` on the last block of a message
back as the message's hint (``lift``), where the formatter would write it back as
it came; any other ``cache_control`` stays a kept key of its block.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..._frozen import FrozenDict
from .._base import Losses
from .._cache_hints import CONTROL_KEY, control, control_hint, hint_loss

if TYPE_CHECKING:
    from ..._cache import CacheHint
    from ..._message import Message

__all__ = [
    "MAX_BREAKPOINTS",
    "NOT_SENT",
    "hinted",
    "lift",
    "lift_kept",
    "limit_breakpoints",
    "mark",
    "mark_turn",
    "mixed_ttls",
]

#: The most ``cache_control`` blocks the API takes in one request.
MAX_BREAKPOINTS = 4
NOT_SENT = "dropped: its message is not sent"
_NO_CONTENT = "dropped: its message has no content block to mark"
_LIMIT_RULE = (
    f"dropped: Anthropic takes at most {MAX_BREAKPOINTS} cache_control blocks a request;"
    " the earliest hints are dropped first"
)
_TTL_RULE = "sent with the default ttl: Anthropic wants 1h breakpoints before shorter ones"

# -- formatting ---------------------------------------------------------------------


def mark(hint: CacheHint, i: int, marks: list[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    """The ``cache_control`` of message ``i``'s hint, noted in ``marks``."""
    value = control(hint)
    marks.append((i, value))
    return value


def hinted(
    content: Any,
    hint: CacheHint,
    i: int,
    marks: list[tuple[int, dict[str, Any]]],
    losses: Losses,
) -> Any:
    """A message's content (a string or blocks) with its hint on its last block (a
    string becomes a text block); a last block that has a ``cache_control`` (kept
    from a request) keeps its own."""
    if content.__class__ is str:
        if content:
            return [{"type": "text", "text": content, CONTROL_KEY: mark(hint, i, marks)}]
    elif content:
        last = content[-1]
        if CONTROL_KEY not in last:
            content[-1] = {**last, CONTROL_KEY: mark(hint, i, marks)}
        return content
    hint_loss(losses, i, _NO_CONTENT)
    return content


def mark_turn(
    blocks: list[Any],
    content: Any,
    m: Message,
    i: int,
    marks: list[tuple[int, dict[str, Any]]],
    losses: Losses,
) -> None:
    """A ToolCallMessage's hint on the last of its blocks (the last of ``blocks``;
    ``content`` is what its content gave), in their wire order."""
    n = len(m.tool_calls) + len(m.invalid_tool_calls)
    if content:
        n += 1 if content.__class__ is str else len(content)
    for k in range(len(blocks) - 1, len(blocks) - 1 - n, -1):
        block = blocks[k]
        if block is not None:  # (None: an invalid call not sent)
            if CONTROL_KEY not in block:
                blocks[k] = {**block, CONTROL_KEY: mark(m.cache, i, marks)}  # type: ignore[arg-type]
            return
    hint_loss(losses, i, _NO_CONTENT)


def mixed_ttls(marks: list[tuple[int, dict[str, Any]]]) -> bool:
    """Whether some hints ask for 1h and others for less (the order then matters)."""
    return len({value.get("ttl") == "1h" for _, value in marks}) > 1


def limit_breakpoints(
    body: dict[str, Any], marks: list[tuple[int, dict[str, Any]]], losses: Losses
) -> None:
    """The API's rules on ``cache_control`` blocks, applied to the hints in ``body``.

    At most four a request (the keys kept from a parsed request count too): beyond,
    the earliest hints are dropped, each a Loss, since the latest cover the longest
    prefixes (an agent loop moves its breakpoint forward each turn); kept keys are
    the request's own and stay. A 1h hint after a shorter breakpoint (the API wants
    the longer lifetimes first) is sent with the default ttl, a Loss.
    """
    owner = {id(value): i for i, value in marks}
    found: list[tuple[dict[str, Any], int | None]] = []  # in prefix order
    system = body.get("system")
    if system.__class__ is list:
        for block in system:
            _collect(block, owner, found)
    for turn in body["messages"]:
        content = turn["content"]
        if content.__class__ is list:
            for block in content:
                inner = block.get("content") if block.get("type") == "tool_result" else None
                if inner.__class__ is list:
                    for sub in inner:
                        _collect(sub, owner, found)
                _collect(block, owner, found)
    excess = len(found) - MAX_BREAKPOINTS
    if excess > 0:
        left = []
        for block, i in found:
            if excess and i is not None:
                del block[CONTROL_KEY]
                hint_loss(losses, i, _LIMIT_RULE)
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
            losses.add(f"messages[{i}].cache.ttl", "cache hint ttl 1h", _TTL_RULE)


def _collect(
    block: Any, owner: dict[int, int], found: list[tuple[dict[str, Any], int | None]]
) -> None:
    """Note a block with a ``cache_control``, and the message whose hint it is (None: kept)."""
    if block.__class__ is dict and CONTROL_KEY in block:
        found.append((block, owner.get(id(block[CONTROL_KEY]))))


# -- parsing ----------------------------------------------------------------------------


def lift(block: Mapping[str, Any]) -> tuple[Mapping[str, Any], CacheHint | None]:
    """A message's last block without its ``cache_control``, and the hint it is; the
    block as it is and None when it has none, or one the formatter would not write."""
    if CONTROL_KEY not in block:
        return block, None
    hint = control_hint(block[CONTROL_KEY])
    if hint is None:
        return block, None
    return {k: v for k, v in block.items() if k != CONTROL_KEY}, hint


def lift_kept(keys: list[FrozenDict], index: int) -> CacheHint | None:
    """The hint kept as the ``cache_control`` of the block at ``index`` (the last of a
    message), taken out of ``keys`` (the kept keys of the message's blocks)."""
    if not keys or keys[-1]["index"] != index:
        return None
    item = keys[-1]
    rest, hint = lift(item["keys"])
    if hint is not None:
        if rest:
            keys[-1] = FrozenDict({**item, "keys": FrozenDict(rest)})
        else:
            keys.pop()
    return hint
