"""Audio formats and their MIME types: an ``AudioPart`` names a format (``wav``, ``mp3``),
wire formats that carry a MIME type (MCP, OpenTelemetry) name ``audio/wav``, ``audio/mpeg``."""

from __future__ import annotations

__all__ = ["audio_format", "audio_mime_type"]

#: MIME subtypes whose format has another usual name.
_FORMATS = {"mpeg": "mp3", "mp3": "mp3", "x-wav": "wav", "wave": "wav", "x-flac": "flac"}
#: Formats whose MIME subtype is not their name.
_SUBTYPES = {"mp3": "mpeg"}


def audio_format(mime_type: str) -> str:
    """``audio/wav`` -> ``wav``, ``audio/mpeg`` -> ``mp3`` (parameters ignored; ``wav``
    when the MIME type names no subtype)."""
    subtype = mime_type.partition("/")[2].partition(";")[0].strip(" \t")
    return _FORMATS.get(subtype.lower(), subtype) or "wav"


def audio_mime_type(fmt: str) -> str:
    """``wav`` -> ``audio/wav``, ``mp3`` -> ``audio/mpeg``."""
    return f"audio/{_SUBTYPES.get(fmt, fmt)}"
