"""Multimodal content parts: text, image, audio, file and model reasoning."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ._lazy import LazyModule
from .errors import ValidationError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "AudioPart",
    "ContentPart",
    "FilePart",
    "ImagePart",
    "ReasoningPart",
    "TextPart",
    "PART_TYPES",
]

_IMAGE_DETAILS = frozenset(("auto", "low", "high"))


def _str(value: object, path: str) -> None:
    if type(value) is not str and not isinstance(value, str):
        raise ValidationError(f"expected str, got {type(value).__name__}", path)


def _opt_str(value: object, path: str) -> None:
    if value is not None and not isinstance(value, str):
        raise ValidationError(f"expected str or None, got {type(value).__name__}", path)


@dataclass(frozen=True, slots=True)
class TextPart:
    """A piece of plain text."""

    text: str

    def __post_init__(self) -> None:
        _str(self.text, "text")

    def to_dict(self) -> dict[str, Any]:
        """This part as its canonical (OpenAI-shaped) dict."""
        return _part_codec.part_to_dict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> TextPart:
        """Decode a canonical part dict of this type; DecodeError otherwise."""
        return _part_codec.part_from_dict(d, cls)

    def __repr__(self) -> str:
        return f"TextPart(len={len(self.text)})"


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image, by URL or as base64 ``data`` with its ``media_type``."""

    url: str | None = None
    data: str | None = None
    media_type: str | None = None
    detail: str | None = None

    def __post_init__(self) -> None:
        _opt_str(self.url, "url")
        _opt_str(self.data, "data")
        _opt_str(self.media_type, "media_type")
        _opt_str(self.detail, "detail")
        if (self.url is None) == (self.data is None):
            raise ValidationError("exactly one of url or data is required", "url")
        if self.url is not None and not self.url:
            raise ValidationError("url must not be empty", "url")
        if self.url is not None and self.url.startswith("data:"):
            # A base64 data: URL is inline data: store it as such, so that equal
            # images are equal however they were given (ImagePart(url=u) ==
            # ImagePart.from_data_url(u)). A media_type given beside it must agree
            # with the URL's: which of the two is right is not ours to guess.
            try:
                media_type, data = parse_data_url(self.url, "url")
            except ValidationError:
                pass  # not base64: keep it as a URL
            else:
                if self.media_type is not None and not same_media_type(self.media_type, media_type):
                    raise ValidationError(MEDIA_TYPE_CONFLICT, "media_type")
                object.__setattr__(self, "url", None)
                object.__setattr__(self, "data", data)
                object.__setattr__(self, "media_type", media_type)
        if self.data is not None:
            if self.media_type is None or not self.media_type:
                raise ValidationError("media_type is required with data", "media_type")
            if self.data.startswith("data:"):
                raise ValidationError(
                    "data is bare base64; use ImagePart.from_data_url for a data: URL", "data"
                )
        if self.detail is not None and self.detail not in _IMAGE_DETAILS:
            raise ValidationError("detail must be one of auto, low, high", "detail")

    @classmethod
    def from_data_url(cls, url: str, detail: str | None = None) -> ImagePart:
        """Build an image from a ``data:<media type>;base64,<data>`` URL."""
        _str(url, "url")
        media_type, data = parse_data_url(url, "url")
        return cls(data=data, media_type=media_type, detail=detail)

    @property
    def data_url(self) -> str:
        """The image as a URL: a ``data:`` URL for inline data, else ``url``."""
        if self.data is not None:
            return data_url(self.media_type, self.data)  # type: ignore[arg-type]
        assert self.url is not None
        return self.url

    @property
    def is_url(self) -> bool:
        """True when the image is referenced by URL rather than carried inline."""
        return self.data is None

    def to_dict(self) -> dict[str, Any]:
        """This part as its canonical (OpenAI-shaped) dict."""
        return _part_codec.part_to_dict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ImagePart:
        """Decode a canonical part dict of this type; DecodeError otherwise."""
        return _part_codec.part_from_dict(d, cls)

    def __repr__(self) -> str:
        if self.data is not None:
            return f"ImagePart(media_type={self.media_type!r}, data_len={len(self.data)})"
        return f"ImagePart(url_len={len(self.url or '')}, detail={self.detail!r})"


MEDIA_TYPE_CONFLICT = "media_type contradicts the media type of the data: URL given as url"


def same_media_type(given: str, from_url: str) -> bool:
    """Whether a media type given beside a data: URL agrees with the URL's (case-insensitive)."""
    return given.strip().lower() == from_url.lower()


def data_url(media_type: str, data: str) -> str:
    """A base64 ``data:`` URL of ``data``; ``parse_data_url`` gives both back.

    A ``,`` (which would end the media type early) and ``%`` in the media type are
    percent-encoded, as RFC 2397 writes a media type; no valid media type has either.
    """
    if "," in media_type or "%" in media_type:
        media_type = media_type.replace("%", "%25").replace(",", "%2C")
    return f"data:{media_type};base64,{data}"


def _unescape(match: Any) -> str:
    return "," if match.group(0) in ("%2C", "%2c") else "%"


def parse_data_url(url: str, path: str) -> tuple[str, str]:
    """Split a base64 ``data:`` URL into (media type, data); ValidationError otherwise.

    The escapes ``data_url`` writes in a media type (``%2C``, ``%25``) are decoded;
    any other ``%`` sequence stays as it is, so a second round trip is the same.
    """
    if not url.startswith("data:"):
        raise ValidationError("not a data: URL", path)
    head, sep, data = url.partition(",")
    if not sep:
        raise ValidationError("data: URL has no ',' separator", path)
    meta = head[5:].split(";")
    if "base64" not in (m.strip().lower() for m in meta[1:]):
        raise ValidationError("data: URL is not base64-encoded", path)
    media_type = meta[0].strip()
    if not media_type:
        raise ValidationError("data: URL has no media type", path)
    if "%" in media_type:  # rare: the escapes data_url writes, in one pass
        import re

        media_type = re.sub(r"%2[Cc]|%25", _unescape, media_type)
    return media_type, data


@dataclass(frozen=True, slots=True)
class AudioPart:
    """Base64-encoded audio in a named ``format`` such as ``"wav"`` or ``"mp3"``."""

    data: str
    format: str

    def __post_init__(self) -> None:
        _str(self.data, "data")
        _str(self.format, "format")
        if not self.format:
            raise ValidationError("format must not be empty", "format")

    def to_dict(self) -> dict[str, Any]:
        """This part as its canonical (OpenAI-shaped) dict."""
        return _part_codec.part_to_dict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> AudioPart:
        """Decode a canonical part dict of this type; DecodeError otherwise."""
        return _part_codec.part_from_dict(d, cls)

    def __repr__(self) -> str:
        return f"AudioPart(format={self.format!r}, data_len={len(self.data)})"


@dataclass(frozen=True, slots=True)
class FilePart:
    """A document: inline base64 ``data`` and/or a provider ``file_id``."""

    data: str | None = None
    file_id: str | None = None
    filename: str | None = None
    media_type: str | None = None

    def __post_init__(self) -> None:
        _opt_str(self.data, "data")
        _opt_str(self.file_id, "file_id")
        _opt_str(self.filename, "filename")
        _opt_str(self.media_type, "media_type")
        if self.data is None and not self.file_id:
            raise ValidationError("at least one of data or file_id is required", "data")

    def to_dict(self) -> dict[str, Any]:
        """This part as its canonical (OpenAI-shaped) dict."""
        return _part_codec.part_to_dict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> FilePart:
        """Decode a canonical part dict of this type; DecodeError otherwise."""
        return _part_codec.part_from_dict(d, cls)

    def __repr__(self) -> str:
        size = "none" if self.data is None else str(len(self.data))
        return f"FilePart(media_type={self.media_type!r}, data_len={size}, has_file_id={self.file_id is not None})"


@dataclass(frozen=True, slots=True)
class ReasoningPart:
    """Model reasoning ("thinking").

    ``signature`` is the producing provider's opaque token, sent back unchanged
    and only to ``provider``. A redacted block keeps its opaque payload in ``text``.
    """

    text: str
    signature: str | None = None
    redacted: bool = False
    provider: str | None = None

    def __post_init__(self) -> None:
        _str(self.text, "text")
        _opt_str(self.signature, "signature")
        _opt_str(self.provider, "provider")
        if type(self.redacted) is not bool:
            raise ValidationError(f"expected bool, got {type(self.redacted).__name__}", "redacted")

    def to_dict(self) -> dict[str, Any]:
        """This part as its canonical (OpenAI-shaped) dict."""
        return _part_codec.part_to_dict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ReasoningPart:
        """Decode a canonical part dict of this type; DecodeError otherwise."""
        return _part_codec.part_from_dict(d, cls)

    def __repr__(self) -> str:
        return (
            f"ReasoningPart(len={len(self.text)}, signed={self.signature is not None}, "
            f"redacted={self.redacted}, provider={self.provider!r})"
        )


ContentPart = TextPart | ImagePart | AudioPart | FilePart | ReasoningPart
"""Any one content part."""

PART_TYPES: frozenset[type] = frozenset((TextPart, ImagePart, AudioPart, FilePart, ReasoningPart))


# The codec is imported on first use (import time); see _lazy.
if TYPE_CHECKING:
    from . import _part_codec
else:
    _part_codec = LazyModule("._part_codec", __package__, globals(), "_part_codec")
