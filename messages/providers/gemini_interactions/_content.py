"""Content items (``text``, ``image``, ``audio``, ``document``, ``video``) and parts, both ways.

* Text is a TextPart. An image is an ImagePart: inline ``data`` with its
  ``mime_type``, or by ``uri``; its ``resolution`` ``low`` / ``high`` is the part's
  ``detail`` (``auto`` has no field: a Loss). Audio with data and an ``audio/*`` type is
  an AudioPart (``format`` the subtype). Documents, videos and audio by URI are
  FileParts (``file_id`` the URI), their kind told by the media type. A file name has
  no field (a Loss).
* Keys of an item the part has no field for are kept (``keys``) and put back when the
  part goes back to this provider, so an item read here goes back as it came.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from ..._parts import AudioPart, ContentPart, FilePart, ImagePart, TextPart
from ...errors import DecodeError
from .._base import Losses
from ._wire import opt_string, string

__all__ = ["CONTENT_TYPES", "format_part", "parse_item"]

#: The content item types that are parts (the rest are kept verbatim).
CONTENT_TYPES: Final = frozenset(("text", "image", "audio", "document", "video"))

#: The ``resolution`` values an ImagePart ``detail`` carries.
_DETAILS: Final = frozenset(("low", "high"))


def _kind_of(media_type: str | None) -> str:
    """The content item type for a file of ``media_type``."""
    if media_type:
        top = media_type.partition("/")[0]
        if top in ("image", "audio", "video"):
            return top
    return "document"


def _media(item: dict[str, Any], media_type: str | None) -> dict[str, Any]:
    if media_type is not None:
        item["mime_type"] = media_type
    return item


def _text(p: TextPart, path: str, losses: Losses) -> dict[str, Any]:
    return {"type": "text", "text": p.text}


def _image(p: ImagePart, path: str, losses: Losses) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "image"}
    if p.data is not None:
        item["data"] = p.data
    else:
        item["uri"] = p.url
    _media(item, p.media_type)
    if p.detail in _DETAILS:
        item["resolution"] = p.detail
    elif p.detail is not None:
        losses.add(f"{path}.detail", "image detail 'auto'", "dropped: the default resolution")
    return item


def _audio(p: AudioPart, path: str, losses: Losses) -> dict[str, Any]:
    return {"type": "audio", "data": p.data, "mime_type": f"audio/{p.format}"}


def _file(p: FilePart, path: str, losses: Losses) -> dict[str, Any]:
    item: dict[str, Any] = {"type": _kind_of(p.media_type)}
    if p.data is not None:
        item["data"] = p.data
        if p.file_id is not None:
            losses.add(f"{path}.file_id", "file id beside inline data", "dropped: data sent")
    else:
        item["uri"] = p.file_id
    _media(item, p.media_type)
    if p.filename is not None:
        losses.add(f"{path}.filename", "file name", "dropped: content items have no name")
    return item


_FORMATTERS: Final[dict[type, Callable[[Any, str, Losses], dict[str, Any]]]] = {
    TextPart: _text,
    ImagePart: _image,
    AudioPart: _audio,
    FilePart: _file,
}


def format_part(p: ContentPart, path: str, losses: Losses) -> dict[str, Any] | None:
    """The content item of a text, image, audio or file part (None for anything else)."""
    for base in type(p).__mro__:
        fn = _FORMATTERS.get(base)
        if fn is not None:
            return fn(p, path, losses)
    return None


def _source(item: Mapping[str, Any], path: str) -> tuple[str | None, str | None, str | None]:
    data = opt_string(item.get("data"), f"{path}.data")
    uri = opt_string(item.get("uri"), f"{path}.uri")
    if (data is None) == (uri is None):
        raise DecodeError("expected exactly one of data or uri", f"{path}.data")
    return data, uri, opt_string(item.get("mime_type"), f"{path}.mime_type")


def _parse_image(item: Mapping[str, Any], path: str) -> ContentPart:
    data, uri, media_type = _source(item, path)
    res = item.get("resolution")
    detail = res if type(res) is str and res in _DETAILS else None
    if data is not None:
        if not media_type or data.startswith("data:"):  # not an image an ImagePart holds
            return FilePart(data=data, media_type=media_type)
        return ImagePart(data=data, media_type=media_type, detail=detail)
    if uri is not None and uri.startswith("data:"):
        return FilePart(file_id=uri, media_type=media_type)
    return ImagePart(url=uri, media_type=media_type, detail=detail)


def _parse_file(item: Mapping[str, Any], path: str) -> ContentPart:
    data, uri, media_type = _source(item, path)
    if data is not None:
        fmt = media_type.partition("/")[2] if media_type else ""
        if item.get("type") == "audio" and media_type == f"audio/{fmt}" and fmt:
            return AudioPart(data, fmt)
        return FilePart(data=data, media_type=media_type)
    return FilePart(file_id=uri, media_type=media_type)


def parse_item(item: Mapping[str, Any], path: str) -> tuple[ContentPart, dict[str, Any] | None]:
    """The part of a content item, and the item's keys the part does not give back.

    ``item["type"]`` is one of CONTENT_TYPES.
    """
    kind = item.get("type")
    part: ContentPart
    if kind == "text":
        part = TextPart(string(item.get("text"), f"{path}.text"))
    elif kind == "image":
        part = _parse_image(item, path)
    else:
        part = _parse_file(item, path)
    back = format_part(part, path, Losses()) or {}
    kept = {k: v for k, v in item.items() if back.get(k, _MISSING) != v}
    return part, kept or None


_MISSING: Final = object()
