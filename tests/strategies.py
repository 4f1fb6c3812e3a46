"""Hypothesis strategies for every message class, content part and tool value.

Shared by the codec, history and storage tests. Strings cover the whole of
unicode that a Python ``str`` can hold: emoji and other astral characters, RTL
text and marks, NUL and other controls, combining marks and lone surrogates
(but never a high surrogate directly before a low one, which JSON cannot keep
apart from the astral character it encodes).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import strategies as st

from messages import (
    AssistantMessage,
    AudioPart,
    ContentPart,
    DeveloperMessage,
    FilePart,
    ImagePart,
    Message,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolCallDelta,
    ToolCallMessage,
    ToolResult,
    ToolResultMessage,
    UserMessage,
)

#: Strings that have broken serialisers before: astral emoji sequences, RTL and
#: bidi controls, NUL, combining marks, lone surrogates, JSON and HTML syntax.
SPECIAL_STRINGS = (
    "",
    "\x00",
    "a\x00b",
    "👩\u200d👩\u200d👧\u200d👦",
    "\U0001d518\U0001d52b\U0001d526",  # mathematical fraktur, astral plane
    "مرحبا بالعالم",
    "\u202eevil\u202c",
    "שלום",
    "e\u0301\u0302\u0303",
    "\ud800",
    "\udfff",
    "a\ud83dz",
    '{"role": "system"}',
    "</script>",
    "\\u0000",
    "line\r\nbreak\u2028\u2029",
    "\ufeffbom",
)

#: Any character a Python str can hold, surrogates included.
any_char = st.characters()


def _split_surrogate_pairs(s: str) -> str:
    """Put a character between a high surrogate and a low one that follows it.

    JSON cannot keep such a pair apart from the astral character it stands for
    (both are written ``\\ud83d\\ude00``), so generated strings avoid it and stay
    exact through every JSON round trip; lone surrogates are still generated. Nor
    does a string start with a low surrogate or end with a high one: a provider that
    joins two texts (Ollama's text parts) would make the pair. tests/test_codec.py
    covers the pair itself.
    """
    if not any("\ud800" <= c <= "\udfff" for c in s):
        return s
    out: list[str] = []
    for c in s:
        if out and "\udc00" <= c <= "\udfff" and "\ud800" <= out[-1] <= "\udbff":
            out.append("_")
        out.append(c)
    if "\udc00" <= out[0] <= "\udfff":
        out.insert(0, "_")
    if "\ud800" <= out[-1] <= "\udbff":
        out.append("_")
    return "".join(out)


texts: st.SearchStrategy[str] = st.one_of(
    st.text(alphabet=any_char, max_size=24),
    st.sampled_from(SPECIAL_STRINGS),
    st.lists(st.sampled_from(SPECIAL_STRINGS), min_size=2, max_size=4).map("".join),
).map(_split_surrogate_pairs)
non_empty_texts = texts.filter(bool)

#: Keys of metadata/extras/arguments, including the names the codec reserves.
RESERVED_NAMES = (
    "id",
    "role",
    "content",
    "name",
    "tool_calls",
    "function_call",
    "tool_call_id",
    "is_error",
    "tool_name",
    "metadata",
    "extras",
    "created_at",
    "type",
    "function",
)
keys = st.one_of(texts, st.sampled_from(RESERVED_NAMES))

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    texts,
)
json_values: st.SearchStrategy[Any] = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(keys, children, max_size=4),
    ),
    max_leaves=12,
)
json_objects: st.SearchStrategy[dict[str, Any]] = st.dictionaries(keys, json_values, max_size=5)

_ZONES = (
    UTC,
    timezone(timedelta(hours=5, minutes=30)),
    timezone(-timedelta(hours=8)),
    timezone(timedelta(hours=13, minutes=45)),
)
created_ats: st.SearchStrategy[datetime] = st.datetimes(
    min_value=datetime(2, 1, 1),
    max_value=datetime(9998, 12, 31),
    timezones=st.sampled_from(_ZONES),
)

# -- parts -----------------------------------------------------------------------

_BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
base64_texts = st.text(alphabet=_BASE64, max_size=40)
media_types = st.one_of(
    st.sampled_from(("image/png", "image/jpeg", "application/pdf", "audio/wav", "text/plain")),
    # types a data: URL cannot carry as they are; the codec must keep them exactly
    st.sampled_from(("text/plain; charset=utf-8", " image/png", "a,b", "x;base64")),
    non_empty_texts,
)

text_parts = st.builds(TextPart, texts)
image_parts = st.one_of(
    st.builds(
        ImagePart,
        url=non_empty_texts.filter(lambda u: not u.startswith("data:")),
        detail=st.sampled_from((None, "auto", "low", "high")),
    ),
    st.builds(
        ImagePart,
        data=st.one_of(base64_texts, texts).filter(lambda d: not d.startswith("data:")),
        media_type=media_types,
        detail=st.sampled_from((None, "auto", "low", "high")),
    ),
)
audio_parts = st.builds(AudioPart, st.one_of(base64_texts, texts), non_empty_texts)
file_parts = st.one_of(
    st.builds(
        FilePart,
        data=st.one_of(base64_texts, texts, st.just("data:x;base64,abc")),
        file_id=st.none() | texts,
        filename=st.none() | texts,
        media_type=st.none() | media_types | st.just(""),
    ),
    st.builds(
        FilePart,
        file_id=non_empty_texts,
        filename=st.none() | texts,
        media_type=st.none() | media_types,
    ),
)
reasoning_parts = st.builds(
    ReasoningPart,
    texts,
    signature=st.none() | texts,
    redacted=st.booleans(),
    provider=st.none() | st.sampled_from(("anthropic", "openai", "gemini")) | texts,
)
any_parts: st.SearchStrategy[ContentPart] = st.one_of(
    text_parts, image_parts, audio_parts, file_parts, reasoning_parts
)
user_parts: st.SearchStrategy[ContentPart] = st.one_of(
    text_parts, image_parts, audio_parts, file_parts
)
assistant_parts: st.SearchStrategy[ContentPart] = st.one_of(text_parts, reasoning_parts)

# -- tools -------------------------------------------------------------------------

tool_names = st.from_regex(r"[A-Za-z0-9_-]{1,64}", fullmatch=True)


@st.composite
def _argument_texts(draw: st.DrawFn) -> str:
    """A JSON object as text, formatted in one of several ways (kept exactly by the codec)."""
    obj = draw(json_objects)
    style = draw(st.sampled_from(("compact", "default", "indent", "unicode")))
    if style == "compact":
        return json.dumps(obj, separators=(",", ":"))
    if style == "indent":
        return json.dumps(obj, indent=2)
    if style == "unicode":
        return " " + json.dumps(obj, ensure_ascii=False) + "\n"
    return json.dumps(obj)


tool_arguments = st.one_of(json_objects, _argument_texts())
tool_calls: st.SearchStrategy[ToolCall] = st.builds(
    ToolCall,
    non_empty_texts,
    tool_names,
    tool_arguments,
    extras=st.none() | json_objects,
)


@st.composite
def tool_call_lists(draw: st.DrawFn, max_size: int = 3) -> list[ToolCall]:
    """One or more tool calls with unique ids."""
    return draw(st.lists(tool_calls, min_size=1, max_size=max_size, unique_by=lambda c: c.id))


tool_results: st.SearchStrategy[ToolResult] = st.builds(
    ToolResult,
    non_empty_texts,
    st.one_of(texts, st.lists(user_parts, max_size=3)),
    st.booleans(),
    st.none() | non_empty_texts,
)
tool_call_deltas: st.SearchStrategy[ToolCallDelta] = st.builds(
    ToolCallDelta,
    st.integers(min_value=0, max_value=1000),
    st.none() | texts,
    st.none() | texts,
    st.none() | texts,
)

# -- messages ------------------------------------------------------------------------


def _common() -> dict[str, st.SearchStrategy[Any]]:
    return {
        "name": st.none() | texts,
        "metadata": st.none() | json_objects,
        "extras": st.none() | json_objects,
        "id": st.none() | non_empty_texts,
        "created_at": st.none() | created_ats,
    }


system_messages = st.builds(SystemMessage, texts, **_common())
developer_messages = st.builds(DeveloperMessage, texts, **_common())
user_messages = st.builds(
    UserMessage, st.one_of(texts, st.lists(user_parts, max_size=4)), **_common()
)
assistant_messages = st.builds(
    AssistantMessage, st.one_of(texts, st.lists(assistant_parts, max_size=4)), **_common()
)
tool_call_messages = st.builds(
    ToolCallMessage,
    tool_call_lists(),
    st.one_of(st.none(), st.just(""), texts, st.lists(assistant_parts, max_size=3)),
    **_common(),
)
tool_result_messages = st.builds(
    ToolResultMessage,
    non_empty_texts,
    st.one_of(texts, st.lists(user_parts, max_size=3)),
    st.booleans(),
    st.none() | non_empty_texts,
    **_common(),
)

messages: st.SearchStrategy[Message] = st.one_of(
    system_messages,
    developer_messages,
    user_messages,
    assistant_messages,
    tool_call_messages,
    tool_result_messages,
)
"""Any message of any built-in class, with name, metadata, extras, id and created_at."""

message_lists: st.SearchStrategy[list[Message]] = st.lists(messages, max_size=6)
