"""The canonical dict / JSON codec: exact shapes, accepted variants, refusals, round trips.

Every dict the encoder produces in this file is validated against the shipped
JSON Schema (``messages/message.schema.json``).
"""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta, timezone
from importlib.resources import files
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

from messages import (
    AssistantMessage,
    AudioPart,
    DecodeError,
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
    ValidationError,
    _codec,
    _timestamps,
    from_dict,
    from_json,
    to_dict,
    to_json,
)
from messages._frozen import thaw
from tests import strategies as gen

T0 = datetime(2025, 1, 2, 3, 4, 5, 6, tzinfo=UTC)
T0_TEXT = "2025-01-02T03:04:05.000006Z"

SCHEMA: dict[str, Any] = json.loads(
    (files("messages") / "message.schema.json").read_text(encoding="utf-8")
)
VALIDATOR = Draft202012Validator(SCHEMA)


def encode(m: Message) -> dict[str, Any]:
    """``to_dict(m)``, checked against the JSON Schema."""
    d = to_dict(m)
    errors = sorted(VALIDATOR.iter_errors(d), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message[:200]}" for e in errors]
    return d


def dec(value: Any) -> Any:
    """``from_dict``, typed loosely so that tests can read class-specific fields."""
    return from_dict(value)


def dec_json(text: str | bytes) -> Any:
    """``from_json``, typed loosely likewise."""
    return from_json(text)


def same(a: Message, b: Message) -> None:
    """Equal, same class, same id and created_at."""
    assert type(a) is type(b)
    assert a == b
    assert a.id == b.id
    assert a.created_at == b.created_at


def test_the_schema_is_valid_draft_2020_12() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


# -- exact canonical shapes ------------------------------------------------------------

K: dict[str, Any] = {"id": "m1", "created_at": T0}
CALL = ToolCall("call_1", "get_weather", '{"city": "Paris"}')

GOLDEN: list[tuple[str, Message, dict[str, Any]]] = [
    (
        "system",
        SystemMessage("Be brief.", **K),
        {"id": "m1", "role": "system", "content": "Be brief.", "created_at": T0_TEXT},
    ),
    (
        "developer with name",
        DeveloperMessage("", name="ops", **K),
        {"id": "m1", "role": "developer", "content": "", "name": "ops", "created_at": T0_TEXT},
    ),
    (
        "user text with metadata",
        UserMessage("hi", metadata={"user_id": 7, "tags": ["a"]}, **K),
        {
            "id": "m1",
            "role": "user",
            "content": "hi",
            "metadata": {"user_id": 7, "tags": ["a"]},
            "created_at": T0_TEXT,
        },
    ),
    (
        "user parts",
        UserMessage(
            [
                TextPart("look"),
                ImagePart(url="https://x.test/a.png", detail="low"),
                ImagePart(data="AAAA", media_type="image/png"),
                AudioPart("UklG", "wav"),
                FilePart(data="JVBE", media_type="application/pdf", filename="a.pdf"),
                FilePart(file_id="file-1"),
            ],
            **K,
        ),
        {
            "id": "m1",
            "role": "user",
            "content": [
                {"type": "text", "text": "look"},
                {
                    "type": "image_url",
                    "image_url": {"url": "https://x.test/a.png", "detail": "low"},
                },
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}},
                {
                    "type": "file",
                    "file": {"file_data": "data:application/pdf;base64,JVBE", "filename": "a.pdf"},
                },
                {"type": "file", "file": {"file_id": "file-1"}},
            ],
            "created_at": T0_TEXT,
        },
    ),
    (
        "assistant with reasoning",
        AssistantMessage(
            [
                ReasoningPart("thinking", signature="sig", provider="anthropic"),
                ReasoningPart("opaque", redacted=True),
                TextPart("answer"),
            ],
            **K,
        ),
        {
            "id": "m1",
            "role": "assistant",
            "content": [
                {
                    "type": "reasoning",
                    "text": "thinking",
                    "signature": "sig",
                    "provider": "anthropic",
                },
                {"type": "reasoning", "text": "opaque", "redacted": True},
                {"type": "text", "text": "answer"},
            ],
            "created_at": T0_TEXT,
        },
    ),
    (
        "tool calls without content",
        ToolCallMessage([CALL], **K),
        {
            "id": "m1",
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
            "created_at": T0_TEXT,
        },
    ),
    (
        "tool calls with empty content",
        ToolCallMessage([ToolCall("c", "f", {"a": 1}, extras={"sig": "x"})], "", **K),
        {
            "id": "m1",
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c",
                    "type": "function",
                    "function": {"name": "f", "arguments": '{"a":1}'},
                    "sig": "x",
                }
            ],
            "created_at": T0_TEXT,
        },
    ),
    (
        "tool result, error",
        ToolResultMessage("call_1", "boom", True, "get_weather", **K),
        {
            "id": "m1",
            "role": "tool",
            "tool_call_id": "call_1",
            "content": "boom",
            "is_error": True,
            "tool_name": "get_weather",
            "created_at": T0_TEXT,
        },
    ),
    (
        "tool result, plain",
        ToolResultMessage("call_1", "", **K),
        {
            "id": "m1",
            "role": "tool",
            "tool_call_id": "call_1",
            "content": "",
            "created_at": T0_TEXT,
        },
    ),
    (
        "extras spread, colliding keys nested",
        UserMessage("x", extras={"refusal": None, "role": "other", "extras": 1}, **K),
        {
            "id": "m1",
            "role": "user",
            "content": "x",
            "created_at": T0_TEXT,
            "refusal": None,
            "extras": {"role": "other", "extras": 1},
        },
    ),
    (
        "created_at in another zone is written in UTC",
        UserMessage(
            "x",
            id="m1",
            created_at=datetime(2025, 1, 2, 5, 4, 5, tzinfo=timezone(timedelta(hours=2))),
        ),
        {"id": "m1", "role": "user", "content": "x", "created_at": "2025-01-02T03:04:05.000000Z"},
    ),
]


@pytest.mark.parametrize(
    ("message", "expected"), [g[1:] for g in GOLDEN], ids=[g[0] for g in GOLDEN]
)
def test_canonical_shape(message: Message, expected: dict[str, Any]) -> None:
    d = encode(message)
    assert json.loads(json.dumps(thaw(d))) == expected
    assert json.loads(to_json(message)) == expected
    assert message.to_dict() == d
    same(dec(d), message)
    same(dec(expected), message)


def test_a_surrogate_pair_written_as_two_code_points_reads_back_as_one_character() -> None:
    # JSON writes both as \ud83d\ude00 (documented). A dict round trip keeps the
    # pair, except inside tool arguments, which the dict carries as JSON text.
    m = UserMessage("\ud83d\ude00", metadata={"k": "\ud83d\ude00"}, **K)
    assert dec_json(to_json(m)).content == "\U0001f600"
    assert dec_json(to_json(m)).metadata == {"k": "\U0001f600"}
    same(dec(encode(m)), m)
    call = ToolCallMessage([ToolCall("c", "f", {"k": "\ud83d\ude00"})], **K)
    assert thaw(dec(encode(call)).tool_calls[0].arguments) == {"k": "\U0001f600"}


def test_to_json_is_compact_ascii_and_equals_json_of_to_dict() -> None:
    m = UserMessage("héllo \ud800 👋", metadata={"k": [1, 2.5, None]}, **K)
    text = to_json(m)
    assert text.isascii()
    assert ": " not in text
    assert ", " not in text
    assert json.loads(text) == json.loads(json.dumps(thaw(encode(m))))
    assert "\\ud800" in text
    same(dec_json(text), m)


def test_lists_of_messages() -> None:
    ms = [SystemMessage("s", **K), UserMessage("u"), ToolCallMessage([CALL])]
    ds = to_dict(ms)
    assert isinstance(ds, list)
    assert ds == [encode(m) for m in ms]
    assert to_dict(tuple(ms)) == ds
    back = dec(ds)
    assert isinstance(back, list)
    for a, b in zip(back, ms, strict=True):
        same(a, b)
    back_json = dec_json(to_json(ms))
    assert isinstance(back_json, list)
    for a, b in zip(back_json, ms, strict=True):
        same(a, b)
    assert dec_json(b"[]") == []
    assert to_json([]) == "[]"


def _assert_plain(value: Any, path: str = "") -> None:
    """Only exact dict / list / scalars: nothing frozen, nothing read-only."""
    if isinstance(value, dict):
        assert type(value) is dict, path
        for k, v in value.items():
            _assert_plain(v, f"{path}.{k}")
    elif isinstance(value, (list, tuple)):
        assert type(value) is list, path
        for i, v in enumerate(value):
            _assert_plain(v, f"{path}[{i}]")
    else:
        assert type(value) in (str, int, float, bool, type(None)), path


def test_to_dict_gives_plain_data_the_caller_may_change() -> None:
    m = UserMessage(
        "x",
        metadata={"tags": ["a"], "usage": {"in": 3}},
        extras={"refusal": None, "audio": {"ids": [1]}, "role": ["kept"]},
    )
    d = encode(m)
    assert type(d["metadata"]["tags"]) is list
    assert type(d["metadata"]["usage"]) is dict
    assert type(d["audio"]["ids"]) is list
    assert type(d["extras"]["role"]) is list  # an extra named like a canonical key
    _assert_plain(d)
    d["metadata"]["k"] = 1
    d["metadata"]["tags"].append("b")
    d["audio"]["ids"].append(2)
    d["content"] = "changed"
    assert m.metadata == {"tags": ["a"], "usage": {"in": 3}}
    assert m.extras["audio"] == {"ids": [1]}
    assert m.content == "x"
    assert encode(m)["metadata"] == {"tags": ["a"], "usage": {"in": 3}}


def test_tool_call_extras_come_out_plain() -> None:
    call = ToolCall("c1", "f", {"q": [1]}, extras={"gemini": {"sig": ["s"]}})
    m = ToolCallMessage([call], metadata={"m": [1]})
    for d in (call.to_dict(), encode(m), to_dict([m])[0], _codec.tool_call_to_dict(call)):
        _assert_plain(d)
    assert type(call.to_dict()["gemini"]["sig"]) is list


@given(gen.messages)
def test_to_dict_is_plain_and_to_json_writes_the_same_data(m: Message) -> None:
    d = encode(m)
    _assert_plain(d)
    # to_json builds its text without the copies: the same text as the plain dict's
    assert to_json(m) == json.dumps(d, separators=(",", ":"))
    assert to_json([m, m]) == json.dumps([d, d], separators=(",", ":"))
    same(dec(d), m)


# -- decoding: accepted variants ---------------------------------------------------------


def _calls(m: Message) -> list[tuple[str, str, dict[str, Any]]]:
    return [(c.id, c.name, thaw(c.arguments)) for c in m.tool_calls]


def test_content_as_openai_parts_for_every_role() -> None:
    parts = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    assert dec({"role": "system", "content": parts}).content == "ab"
    assert dec({"role": "developer", "content": parts}).content == "ab"
    assert dec({"role": "user", "content": parts}).content == (TextPart("a"), TextPart("b"))
    assert dec({"role": "assistant", "content": parts}).content == (
        TextPart("a"),
        TextPart("b"),
    )
    tool = dec({"role": "tool", "tool_call_id": "c", "content": parts})
    assert tool.content == (TextPart("a"), TextPart("b"))


def test_arguments_as_object_and_type_missing() -> None:
    m = dec(
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "c1", "function": {"name": "f", "arguments": {"x": [1, {"y": 2}]}}}
            ],
        }
    )
    assert isinstance(m, ToolCallMessage)
    assert _calls(m) == [("c1", "f", {"x": [1, {"y": 2}]})]
    assert m.tool_calls[0].arguments_json == '{"x":[1,{"y":2}]}'


def test_arguments_text_is_kept_exactly_and_parsed_once() -> None:
    raw = '{ "b" : 1,\n  "a": "\\u00e9" }'
    m = dec(
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": raw}}
            ],
        }
    )
    call = m.tool_calls[0]
    assert call.arguments_json is raw
    assert thaw(call.arguments) == {"b": 1, "a": "é"}
    assert encode(m)["tool_calls"][0]["function"]["arguments"] is raw


@pytest.mark.parametrize("blank", ["", "  ", None])
def test_blank_or_missing_arguments_are_an_empty_object(blank: str | None) -> None:
    fn: dict[str, Any] = {"name": "f"}
    if blank is not None:
        fn["arguments"] = blank
    m = dec({"role": "assistant", "tool_calls": [{"id": "c", "function": fn}]})
    assert thaw(m.tool_calls[0].arguments) == {}
    assert m.tool_calls[0].arguments_json == "{}"


def test_legacy_function_call_becomes_one_call_with_a_stable_id() -> None:
    d = {
        "role": "assistant",
        "content": None,
        "function_call": {"name": "f", "arguments": '{"a":1}'},
    }
    a = dec(d)
    b = dec(dict(d))
    assert isinstance(a, ToolCallMessage)
    assert a.content is None
    assert _calls(a) == [(a.tool_calls[0].id, "f", {"a": 1})]
    assert a.tool_calls[0].id == b.tool_calls[0].id
    assert a.tool_calls[0].id.startswith("call_")
    other = dec({**d, "id": "another-message"})
    assert other.tool_calls[0].id != a.tool_calls[0].id
    again = dec(encode(a))
    same(again, a)
    assert "function_call" not in encode(a)


def test_tool_calls_and_function_call_both_given_keeps_the_legacy_one_in_extras() -> None:
    m = dec(
        {
            "role": "assistant",
            "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}],
            "function_call": {"name": "g", "arguments": "{}"},
        }
    )
    assert [c.name for c in m.tool_calls] == ["f"]
    assert thaw(m.extras) == {"function_call": {"name": "g", "arguments": "{}"}}
    same(dec(encode(m)), m)


@pytest.mark.parametrize("content", [None, "MISSING"])
def test_assistant_with_tool_calls_may_have_no_content(content: str | None) -> None:
    d: dict[str, Any] = {
        "role": "assistant",
        "tool_calls": [{"id": "c", "function": {"name": "f"}}],
    }
    if content != "MISSING":
        d["content"] = content
    m = dec(d)
    assert isinstance(m, ToolCallMessage)
    assert m.content is None
    assert "content" not in encode(m)


def test_tool_call_message_content_none_and_empty_stay_distinct() -> None:
    none = ToolCallMessage([CALL], None, **K)
    empty = ToolCallMessage([CALL], "", **K)
    assert "content" not in encode(none)
    assert encode(empty)["content"] == ""
    assert dec(encode(none)).content is None
    assert dec(encode(empty)).content == ""
    assert dec_json(to_json(empty)).content == ""


def test_plain_assistant_with_null_content_reads_as_empty_and_keeps_unknown_keys() -> None:
    m = dec({"role": "assistant", "content": None, "refusal": "no", "tool_calls": []})
    assert type(m) is AssistantMessage
    assert m.content == ""
    assert thaw(m.extras) == {"refusal": "no"}


@pytest.mark.parametrize("role", ["developer", "Developer", " USER ", "assistant", "TOOL"])
def test_roles_in_any_case(role: str) -> None:
    d = {"role": role, "content": "x", "tool_call_id": "c"}
    m = dec(d)
    assert m.role.value == role.strip().lower()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2025-01-02T03:04:05.000006Z", T0),
        ("2025-01-02T03:04:05.000006+00:00", T0),
        ("2025-01-02T05:04:05.000006+02:00", T0),
        ("2025-01-01T22:34:05.000006-04:30", T0),
        ("2025-01-02T03:04:05Z", T0.replace(microsecond=0)),
        ("2025-01-02T03:04:05.123+00:00", T0.replace(microsecond=123000)),
        ("2025-01-02 03:04:05.000006Z", T0),
    ],
)
def test_created_at_with_any_offset_is_normalised_to_utc(text: str, expected: datetime) -> None:
    m = dec({"role": "user", "content": "x", "created_at": text})
    assert m.created_at == expected
    assert m.created_at.tzinfo is UTC
    assert encode(m)["created_at"] == _timestamps.iso_utc(expected)


def test_created_at_as_an_aware_datetime_is_accepted() -> None:
    d = {"role": "user", "content": "x", "created_at": T0.astimezone(timezone(timedelta(hours=9)))}
    m = dec(d)
    assert m.created_at == T0
    assert m.created_at.tzinfo is UTC


def test_z_suffix_fallback_reads_a_lowercase_z() -> None:
    # RFC 3339 allows a lowercase "z", which datetime.fromisoformat does not read.
    assert _timestamps._fromiso_z("2025-01-02T03:04:05.000006Z", "created_at") == T0
    assert _timestamps._fromiso_z("2025-01-02T03:04:05.000006z", "created_at") == T0
    with pytest.raises(DecodeError) as e:
        _timestamps._fromiso_z("not a time", "created_at")
    assert e.value.path == "created_at"


@pytest.mark.parametrize(
    "dt",
    [
        T0,
        T0.replace(microsecond=0),
        datetime(1, 1, 1, tzinfo=UTC),
        datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
        datetime(2025, 6, 1, 12, tzinfo=timezone(timedelta(hours=-7))),
    ],
)
def test_iso_utc_format(dt: datetime) -> None:
    text = _timestamps.iso_utc(dt)
    u = dt.astimezone(UTC)
    assert text == (
        f"{u.year:04d}-{u.month:02d}-{u.day:02d}T{u.hour:02d}:{u.minute:02d}:{u.second:02d}"
        f".{u.microsecond:06d}Z"
    )
    assert text == _timestamps._format_iso(dt)  # the cache gives what formatting gives
    assert _timestamps.parse_created_at(text) == dt


def test_null_optional_fields_count_as_absent() -> None:
    d = {
        "role": "user",
        "content": "x",
        "id": None,
        "name": None,
        "metadata": None,
        "extras": None,
        "created_at": None,
        "tool_calls": None,
        "tool_call_id": None,
        "function_call": None,
    }
    m = dec(d)
    assert m == UserMessage("x")
    assert m.extras == {}
    assert m.id  # generated


@pytest.mark.parametrize(
    "d",
    [
        {"role": "user", "content": "x"},
        {"role": "system", "content": "x"},
        {"role": "assistant", "content": "x"},
        {"role": "tool", "tool_call_id": "c1", "content": "x"},
        {"role": "tool", "tool_call_id": "c1", "content": "x", "is_error": None},
        {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "f"}}]},
    ],
)
@pytest.mark.parametrize(
    "nulls",
    [{"id": None}, {"created_at": None}, {"id": None, "created_at": None, "tool_name": None}],
)
def test_a_null_key_reads_as_the_key_absent_in_every_decoder(
    d: dict[str, Any], nulls: dict[str, Any]
) -> None:
    # the decoders count the keys they read, a null one too: the dict must still
    # decode to what it decodes to without the key (no extras, fresh id and stamp)
    if "tool_name" in nulls and d["role"] != "tool":
        nulls = {k: v for k, v in nulls.items() if k != "tool_name"}
    with_nulls = dec({**d, **nulls})
    plain = dec(d)
    assert type(with_nulls) is type(plain)
    assert with_nulls.extras == {} and with_nulls.name is None and with_nulls.cache is None
    assert with_nulls.id and with_nulls.id != plain.id
    assert with_nulls == dataclasses.replace(
        plain, id=with_nulls.id, created_at=with_nulls.created_at
    )


def test_missing_id_and_created_at_are_generated() -> None:
    a = dec({"role": "user", "content": "x"})
    b = dec({"role": "user", "content": "x"})
    assert a.id != b.id
    assert a.created_at.tzinfo is UTC


def test_image_url_as_a_plain_string_and_data_urls() -> None:
    m = dec(
        {
            "role": "user",
            "content": [
                {"type": "image_url", "image_url": "https://x.test/i.png"},
                {
                    "type": "image_url",
                    "image_url": {"url": "data:image/png;base64,AAAA", "detail": "high"},
                },
                {"type": "image_url", "image_url": {"url": "data:text/plain,hello"}},
            ],
        }
    )
    assert m.content == (
        ImagePart(url="https://x.test/i.png"),
        ImagePart(data="AAAA", media_type="image/png", detail="high"),
        ImagePart(url="data:text/plain,hello"),  # not base64: stays a URL
    )


def test_a_data_url_given_as_image_url_decodes_as_inline_data() -> None:
    # Documented normalisation: ImagePart(url="data:...;base64,...") and
    # ImagePart.from_data_url(...) have the same canonical form.
    url = "data:image/png;base64,AAAA"
    m = UserMessage([ImagePart(url=url)])
    assert dec(encode(m)).content == (ImagePart.from_data_url(url),)


@pytest.mark.parametrize(
    "part",
    [
        FilePart(data="JVBE", media_type="application/pdf"),
        FilePart(data="JVBE"),
        FilePart(data="data:x;base64,abc"),
        FilePart(data="JVBE", media_type="text/plain; charset=utf-8"),
        FilePart(data="JVBE", media_type=""),
        FilePart(file_id="file-1", media_type="application/pdf", filename="a.pdf"),
        FilePart(data="", file_id="f", media_type="a/b"),
        ImagePart(data="AAAA", media_type="image/png; q=1", detail="auto"),
        ImagePart(data="AAAA", media_type=" image/png"),
    ],
)
def test_media_types_round_trip_exactly(part: FilePart | ImagePart) -> None:
    m = UserMessage([part], **K)
    same(dec(encode(m)), m)
    assert part.to_dict() == encode(m)["content"][0]
    assert type(part).from_dict(part.to_dict()) == part


def test_unknown_keys_go_to_extras_and_come_back_out() -> None:
    d = {
        "role": "assistant",
        "content": "x",
        "id": "m",
        "created_at": T0_TEXT,
        "refusal": None,
        "annotations": [{"type": "url"}],
        "audio": {"id": "a"},
    }
    m = dec(d)
    assert thaw(m.extras) == {
        "refusal": None,
        "annotations": [{"type": "url"}],
        "audio": {"id": "a"},
    }
    assert json.loads(to_json(m)) == d


def test_stored_extras_merge_with_unknown_keys_and_win_on_a_clash() -> None:
    m = dec({"role": "user", "content": "x", "a": 1, "b": 2, "extras": {"b": 3, "role": "r"}})
    assert thaw(m.extras) == {"a": 1, "b": 3, "role": "r"}
    same(dec(encode(m)), m)


def test_tool_call_unknown_keys_are_the_calls_extras() -> None:
    d = {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "c",
                "type": "function",
                "function": {"name": "f", "arguments": "{}"},
                "thought_signature": "opaque",
                "extras": {"id": "kept", "provider": "gemini"},
            }
        ],
    }
    m = dec(d)
    call = m.tool_calls[0]
    assert thaw(call.extras) == {"thought_signature": "opaque", "id": "kept", "provider": "gemini"}
    out = encode(m)["tool_calls"][0]
    assert out["thought_signature"] == "opaque"
    assert out["provider"] == "gemini"
    assert out["extras"] == {"id": "kept"}
    same(dec(encode(m)), m)


def test_mappings_and_tuples_are_accepted_as_input() -> None:
    from messages._frozen import FrozenDict

    d = FrozenDict({"role": "user", "content": ({"type": "text", "text": "x"},)})
    assert dec(d).content == (TextPart("x"),)
    assert dec((d,))[0].content == (TextPart("x"),)
    assert dec({"role": "user", "content": ["x", {"type": "text", "text": "y"}]}).content == (
        TextPart("x"),
        TextPart("y"),
    )


# -- decoding: refusals -------------------------------------------------------------------

GOOD_CALL = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}

REFUSED: list[tuple[str, Any, str, str]] = [
    ("not an object", 5, "$", "expected a message object or an array"),
    ("no role", {"content": "x"}, "role", "role is required"),
    ("role not a string", {"role": 3, "content": "x"}, "role", "role must be a string"),
    ("unknown role", {"role": "wizard", "content": "x"}, "role", "unknown role 'wizard'"),
    ("user without content", {"role": "user"}, "content", "content is required"),
    (
        "system with a number",
        {"role": "system", "content": 5},
        "content",
        "expected a string or an array",
    ),
    (
        "system with an image",
        {"role": "system", "content": [{"type": "image_url", "image_url": "u"}]},
        "content[0].type",
        "image_url parts are not allowed",
    ),
    (
        "assistant with audio",
        {"role": "assistant", "content": [{"type": "input_audio"}]},
        "content[0].type",
        "input_audio parts are not allowed",
    ),
    (
        "unknown part type",
        {"role": "user", "content": [{"type": "video"}]},
        "content[0].type",
        "unknown part type 'video'",
    ),
    (
        "part type missing",
        {"role": "user", "content": [{"text": "x"}]},
        "content[0].type",
        "part type is required",
    ),
    (
        "part not an object",
        {"role": "user", "content": [1]},
        "content[0]",
        "expected a part object",
    ),
    (
        "text not a string",
        {"role": "user", "content": [{"type": "text", "text": 1}]},
        "content[0].text",
        "expected a string",
    ),
    (
        "bad detail",
        {
            "role": "user",
            "content": [{"type": "image_url", "image_url": {"url": "u", "detail": "max"}}],
        },
        "content[0].image_url.detail",
        "detail must be one of",
    ),
    (
        "empty image url",
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": ""}}]},
        "content[0].image_url.url",
        "must not be empty",
    ),
    (
        "audio without format",
        {"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "x"}}]},
        "content[0].input_audio.format",
        "a format is required",
    ),
    (
        "file without data or id",
        {"role": "user", "content": [{"type": "file", "file": {"filename": "a"}}]},
        "content[0].file",
        "at least one of file_data or file_id",
    ),
    (
        "reasoning redacted not bool",
        {"role": "assistant", "content": [{"type": "reasoning", "text": "x", "redacted": "yes"}]},
        "content[0].redacted",
        "expected a boolean",
    ),
    (
        "tool_calls not a list",
        {"role": "assistant", "tool_calls": {"id": "c"}},
        "tool_calls",
        "expected an array of tool calls",
    ),
    (
        "tool call not an object",
        {"role": "assistant", "tool_calls": ["c"]},
        "tool_calls[0]",
        "expected a tool call object",
    ),
    (
        "tool call without id",
        {"role": "assistant", "tool_calls": [{"function": {"name": "f"}}]},
        "tool_calls[0].id",
        "tool call id is required",
    ),
    (
        "tool call of another type",
        {"role": "assistant", "tool_calls": [{**GOOD_CALL, "type": "custom"}]},
        "tool_calls[0].type",
        "unsupported tool call type",
    ),
    (
        "tool call without function",
        {"role": "assistant", "tool_calls": [{"id": "c"}]},
        "tool_calls[0].function",
        "expected an object with name and arguments",
    ),
    (
        "duplicate call ids",
        {"role": "assistant", "tool_calls": [GOOD_CALL, GOOD_CALL]},
        "tool_calls[1].id",
        "duplicate tool call id",
    ),
    (
        "tool without call id",
        {"role": "tool", "content": "x"},
        "tool_call_id",
        "tool_call_id is required",
    ),
    (
        "tool with empty call id",
        {"role": "tool", "content": "x", "tool_call_id": ""},
        "tool_call_id",
        "must not be empty",
    ),
    (
        "tool with reasoning",
        {"role": "tool", "tool_call_id": "c", "content": [{"type": "reasoning", "text": "x"}]},
        "content[0].type",
        "reasoning parts are not allowed",
    ),
    (
        "is_error not bool",
        {"role": "tool", "tool_call_id": "c", "content": "x", "is_error": "yes"},
        "is_error",
        "expected a boolean",
    ),
    (
        "empty tool_name",
        {"role": "tool", "tool_call_id": "c", "content": "x", "tool_name": ""},
        "tool_name",
        "must not be empty",
    ),
    ("id not a string", {"role": "user", "content": "x", "id": 5}, "id", "expected a string"),
    ("empty id", {"role": "user", "content": "x", "id": ""}, "id", "id must not be empty"),
    ("name not a string", {"role": "user", "content": "x", "name": 1}, "name", "expected a string"),
    (
        "metadata not an object",
        {"role": "user", "content": "x", "metadata": [1]},
        "metadata",
        "expected an object, got array",
    ),
    (
        "metadata with NaN",
        {"role": "user", "content": "x", "metadata": {"a": [float("nan")]}},
        "metadata.a[0]",
        "non-finite",
    ),
    (
        "extras not an object",
        {"role": "user", "content": "x", "extras": "e"},
        "extras",
        "expected an object, got string",
    ),
    (
        "unknown key with a bad value",
        {"role": "user", "content": "x", "weird": {1, 2}},
        "weird",
        "unsupported type set",
    ),
    ("non-string key", {"role": "user", "content": "x", 7: "v"}, "$", "object key of type int"),
    (
        "naive created_at",
        {"role": "user", "content": "x", "created_at": "2025-01-02T03:04:05"},
        "created_at",
        "no UTC offset",
    ),
    (
        "created_at not a time",
        {"role": "user", "content": "x", "created_at": "yesterday"},
        "created_at",
        "expected an ISO 8601 timestamp",
    ),
    (
        "created_at a number",
        {"role": "user", "content": "x", "created_at": 1700000000},
        "created_at",
        "expected an ISO 8601 string, got integer",
    ),
    (
        "created_at out of range in UTC",
        {"role": "user", "content": "x", "created_at": "9999-12-31T23:59:59-01:00"},
        "created_at",
        "out of range",
    ),
    (
        "list item not an object",
        [{"role": "user", "content": "x"}, 3],
        "[1]",
        "expected a message object",
    ),
    (
        "list item bad",
        [
            {"role": "user", "content": "x"},
            {"role": "user", "content": "x"},
            {"role": "user", "content": "x"},
            {"role": "assistant", "tool_calls": [{"id": "c", "function": "f"}]},
        ],
        "[3].tool_calls[0].function",
        "expected an object with name and arguments",
    ),
]


@pytest.mark.parametrize(
    ("value", "path", "fragment"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_refused_input_names_the_path(value: Any, path: str, fragment: str) -> None:
    with pytest.raises(DecodeError) as e:
        dec(value)
    assert e.value.path == path
    assert fragment in e.value.message
    assert type(e.value) is DecodeError


# A malformed call (a bad name, arguments that are not a JSON object) is not a reason
# to refuse the conversation: it decodes as an InvalidToolCall holding what was
# written, and the message keeps it (API.md "Invalid tool calls travel with the message").
MALFORMED_CALLS = [
    ("tool name missing", {"id": "bad", "function": {}}, None, "", "tool name is required"),
    (
        "tool name invalid",
        {"id": "bad", "function": {"name": "a b"}},
        "a b",
        "",
        "invalid tool name",
    ),
    (
        "arguments not JSON",
        {"id": "bad", "function": {"name": "f", "arguments": "{"}},
        "f",
        "{",
        "invalid JSON",
    ),
    (
        "arguments a JSON array",
        {"id": "bad", "function": {"name": "f", "arguments": "[1]"}},
        "f",
        "[1]",
        "arguments must be a JSON object, got array",
    ),
    (
        "arguments a number",
        {"id": "bad", "function": {"name": "f", "arguments": 3}},
        "f",
        "3",
        "arguments must be a JSON object, got integer",
    ),
    (
        "arguments overflow to infinity",
        {"id": "bad", "function": {"name": "f", "arguments": '{"x": 1e999}'}},
        "f",
        '{"x": 1e999}',
        "non-finite",
    ),
    (
        "truncated arguments",
        {"id": "bad", "function": {"name": "get_weather", "arguments": '{"city": "Par'}},
        "get_weather",
        '{"city": "Par',
        "invalid JSON",
    ),
]


@pytest.mark.parametrize(
    ("call", "name", "raw", "fragment"),
    [r[1:] for r in MALFORMED_CALLS],
    ids=[r[0] for r in MALFORMED_CALLS],
)
def test_a_malformed_call_decodes_as_an_invalid_call(
    call: dict[str, Any], name: str | None, raw: str, fragment: str
) -> None:
    m = dec({"role": "assistant", "content": "ok", "tool_calls": [call, GOOD_CALL]})
    assert type(m) is ToolCallMessage
    assert m.tool_calls == (ToolCall.from_dict(GOOD_CALL),)
    (bad,) = m.invalid_tool_calls
    assert (bad.id, bad.name, bad.raw_arguments) == ("bad", name, raw)
    assert fragment in bad.error
    again = dec(encode(m))  # the raw text and the error come back as they were
    same(again, m)
    assert again.invalid_tool_calls == m.invalid_tool_calls


def test_a_legacy_function_call_with_bad_arguments_is_an_invalid_call() -> None:
    m = dec({"role": "assistant", "function_call": {"name": "f", "arguments": "[]"}})
    assert m.tool_calls == ()
    (bad,) = m.invalid_tool_calls
    assert (bad.name, bad.raw_arguments) == ("f", "[]")
    again = dec({"role": "assistant", "function_call": {"name": "f", "arguments": "[]"}})
    assert again.invalid_tool_calls[0].id == bad.id  # derived from the message: stable


def test_a_plain_assistant_class_refuses_tool_calls_it_cannot_hold() -> None:
    # Only reachable with a registry that sends tool-call dicts to a plain assistant class.
    from messages._message_codec import DECODERS

    with pytest.raises(DecodeError) as e:
        DECODERS[AssistantMessage](
            AssistantMessage, {"role": "assistant", "tool_calls": [GOOD_CALL]}
        )
    assert e.value.path == "tool_calls"
    assert "cannot hold tool calls" in e.value.message


# -- Message.from_dict / to_dict methods ---------------------------------------------------


def test_message_methods_match_the_module_functions() -> None:
    m = UserMessage("x", **K)
    assert m.to_dict() == to_dict(m)
    same(Message.from_dict(m.to_dict()), m)
    same(UserMessage.from_dict(m.to_dict()), m)


def test_subclass_from_dict_checks_the_class() -> None:
    tool_calls = {"role": "assistant", "tool_calls": [GOOD_CALL]}
    assert type(AssistantMessage.from_dict(tool_calls)) is ToolCallMessage
    with pytest.raises(
        DecodeError, match="expected a UserMessage, but the dict decodes as a ToolCallMessage"
    ):
        UserMessage.from_dict(tool_calls)
    with pytest.raises(DecodeError, match="at least one tool call"):
        ToolCallMessage.from_dict({"role": "assistant", "content": "x"})
    with pytest.raises(DecodeError, match="expected a message object, got array"):
        UserMessage.from_dict([])  # type: ignore[arg-type]


# -- other values ------------------------------------------------------------------------


def test_tool_result_and_delta_shapes() -> None:
    r = ToolResult("c", (TextPart("a"), ImagePart(url="u")), True, "f")
    assert r.to_dict() == {
        "tool_call_id": "c",
        "content": [
            {"type": "text", "text": "a"},
            {"type": "image_url", "image_url": {"url": "u"}},
        ],
        "is_error": True,
        "tool_name": "f",
    }
    assert to_dict(ToolResult("c", "")) == {"tool_call_id": "c", "content": ""}
    assert ToolCallDelta(2).to_dict() == {"index": 2, "function": {}}
    assert to_dict(ToolCallDelta(0, "c", "f", "{")) == {
        "index": 0,
        "id": "c",
        "type": "function",
        "function": {"name": "f", "arguments": "{"},
    }


@pytest.mark.parametrize(
    ("fn", "value", "path"),
    [
        (ToolResult.from_dict, {"content": "x"}, "tool_call_id"),
        (ToolResult.from_dict, {"tool_call_id": "c"}, "content"),
        (ToolResult.from_dict, {"tool_call_id": "c", "content": "x", "is_error": 1}, "is_error"),
        (ToolCallDelta.from_dict, {"index": -1}, "index"),
        (ToolCallDelta.from_dict, {"index": True}, "index"),
        (ToolCallDelta.from_dict, {"index": 0, "function": {"name": 3}}, "function.name"),
        (ToolCallDelta.from_dict, {"index": 0, "type": "x"}, "type"),
        (
            ToolCall.from_dict,
            {"id": "c", "function": {"name": "f", "arguments": "x"}},
            "function.arguments",
        ),
        (TextPart.from_dict, {"type": "image_url", "image_url": "u"}, "type"),
        (ImagePart.from_dict, {"type": "image_url"}, "image_url"),
    ],
)
def test_value_decoders_refuse_with_paths(fn: Any, value: Any, path: str) -> None:
    with pytest.raises(DecodeError) as e:
        fn(value)
    assert e.value.path == path


def test_part_from_dict_of_any_type() -> None:
    for p in (
        TextPart("x"),
        ImagePart(url="u"),
        AudioPart("d", "mp3"),
        FilePart(file_id="f"),
        ReasoningPart("r"),
    ):
        assert _codec.part_from_dict(p.to_dict()) == p
        assert to_dict(p) == p.to_dict()
    with pytest.raises(ValidationError, match="not a content part class"):
        _codec.part_from_dict({"type": "text", "text": "x"}, ToolCall)  # type: ignore[type-var]


def test_tool_definitions_encode_through_their_own_method() -> None:
    from messages import ToolDefinition

    td = ToolDefinition("get_weather", "Weather for a city.", {"type": "object", "properties": {}})
    assert to_dict(td) == td.to_dict()
    assert to_dict([td]) == [td.to_dict()]


def test_encoding_something_else_is_a_clear_error() -> None:
    with pytest.raises(ValidationError, match="cannot encode dict"):
        to_dict({"role": "user"})  # type: ignore[call-overload]
    with pytest.raises(ValidationError) as e:
        to_dict([UserMessage("x"), object()])  # type: ignore[list-item]
    assert e.value.path == "[1]"


def test_user_subclasses_encode_as_their_built_in_base() -> None:
    class Note(UserMessage):
        __slots__ = ()

    n = Note("x", **K)
    assert encode(n) == encode(UserMessage("x", **K))
    assert to_dict([n]) == [encode(n)]


def test_sequences_of_messages_encode_as_lists() -> None:
    from collections import UserList

    seq: UserList[Message] = UserList([UserMessage("x", **K)])
    assert to_dict(seq) == [encode(UserMessage("x", **K))]


def test_to_json_refuses_what_json_cannot_write() -> None:
    m = UserMessage("x", metadata={"big": 10**5000})
    with pytest.raises(ValidationError, match="cannot be written as JSON"):
        to_json(m)


# -- round trips (hypothesis) -------------------------------------------------------------


@given(gen.messages)
def test_round_trip_through_dict(m: Message) -> None:
    d = encode(m)
    back = dec(d)
    same(back, m)
    assert encode(back) == d  # the canonical form is stable


@given(gen.messages)
def test_round_trip_through_json(m: Message) -> None:
    text = to_json(m)
    assert not list(VALIDATOR.iter_errors(json.loads(text)))
    back = dec_json(text)
    same(back, m)
    assert to_json(back) == text
    assert dec_json(text.encode("utf-8")) == m


@given(gen.message_lists)
def test_round_trip_of_lists(ms: list[Message]) -> None:
    for d in to_dict(ms):
        assert not list(VALIDATOR.iter_errors(d))
    back = dec_json(to_json(ms))
    assert isinstance(back, list)
    assert len(back) == len(ms)
    for a, b in zip(back, ms, strict=True):
        same(a, b)


@given(gen.any_parts)
def test_round_trip_of_parts(p: Any) -> None:
    d = p.to_dict()
    assert type(p).from_dict(d) == p
    assert _codec.part_from_dict(json.loads(json.dumps(d))) == p


@given(gen.tool_calls)
def test_round_trip_of_tool_calls(c: ToolCall) -> None:
    back = ToolCall.from_dict(json.loads(json.dumps(thaw(c.to_dict()))))
    assert back == c
    assert back.arguments_json == c.arguments_json


@given(gen.tool_results)
def test_round_trip_of_tool_results(r: ToolResult) -> None:
    assert ToolResult.from_dict(json.loads(json.dumps(r.to_dict()))) == r


@given(gen.tool_call_deltas)
def test_round_trip_of_deltas(delta: ToolCallDelta) -> None:
    assert ToolCallDelta.from_dict(json.loads(json.dumps(delta.to_dict()))) == delta


@given(gen.messages, st.sampled_from(["[]", "{}"]))
def test_fresh_messages_encode_their_generated_id_and_time(m: Message, _: str) -> None:
    fresh = type(m).from_dict({k: v for k, v in encode(m).items() if k not in ("id", "created_at")})
    d = encode(fresh)  # id and created_at not read before: formatted by the encoder
    assert d["id"] == fresh.id
    assert d["created_at"] == _timestamps.iso_utc(fresh.created_at)


@pytest.mark.parametrize(
    "role", [None, ["user"], {"a": 1}, 5, "SENTINEL-not-a-role", "Assistant ", b"user"]
)
def test_a_role_off_the_fast_path_fails_alone_with_its_own_error(role: Any) -> None:
    # the decoder looks a dict's role up by subscript; what is not a plain role key
    # goes the general way, and its error carries no KeyError or TypeError behind it
    d = {"role": role, "content": "x"}
    for value, where in ((d, "role"), ([d], "[0].role")):
        if role == "Assistant ":  # read as a role, in both ways
            out = dec(value)
            assert type(out[0] if isinstance(out, list) else out) is AssistantMessage
            continue
        with pytest.raises(DecodeError) as info:
            dec(value)
        assert info.value.path == where
        assert info.value.__context__ is None or info.value.__suppress_context__
        assert info.value.__cause__ is None


def test_an_object_equal_to_a_role_string_is_not_a_role() -> None:
    from collections import UserString

    d = {"role": UserString("user"), "content": "x"}
    for value, where in ((d, "role"), ([d], "[0].role")):
        with pytest.raises(DecodeError) as info:
            dec(value)
        assert info.value.path == where


def test_an_object_with_no_encoder_fails_alone() -> None:
    encoders: list[Any] = [to_dict, to_json]
    for encode in encoders:
        with pytest.raises(ValidationError) as info:
            encode(object())
        assert info.value.__context__ is None
