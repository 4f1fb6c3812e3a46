"""Readers and names shared by the Interactions modules: checked field access, the
interaction status, usage, and the keys of the state this provider keeps in ``extras``.

The state kept under ``extras[tag]`` (``tag`` is ``gemini_interactions`` or
``gemini_interactions@origin``), each key present only when needed:

* ``interaction_id`` (assistant messages): the id of the interaction the turn came
  from (for ``previous_interaction_id``).
* ``layout`` (assistant messages): the order of the turn's steps when it is not the
  default one (thoughts and texts in part order, then the calls): one letter per
  entry, ``t`` a thought (the next reasoning part), ``o`` a text (the next text part),
  ``m`` a non-text content of a ``model_output`` step and ``u`` a step this package
  does not model (both the next ``unknown`` entry, verbatim), ``c`` the next valid
  call, ``x`` the next invalid call, and ``|`` where one ``model_output`` step ends and
  the next begins.
* ``unknown``: steps (assistant messages) and content items (user messages, tool
  results) this package does not model, verbatim: ``{path, type, value}`` (with ``index``,
  the position among the parts, for content items); to this provider only.
* ``keys``: ``[{index, keys}]``, the keys of a content item (at part ``index``) the
  canonical part has no field for (``resolution``, ``annotations``...), put back on it.
* ``output_keys`` (assistant messages): ``[{index, keys}]``, the keys of the turn's
  ``index``-th ``model_output`` step beyond its content (an ``error`` status).
* ``summaries`` (assistant messages): ``[{index, summary}]``, the summary of a thought
  (at part ``index``) that is not one text item, verbatim.
* ``result``: ``"object"`` when a tool result was a JSON object (sent back as one);
  ``step``: the keys of a ``function_result`` step beyond those modelled.
* ``input``: a user message read from a string ``input`` (``true``), a content item
  (``"item"``) or a content list (``"content"``): sent back so when it is the whole input.
* ``previous_interaction_id`` (the first message of an imported request that had one):
  the request continued a stored interaction; formatted again, it does so again, and
  the function results it starts with answer that interaction's calls.

A function call's step keys beyond ``type``, ``id``, ``name`` and ``arguments`` are in
its ``ToolCall.extras[tag]["step"]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..._frozen import EMPTY, FrozenDict, freeze, thaw
from ..._json import json_type
from ...errors import DecodeError, MessageError
from .. import PROVIDERS
from .._base import FinishReason, Usage, count_at, guard_error, make_usage

__all__ = [
    "NAME",
    "array",
    "failure",
    "frozen",
    "is_provider_key",
    "mapping",
    "opt_string",
    "status_finish",
    "string",
    "usage",
]

NAME: Final = "gemini_interactions"

INTERACTION_ID: Final = "interaction_id"
LAYOUT: Final = "layout"
UNKNOWN: Final = "unknown"
KEYS: Final = "keys"
SUMMARIES: Final = "summaries"
OUTPUT_KEYS: Final = "output_keys"
RESULT: Final = "result"
STEP: Final = "step"
INPUT: Final = "input"
PREVIOUS: Final = "previous_interaction_id"

#: The steps of a model turn this package models (the rest are kept verbatim).
MODEL_STEPS: Final = frozenset(("thought", "model_output", "function_call"))

#: Interaction status -> finish reason (``completed`` with calls is TOOL_CALLS).
_FINISH: Final = {
    "completed": FinishReason.STOP,
    "requires_action": FinishReason.TOOL_CALLS,
    "incomplete": FinishReason.LENGTH,
    "requires_continuation": FinishReason.LENGTH,
    "budget_exceeded": FinishReason.LENGTH,
    "failed": FinishReason.ERROR,
    "cancelled": FinishReason.OTHER,
}


def status_finish(status: str | None, has_calls: bool) -> FinishReason:
    """The finish reason of an interaction's ``status`` (see the fixture conventions)."""
    if status is None or status == "completed":
        return FinishReason.TOOL_CALLS if has_calls else FinishReason.STOP
    if status == "requires_action" and not has_calls:
        return FinishReason.STOP
    return _FINISH.get(status, FinishReason.OTHER)


def type_of(item: Mapping[str, Any]) -> str | None:
    """An item's ``type`` when it is a string (None otherwise: never an unhashable value
    looked up in a set)."""
    kind = item.get("type")
    return kind if type(kind) is str else None


def failure(exc: BaseException, path: str = "") -> DecodeError:
    """What a parser entry point raises for ``exc``: DecodeError and nothing else."""
    if isinstance(exc, DecodeError):
        return exc
    return guard_error(exc, path)


def mapping(value: Any, path: str) -> Mapping[str, Any]:
    """``value`` when it is a JSON object, else DecodeError at ``path``."""
    if isinstance(value, (dict, Mapping)):
        return value
    raise DecodeError(f"expected an object, got {json_type(value)}", path)


def array(value: Any, path: str) -> Sequence[Any]:
    """``value`` when it is a JSON array, else DecodeError at ``path``."""
    if isinstance(value, (list, tuple)):
        return value
    raise DecodeError(f"expected an array, got {json_type(value)}", path)


def string(value: Any, path: str) -> str:
    """``value`` when it is a string, else DecodeError at ``path``."""
    if type(value) is str:
        return value
    what = "missing" if value is None else f"expected a string, got {json_type(value)}"
    raise DecodeError(what, path)


def opt_string(value: Any, path: str) -> str | None:
    """``value`` when it is a string or null, else DecodeError at ``path``."""
    if value is None or type(value) is str:
        return value
    raise DecodeError(f"expected a string, got {json_type(value)}", path)


def frozen(value: Any, path: str) -> Any:
    """``value`` frozen for ``extras``; DecodeError when it is not JSON."""
    try:
        return freeze(value, path)
    except MessageError as exc:
        raise DecodeError(exc.message, exc.path or path) from None


def usage(raw: Any, path: str) -> Usage | None:
    """The Usage of an interaction's ``usage`` (None when absent).

    input = ``total_input_tokens``; output = ``total_output_tokens`` +
    ``total_thought_tokens``; total = ``total_tokens`` (else their sum).
    """
    if raw is None:
        return None
    u = mapping(raw, path)
    given = count_at(u, "total_input_tokens", path) or 0
    out = count_at(u, "total_output_tokens", path) or 0
    thought = count_at(u, "total_thought_tokens", path)
    cached = count_at(u, "total_cached_tokens", path)
    output = out + (thought or 0)
    total = count_at(u, "total_tokens", path)
    return make_usage(
        given, output, given + output if total is None else total, cached, None, thought
    )


def is_provider_key(key: object) -> bool:
    """Whether an extras key holds a provider's state (``name`` or ``name@origin``)."""
    if type(key) is not str:
        return False
    name = key.partition("@")[0]  # the registry is read now: providers added later count
    return name in PROVIDERS or name in _OTHER_NAMES


_OTHER_NAMES: Final = frozenset((NAME, "openai_responses", "deepseek", "openrouter", "mistral"))


def own_state(extras: Mapping[str, Any], tag: str) -> Mapping[str, Any]:
    """This tag's state in ``extras`` (EMPTY when there is none or it is malformed)."""
    own = extras.get(tag) if extras else None
    return own if isinstance(own, (dict, Mapping)) else EMPTY


def kept_list(own: Mapping[str, Any], key: str) -> Sequence[Any]:
    """A list kept in provider state; anything else (edited by hand, corrupt) is none."""
    items = own.get(key)
    return items if isinstance(items, (list, tuple)) else ()


def kept_keys(own: Mapping[str, Any]) -> dict[int, dict[str, Any]]:
    """The ``keys`` kept in provider state, thawed, by part index."""
    out: dict[int, dict[str, Any]] = {}
    for item in kept_list(own, KEYS):
        if isinstance(item, Mapping) and type(item.get("index")) is int:
            keys = item.get("keys")
            if isinstance(keys, Mapping):
                out[item["index"]] = thaw(keys)
    return out


def state(**values: Any) -> FrozenDict:
    """Provider state from the values that are set (None and empty ones are left out)."""
    return FrozenDict({k: v for k, v in values.items() if v is not None and v not in ((), "")})
