"""Cache hints (``Message.cache``) as ``cache_control`` blocks, both ways.

Formatting puts a hint on the last block of its message that is not a ``thinking``
or ``redacted_thinking`` block (the API takes no ``cache_control`` on those; the
breakpoint before them still caches the prefix), see ``_format``, and notes it in
``marks``; ``limit_breakpoints`` then applies the API's rules on the whole request.
Parsing a request reads a ``cache_control`` on the last block of a message back as
the message's hint (``lift``), where the formatter would write it back as it came;
any other ``cache_control`` stays a kept key of its block.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from .._base import Losses
from .._cache_hints import (
    CONTROL_KEY,
    MAX_CONTROLS,
    collect_control,
    control,
    control_hint,
    hint_loss,
    limit_controls,
    mark_last,
    missed,
    no_part_rule,
)

if TYPE_CHECKING:
    from ..._cache import CacheHint

__all__ = [
    "THINKING",
    "hinted",
    "lift",
    "limit_breakpoints",
    "mixed_ttls",
    "needs_limit",
    "unmark",
]

#: The blocks that take no ``cache_control`` (Anthropic's prompt-caching docs).
THINKING: Final = frozenset(("thinking", "redacted_thinking"))
_NO_CONTENT: Final = no_part_rule("content block")
_ONLY_THINKING: Final = (
    "dropped: Anthropic takes no cache_control on thinking blocks, the only blocks of its message"
)

# -- formatting ---------------------------------------------------------------------


def _markable(block: Any) -> bool:
    """Whether a block may carry a ``cache_control`` (None: an invalid call not sent)."""
    return block is not None and block.get("type") not in THINKING


def hinted(
    content: Any,
    hint: CacheHint,
    i: int,
    marks: list[tuple[int, dict[str, Any]]],
    losses: Losses,
    start: int = 0,
) -> Any:
    """A message's content (a string or blocks) with its hint on its last block (from
    ``start``: a ToolCallMessage's blocks are the last of its turn's) that is not
    thinking, noted in ``marks``, or the Loss that says why not. A string becomes a
    text block; a block that has a ``cache_control`` (kept from a request) keeps its
    own (a Loss when it differs)."""
    value = control(hint)
    content, placed = mark_last(content, CONTROL_KEY, value, "text", _markable, start)
    if placed is None and any(b is not None for b in content[start:]):
        hint_loss(losses, i, _ONLY_THINKING)
    elif not missed(losses, i, placed, value, CONTROL_KEY, _NO_CONTENT):
        marks.append((i, value))
    return content


def unmark(
    blocks: list[Any],
    value: Any,
    marks: list[tuple[int, dict[str, Any]]],
    losses: Losses,
) -> None:
    """Move ``value``, the ``cache_control`` of a block just taken out of ``blocks``, to
    the last markable block left; a Loss when there is none (or it keeps its own)."""
    at = next((k for k, (_, v) in enumerate(marks) if v is value), None)
    if at is None:
        return  # a key kept from a request, on a block dropped with its Loss
    i = marks[at][0]
    del marks[at]
    _, placed = mark_last(blocks, CONTROL_KEY, value, "text", _markable)
    rule = _ONLY_THINKING if blocks else _NO_CONTENT
    if not missed(losses, i, placed, value, CONTROL_KEY, rule):
        marks.append((i, value))


def mixed_ttls(marks: list[tuple[int, dict[str, Any]]]) -> bool:
    """Whether some hints ask for 1h and others for less (the order then matters)."""
    return len({value.get("ttl") == "1h" for _, value in marks}) > 1


def needs_limit(marks: list[tuple[int, dict[str, Any]]], kept: bool) -> bool:
    """Whether the hints in ``marks`` need ``limit_breakpoints`` (``kept``: state kept
    from a request, its own cache_control among it, is in the body)."""
    return len(marks) > MAX_CONTROLS or kept or mixed_ttls(marks)


def limit_breakpoints(
    body: dict[str, Any], marks: list[tuple[int, dict[str, Any]]], losses: Losses
) -> None:
    """The API's rules on ``cache_control`` blocks (``limit_controls``), applied to the
    hints in ``body``, its blocks taken in prefix order: system, then messages (the
    blocks inside a ``tool_result`` before it)."""
    owner = {id(value): i for i, value in marks}
    found: list[tuple[dict[str, Any], int | None]] = []
    system = body.get("system")
    if type(system) is list:
        for block in system:
            collect_control(block, owner, found)
    for turn in body["messages"]:
        content = turn["content"]
        if type(content) is list:
            for block in content:
                inner = block.get("content") if block.get("type") == "tool_result" else None
                if type(inner) is list:
                    for sub in inner:
                        collect_control(sub, owner, found)
                collect_control(block, owner, found)
    limit_controls(found, losses, "Anthropic")


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
