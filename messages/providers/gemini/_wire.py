"""What the Gemini modules share: field spellings, small readers, call ids and kept state."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ..._frozen import EMPTY, MAX_DEPTH, FrozenDict
from ..._ids import DERIVED_ID_PREFIX, derive_call_id
from ..._json import dumps_compact, json_type
from ...errors import DecodeError, ident
from .. import PROVIDERS
from .._base import (
    FinishReason,
    Usage,
    as_mapping,
    freeze_decoded,
    guard_error,
    make_usage,
    opt_int,
    opt_str,
)

NAME = "gemini"
"""The provider's name: the wire format, and the seed of the ids derived for its calls."""

#: ``finishReason`` → FinishReason (MANIFEST conventions). ``STOP`` becomes
#: TOOL_CALLS when the candidate has function calls; ``IMAGE_*`` is CONTENT_FILTER;
#: any other value (MALFORMED_FUNCTION_CALL, OTHER, LANGUAGE, ...) is ERROR.
FINISH_REASONS: dict[str, FinishReason] = {
    "STOP": FinishReason.STOP,
    "MAX_TOKENS": FinishReason.LENGTH,
    "SAFETY": FinishReason.CONTENT_FILTER,
    "RECITATION": FinishReason.CONTENT_FILTER,
    "BLOCKLIST": FinishReason.CONTENT_FILTER,
    "PROHIBITED_CONTENT": FinishReason.CONTENT_FILTER,
    "SPII": FinishReason.CONTENT_FILTER,
}


def finish_reason(raw: str | None, has_calls: bool) -> FinishReason:
    """The normalised finish reason of a candidate."""
    if raw is None:
        return FinishReason.OTHER
    reason = FINISH_REASONS.get(raw)
    if reason is None:
        return FinishReason.CONTENT_FILTER if raw.startswith("IMAGE_") else FinishReason.ERROR
    if reason is FinishReason.STOP and has_calls:
        return FinishReason.TOOL_CALLS
    return reason


# -- the two spellings of a field ------------------------------------------------------
#
# The REST API is proto3 JSON: it writes lowerCamelCase (``functionCall``) and accepts
# the proto field name too (``function_call``). Google's own REST samples send
# ``inline_data`` / ``mime_type`` / ``system_instruction``, Vertex AI clients send the
# proto names, and a google-genai response dumped with ``model_dump()`` has them. Every
# field read here is read in both; formatting writes lowerCamelCase.


def _snake(camel: str) -> str:
    return re.sub(r"[A-Z]", lambda m: "_" + m.group(0).lower(), camel)


_CAMEL_FIELDS = (
    "functionCall",
    "functionResponse",
    "inlineData",
    "fileData",
    "thoughtSignature",
    "mimeType",
    "fileUri",
    "partialArgs",
    "willContinue",
    "jsonPath",
    "stringValue",
    "numberValue",
    "boolValue",
    "nullValue",
    "usageMetadata",
    "modelVersion",
    "responseId",
    "promptFeedback",
    "blockReason",
    "finishReason",
    "systemInstruction",
    "functionDeclarations",
    "parametersJsonSchema",
    "promptTokenCount",
    "candidatesTokenCount",
    "thoughtsTokenCount",
    "totalTokenCount",
    "cachedContentTokenCount",
    "toolUsePromptTokenCount",
)

#: REST (lowerCamelCase) field name -> its proto field name.
SNAKE: dict[str, str] = {name: _snake(name) for name in _CAMEL_FIELDS}


def field(obj: Mapping[str, Any], key: str) -> Any:
    """``obj[key]`` in the REST spelling, else in the proto one; None when neither is set.

    Hot paths read the REST spelling inline and call this only when it is absent.
    """
    value = obj.get(key)
    if value is None:
        value = obj.get(SNAKE[key])
    return value


def opt_field(obj: Mapping[str, Any], key: str, path: str) -> str | None:
    """A string field in either spelling, or None when absent; DecodeError naming the
    spelling used when it is something else."""
    value = obj.get(key)
    if value is None:
        value = obj.get(SNAKE[key])
    if value is None or isinstance(value, str):
        return value
    where = spelled(obj, key)
    raise DecodeError(
        f"expected a string, got {json_type(value)}", f"{path}.{where}" if path else where
    )


def spelled(obj: Mapping[str, Any], key: str) -> str:
    """The spelling of ``key`` that ``obj`` uses (for an error path)."""
    if obj.get(key) is None and obj.get(SNAKE[key]) is not None:
        return SNAKE[key]
    return key


# Part fields that say how to read the part's data (not data of their own).
PART_META = frozenset(
    (
        "thought",
        "thoughtSignature",
        "thought_signature",
        "partMetadata",
        "part_metadata",
        "videoMetadata",
        "video_metadata",
        "mediaResolution",
        "media_resolution",
    )
)
# ... of which these two are read into the canonical model (the rest kept as "keys").
HANDLED_META = frozenset(("thought", "thoughtSignature", "thought_signature"))


def part_kind(part: Mapping[str, Any]) -> str:
    """The data field of a part (its first set field that is not metadata), ``""`` for none."""
    for key, value in part.items():
        if key not in PART_META and value is not None:
            return str(key)
    return ""


def signature(part: Mapping[str, Any], path: str) -> str | None:
    """The part's ``thoughtSignature`` (either spelling); an empty one is none."""
    sig = part.get("thoughtSignature")
    if sig is None:
        sig = part.get("thought_signature")
        if sig is None:
            return None
    if type(sig) is not str:
        raise DecodeError(
            f"expected a string, got {json_type(sig)}",
            f"{path}.{spelled(part, 'thoughtSignature')}",
        )
    return sig or None


def extra_keys(part: Mapping[str, Any], data_key: str) -> dict[str, Any]:
    """The fields of a part beside its data and the metadata read into the model."""
    return {
        k: v for k, v in part.items() if k != data_key and k not in HANDLED_META and v is not None
    }


# -- state kept in extras ------------------------------------------------------------------


def call_extras(sig: str | None, tag: str) -> FrozenDict:
    """The extras of a call: its thought signature under the provider's tag, if it has one."""
    if sig is None:
        return EMPTY
    return FrozenDict({tag: FrozenDict({"thought_signature": sig})})


def own_state(
    inner: dict[str, Any], unknown: list[FrozenDict], keys: list[FrozenDict], tag: str
) -> FrozenDict:
    """A message's extras holding ``inner`` (plus unknown parts and part keys) under ``tag``."""
    if unknown:
        inner["unknown"] = tuple(unknown)
    if keys:
        inner["keys"] = tuple(keys)
    return FrozenDict({tag: FrozenDict(inner)}) if inner else EMPTY


def unknown_item(part: Mapping[str, Any], index: int, path: str) -> FrozenDict:
    """A part this package has no model for, kept to be sent back at ``index``."""
    return FrozenDict(
        {
            "index": index,
            "path": path,
            "type": part_kind(part),
            "value": freeze_decoded(part, path),
        }
    )


def keys_item(extra: dict[str, Any], index: int, path: str) -> FrozenDict:
    """Fields of the part at ``index`` the model has no place for, kept to be put back."""
    return FrozenDict({"index": index, "keys": freeze_decoded(extra, path)})


def is_provider_key(key: object) -> bool:
    """Whether an extras key holds a provider's state (``name`` or ``name@origin``)."""
    if type(key) is not str:
        return False
    name = key.partition("@")[0]  # the registry is read now: providers added later count
    return name in PROVIDERS or name in _OTHER_NAMES


_OTHER_NAMES = frozenset(("openai_responses", "deepseek", "openrouter", "mistral"))


# -- call ids -----------------------------------------------------------------------------

DERIVED_LEN = len(DERIVED_ID_PREFIX) + 24

#: The state key of a message imported from a user content that came right after
#: another user content: formatting for Gemini opens a content at it again.
NEW_CONTENT = "new_content"


def derived_id(seed: Any, ordinal: int, name: str, args: Any) -> str:
    """The id of a call the wire sent without one: the same call always gets the same id.

    A response's ``responseId`` (the seed) tells its calls from any other
    response's, so they are keyed by it, their position and name. Without one (and
    for a request's contents, seeded by their index), two different calls would
    collide, so the arguments are part of the key: the exact wire text when the
    arguments came as a string, else canonical compact JSON with sorted keys (the
    streamed ``partialArgs`` of a call, assembled, give the same text as its
    ``args`` object in a whole response).
    """
    if type(seed) is str and seed:
        return derive_call_id(DERIVED_ID_PREFIX, NAME, seed, ordinal, name)
    return derive_call_id(DERIVED_ID_PREFIX, NAME, seed, ordinal, name, canonical(args))


def canonical(args: Any) -> str:
    """``args`` as canonical JSON text (sorted keys, compact); a string as it is; ``""``
    for what JSON cannot hold, or nests deeper than MAX_DEPTH levels (no call may)."""
    if type(args) is str:
        return args
    if args is None:
        return "{}"
    if too_deep(args) is not None:
        return ""
    global _canonical_encode
    if _canonical_encode is None:
        import json  # not at import time: only calls without a responseId need it

        _canonical_encode = json.JSONEncoder(
            separators=(",", ":"), sort_keys=True, check_circular=False, default=_plain
        ).encode
    try:
        return _canonical_encode(args)
    except (TypeError, ValueError):
        pass
    try:
        return dumps_compact(args)  # keys that cannot be sorted
    except (TypeError, ValueError):
        return ""


_canonical_encode: Callable[[Any], str] | None = None


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(type(value).__name__)


def too_deep(value: Any, limit: int = MAX_DEPTH) -> str | None:
    """Where ``value`` nests objects and arrays more than ``limit`` levels deep (the path
    below it, such as ``.a[0]``), or None when it does not.

    The limit ``freeze`` applies, counted here: where the JSON encoder stops depends
    on the Python version.
    """
    if isinstance(value, (dict, Mapping)):
        items: Any = value.items()
        step = ".{}"
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
        step = "[{}]"
    else:
        return None
    if limit == 0:
        return ""
    for key, item in items:
        below = too_deep(item, limit - 1)
        if below is not None:
            return step.format(key) + below
    return None


# -- readers --------------------------------------------------------------------------------


_USAGE_FIELDS = (
    "promptTokenCount",
    "candidatesTokenCount",
    "thoughtsTokenCount",
    "totalTokenCount",
    "cachedContentTokenCount",
    "toolUsePromptTokenCount",
)
_USAGE_SNAKE = tuple(SNAKE[k] for k in _USAGE_FIELDS)


def _count(u: Mapping[str, Any], key: str, path: str) -> int | None:
    """A token count (None when absent); one that is not a plain non-negative int is
    checked (a float like 3.0 is 3), the path made only then."""
    value = u.get(key)
    if value is None or (type(value) is int and value >= 0):
        return value
    return opt_int(value, f"{path}.{key}")


def read_usage(raw: Any, path: str) -> Usage:
    """A ``usageMetadata`` object as Usage: thoughts count as output (MANIFEST conventions)."""
    u = as_mapping(raw, path)
    # one spelling per object (a dumped google-genai object has the proto names)
    prompt_key, candidates_key, thoughts_key, total_key, cached_key, tool_key = (
        _USAGE_FIELDS
        if "promptTokenCount" in u or "totalTokenCount" in u or "candidatesTokenCount" in u
        else _USAGE_SNAKE
    )
    prompt = _count(u, prompt_key, path) or 0
    candidates = _count(u, candidates_key, path) or 0
    thoughts = _count(u, thoughts_key, path)
    total = _count(u, total_key, path)
    cached = _count(u, cached_key, path)
    output = candidates + (thoughts or 0)
    if total is None:
        total = prompt + output + (_count(u, tool_key, path) or 0)
    return make_usage(prompt, output, total, cached, None, thoughts)


def block_reason(feedback: Any, path: str) -> str | None:
    """``promptFeedback.blockReason``, or None when the prompt was not blocked."""
    if feedback is None:
        return None
    fb = as_mapping(feedback, path)
    return opt_str(field(fb, "blockReason"), f"{path}.{spelled(fb, 'blockReason')}") or None


def error_text(error: Any, path: str) -> str:
    """``"STATUS: message"`` of an ``error`` object."""
    err = as_mapping(error, path)
    status = opt_str(err.get("status"), f"{path}.status")
    msg = opt_str(err.get("message"), f"{path}.message")
    return ": ".join(x for x in (status, msg) if x) or "error"


def decode_failure(exc: Exception, path: str = "") -> DecodeError:
    """The DecodeError a parser raises for whatever escaped it (a hostile Mapping's
    RuntimeError included): the type is named, never the input."""
    if isinstance(exc, DecodeError):
        return exc
    return guard_error(exc, path)


def duplicate_id(call_id: str, path: str) -> DecodeError:
    """Two calls of one turn with one id: their results could not be told apart."""
    return DecodeError(f"duplicate functionCall id {ident(call_id)}", path)
