"""What the Anthropic modules share: names, the state kept in extras, small readers.

State a message keeps for Anthropic lives in ``extras[tag]`` (``tag`` is the
provider's ``tag``: ``"anthropic"``, or ``"anthropic@<origin>"``), a mapping with:

* ``unknown``: blocks the canonical model has no part for, each
  ``{index, path, type, value}`` (plus ``within: "tool_result"`` for a block inside a
  tool result), put back at ``index`` when formatted for the same tag;
* ``keys``: keys of a known block that no canonical field carries (``cache_control``,
  ``citations``, a document's ``context``...), each ``{index, type, keys}`` (plus
  ``within``), put back on the block at ``index`` when it is still of that ``type``;
* ``order``: the wire order of an assistant turn's blocks when it is not parts
  first, then calls, then invalid calls (``p`` a part, ``c`` a call, ``i`` an
  invalid call);
* ``defaults``: keys a tool result spelled out with their default value;
* ``system``: the text blocks of a system prompt (sent back while its text is
  unchanged) and ``in_place``: the system message sat inside ``messages``;
* ``stop_details``: a response's ``stop_details`` (why the model refused).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._frozen import EMPTY, FrozenDict
from ...errors import DecodeError
from .._base import FinishReason, Losses, foreign_state_losses, guard_error, opt_int

NAME = "anthropic"

#: ``stop_reason`` -> FinishReason (MANIFEST conventions); anything else is OTHER.
STOP_REASONS: dict[str, FinishReason] = {
    "end_turn": FinishReason.STOP,
    "stop_sequence": FinishReason.STOP,
    "pause_turn": FinishReason.STOP,
    "max_tokens": FinishReason.LENGTH,
    "model_context_window_exceeded": FinishReason.LENGTH,
    "tool_use": FinishReason.TOOL_CALLS,
    "refusal": FinishReason.CONTENT_FILTER,
}

#: Providers whose state may sit in a message's or a call's extras, under their
#: name or ``name@origin``.
PROVIDER_NAMES = frozenset(
    (
        "openai",
        "groq",
        "vllm",
        "ollama",
        "anthropic",
        "gemini",
        "openai_responses",
        "deepseek",
        "openrouter",
        "mistral",
        "cohere",
    )
)

#: The keys of each known block type that the canonical parts carry.
KNOWN_KEYS: dict[str, frozenset[str]] = {
    "text": frozenset(("type", "text")),
    "image": frozenset(("type", "source")),
    "document": frozenset(("type", "source", "title")),
    "tool_result": frozenset(("type", "tool_use_id", "content", "is_error")),
    "tool_use": frozenset(("type", "id", "name", "input")),
    "thinking": frozenset(("type", "thinking", "signature")),
    "redacted_thinking": frozenset(("type", "data")),
}

BLANK_RULE = "dropped: Anthropic rejects text with nothing but whitespace"


def blank(text: str) -> bool:
    """True for text of whitespace only (not for ""): the API rejects text that has
    nothing else ("text content blocks must contain non-whitespace text")."""
    return text.isspace()


def is_state_key(key: object) -> bool:
    """Whether an extras key names a provider's state (``name`` or ``name@origin``)."""
    return type(key) is str and key.partition("@")[0] in PROVIDER_NAMES


def own_state(extras: Mapping[str, Any], tag: str, path: str, losses: Losses) -> Mapping[str, Any]:
    """The state kept under ``tag``; every other provider's (or origin's) is a loss."""
    own: Mapping[str, Any] = EMPTY
    for key, value in extras.items():
        if key == tag:
            if isinstance(value, Mapping):
                own = value
        elif is_state_key(key) and isinstance(value, Mapping):
            foreign_losses(key, value, path, losses)
    return own


def foreign_losses(key: str, state: Mapping[str, Any], path: str, losses: Losses) -> None:
    """A loss for each piece of ``key``'s state that only ``key`` is sent (the kept block
    keys such as ``cache_control`` and ``citations`` among them, see
    ``foreign_state_losses``). For another origin of Anthropic, its system blocks are
    losses too: the same wire would carry them, but they belong to that endpoint.
    """
    foreign_state_losses(key, state, path, losses)
    if key.partition("@")[0] == NAME and state.get("system"):
        rule = f"dropped: only re-sent to {key}"
        losses.add(path, f"{key} system blocks", rule + "; the text is sent")


def state_extras(tag: str, inner: Mapping[str, Any]) -> FrozenDict:
    """Message extras holding ``inner`` as the state of ``tag`` (none when it is empty)."""
    return FrozenDict({tag: FrozenDict(inner)}) if inner else EMPTY


def count(usage: Mapping[str, Any], key: str, path: str) -> int | None:
    """A token count of ``usage`` (a non-negative int, or None when absent)."""
    value = usage.get(key)
    if type(value) is int and value >= 0:  # the path is made only for the others
        return value
    return opt_int(value, f"{path}.{key}")


def entry_error(exc: Exception, path: str = "") -> DecodeError:
    """The DecodeError a public parser raises for anything that escaped it.

    Parsers check as they go; this is the last line of defence, for any exception
    at all (a hostile ``Mapping`` whose ``get`` raises RuntimeError included). It
    names the exception type only, never its message (which may quote content).
    """
    return guard_error(exc, path)
