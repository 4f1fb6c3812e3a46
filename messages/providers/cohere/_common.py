"""What the Cohere modules share: the name, finish reasons, usage, and the state kept in extras."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..._frozen import EMPTY
from ..._message import Message
from ...errors import DecodeError
from .. import PROVIDERS
from .._base import (
    FinishReason,
    Losses,
    Usage,
    as_mapping,
    count_at,
    foreign_state_losses,
    make_usage,
)

__all__ = ["FINISH", "NAME", "own_state", "read_usage", "string_at"]

NAME: Final = "cohere"

#: Cohere's ``finish_reason`` values, normalised (an unknown value is OTHER).
FINISH: Final = {
    "COMPLETE": FinishReason.STOP,
    "STOP_SEQUENCE": FinishReason.STOP,
    "MAX_TOKENS": FinishReason.LENGTH,
    "TOOL_CALL": FinishReason.TOOL_CALLS,
    "ERROR": FinishReason.ERROR,
    "TIMEOUT": FinishReason.ERROR,
}

#: Keys of ``extras`` that hold one provider's kept state (``name`` or ``name@origin``).
_PROVIDER_KEYS: Final = frozenset(PROVIDERS)


def string_at(obj: Mapping[str, Any], key: str, path: str) -> str:
    """``obj[key]`` when it is a string, else DecodeError at ``path.key``."""
    value = obj.get(key)
    if type(value) is str:
        return value
    from ..._json import json_type

    what = "missing" if value is None else f"expected a string, got {json_type(value)}"
    raise DecodeError(what, f"{path}.{key}")


def read_usage(raw: object, path: str) -> Usage | None:
    """A v2 ``usage`` object: the ``tokens`` counts (what the model read and wrote),
    else the ``billed_units``; ``cached_tokens`` as the cached input. None when the
    wire has neither count."""
    if raw is None:
        return None
    usage = as_mapping(raw, path)
    counts: list[int | None] = [None, None]
    for key in ("billed_units", "tokens"):  # tokens last: it wins where both are given
        part = usage.get(key)
        if part is None:
            continue
        where = f"{path}.{key}"
        part = as_mapping(part, where)
        for k, name in enumerate(("input_tokens", "output_tokens")):
            value = count_at(part, name, where)
            if value is not None:
                counts[k] = value
    cached = count_at(usage, "cached_tokens", path)
    if counts[0] is None and counts[1] is None:
        return None
    given = counts[0] or 0, counts[1] or 0
    return make_usage(given[0], given[1], given[0] + given[1], cached)


def own_state(m: Message, tag: str, index: int, losses: Losses) -> Mapping[str, Any]:
    """``m.extras[tag]`` (this provider's kept state); another provider's kept state is
    a loss: it is only ever re-sent to that provider."""
    own: Mapping[str, Any] = EMPTY
    for key, value in m.extras.items():
        if not isinstance(value, Mapping):
            continue
        if key == tag:
            own = value
        elif key.partition("@")[0] in _PROVIDER_KEYS:
            foreign_state_losses(key, value, f"messages[{index}]", losses)
    return own
