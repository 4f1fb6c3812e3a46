"""Tool results that are JSON objects, sent as JSON where a provider takes JSON.

Bedrock (a ``json`` block), Gemini (``functionResponse.response.output``) and the
Gemini Interactions API (``function_result.result``) take a tool's answer as a JSON
object as well as text. A successful result whose content is one text that writes a
JSON object compactly (``{"temp":21}``, as ``messages.mcp`` writes an MCP result's
``structuredContent``, and as these providers' own parsers write an object they read)
goes to them as that object: the model gets structured data, and reading the request
back gives the same text. Any other text (with spaces, duplicate keys, ``1e5``...) is
sent as text, so that a round trip never rewrites what the result says.

A result read from one of these providers keeps, in its state, whether it came as an
object or as a string; that state wins over this rule, so a provider's own requests
go back as they came.
"""

from __future__ import annotations

import json
from typing import Any, Final

from .._frozen import thaw
from .._part_codec import object_text

__all__ = ["json_object_of"]

_ASCII: Final = json.JSONEncoder(separators=(",", ":"), allow_nan=False)
_UNICODE: Final = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def json_object_of(text: str) -> dict[str, Any] | None:
    """The JSON object ``text`` writes compactly (non-ASCII as it is, or escaped), as plain
    dicts and lists; None for any other text (or an object nested too deep to freeze)."""
    if not (text.startswith("{") and text.endswith("}")):
        return None
    frozen = object_text(text)
    if frozen is None:
        return None
    value: dict[str, Any] = thaw(frozen)
    if text != _UNICODE.encode(value) and text != _ASCII.encode(value):
        return None
    return value
