"""Content parts as request parts: text, images, audio, files and this provider's thoughts."""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Callable, Sequence
from typing import Any

from ..._parts import AudioPart, FilePart, ImagePart, ReasoningPart, TextPart, parse_data_url
from ...errors import ValidationError
from .._base import DROP_OTHER_REASONING, Losses

#: A part formatter: (part, path, losses, tag) -> a request part, or None when nothing is sent.
PartFn = Callable[[Any, str, Losses, str], Any]


def _guess_media_type(url: str, default: str) -> str:
    guessed, _ = mimetypes.guess_type(url.split("?", 1)[0], strict=False)
    return guessed or default


def _text_part(p: TextPart, path: str, losses: Losses, tag: str) -> Any:
    return {"text": p.text} if p.text else None


def _image_part(p: ImagePart, path: str, losses: Losses, tag: str) -> Any:
    if p.detail is not None:
        losses.add(f"{path}.detail", "image detail", "dropped: Gemini parts have no detail")
    if p.data is not None:
        return {"inlineData": {"mimeType": p.media_type, "data": p.data}}
    url = p.url or ""
    if url.startswith("data:"):
        try:
            media_type, data = parse_data_url(url, path)
            return {"inlineData": {"mimeType": media_type, "data": data}}
        except ValidationError:
            pass  # not a base64 data: URL: send it as a URI and let the API judge
    media_type = p.media_type or _guess_media_type(url, "image/jpeg")
    return {"fileData": {"mimeType": media_type, "fileUri": url}}


def _audio_part(p: AudioPart, path: str, losses: Losses, tag: str) -> Any:
    return {"inlineData": {"mimeType": f"audio/{p.format}", "data": p.data}}


#: A file reference Gemini can fetch is a URI: Files API (``https://generativelanguage
#: .googleapis.com/...``), Cloud Storage (``gs://``), a public or signed ``https://`` URL.
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_NO_FILE_NAME = "dropped: Gemini parts have no file name"


def _file_part(p: FilePart, path: str, losses: Losses, tag: str) -> Any:
    if p.file_id and _URI.match(p.file_id) is not None:
        if p.filename:
            losses.add(f"{path}.filename", "file name", _NO_FILE_NAME)
        media_type = p.media_type or _guess_media_type(p.file_id, "application/pdf")
        return {"fileData": {"mimeType": media_type, "fileUri": p.file_id}}
    if p.file_id:
        # another provider's file id (Anthropic's "file_...", OpenAI's "file-..."):
        # Gemini would take it for a URI and reject the request
        if not p.data:
            losses.add(
                path,
                "file id of another provider",
                "dropped: Gemini fileData takes a URI (Files API, gs:// or https://)",
            )
            return None
        losses.add(
            f"{path}.file_id",
            "file id of another provider",
            "dropped: Gemini fileData takes a URI; the inline data is sent",
        )
    if p.filename:
        losses.add(f"{path}.filename", "file name", _NO_FILE_NAME)
    return {"inlineData": {"mimeType": p.media_type or "application/pdf", "data": p.data or ""}}


def _reasoning_part(p: ReasoningPart, path: str, losses: Losses, tag: str) -> Any:
    if p.provider == tag and not p.redacted:
        part: dict[str, Any] = {"text": p.text, "thought": True}
        if p.signature is not None:
            part["thoughtSignature"] = p.signature
        return part
    who = p.provider or "an unnamed provider"
    losses.add(path, f"reasoning from {who}", DROP_OTHER_REASONING)
    return None


def _reasoning_elsewhere(p: ReasoningPart, path: str, losses: Losses, tag: str) -> Any:
    losses.add(path, "reasoning part in a non-assistant message", "dropped")
    return None


USER_PARTS: dict[type, PartFn] = {
    TextPart: _text_part,
    ImagePart: _image_part,
    AudioPart: _audio_part,
    FilePart: _file_part,
    ReasoningPart: _reasoning_elsewhere,
}
MODEL_PARTS: dict[type, PartFn] = {**USER_PARTS, ReasoningPart: _reasoning_part}


def _part_fn(table: dict[type, PartFn], p: object, path: str) -> PartFn:
    for base in type(p).__mro__:
        fn = table.get(base)
        if fn is not None:
            return fn
    raise ValidationError(f"cannot format a part of type {type(p).__name__}", path)


def format_part(table: dict[type, PartFn], p: object, path: str, losses: Losses, tag: str) -> Any:
    """The request part of ``p`` (``path`` is its own), or None when nothing is sent."""
    return _part_fn(table, p, path)(p, path, losses, tag)


def request_parts(
    content: Sequence[Any], table: dict[type, PartFn], i: int, losses: Losses, tag: str
) -> list[Any]:
    """The request parts of the parts of message ``i``."""
    out: list[Any] = []
    for j, p in enumerate(content):
        part = format_part(table, p, f"messages[{i}].content[{j}]", losses, tag)
        if part is not None:
            out.append(part)
    return out


def attach_text_signature(parts: list[Any], start: int, sig: str) -> None:
    """Put a message's text signature back on its last answer text part."""
    for part in reversed(parts[start:]):
        if "text" in part and not part.get("thought"):
            part["thoughtSignature"] = sig
            return
    parts.append({"text": "", "thoughtSignature": sig})
