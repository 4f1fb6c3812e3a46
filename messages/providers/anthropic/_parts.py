"""Content parts as request blocks: text, image, document, reasoning (audio cannot go)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from typing import Any

from ..._parts import (
    AudioPart,
    ContentPart,
    FilePart,
    ImagePart,
    ReasoningPart,
    TextPart,
    parse_data_url,
)
from ...errors import ValidationError
from .._base import DROP_OTHER_REASONING, Losses
from ._common import BLANK_RULE, blank

#: A part formatter: (part, path, losses, tag) -> a block, or None when nothing is sent
#: (text parts are written by ``part_blocks`` itself).
PartFn = Callable[[Any, str, Losses, str], Any]

_GOOGLE_FILES = "https://generativelanguage.googleapis.com/"


def _image_block(p: ImagePart, path: str, losses: Losses, tag: str) -> Any:
    if p.detail is not None:
        losses.add(f"{path}.detail", "image detail", "dropped: Anthropic images have no detail")
    if p.data is not None:
        source: dict[str, Any] = {"type": "base64", "media_type": p.media_type, "data": p.data}
    else:
        url = p.url or ""
        source = {"type": "url", "url": url}
        if url.startswith("data:"):
            try:
                media_type, data = parse_data_url(url, path)
                source = {"type": "base64", "media_type": media_type, "data": data}
            except ValidationError:
                pass  # not a base64 data: URL; send it as a URL and let the API judge
    return {"type": "image", "source": source}


def _file_block(p: FilePart, path: str, losses: Losses, tag: str) -> Any:
    source: dict[str, Any] | None = None
    fid = p.file_id
    if fid:
        if "://" not in fid:
            source = {"type": "file", "file_id": fid}
        elif fid.startswith(("https://", "http://")) and not fid.startswith(_GOOGLE_FILES):
            source = {"type": "url", "url": fid}  # a public URL
        else:
            # a Gemini Files API or Cloud Storage URI: of no use to Anthropic
            losses.add(
                f"{path}.file_id",
                "file reference of another provider",
                "dropped: Anthropic reads its own file ids and public URLs"
                + ("; the inline data is sent" if p.data else ""),
            )
            if not p.data:
                return None
    if source is None:
        data = p.data or ""
        media_type = p.media_type or "application/pdf"
        source = {"type": "base64", "media_type": media_type, "data": data}
        if media_type.startswith("text/"):
            try:
                text = base64.b64decode(data, validate=True).decode("utf-8")
                source = {"type": "text", "media_type": "text/plain", "data": text}
            except (binascii.Error, ValueError):
                pass  # not decodable as UTF-8 text: keep base64
    block: dict[str, Any] = {"type": "document", "source": source}
    if p.filename:
        block["title"] = p.filename
    return block


def _audio_block(p: AudioPart, path: str, losses: Losses, tag: str) -> Any:
    losses.add(path, "audio part", "dropped: Anthropic does not accept audio input")
    return None


def _reasoning_block(p: ReasoningPart, path: str, losses: Losses, tag: str) -> Any:
    """Signed or redacted thinking of this provider (same tag) goes back unchanged."""
    if p.provider == tag:
        if p.redacted:
            return {"type": "redacted_thinking", "data": p.text}
        if p.signature is not None:
            return {"type": "thinking", "thinking": p.text, "signature": p.signature}
        losses.add(
            path, "reasoning without a signature", "dropped: Anthropic needs signed thinking"
        )
        return None
    who = p.provider or "an unnamed provider"
    losses.add(path, f"reasoning from {who}", DROP_OTHER_REASONING)
    return None


def _reasoning_in_user(p: ReasoningPart, path: str, losses: Losses, tag: str) -> Any:
    losses.add(path, "reasoning part in a non-assistant message", "dropped")
    return None


USER_BLOCKS: dict[type, PartFn] = {
    ImagePart: _image_block,
    FilePart: _file_block,
    AudioPart: _audio_block,
    ReasoningPart: _reasoning_in_user,
}
ASSISTANT_BLOCKS: dict[type, PartFn] = {
    ReasoningPart: _reasoning_block,
    ImagePart: _image_block,
    FilePart: _file_block,
    AudioPart: _audio_block,
}


def _part_fn(table: dict[type, PartFn], p: object) -> PartFn:
    for base in type(p).__mro__:
        fn = table.get(base)
        if fn is not None:
            return fn
    raise ValidationError(f"cannot format a part of type {type(p).__name__}", "")


def part_blocks(
    parts: Sequence[ContentPart],
    table: dict[type, PartFn],
    path: str,
    losses: Losses,
    tag: str,
) -> list[Any]:
    """The blocks of a message's parts (``path`` is the message's).

    Whitespace-only text is refused alone but accepted beside real text (a response
    may carry "\n\n" before a server tool block): it is kept then.
    """
    keep_blank = any(isinstance(p, TextPart) and p.text and not blank(p.text) for p in parts)
    out: list[Any] = []
    for j, p in enumerate(parts):
        if isinstance(p, TextPart):
            if blank(p.text) and not keep_blank:
                losses.add(f"{path}.content[{j}]", "whitespace-only text", BLANK_RULE)
            elif p.text:
                out.append({"type": "text", "text": p.text})
            continue
        block = _part_fn(table, p)(p, f"{path}.content[{j}]", losses, tag)
        if block is not None:
            out.append(block)
    return out
