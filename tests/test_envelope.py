"""The agents-api message envelope (seed 002, API.md "Envelope")."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import (
    AssistantMessage,
    AudioPart,
    DecodeError,
    DeveloperMessage,
    Envelope,
    EnvelopeType,
    FilePart,
    ImagePart,
    Message,
    MessageError,
    MessageRole,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
    ValidationError,
    to_provider_messages,
)
from messages._envelope import (
    MESSAGE_EXTRAS_KEY,
    SCHEMA,
    TIMESTAMP_FORMAT,
    UNKNOWN_FIELDS_KEY,
    VERSION,
    format_timestamp,
)
from tests.conftest import SECRET

# -- the seed's example, verbatim -----------------------------------------------------

SEED_LEGACY_ROW: dict[str, Any] = {
    "role": "assistant",
    "content": "AI ACTION (Turn 1): Executing Wiki Upsert",
    "metadata": {
        "type": "tool_call",
        "tool_name": "wiki_upsert",
        "parameters": {"title": "Example"},
        "turn": 1,
    },
}

SEED_NORMALIZED: dict[str, Any] = {
    "schema": "agents-api.message",
    "version": 1,
    "type": "tool_call",
    "role": "assistant",
    "content": "AI ACTION (Turn 1): Executing Wiki Upsert",
    "payload": {
        "tool_name": "wiki_upsert",
        "parameters": {"title": "Example"},
        "turn": 1,
    },
    "metadata": {
        "type": "tool_call",
        "tool_name": "wiki_upsert",
        "parameters": {"title": "Example"},
        "turn": 1,
    },
}


def test_seed_legacy_tool_call_normalises_to_exactly_the_seed_result() -> None:
    env = Envelope.normalize(copy.deepcopy(SEED_LEGACY_ROW))
    assert env.to_dict() == SEED_NORMALIZED
    assert list(env.to_dict()) == list(SEED_NORMALIZED)  # same keys, no extra optional ones


def test_seed_result_is_a_fixed_point_and_projects_back_to_the_legacy_row() -> None:
    env = Envelope.normalize(SEED_LEGACY_ROW)
    assert Envelope.normalize(SEED_NORMALIZED) == env
    assert Envelope.normalize(env.to_dict()) == env
    assert env.to_provider_message() == SEED_LEGACY_ROW
    assert to_provider_messages([SEED_LEGACY_ROW, env]) == [SEED_LEGACY_ROW, SEED_LEGACY_ROW]


def test_seed_example_to_message() -> None:
    m = Envelope.normalize(SEED_LEGACY_ROW).to_message()
    assert isinstance(m, ToolCallMessage)
    assert m.text == "AI ACTION (Turn 1): Executing Wiki Upsert"
    (call,) = m.tool_calls
    assert (call.name, dict(call.arguments)) == ("wiki_upsert", {"title": "Example"})
    assert call.id.startswith("call_")
    assert m.metadata == SEED_LEGACY_ROW["metadata"]
    # the turn number has no message field: kept in extras, restored by from_message
    assert m.extras == {MESSAGE_EXTRAS_KEY: {"payload": {"turn": 1}}}
    back = Envelope.from_message(m)
    assert back.payload["turn"] == 1
    assert back.payload["tool_name"] == "wiki_upsert"
    assert MESSAGE_EXTRAS_KEY not in back.payload.get("message_extras", {})


# -- types and constants ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("member", "value"),
    [
        (EnvelopeType.TEXT, "text"),
        (EnvelopeType.TOOL_CALL, "tool_call"),
        (EnvelopeType.TOOL_RESULT, "tool_result"),
        (EnvelopeType.INPUT_REQUIRED, "input_required"),
        (EnvelopeType.APPROVAL_REQUIRED, "approval_required"),
        (EnvelopeType.FINAL_RESULT, "final_result"),
        (EnvelopeType.ERROR, "error"),
        (EnvelopeType.DELTA, "delta"),
        (EnvelopeType.MULTIMODAL_PART, "multimodal_part"),
    ],
)
def test_envelope_types(member: EnvelopeType, value: str) -> None:
    assert member.value == value == member.name.lower() == str(member)
    assert EnvelopeType.parse(value) is member
    assert EnvelopeType.parse(f" {value.upper()} ") is member
    assert Envelope(value, "user").type is member


def test_there_are_nine_types() -> None:
    assert len(EnvelopeType) == 9


def test_schema_and_version_constants() -> None:
    env = Envelope("text", "user", "hi")
    assert SCHEMA == env.schema == Envelope.schema == "agents-api.message"
    assert VERSION == env.version == Envelope.version == 1
    assert "schema" not in {f.name for f in dataclasses.fields(Envelope)}


# -- construction and validation --------------------------------------------------------


def test_defaults() -> None:
    env = Envelope(EnvelopeType.TEXT, MessageRole.USER)
    assert env.content == ""
    assert env.payload == {} and env.metadata == {}
    assert env.id is None and env.created_at is None and env.updated_at is None
    assert env.to_dict() == {
        "schema": SCHEMA,
        "version": 1,
        "type": "text",
        "role": "user",
        "content": "",
        "payload": {},
        "metadata": {},
    }


@pytest.mark.parametrize("role", ["user", "USER", " User ", MessageRole.USER])
def test_role_is_parsed(role: Any) -> None:
    assert Envelope("text", role).role is MessageRole.USER


@pytest.mark.parametrize(
    ("kwargs", "path", "fragment"),
    [
        ({"type": "nope"}, "type", "unknown envelope type"),
        ({"type": 3}, "type", "must be a string"),
        ({"role": "robot"}, "role", "valid roles"),
        ({"role": None}, "role", "valid roles"),
        ({"content": 5}, "content", "got integer"),
        ({"content": {"type": "text"}}, "content", "got object"),
        ({"content": ["text"]}, "content[0]", "content block object"),
        ({"content": [{"type": "x", "v": {1, 2}}]}, "content[0].v", "unsupported type set"),
        ({"payload": {"a": {"b": object()}}}, "payload.a.b", "unsupported type object"),
        ({"payload": {"a": [1, float("nan")]}}, "payload.a[1]", "non-finite"),
        ({"payload": ["a"]}, "payload", "expected a mapping"),
        ({"payload": {1: "a"}}, "payload", "keys must be strings"),
        ({"metadata": {"x": b"raw"}}, "metadata.x", "unsupported type bytes"),
        ({"id": ""}, "id", "non-empty"),
        ({"id": 7}, "id", "got integer"),
        ({"created_at": 1700000000}, "created_at", "got integer"),
        ({"updated_at": datetime(2026, 1, 1)}, "updated_at", "timezone-aware"),
    ],
)
def test_constructor_rejects(kwargs: dict[str, Any], path: str, fragment: str) -> None:
    args: dict[str, Any] = {"type": "text", "role": "user", **kwargs}
    with pytest.raises(ValidationError) as info:
        Envelope(**args)
    assert info.value.path == path
    assert fragment in info.value.message


def test_payload_and_metadata_are_deeply_frozen() -> None:
    payload = {"items": [1, {"k": "v"}]}
    env = Envelope("tool_result", "tool", "ok", payload, {"m": [1]})
    payload["items"].append(2)
    assert env.payload == {"items": (1, {"k": "v"})}
    with pytest.raises(TypeError):
        env.payload["x"] = 1  # type: ignore[index]
    with pytest.raises(TypeError):
        env.payload["items"][1]["k"] = "w"
    with pytest.raises(dataclasses.FrozenInstanceError):
        env.role = MessageRole.USER  # type: ignore[misc]
    assert isinstance(env.payload["items"], tuple)
    assert hash(env) == hash(
        Envelope("tool_result", "tool", "ok", payload | {"items": [1, {"k": "v"}]}, {"m": [1]})
    )


def test_content_blocks_are_frozen_tuples() -> None:
    blocks = [{"type": "text", "text": "hi"}]
    env = Envelope("text", "user", blocks)
    blocks[0]["text"] = "changed"
    assert env.content == ({"type": "text", "text": "hi"},)
    assert env.to_dict()["content"] == [{"type": "text", "text": "hi"}]


def test_replace_pickle_copy_and_equality() -> None:
    env = Envelope("text", "user", "hi", {"a": 1}, id="e1", created_at="2026-04-28 12:00:00")
    assert pickle.loads(pickle.dumps(env)) == env
    assert copy.deepcopy(env) == env
    other = dataclasses.replace(env, type=EnvelopeType.FINAL_RESULT)
    assert other.type is EnvelopeType.FINAL_RESULT and other.id == "e1"
    assert other != env
    with pytest.raises(ValidationError):
        dataclasses.replace(env, role="robot")  # type: ignore[arg-type]


# -- timestamps ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "stamp",
    ["2026-04-28 12:00:00", "2026-04-28T12:00:00Z", "yesterday", "", "0000-00-00 00:00:00"],
)
def test_timestamp_strings_are_kept_exactly(stamp: str) -> None:
    env = Envelope("text", "user", created_at=stamp, updated_at=stamp)
    assert env.created_at == env.updated_at == stamp
    again = Envelope.normalize({"role": "user", "created_at": stamp, "updated_at": stamp})
    assert again.created_at == again.updated_at == stamp
    assert Envelope.normalize(env.to_dict()) == env


@pytest.mark.parametrize(
    ("when", "text"),
    [
        (datetime(2026, 4, 28, 12, 0, tzinfo=UTC), "2026-04-28T12:00:00.000000Z"),
        (
            datetime(2026, 4, 28, 14, 0, 0, 5, tzinfo=timezone(timedelta(hours=2))),
            "2026-04-28T12:00:00.000005Z",
        ),
        (datetime(5, 1, 2, 3, 4, 5, tzinfo=UTC), "0005-01-02T03:04:05.000000Z"),
    ],
)
def test_generated_timestamps_have_one_format(when: datetime, text: str) -> None:
    assert format_timestamp(when) == text
    assert Envelope("text", "user", created_at=when).created_at == text
    assert datetime.strptime(text, TIMESTAMP_FORMAT).replace(tzinfo=UTC) == when


def test_from_message_formats_created_at() -> None:
    when = datetime(2026, 4, 28, 12, 0, 1, 250, tzinfo=UTC)
    env = Envelope.from_message(UserMessage("hi", created_at=when))
    assert env.created_at == "2026-04-28T12:00:01.000250Z"
    assert env.to_message().created_at == when


@pytest.mark.parametrize(
    ("stamp", "expected"),
    [
        ("2026-04-28 12:00:00", datetime(2026, 4, 28, 12, tzinfo=UTC)),  # no offset: UTC
        ("2026-04-28T12:00:00Z", datetime(2026, 4, 28, 12, tzinfo=UTC)),
        ("2026-04-28T14:00:00+02:00", datetime(2026, 4, 28, 12, tzinfo=UTC)),
        ("2026-04-28T12:00:00.123456Z", datetime(2026, 4, 28, 12, 0, 0, 123456, tzinfo=UTC)),
    ],
)
def test_to_message_reads_iso_timestamps(stamp: str, expected: datetime) -> None:
    m = Envelope("text", "user", "hi", created_at=stamp).to_message()
    assert m.created_at == expected
    # the original string comes back exactly when the message is enveloped again
    assert Envelope.from_message(m).created_at == stamp


def test_to_message_rejects_a_timestamp_it_cannot_read() -> None:
    with pytest.raises(ValidationError) as info:
        Envelope("text", "user", "hi", created_at=SECRET).to_message()
    assert info.value.path == "created_at"
    assert SECRET not in str(info.value)


def test_updated_at_survives_the_message_round_trip() -> None:
    env = Envelope("text", "user", "hi", id="u1", updated_at="2026-04-29 08:00:00")
    m = env.to_message()
    assert m.extras[MESSAGE_EXTRAS_KEY]["updated_at"] == "2026-04-29 08:00:00"
    assert Envelope.from_message(m).updated_at == "2026-04-29 08:00:00"


# -- normalize --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (  # legacy text row: no type in metadata
            {"role": "user", "content": "hi", "metadata": {"source": "web"}},
            {"type": "text", "payload": {}, "metadata": {"source": "web"}},
        ),
        (  # legacy row without metadata or content
            {"role": "system"},
            {"type": "text", "content": "", "payload": {}, "metadata": {}},
        ),
        (  # legacy tool result: every non-type key is type data; metadata kept
            {
                "role": "user",
                "content": "done",
                "metadata": {"type": "tool_result", "tool_name": "wiki", "success": True},
            },
            {
                "type": "tool_result",
                "payload": {"tool_name": "wiki", "success": True},
                "metadata": {"type": "tool_result", "tool_name": "wiki", "success": True},
            },
        ),
        (  # versioned envelope
            {
                "schema": SCHEMA,
                "version": 1,
                "type": "final_result",
                "role": "assistant",
                "content": "answer",
                "payload": {"turn": 3},
                "metadata": {"model": "m"},
                "id": "abc",
                "created_at": "2026-04-28 12:00:00",
                "updated_at": "2026-04-28 12:00:01",
            },
            {
                "type": "final_result",
                "payload": {"turn": 3},
                "metadata": {"model": "m"},
                "id": "abc",
                "created_at": "2026-04-28 12:00:00",
                "updated_at": "2026-04-28 12:00:01",
            },
        ),
        (  # version defaults to 1; payload may be null
            {
                "schema": SCHEMA,
                "type": "delta",
                "role": "assistant",
                "content": "pa",
                "payload": None,
            },
            {"type": "delta", "payload": {}},
        ),
        (  # the draft `data` key is rewritten to `payload`
            {
                "schema": SCHEMA,
                "version": 1,
                "type": "tool_call",
                "role": "assistant",
                "data": {"tool_name": "f"},
            },
            {"type": "tool_call", "payload": {"tool_name": "f"}, "metadata": {}},
        ),
        (  # `data` alone makes an envelope
            {"role": "assistant", "content": "x", "data": {"k": 1}},
            {"type": "text", "payload": {"k": 1}, "metadata": {}},
        ),
        (  # with both, `payload` wins and `data` is kept as an unknown key
            {"version": 1, "role": "user", "payload": {"a": 1}, "data": {"b": 2}},
            {"payload": {"a": 1}, "metadata": {UNKNOWN_FIELDS_KEY: {"data": {"b": 2}}}},
        ),
        (  # envelope without type: metadata.type, then text
            {"version": 1, "role": "user", "metadata": {"type": "input_required"}},
            {"type": "input_required", "payload": {}, "metadata": {"type": "input_required"}},
        ),
        (  # top-level type wins over metadata.type
            {"type": "error", "role": "assistant", "metadata": {"type": "text"}},
            {"type": "error", "metadata": {"type": "text"}},
        ),
        (  # unknown keys go to metadata.unknown_fields
            {"role": "user", "content": "hi", "session": "s1", "tokens": [1, 2]},
            {"metadata": {UNKNOWN_FIELDS_KEY: {"session": "s1", "tokens": [1, 2]}}},
        ),
        (  # ... merged into an object already there
            {"role": "user", "x": 1, "metadata": {UNKNOWN_FIELDS_KEY: {"y": 2}, "k": 0}},
            {"metadata": {UNKNOWN_FIELDS_KEY: {"y": 2, "x": 1}, "k": 0}},
        ),
        (  # an integer id (a database key) is read as its string
            {"role": "user", "id": 42},
            {"id": "42"},
        ),
        (  # content may be null or a list of blocks
            {"role": "assistant", "content": None},
            {"content": None},
        ),
        (
            {
                "role": "user",
                "content": [{"type": "text", "text": "hi"}, {"type": "custom", "n": 1}],
            },
            {"content": [{"type": "text", "text": "hi"}, {"type": "custom", "n": 1}]},
        ),
        (  # role spelling is forgiven, as MessageRole.parse does
            {"role": " Assistant "},
            {"role": "assistant"},
        ),
        (  # type spelling likewise
            {"type": "TOOL_CALL", "role": "assistant"},
            {"type": "tool_call"},
        ),
    ],
)
def test_normalize(row: dict[str, Any], expected: dict[str, Any]) -> None:
    out = Envelope.normalize(row).to_dict()
    for key, value in expected.items():
        assert out[key] == value, key
    assert out["schema"] == SCHEMA and out["version"] == 1
    assert Envelope.normalize(out).to_dict() == out  # normalising is idempotent


@pytest.mark.parametrize(
    ("row", "path", "fragment"),
    [
        ({"schema": SCHEMA, "version": 2, "role": "user"}, "version", "version 2 is newer"),
        ({"version": 99, "role": "user"}, "version", "version 99"),
        ({"version": 10**40, "role": "user"}, "version", "newer"),
        ({"version": 0, "role": "user"}, "version", "version 0 is invalid"),
        ({"version": "1", "role": "user"}, "version", "got string"),
        ({"version": True, "role": "user"}, "version", "got boolean"),
        ({"version": 1.0, "role": "user"}, "version", "got number"),
        ({"schema": "other.message", "role": "user"}, "schema", "unknown schema"),
        ({"schema": None, "role": "user"}, "schema", "got null"),
        ({"version": 1}, "role", "role is required"),
        ({"content": "x"}, "role", "role is required"),
        ({"role": "robot"}, "role", "valid roles"),
        ({"role": ["user"]}, "role", "valid roles"),
        ({"role": "user", "metadata": "x"}, "metadata", "got string"),
        ({"role": "user", "metadata": [1]}, "metadata", "got array"),
        (
            {"role": "user", "metadata": {"type": "thinking"}},
            "metadata.type",
            "unknown envelope type",
        ),
        ({"role": "user", "metadata": {"type": 3}}, "metadata.type", "must be a string"),
        ({"type": "thinking", "role": "user"}, "type", "unknown envelope type"),
        ({"version": 1, "role": "user", "payload": [1]}, "payload", "got array"),
        ({"version": 1, "role": "user", "payload": "x"}, "payload", "got string"),
        ({"version": 1, "role": "user", "data": 3}, "data", "got integer"),
        ({"version": 1, "role": "user", "payload": {"a": {"b": {1, 2}}}}, "payload.a.b", "set"),
        ({"role": "user", "content": 3}, "content", "got integer"),
        ({"role": "user", "content": [1]}, "content[0]", "got integer"),
        ({"role": "user", "id": ""}, "id", "non-empty"),
        ({"role": "user", "id": True}, "id", "got boolean"),
        ({"role": "user", "id": 1.5}, "id", "got number"),
        ({"role": "user", "created_at": 17}, "created_at", "got integer"),
        ({"role": "user", "updated_at": ["x"]}, "updated_at", "got array"),
        (
            {"role": "user", "x": 1, "metadata": {UNKNOWN_FIELDS_KEY: 3}},
            f"metadata.{UNKNOWN_FIELDS_KEY}",
            "must be an object",
        ),
        ({"role": "user", 5: "x"}, "$", "keys must be strings"),
    ],
)
def test_normalize_rejects(row: dict[Any, Any], path: str, fragment: str) -> None:
    with pytest.raises(DecodeError) as info:
        Envelope.normalize(row)
    assert info.value.path == path
    assert fragment in info.value.message


@pytest.mark.parametrize("row", [None, "text", 3, [{"role": "user"}], ("role", "user")])
def test_normalize_rejects_non_objects(row: Any) -> None:
    with pytest.raises(DecodeError) as info:
        Envelope.normalize(row)
    assert info.value.path == "$"


def test_normalize_returns_an_envelope_unchanged() -> None:
    env = Envelope("text", "user", "hi")
    assert Envelope.normalize(env) is env


def test_normalize_refuses_deep_nesting() -> None:
    deep: Any = "x"
    for _ in range(5000):
        deep = {"k": deep}
    with pytest.raises(DecodeError):
        Envelope.normalize({"role": "user", "metadata": deep})
    with pytest.raises(DecodeError):
        Envelope.normalize({"role": "user", "extra": [deep]})
    cyclic: dict[str, Any] = {"role": "user"}
    cyclic["payload"] = cyclic
    with pytest.raises(DecodeError):
        Envelope.normalize(cyclic)


def test_json_round_trip() -> None:
    env = Envelope.normalize(SEED_LEGACY_ROW)
    text = env.to_json()
    assert json.loads(text) == SEED_NORMALIZED
    assert Envelope.from_json(text) == env
    assert Envelope.from_json(json.dumps(SEED_LEGACY_ROW).encode()) == env
    with pytest.raises(DecodeError):
        Envelope.from_json("{")
    with pytest.raises(DecodeError):
        Envelope.from_json("[]")


# -- provider projection ---------------------------------------------------------------


def test_to_provider_message_folds_type_and_payload_into_metadata() -> None:
    env = Envelope(
        "tool_result",
        "tool",
        [{"type": "text", "text": "ok"}],
        {"tool_call_id": "c1", "turn": 2},
        {"provider": "x", "turn": 1},
        id="e1",
        created_at="2026-04-28 12:00:00",
    )
    assert env.to_provider_message() == {
        "role": "tool",
        "content": [{"type": "text", "text": "ok"}],
        "metadata": {"provider": "x", "turn": 2, "tool_call_id": "c1", "type": "tool_result"},
    }
    plain = Envelope("text", "user", "hi").to_provider_message()
    assert plain == {"role": "user", "content": "hi", "metadata": {"type": "text"}}
    plain["metadata"]["type"] = "changed"  # a plain, mutable copy
    assert Envelope("text", "user", "hi").to_provider_message()["metadata"]["type"] == "text"


def test_to_provider_messages_accepts_envelopes_rows_and_messages() -> None:
    env = Envelope("text", "system", "be brief")
    out = to_provider_messages(
        [env, {"role": "user", "content": "hi"}, AssistantMessage("hello"), SEED_LEGACY_ROW]
    )
    assert [m["role"] for m in out] == ["system", "user", "assistant", "assistant"]
    assert out[1] == {"role": "user", "content": "hi", "metadata": {"type": "text"}}
    assert out[2]["metadata"]["type"] == "text"
    assert out[3] == SEED_LEGACY_ROW
    assert to_provider_messages(iter([])) == []


def test_to_provider_messages_error_path_names_the_row() -> None:
    with pytest.raises(DecodeError) as info:
        to_provider_messages([{"role": "user"}, {"role": "user", "version": 3}])
    assert info.value.path == "[1].version"
    with pytest.raises(DecodeError) as info:
        to_provider_messages([{"role": "user"}, 7])  # type: ignore[list-item]
    assert info.value.path == "[1]"


# -- messages -> envelopes -> messages ------------------------------------------------

WHEN = datetime(2026, 4, 28, 12, 0, 0, 123456, tzinfo=UTC)
COMMON: dict[str, Any] = {
    "name": "alice",
    "metadata": {"trace": [1, 2], "tag": "t"},
    "extras": {"provider_field": {"x": 1}},
    "id": "msg-1",
    "created_at": WHEN,
}
CALL = ToolCall("call_1", "get_weather", {"city": "Paris", "days": [1, 2]})
CALL2 = ToolCall("call_2", "mcp-search", '{"q": "x"}', extras={"gemini": {"sig": "abc"}})

MESSAGE_TABLE: list[tuple[Message, EnvelopeType]] = [
    (SystemMessage("be brief"), EnvelopeType.TEXT),
    (SystemMessage("", **COMMON), EnvelopeType.TEXT),
    (DeveloperMessage("rules", **COMMON), EnvelopeType.TEXT),
    (UserMessage("hi"), EnvelopeType.TEXT),
    (UserMessage("hi", **COMMON), EnvelopeType.TEXT),
    (UserMessage([TextPart("a"), TextPart("b")]), EnvelopeType.TEXT),
    (
        UserMessage(
            [
                TextPart("look"),
                ImagePart(url="https://example.com/a.png", detail="high"),
                ImagePart(data="aGVsbG8=", media_type="image/png"),
                AudioPart("UklGRg==", "wav"),
                FilePart(data="JVBERi0=", filename="a.pdf", media_type="application/pdf"),
                FilePart(file_id="file-1"),
            ],
            **COMMON,
        ),
        EnvelopeType.MULTIMODAL_PART,
    ),
    (AssistantMessage("hello"), EnvelopeType.TEXT),
    (AssistantMessage("", **COMMON), EnvelopeType.TEXT),
    (
        AssistantMessage(
            [
                ReasoningPart("think", signature="sig", provider="anthropic"),
                ReasoningPart("opaque", redacted=True),
                TextPart("answer"),
            ]
        ),
        EnvelopeType.TEXT,
    ),
    (ToolCallMessage([CALL]), EnvelopeType.TOOL_CALL),
    (ToolCallMessage([CALL], "let me check", **COMMON), EnvelopeType.TOOL_CALL),
    (ToolCallMessage([CALL, CALL2], ""), EnvelopeType.TOOL_CALL),
    (
        ToolCallMessage([CALL2], [ReasoningPart("hm", signature="s"), TextPart("x")]),
        EnvelopeType.TOOL_CALL,
    ),
    (ToolResultMessage("call_1", "18C"), EnvelopeType.TOOL_RESULT),
    (ToolResultMessage("call_1", "", True, "get_weather", **COMMON), EnvelopeType.TOOL_RESULT),
    (
        ToolResultMessage("call_1", [TextPart("chart"), ImagePart(url="https://x/y.png")]),
        EnvelopeType.TOOL_RESULT,
    ),
]


@pytest.mark.parametrize(("message", "etype"), MESSAGE_TABLE, ids=lambda x: repr(x)[:40])
def test_message_round_trip(message: Message, etype: EnvelopeType) -> None:
    env = Envelope.from_message(message)
    assert env.type is etype
    assert env.role is message.role
    assert env.id == message.id
    assert env.metadata == message.metadata
    back = env.to_message()
    assert back.__class__ is message.__class__
    assert back.id == message.id
    assert back.created_at == message.created_at
    assert back == message
    assert back.extras == message.extras
    # and through storage: dict -> JSON -> normalize -> message
    stored = Envelope.from_json(json.dumps(env.to_dict()))
    assert stored == env
    again = stored.to_message()
    assert again == message and again.__class__ is message.__class__ and again.id == message.id


def test_tool_call_payload_follows_the_seed_field_names() -> None:
    env = Envelope.from_message(ToolCallMessage([CALL], "checking"))
    assert env.payload == {
        "tool_call_id": "call_1",
        "tool_name": "get_weather",
        "parameters": {"city": "Paris", "days": (1, 2)},
    }
    two = Envelope.from_message(ToolCallMessage([CALL, CALL2]))
    assert two.to_dict()["payload"] == {
        "tool_calls": [
            {
                "tool_call_id": "call_1",
                "tool_name": "get_weather",
                "parameters": {"city": "Paris", "days": [1, 2]},
            },
            {
                "tool_call_id": "call_2",
                "tool_name": "mcp-search",
                "parameters": {"q": "x"},
                "extras": {"gemini": {"sig": "abc"}},
            },
        ]
    }
    assert two.content is None


def test_tool_result_payload() -> None:
    env = Envelope.from_message(
        ToolResultMessage("c9", "boom", True, "f", name="n", extras={"e": 1})
    )
    assert env.to_dict()["payload"] == {
        "tool_call_id": "c9",
        "tool_name": "f",
        "is_error": True,
        "name": "n",
        "message_extras": {"e": 1},
    }


def test_content_parts_become_blocks() -> None:
    env = Envelope.from_message(
        UserMessage([TextPart("t"), ImagePart(data="AAA=", media_type="image/jpeg", detail="low")])
    )
    assert env.to_dict()["content"] == [
        {"type": "text", "text": "t"},
        {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,AAA=", "detail": "low"}},
    ]


@pytest.mark.parametrize(
    ("message", "etype"),
    [
        (AssistantMessage("the answer"), EnvelopeType.FINAL_RESULT),
        (AssistantMessage("the model failed"), EnvelopeType.ERROR),
        (UserMessage("hi"), EnvelopeType.MULTIMODAL_PART),
        (ToolResultMessage("c1", "failed", is_error=True), EnvelopeType.ERROR),
        (ToolResultMessage("c1", "ok"), EnvelopeType.FINAL_RESULT),
    ],
)
def test_from_message_type_override_round_trips(message: Message, etype: EnvelopeType) -> None:
    env = Envelope.from_message(message, type=etype)
    assert env.type is etype
    m = env.to_message()
    assert m.__class__ is message.__class__ and m.id == message.id
    assert m.extras == {MESSAGE_EXTRAS_KEY: {"type": etype.value}}
    # the recorded type comes back, so the envelope survives the message
    assert Envelope.from_message(m) == env


@pytest.mark.parametrize(
    ("message", "etype"),
    [
        (UserMessage("hi"), "tool_call"),
        (UserMessage("hi"), "tool_result"),
        (AssistantMessage("hi"), "delta"),
        (ToolCallMessage([CALL]), "final_result"),
        (ToolCallMessage([CALL]), "text"),
        (ToolResultMessage("c", "x"), "tool_call"),
        (ToolResultMessage("c", "x"), "input_required"),
    ],
)
def test_from_message_refuses_a_type_that_does_not_come_back(message: Message, etype: str) -> None:
    with pytest.raises(ValidationError) as info:
        Envelope.from_message(message, type=etype)
    assert info.value.path == "type"


def test_from_message_requires_a_message() -> None:
    with pytest.raises(ValidationError):
        Envelope.from_message({"role": "user"})  # type: ignore[arg-type]


# -- each envelope type -> message -------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "cls", "check"),
    [
        (Envelope("text", "system", "s"), SystemMessage, {"text": "s"}),
        (Envelope("text", "developer", "d"), DeveloperMessage, {"text": "d"}),
        (Envelope("text", "user", "u"), UserMessage, {"text": "u"}),
        (Envelope("text", "assistant", "a"), AssistantMessage, {"text": "a"}),
        (
            Envelope(
                "multimodal_part",
                "user",
                [{"type": "image_url", "image_url": {"url": "https://x/i.png"}}],
            ),
            UserMessage,
            {"parts": (ImagePart(url="https://x/i.png"),)},
        ),
        (
            Envelope(
                "multimodal_part",
                "user",
                [{"type": "input_audio", "input_audio": {"data": "AA==", "format": "mp3"}}],
            ),
            UserMessage,
            {"parts": (AudioPart("AA==", "mp3"),)},
        ),
        (Envelope("final_result", "assistant", "done"), AssistantMessage, {"text": "done"}),
        (Envelope("error", "assistant", "it broke"), AssistantMessage, {"text": "it broke"}),
        (
            Envelope("error", "tool", "it broke", {"tool_call_id": "c1"}),
            ToolResultMessage,
            {"is_error": True, "tool_call_id": "c1"},
        ),
        (
            Envelope(
                "tool_call",
                "assistant",
                None,
                {"tool_name": "f", "tool_call_id": "c1", "parameters": '{"a":1}'},
            ),
            ToolCallMessage,
            {"tool_calls": (ToolCall("c1", "f", {"a": 1}),), "content": None},
        ),
        (
            Envelope(
                "tool_call",
                "assistant",
                "",
                {
                    "tool_calls": [
                        {"tool_name": "f", "tool_call_id": "a"},
                        {"tool_name": "g", "tool_call_id": "b"},
                    ]
                },
            ),
            ToolCallMessage,
            {"tool_calls": (ToolCall("a", "f"), ToolCall("b", "g"))},
        ),
        (
            Envelope("tool_result", "tool", "18C", {"tool_call_id": "c1", "tool_name": "f"}),
            ToolResultMessage,
            {"tool_call_id": "c1", "tool_name": "f", "is_error": False, "text": "18C"},
        ),
        (  # Data Machine sends tool results as user rows: still a ToolResultMessage
            Envelope("tool_result", "user", "18C", {"tool_call_id": "c1", "is_error": True}),
            ToolResultMessage,
            {"tool_call_id": "c1", "is_error": True},
        ),
        (  # a text envelope with role tool is a tool result too
            Envelope("text", "tool", "ok", {"tool_call_id": "c1"}),
            ToolResultMessage,
            {"tool_call_id": "c1", "is_error": False},
        ),
    ],
)
def test_each_type_to_message(env: Envelope, cls: type[Message], check: dict[str, Any]) -> None:
    m = env.to_message()
    assert m.__class__ is cls
    for attr, value in check.items():
        assert getattr(m, attr) == value, attr
    # and the envelope comes back from the message
    back = Envelope.from_message(m)
    assert (back.type, back.role, back.content, back.metadata) == (
        env.type,
        env.role,
        env.content,
        env.metadata,
    )
    for key, value in env.payload.items():
        if key not in ("parameters", "tool_calls"):
            assert back.payload[key] == value


def test_system_text_blocks_are_joined() -> None:
    blocks = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    m = Envelope("text", "system", blocks).to_message()
    assert m.__class__ is SystemMessage and m.text == "ab"


@pytest.mark.parametrize(
    ("etype", "why"),
    [
        ("input_required", "waits for user input"),
        ("approval_required", "waits for approval"),
        ("delta", "fragment of a streamed message"),
    ],
)
def test_types_without_a_message_refuse_to_message(etype: str, why: str) -> None:
    with pytest.raises(ValidationError) as info:
        Envelope(etype, "assistant", "x").to_message()
    assert why in info.value.message
    assert "no conversation-message counterpart" in info.value.message or etype == "delta"
    assert info.value.path == "type"


@pytest.mark.parametrize(
    ("env", "path", "fragment"),
    [
        (Envelope("tool_result", "tool", "x"), "payload.tool_call_id", "required"),
        (
            Envelope("tool_result", "tool", "x", {"tool_call_id": 3}),
            "payload.tool_call_id",
            "non-empty",
        ),
        (Envelope("tool_result", "tool", None, {"tool_call_id": "c"}), "content", "needs content"),
        (
            Envelope("tool_result", "tool", "x", {"tool_call_id": "c", "is_error": "yes"}),
            "payload.is_error",
            "boolean",
        ),
        (
            Envelope("tool_result", "tool", "x", {"tool_call_id": "c", "tool_name": 1}),
            "payload.tool_name",
            "string",
        ),
        (Envelope("tool_call", "user", "x", {"tool_name": "f"}), "role", "role assistant"),
        (Envelope("tool_call", "assistant", "x"), "payload.tool_name", "expected str"),
        (
            Envelope("tool_call", "assistant", "x", {"tool_name": "a b"}),
            "payload.tool_name",
            "invalid tool name",
        ),
        (
            Envelope("tool_call", "assistant", "x", {"tool_name": "f", "parameters": "[1]"}),
            "payload.parameters",
            "object",
        ),
        (
            Envelope("tool_call", "assistant", "x", {"tool_name": "f", "parameters": "{"}),
            "payload.parameters",
            "invalid JSON",
        ),
        (
            Envelope("tool_call", "assistant", "x", {"tool_name": "f", "parameters": 3}),
            "payload.parameters",
            "object",
        ),
        (
            Envelope("tool_call", "assistant", "x", {"tool_name": "f", "extras": 3}),
            "payload.extras",
            "object",
        ),
        (
            Envelope("tool_call", "assistant", "x", {"tool_name": "f", "tool_call_id": ""}),
            "payload.tool_call_id",
            "non-empty",
        ),
        (
            Envelope("tool_call", "assistant", "x", {"tool_calls": []}),
            "payload.tool_calls",
            "non-empty list",
        ),
        (
            Envelope("tool_call", "assistant", "x", {"tool_calls": [3]}),
            "payload.tool_calls[0]",
            "tool call object",
        ),
        (
            Envelope(
                "tool_call",
                "assistant",
                "x",
                {
                    "tool_calls": [
                        {"tool_name": "f", "tool_call_id": "a"},
                        {"tool_name": "g", "tool_call_id": "a"},
                    ]
                },
            ),
            "payload.tool_calls[1].tool_call_id",
            "duplicate",
        ),
        (Envelope("text", "user", None), "content", "needs content"),
        (Envelope("text", "assistant", None), "content", "needs content"),
        (Envelope("text", "user", [{"type": "video"}]), "content[0].type", "expected one of"),
        (Envelope("text", "user", [{"text": "x"}]), "content[0].type", "expected one of"),
        (
            Envelope("text", "user", [{"type": "text", "text": "a"}, {"type": 3}]),
            "content[1].type",
            "must be a string",
        ),
        (Envelope("text", "user", [{"type": "text", "text": 1}]), "content[0].text", "string"),
        (
            Envelope("text", "user", [{"type": "image_url", "image_url": 3}]),
            "content[0].image_url",
            "object",
        ),
        (
            Envelope("text", "user", [{"type": "image_url", "image_url": {"url": ""}}]),
            "content[0].image_url.url",
            "must not be empty",
        ),
        (
            Envelope("text", "user", [{"type": "input_audio", "input_audio": {"data": "A"}}]),
            "content[0].input_audio.format",
            "format is required",
        ),
        (
            Envelope("text", "user", [{"type": "file", "file": {}}]),
            "content[0].file",
            "at least one",
        ),
        (
            Envelope("text", "user", [{"type": "reasoning", "text": "x"}]),
            "content[0]",
            "not allowed",
        ),
        (
            Envelope("text", "assistant", [{"type": "reasoning", "text": "x", "redacted": 1}]),
            "content[0].redacted",
            "boolean",
        ),
        (
            Envelope("text", "assistant", [{"type": "image_url", "image_url": {"url": "u"}}]),
            "content[0]",
            "not allowed",
        ),
        (
            Envelope("text", "system", [{"type": "image_url", "image_url": {"url": "u"}}]),
            "content[0]",
            "not allowed",
        ),
        (Envelope("text", "user", "x", {"name": 3}), "payload.name", "string"),
        (
            Envelope("text", "user", "x", {"message_extras": [1]}),
            "payload.message_extras",
            "object",
        ),
    ],
)
def test_to_message_rejects(env: Envelope, path: str, fragment: str) -> None:
    with pytest.raises(ValidationError) as info:
        env.to_message()
    assert info.value.path == path
    assert fragment in info.value.message


def test_derived_tool_call_ids_are_stable_and_distinct() -> None:
    row = {"id": "row-7", **SEED_LEGACY_ROW}
    a = Envelope.normalize(row).to_message().tool_calls[0].id
    b = Envelope.normalize(copy.deepcopy(row)).to_message().tool_calls[0].id
    assert a == b
    other = Envelope.normalize({**row, "id": "row-8"}).to_message().tool_calls[0].id
    assert other != a
    two = Envelope(
        "tool_call", "assistant", "", {"tool_calls": [{"tool_name": "f"}, {"tool_name": "f"}]}
    )
    ids = [c.id for c in two.to_message().tool_calls]
    assert len(set(ids)) == 2


def test_envelope_message_envelope_keeps_what_messages_have_no_field_for() -> None:
    env = Envelope.normalize(
        {
            "schema": SCHEMA,
            "version": 1,
            "type": "tool_result",
            "role": "user",
            "content": "42",
            "payload": {
                "tool_call_id": "c1",
                "tool_name": "calc",
                "tool_data": {"v": 42},
                "turn": 2,
            },
            "metadata": {"source": "dm"},
            "id": "r1",
            "created_at": "2026-04-28 12:00:00",
            "updated_at": "2026-04-28 12:00:05",
        }
    )
    m = env.to_message()
    assert isinstance(m, ToolResultMessage) and m.role is MessageRole.TOOL
    back = Envelope.from_message(m)
    assert back.to_dict() == {
        **env.to_dict(),
        "payload": {**env.to_dict()["payload"], "is_error": False},
    }


def test_stray_payload_keys_are_never_dropped() -> None:
    env = Envelope(
        "tool_call",
        "assistant",
        "",
        {"tool_calls": [{"tool_name": "f", "tool_call_id": "a"}], "tool_name": "stale", "turn": 4},
    )
    m = env.to_message()
    assert m.extras[MESSAGE_EXTRAS_KEY]["payload"] == {"tool_name": "stale", "turn": 4}
    assert Envelope.from_message(m).payload["turn"] == 4


def test_reserved_extras_key_is_only_read_when_it_is_an_object() -> None:
    m = UserMessage("hi", extras={MESSAGE_EXTRAS_KEY: "not a record"})
    back = Envelope.from_message(m).to_message()
    assert back == m and back.extras == m.extras
    # a recorded role belongs to tool results only
    u = UserMessage("hi", extras={MESSAGE_EXTRAS_KEY: {"role": "assistant"}})
    assert Envelope.from_message(u).role is MessageRole.USER
    with pytest.raises(ValidationError) as info:
        Envelope.from_message(UserMessage("hi", extras={MESSAGE_EXTRAS_KEY: {"type": "nope"}}))
    assert info.value.path == f"extras.{MESSAGE_EXTRAS_KEY}.type"


# -- repr and secrets ---------------------------------------------------------------------


def test_repr_shows_type_role_id_and_sizes_only() -> None:
    env = Envelope(
        "tool_call",
        "assistant",
        SECRET * 2,
        {"p": SECRET},
        {"m": SECRET},
        id="e1",
        created_at=SECRET,
    )
    r = repr(env)
    assert SECRET not in r and SECRET not in str(env)
    assert r == (
        f"Envelope(type=tool_call, role=assistant, id='e1', content_len={2 * len(SECRET)}, "
        "payload_keys=1, metadata_keys=1)"
    )
    blocks = Envelope("text", "user", [{"type": "text", "text": SECRET}])
    assert "blocks=1" in repr(blocks) and SECRET not in repr(blocks)
    assert "content=None" in repr(Envelope("tool_call", "assistant", None))


SECRET_ROWS: list[Any] = [
    {"role": SECRET},
    {"role": "user", "type": SECRET},
    {"role": "user", "metadata": {"type": SECRET}},
    {"role": "user", "schema": SECRET},
    {"role": "user", "version": SECRET},
    {"role": "user", "version": 2, "content": SECRET},
    {"role": "user", "content": [SECRET]},
    {"role": "user", "content": {"text": SECRET}},
    {"role": "user", "metadata": SECRET},
    {"role": "user", "payload": [SECRET]},
    {"role": "user", "payload": {"a": {SECRET, "x"}}},
    {"role": "user", "created_at": [SECRET]},
    {"role": "user", "id": [SECRET]},
    {"role": "user", "extra": {1: SECRET}},
    {"content": SECRET},
    SECRET,
    [SECRET],
]


@pytest.mark.parametrize("row", SECRET_ROWS)
def test_normalize_errors_never_contain_content(row: Any) -> None:
    with pytest.raises(DecodeError) as info:
        Envelope.normalize(row)
    assert SECRET not in str(info.value) and SECRET not in repr(info.value)
    with pytest.raises(DecodeError) as info2:
        to_provider_messages([row])
    assert SECRET not in str(info2.value)


SECRET_ENVELOPES: list[Envelope] = [
    Envelope("tool_call", "assistant", SECRET, {"tool_name": "a b"}),
    Envelope("tool_call", "assistant", SECRET, {"tool_name": "f", "parameters": "{" + SECRET}),
    Envelope("tool_call", "assistant", SECRET, {"tool_name": "f", "parameters": f'["{SECRET}"]'}),
    Envelope("tool_result", "tool", SECRET),
    Envelope("text", "user", [{"type": "x y", "text": SECRET}]),
    Envelope("text", "user", [{"type": "input_audio", "input_audio": {"data": SECRET}}]),
    Envelope("text", "system", [{"type": "image_url", "image_url": {"url": SECRET}}]),
    Envelope("delta", "assistant", SECRET),
    Envelope("text", "user", SECRET, created_at=SECRET),
]


@pytest.mark.parametrize("env", SECRET_ENVELOPES)
def test_to_message_errors_never_contain_content(env: Envelope) -> None:
    with pytest.raises(ValidationError) as info:
        env.to_message()
    assert SECRET not in str(info.value) and SECRET not in repr(info.value)


def test_constructor_errors_never_contain_content() -> None:
    for kwargs in (
        {"type": SECRET},
        {"role": SECRET},
        {"content": SECRET.encode()},
        {"payload": {"k": SECRET.encode()}},
        {"created_at": SECRET.encode()},
    ):
        args: dict[str, Any] = {"type": "text", "role": "user", **kwargs}
        with pytest.raises(ValidationError) as info:
            Envelope(**args)
        assert SECRET not in str(info.value)


# -- properties ---------------------------------------------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
json_objects = st.dictionaries(st.text(max_size=5), json_values, max_size=4)

ROW_KEYS = [
    "schema",
    "version",
    "type",
    "role",
    "content",
    "payload",
    "data",
    "metadata",
    "id",
    "created_at",
    "updated_at",
]
part_blocks = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, st.text(max_size=6)),
    st.just({"type": "image_url", "image_url": {"url": "https://x/y.png"}}),
    st.just({"type": "reasoning", "text": "r"}),
    json_objects,
)
valid: dict[str, st.SearchStrategy[Any]] = {
    "schema": st.just(SCHEMA),
    "version": st.just(1),
    "type": st.sampled_from([t.value for t in EnvelopeType]),
    "role": st.sampled_from([r.value for r in MessageRole]),
    "content": st.none() | st.text(max_size=10) | st.lists(part_blocks, max_size=2),
    "payload": st.fixed_dictionaries(
        {},
        optional={
            "tool_call_id": st.text(max_size=4) | json_values,
            "tool_name": st.sampled_from(["f", "wiki_upsert", "bad name"]) | json_values,
            "parameters": json_objects | st.sampled_from(['{"a": 1}', "{", "[]"]),
            "tool_calls": st.lists(json_objects, max_size=2),
            "is_error": st.booleans() | json_values,
        },
    ),
    "data": json_objects,
    "metadata": st.fixed_dictionaries(
        {}, optional={"type": st.sampled_from([t.value for t in EnvelopeType])}
    ).flatmap(lambda d: json_objects.map(lambda o: {**o, **d})),
    "id": st.text(min_size=1, max_size=6) | st.integers(),
    "created_at": st.sampled_from(["2026-04-28 12:00:00", "2026-04-28T12:00:00Z", "x"]),
    "updated_at": st.text(max_size=25),
}
OPTIONAL_KEYS = [k for k in valid if k != "role"]


def _corrupt(row: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """The row as it is, or with one known key set to an arbitrary JSON value."""
    return st.just(row) | st.tuples(st.sampled_from(ROW_KEYS), json_values).map(
        lambda kv: {**row, kv[0]: kv[1]}
    )


rows = (
    st.fixed_dictionaries({"role": valid["role"]}, optional={k: valid[k] for k in OPTIONAL_KEYS})
    .flatmap(_corrupt)
    .flatmap(
        lambda row: st.dictionaries(st.text(max_size=4), json_values, max_size=2).map(
            lambda extra: {**extra, **row}
        )
    )
    | st.dictionaries(st.sampled_from(ROW_KEYS) | st.text(max_size=3), json_values, max_size=5)
    | json_values
)


@given(rows)
def test_fuzz_normalize_gives_an_envelope_or_decode_error(row: Any) -> None:
    try:
        env = Envelope.normalize(row)
    except DecodeError as exc:
        assert isinstance(exc.path, str)
        return
    assert isinstance(env, Envelope)
    d = env.to_dict()
    assert Envelope.normalize(d) == env
    assert Envelope.from_json(env.to_json()) == env
    assert env.to_provider_message()["metadata"]["type"] == env.type.value
    try:
        m = env.to_message()
    except ValidationError:
        return
    assert isinstance(m, Message)


roles = st.sampled_from(list(MessageRole))
types = st.sampled_from(list(EnvelopeType))
envelopes = st.builds(
    Envelope,
    types,
    roles,
    st.none() | st.text(max_size=10) | st.lists(json_objects, max_size=3),
    json_objects,
    json_objects,
    id=st.none() | st.text(min_size=1, max_size=8),
    created_at=st.none() | st.text(max_size=10) | st.datetimes(timezones=st.just(UTC)),
    updated_at=st.none() | st.text(max_size=10),
)


@given(envelopes)
def test_envelope_dict_envelope_round_trip(env: Envelope) -> None:
    assert Envelope.normalize(env.to_dict()) == env
    assert Envelope.normalize(json.loads(json.dumps(env.to_dict()))) == env
    assert hash(Envelope.normalize(env.to_dict())) == hash(env)


# messages for the round trip ---------------------------------------------------------------

texts = st.text(max_size=12)
opt_texts = st.none() | texts
b64 = st.text(
    alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=", max_size=12
)
media_types = st.sampled_from(["image/png", "application/pdf", "a;b", " x"]) | st.text(min_size=1)
text_parts = st.builds(TextPart, texts)
image_parts = st.builds(
    ImagePart,
    # A url that is itself a base64 data: URL reads back as inline data (the part
    # shape cannot tell the two apart), so that one case is left out.
    url=st.text(min_size=1, max_size=12).filter(lambda u: not u.startswith("data:")),
    detail=st.sampled_from([None, "auto", "low", "high"]),
) | st.builds(ImagePart, data=b64, media_type=media_types, detail=st.sampled_from([None, "low"]))
audio_parts = st.builds(AudioPart, b64, st.text(min_size=1, max_size=5))
file_parts = st.builds(FilePart, b64, opt_texts, opt_texts, opt_texts) | st.builds(
    FilePart, st.none(), st.text(min_size=1, max_size=8), opt_texts, opt_texts
)
reasoning_parts = st.builds(ReasoningPart, texts, opt_texts, st.booleans(), opt_texts)
user_content = texts | st.lists(text_parts | image_parts | audio_parts | file_parts, max_size=4)
assistant_content = texts | st.lists(text_parts | reasoning_parts, max_size=3)
extras_objects = st.dictionaries(
    st.text(max_size=5).filter(lambda k: k != MESSAGE_EXTRAS_KEY), json_values, max_size=3
)
tool_names = st.from_regex(r"[A-Za-z0-9_-]{1,20}", fullmatch=True)
tool_calls = st.lists(
    st.builds(
        ToolCall, st.text(min_size=1, max_size=6), tool_names, json_objects, extras=json_objects
    ),
    min_size=1,
    max_size=3,
    unique_by=lambda c: c.id,
)
common = st.fixed_dictionaries(
    {},
    optional={
        "name": texts,
        "metadata": json_objects,
        "extras": extras_objects,
        "id": st.text(min_size=1, max_size=8),
        "created_at": st.datetimes(timezones=st.just(UTC)),
    },
)
messages_strategy = st.one_of(
    st.builds(lambda c, k: SystemMessage(c, **k), texts, common),
    st.builds(lambda c, k: DeveloperMessage(c, **k), texts, common),
    st.builds(lambda c, k: UserMessage(c, **k), user_content, common),
    st.builds(lambda c, k: AssistantMessage(c, **k), assistant_content, common),
    st.builds(
        lambda t, c, k: ToolCallMessage(t, c, **k),
        tool_calls,
        st.none() | assistant_content,
        common,
    ),
    st.builds(
        lambda i, c, e, n, k: ToolResultMessage(i, c, e, n, **k),
        st.text(min_size=1, max_size=6),
        user_content,
        st.booleans(),
        st.none() | st.text(min_size=1, max_size=6),
        common,
    ),
)


@given(messages_strategy)
def test_message_envelope_message_round_trip(message: Message) -> None:
    env = Envelope.from_message(message)
    for candidate in (env, Envelope.from_json(env.to_json())):
        back = candidate.to_message()
        assert back.__class__ is message.__class__
        assert back.id == message.id
        assert back.created_at == message.created_at
        assert back == message
    assert Envelope.from_message(env.to_message()) == env


def test_errors_are_message_errors() -> None:
    assert issubclass(DecodeError, MessageError)
    with pytest.raises(ValueError):  # callers that catch ValueError keep working
        Envelope.normalize({"role": "robot"})


# -- normalize raises only DecodeError, whatever the row -----------------------------------


class _FailingGet(dict):  # type: ignore[type-arg]
    def get(self, *args: Any) -> Any:
        raise RuntimeError(SECRET)


class _FailingIter(dict):  # type: ignore[type-arg]
    def __iter__(self) -> Any:
        raise KeyError(SECRET)


class _FailingContains(dict):  # type: ignore[type-arg]
    def __contains__(self, key: object) -> bool:
        raise TypeError(SECRET)


class _FailingItems(dict):  # type: ignore[type-arg]
    def items(self) -> Any:
        raise AttributeError(SECRET)


@pytest.mark.parametrize(
    "row",
    [
        _FailingGet(role="user"),
        _FailingIter(role="user"),
        _FailingContains(role="user"),
        {"role": "user", "metadata": _FailingItems(a=1)},
        {"role": "user", "payload": _FailingItems(a=1)},
        {"role": "user", "content": [_FailingItems(type="text")]},
        {"role": "user", "extra": _FailingItems(a=1)},
    ],
)
def test_normalize_turns_a_misbehaving_mapping_into_a_decode_error(row: Any) -> None:
    for read in (Envelope.normalize, lambda r: to_provider_messages([r])):
        with pytest.raises(DecodeError) as info:
            read(row)
        assert SECRET not in str(info.value)
    with pytest.raises(DecodeError, match="malformed input"):
        Envelope.normalize(_FailingGet(role="user"))


def _with_stack_used(frames: int, fn: Any) -> Any:
    return fn() if frames <= 0 else _with_stack_used(frames - 1, fn)


def test_normalize_deep_input_from_a_deep_stack_is_a_decode_error() -> None:
    deep: Any = "x"
    for _ in range(10**5):
        deep = {"k": deep}
    for row in ({"role": "user", "metadata": deep}, {"role": "user", "payload": deep}):
        with pytest.raises(DecodeError):
            _with_stack_used(600, lambda row=row: Envelope.normalize(row))
    text = '{"role":"user","metadata":' + '{"k":' * 199 + "1" + "}" * 200
    with pytest.raises(DecodeError):
        _with_stack_used(600, lambda: Envelope.from_json(text))


def test_to_dict_and_provider_message_are_plain_data() -> None:
    env = Envelope(
        "tool_call", "assistant", [{"type": "text", "text": "t"}], {"a": [1]}, {"m": {"n": [2]}}
    )
    for d in (env.to_dict(), env.to_provider_message()):
        assert type(d["metadata"]) is dict
        assert all(type(b) is dict for b in d["content"])
    assert type(env.to_dict()["payload"]["a"]) is list
    assert type(env.to_dict()["metadata"]["m"]["n"]) is list
