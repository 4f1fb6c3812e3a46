"""Content parts as Converse content blocks, both ways: text, image, document, video.

How parts map (the reference page has the table):

* ``ImagePart`` with ``data`` is an ``image`` block of ``source.bytes`` (the base64
  text the AWS JSON protocol and boto3's JSON dumps carry; ``bytes`` from boto3 are
  read too); its ``format`` comes from the media type (png, jpeg, gif, webp). An
  ``s3://`` URL is a ``source.s3Location``; its format comes from the media type or
  the file extension. Bedrock fetches no other URL: an ``http(s)`` image is a Loss.
* ``FilePart`` is a ``document`` block (pdf, csv, doc, docx, xls, xlsx, html, txt, md),
  a ``video`` block (mkv, mov, mp4, webm, flv, mpeg, mpg, wmv, three_gp) or an
  ``image`` block, by its media type (or its filename's extension); ``data`` is
  ``source.bytes``, an ``s3://`` ``file_id`` is ``source.s3Location``. A document needs
  a ``name`` of letters, digits, single spaces, hyphens, parentheses and brackets:
  the filename without its extension, other characters made hyphens (a Loss when it
  changes), or ``document-N`` when there is none.
* Reading gives the parts back: ``image`` -> ``ImagePart`` (an ``s3Location`` as its
  ``url`` with the media type), ``document`` and ``video`` -> ``FilePart`` (the name
  as ``filename``). A block whose other keys (a ``bucketOwner``, ``citations``,
  ``context``) or source (a document's ``text`` or ``content`` source) no part field
  carries is kept whole and sent back in the part's place while the part is unchanged.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any, Final

from ..._json import json_type
from ..._parts import AudioPart, ContentPart, FilePart, ImagePart, ReasoningPart, TextPart
from ...errors import DecodeError, ValidationError
from .._base import DROP_OTHER_REASONING, Losses, as_mapping, decode_error, required_str
from ._common import BY_MEDIA_TYPE, FORMATS, b64_text

_NAME_BAD: Final = re.compile(r"[^A-Za-z0-9\s\-()\[\]]")
_SPACES: Final = re.compile(r"\s+")
_EXTENSIONS: Final = {
    "jpg": "jpeg",
    "3gp": "three_gp",
    "htm": "html",
    "markdown": "md",
    "text": "txt",
}


class PartWriter:
    """Formats the parts of one request (it numbers the documents that have no name)."""

    __slots__ = ("documents", "losses", "tag")

    def __init__(self, losses: Losses, tag: str) -> None:
        self.losses = losses
        self.tag = tag
        self.documents = 0

    def block(self, p: ContentPart, path: str, assistant: bool) -> dict[str, Any] | None:
        """The block of one part, or None when it cannot be sent (a Loss says why)."""
        if type(p) is TextPart or isinstance(p, TextPart):
            return {"text": p.text}
        if isinstance(p, ReasoningPart):
            return (
                self.reasoning(p, path)
                if assistant
                else self._no(path, "reasoning part in a non-assistant message", "dropped")
            )
        if isinstance(p, ImagePart):
            return self.image(p, path)
        if isinstance(p, FilePart):
            return self.file(p, path)
        if isinstance(p, AudioPart):
            return self._no(path, "audio part", "dropped: Bedrock Converse takes no audio input")
        raise ValidationError(f"cannot format a part of type {type(p).__name__}", path)

    def _no(self, path: str, what: str, rule: str) -> dict[str, Any] | None:
        """Nothing sent for a part: a Loss."""
        self.losses.add(path, what, rule)
        return None

    def reasoning(self, p: ReasoningPart, path: str) -> dict[str, Any] | None:
        """This provider's reasoning (same tag) goes back unchanged; any other is a Loss."""
        if p.provider != self.tag:
            who = p.provider or "an unnamed provider"
            return self._no(path, f"reasoning from {who}", DROP_OTHER_REASONING)
        if p.redacted:
            return {"reasoningContent": {"redactedContent": p.text}}
        text: dict[str, Any] = {"text": p.text}
        if p.signature is not None:
            text["signature"] = p.signature
        return {"reasoningContent": {"reasoningText": text}}

    def image(self, p: ImagePart, path: str) -> dict[str, Any] | None:
        if p.detail is not None:
            self.losses.add(
                f"{path}.detail", "image detail", "dropped: Bedrock images have no detail"
            )
        if p.data is not None:
            return self.media("image", p.media_type, None, {"bytes": p.data}, None, path)
        url = p.url or ""
        if url.startswith("s3://"):
            return self.media("image", p.media_type, url, {"s3Location": {"uri": url}}, None, path)
        return self._no(
            path, "image URL", "dropped: Bedrock takes image bytes or an s3:// location, not a URL"
        )

    def file(self, p: FilePart, path: str) -> dict[str, Any] | None:
        fid = p.file_id
        if fid and fid.startswith("s3://"):
            source: dict[str, Any] = {"s3Location": {"uri": fid}}
        elif p.data is not None:
            if fid:
                self.losses.add(
                    f"{path}.file_id",
                    "file id",
                    "dropped: Bedrock reads s3:// locations only; the data is sent",
                )
            source = {"bytes": p.data}
        else:
            return self._no(
                path, "file reference", "dropped: Bedrock reads file data or s3:// locations only"
            )
        return self.media(None, p.media_type, p.filename or fid, source, p.filename, path)

    def media(
        self,
        want: str | None,
        media_type: str | None,
        name: str | None,
        source: dict[str, Any],
        filename: str | None,
        path: str,
    ) -> dict[str, Any] | None:
        """An image, document or video block of ``source`` (``want``: the kind required)."""
        found = _kind_and_format(media_type, name)
        if found is None or (want is not None and found[0] != want):
            what = f"{want or 'file'} of media type {media_type or 'unknown'}"
            return self._no(path, what, "dropped: Bedrock does not take this format")
        kind, fmt = found
        inner: dict[str, Any] = {"format": fmt}
        if kind == "document":
            inner["name"] = self.document_name(filename, path)
        inner["source"] = source
        return {kind: inner}

    def document_name(self, filename: str | None, path: str) -> str:
        """The ``name`` of a document block (module docstring)."""
        self.documents += 1
        if not filename:
            return f"document-{self.documents}"
        stem, dot, ext = filename.rpartition(".")
        base = stem if dot and stem and ext.lower() in _known_extensions() else filename
        name = _SPACES.sub(" ", _NAME_BAD.sub("-", base)).strip() or f"document-{self.documents}"
        if name != base:  # characters Bedrock refuses were replaced
            rule = "changed to the characters Bedrock accepts in a document name"
            self.losses.add(f"{path}.filename", "document filename", rule)
        return name


def _known_extensions() -> frozenset[str]:
    return frozenset((*(f for table in FORMATS.values() for f in table), *_EXTENSIONS))


def _kind_and_format(media_type: str | None, name: str | None) -> tuple[str, str] | None:
    """The block kind and format of a media type, else of a name's extension."""
    if media_type:
        found = BY_MEDIA_TYPE.get(media_type.strip().lower())
        if found is not None:
            return found
    if name and "." in name:
        ext = name.rpartition(".")[2].lower()
        ext = _EXTENSIONS.get(ext, ext)
        for kind, table in FORMATS.items():
            if ext in table:
                return kind, ext
    return None


# -- reading ----------------------------------------------------------------------------------


def read_media(kind: str, value: Any, path: str) -> ContentPart | None:
    """The part of an ``image``, ``document`` or ``video`` block, or None when its source is
    one no part carries (the block is then kept whole)."""
    inner = as_mapping(value, f"{path}.{kind}")
    fmt = required_str(inner, "format", f"{path}.{kind}")
    media_type = FORMATS[kind].get(fmt)
    if media_type is None:
        raise DecodeError(f"unknown {kind} format", f"{path}.{kind}.format")
    spath = f"{path}.{kind}.source"
    source = as_mapping(inner.get("source"), spath)
    name = inner.get("name")
    if name is not None and type(name) is not str:
        raise DecodeError(f"expected a string, got {json_type(name)}", f"{path}.{kind}.name")
    try:
        if "bytes" in source:
            data = b64_text(source["bytes"], f"{spath}.bytes")
            if kind == "image" and not data.startswith("data:"):
                return ImagePart(data=data, media_type=media_type)
            # an image whose bytes text an ImagePart refuses (a data: URL) is a FilePart
            return FilePart(data=data, media_type=media_type, filename=name)
        if "s3Location" in source:
            s3 = as_mapping(source["s3Location"], f"{spath}.s3Location")
            uri = required_str(s3, "uri", f"{spath}.s3Location")
            if kind == "image":
                return ImagePart(url=uri, media_type=media_type)
            return FilePart(file_id=uri, media_type=media_type, filename=name)
        if kind == "document" and type(source.get("text")) is str:
            data = base64.b64encode(source["text"].encode("utf-8", "surrogatepass")).decode("ascii")
            return FilePart(data=data, media_type="text/plain", filename=name)
    except ValidationError as exc:
        raise decode_error(exc, spath) from None
    return None


def is_blockish(value: Any, path: str) -> Mapping[str, Any]:
    """A content block: a JSON object with at least one key."""
    block = as_mapping(value, path)
    if not block:
        raise DecodeError("an empty content block", path)
    return block
