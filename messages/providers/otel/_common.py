"""The names this format shares between its reader and its writer."""

from __future__ import annotations

from typing import Final

from ..._parts import AudioPart, FilePart, ImagePart
from .._base import FinishReason

__all__ = [
    "FINISH_NAMES",
    "FINISH_REASONS",
    "INPUT",
    "OUTPUT",
    "SEMCONV_VERSION",
    "SYSTEM",
    "TOOLS",
]

SEMCONV_VERSION: Final = "1.41.0"
"""The OpenTelemetry semantic-conventions release whose GenAI message schemas
(``gen-ai-input-messages.json``, ``gen-ai-output-messages.json``,
``gen-ai-system-instructions.json``) this format reads and writes."""

SYSTEM: Final = "gen_ai.system_instructions"
INPUT: Final = "gen_ai.input.messages"
OUTPUT: Final = "gen_ai.output.messages"
TOOLS: Final = "gen_ai.tool.definitions"

#: The schema's finish reasons; any other string is OTHER.
FINISH_REASONS: Final = {
    "stop": FinishReason.STOP,
    "length": FinishReason.LENGTH,
    "content_filter": FinishReason.CONTENT_FILTER,
    "tool_call": FinishReason.TOOL_CALLS,
    "error": FinishReason.ERROR,
}
FINISH_NAMES: Final = {reason: name for name, reason in FINISH_REASONS.items()}
#: ``gen_ai.response.finish_reasons`` on a span often holds the provider's spelling.
FINISH_REASONS["tool_calls"] = FinishReason.TOOL_CALLS


def modality_of(part: object) -> str:
    """The modality written for a media part: ``image`` for an ImagePart, ``audio`` for an
    AudioPart; a FilePart is a ``document`` (``video`` for a video media type), so that
    reading it back gives a FilePart again."""
    if isinstance(part, ImagePart):
        return "image"
    if isinstance(part, AudioPart):
        return "audio"
    media_type = part.media_type if isinstance(part, FilePart) else None
    return "video" if (media_type or "").startswith("video/") else "document"
