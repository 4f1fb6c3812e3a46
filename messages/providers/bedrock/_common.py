"""What the Bedrock modules share: names, formats, the state kept in extras, small readers.

State a message keeps for Bedrock lives in ``extras[tag]`` (``tag`` is the provider's
``tag``: ``"bedrock"``, or ``"bedrock@<origin>"``), a mapping with:

* ``unknown``: blocks the canonical model has no part for (a ``guardContent``, a
  ``citationsContent``, a ``cachePoint`` in the middle of a message...), each
  ``{index, path, type, value}``, put back at ``index`` of the message's blocks when it is
  formatted for the same tag;
* ``keys``: blocks kept whole because their part does not carry all of them (an
  ``s3Location``'s ``bucketOwner``, a document's ``citations``, a ``citationsContent``
  block read as its text), each ``{index, keys, sent, value}``: ``value`` (the block as
  it came) is sent in place of the part's block while that is still ``sent``; ``keys``
  names what the part does not carry (another provider reports it as a Loss);
* ``json``: the indices of a tool result's content that were ``json`` blocks (their
  text is the compact JSON);
* ``status``: a tool result's ``status`` when it was spelled out as ``"success"``;
* ``system``: the blocks of a system prompt, sent back while its text is unchanged;
* ``metrics``, ``trace``, ``fields``: a response's ``metrics``, ``trace`` and
  ``additionalModelResponseFields``, kept as they came (never sent).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any, Final

from ..._frozen import EMPTY, FrozenDict
from ..._json import json_type
from ...errors import DecodeError
from .. import PROVIDERS
from .._base import FinishReason, Losses, foreign_state_losses, guard_error, opt_int

NAME: Final = "bedrock"

#: ``stopReason`` -> FinishReason; anything else is OTHER.
STOP_REASONS: Final[dict[str, FinishReason]] = {
    "end_turn": FinishReason.STOP,
    "stop_sequence": FinishReason.STOP,
    "tool_use": FinishReason.TOOL_CALLS,
    "max_tokens": FinishReason.LENGTH,
    "model_context_window_exceeded": FinishReason.LENGTH,
    "guardrail_intervened": FinishReason.CONTENT_FILTER,
    "content_filtered": FinishReason.CONTENT_FILTER,
    "malformed_model_output": FinishReason.ERROR,
    "malformed_tool_use": FinishReason.ERROR,
}

#: Image ``format`` values and their media types.
IMAGE_FORMATS: Final = {
    "png": "image/png",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
}
#: Document ``format`` values and their media types.
DOCUMENT_FORMATS: Final = {
    "pdf": "application/pdf",
    "csv": "text/csv",
    "doc": "application/msword",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xls": "application/vnd.ms-excel",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "html": "text/html",
    "txt": "text/plain",
    "md": "text/markdown",
}
#: Video ``format`` values and their media types.
VIDEO_FORMATS: Final = {
    "mkv": "video/x-matroska",
    "mov": "video/quicktime",
    "mp4": "video/mp4",
    "webm": "video/webm",
    "flv": "video/x-flv",
    "mpeg": "video/mpeg",
    "mpg": "video/mpg",
    "wmv": "video/x-ms-wmv",
    "three_gp": "video/3gpp",
}
#: Media types -> (block key, format), other spellings included.
BY_MEDIA_TYPE: Final[dict[str, tuple[str, str]]] = {
    **{m: ("image", f) for f, m in IMAGE_FORMATS.items()},
    "image/jpg": ("image", "jpeg"),
    **{m: ("document", f) for f, m in DOCUMENT_FORMATS.items()},
    **{m: ("video", f) for f, m in VIDEO_FORMATS.items()},
}
#: Block key -> its formats -> media type.
FORMATS: Final = {"image": IMAGE_FORMATS, "document": DOCUMENT_FORMATS, "video": VIDEO_FORMATS}

BLANK_RULE: Final = "dropped: Bedrock rejects blank text"


def blank(text: str) -> bool:
    """True for text with nothing but whitespace, or none (Bedrock rejects a blank text block)."""
    return not text or text.isspace()


def is_state_key(key: object) -> bool:
    """Whether an extras key names a provider's state (``name`` or ``name@origin``)."""
    return type(key) is str and key.partition("@")[0] in PROVIDERS


def own_state(extras: Mapping[str, Any], tag: str, path: str, losses: Losses) -> Mapping[str, Any]:
    """The state kept under ``tag``; every other provider's (or origin's) is a loss."""
    own: Mapping[str, Any] = EMPTY
    for key, value in extras.items():
        if key == tag:
            if isinstance(value, Mapping):
                own = value
        elif is_state_key(key) and isinstance(value, Mapping):
            foreign_state_losses(key, value, path, losses)
            if key.partition("@")[0] == NAME:
                _other_origin_losses(key, value, path, losses)
    return own


def _other_origin_losses(key: str, state: Mapping[str, Any], path: str, losses: Losses) -> None:
    """A loss for the blocks another origin of Bedrock kept: the same wire would carry them,
    but they belong to that endpoint (the parts and text are sent)."""
    rule = f"dropped: only re-sent to {key}"
    for name, what in (("unknown", "blocks"), ("system", "system blocks")):
        if state.get(name):
            losses.add(path, f"{key} {what}", rule)


def state_extras(tag: str, inner: Mapping[str, Any]) -> FrozenDict:
    """Message extras holding ``inner`` as the state of ``tag`` (none when it is empty)."""
    return FrozenDict({tag: FrozenDict(inner)}) if inner else EMPTY


def count(usage: Mapping[str, Any], key: str, path: str) -> int | None:
    """A token count of ``usage`` (a non-negative int, or None when absent)."""
    value = usage.get(key)
    if type(value) is int and value >= 0:
        return value
    return opt_int(value, f"{path}.{key}")


def b64_text(value: Any, path: str) -> str:
    """Blob bytes as base64 text: the JSON protocol's string, or the ``bytes`` boto3 gives."""
    if type(value) is str:
        return value
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode("ascii")
    what = "missing" if value is None else f"expected base64 text or bytes, got {json_type(value)}"
    raise DecodeError(what, path)


def entry_error(exc: Exception, path: str = "") -> DecodeError:
    """The DecodeError a public parser raises for anything that escaped it (its type named,
    never its message)."""
    return guard_error(exc, path)
