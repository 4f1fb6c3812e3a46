"""Conformance with the public contract (the API reference in docs/), read as a third party.

Every test here uses only the public names (``from messages import ...``,
``messages.providers``, ``messages.storage``), the argument names and positions the
contract shows, and checks one of its sentences. Sections follow API.md's order.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import json
import pickle
import subprocess
import sys
import typing
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, NotRequired, TypedDict

import pytest

import messages
from messages import (
    AssistantMessage,
    AudioPart,
    ContentPart,
    ConversationHistory,
    DecodeError,
    DeveloperMessage,
    Envelope,
    EnvelopeType,
    FilePart,
    ImagePart,
    InvalidToolCall,
    Message,
    MessageError,
    MessageRegistry,
    MessageRole,
    Messages,
    MessageStore,
    OrderingError,
    OrderingPolicy,
    ReasoningPart,
    Repair,
    StorageError,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolCallAccumulator,
    ToolCallDelta,
    ToolCallMessage,
    ToolDefinition,
    ToolResult,
    ToolResultMessage,
    UserMessage,
    ValidationError,
    default_registry,
    from_dict,
    from_json,
    to_dict,
    to_json,
    to_provider_messages,
)
from messages.providers import (
    ChatResponse,
    Conversion,
    FinishReason,
    Loss,
    LossWarning,
    StreamAccumulator,
    StreamDelta,
    Usage,
    get_provider,
)
from messages.storage import (
    ChatHistoryConfig,
    ChatHistoryStorage,
    JsonFileBackend,
    MemoryBackend,
    SessionIdentity,
    SQLiteBackend,
)
from tests.conftest import SECRET

PROVIDER_NAMES = ("openai", "groq", "vllm", "ollama", "anthropic", "gemini")
ROOT = Path(__file__).resolve().parent.parent

# A tiny valid PNG-ish base64 payload (content does not matter to the library).
B64 = "iVBORw0KGgo="


def _raises_clean(exc_type: type[BaseException], fn: Callable[[], object]) -> BaseException:
    """Call fn, expect exc_type, and check that neither str nor repr leaks SECRET."""
    with pytest.raises(exc_type) as info:
        fn()
    assert SECRET not in str(info.value)
    assert SECRET not in repr(info.value)
    return info.value


def _decode_or_ok(fn: Callable[..., object], *args: Any) -> DecodeError | None:
    """Call fn; return the DecodeError it raised (anything else propagates and fails)."""
    try:
        fn(*args)
    except DecodeError as e:
        assert isinstance(e.path, str)
        return e
    return None


# =====================================================================================
# Top-level names: "Everything below is importable from the top-level package"
# =====================================================================================

TOP_LEVEL = [
    "MessageError",
    "ValidationError",
    "DecodeError",
    "OrderingError",
    "StorageError",
    "MessageRole",
    "TextPart",
    "ImagePart",
    "AudioPart",
    "FilePart",
    "ReasoningPart",
    "ContentPart",
    "ToolCall",
    "ToolResult",
    "ToolDefinition",
    "ToolCallDelta",
    "ToolCallAccumulator",
    "InvalidToolCall",
    "Message",
    "SystemMessage",
    "DeveloperMessage",
    "UserMessage",
    "AssistantMessage",
    "ToolCallMessage",
    "ToolResultMessage",
    "to_dict",
    "from_dict",
    "to_json",
    "from_json",
    "MessageRegistry",
    "default_registry",
    "Messages",
    "MessageStore",
    "ConversationHistory",
    "OrderingPolicy",
    "Repair",
    "repair",
    "Envelope",
    "EnvelopeType",
    "to_provider_messages",
]


@pytest.mark.parametrize("name", TOP_LEVEL)
def test_every_contract_name_is_importable_from_the_top_level(name: str) -> None:
    assert getattr(messages, name) is not None
    assert name in messages.__all__
    ns: dict[str, Any] = {}
    exec(f"from messages import {name}", ns)
    assert ns[name] is getattr(messages, name)


def test_errors_module_exports_the_hierarchy() -> None:
    from messages import errors

    assert errors.MessageError is MessageError
    assert errors.ValidationError is ValidationError
    assert errors.DecodeError is DecodeError
    assert errors.OrderingError is OrderingError
    assert errors.StorageError is StorageError


@pytest.mark.parametrize(
    "name",
    [
        "get_provider",
        "ChatResponse",
        "Conversion",
        "FinishReason",
        "Loss",
        "LossWarning",
        "StreamAccumulator",
        "StreamDelta",
        "Usage",
    ],
)
def test_provider_names_importable(name: str) -> None:
    from messages import providers

    assert getattr(providers, name) is not None


@pytest.mark.parametrize(
    "name",
    [
        "SessionIdentity",
        "ChatHistoryConfig",
        "ChatHistoryStorage",
        "MemoryBackend",
        "JsonFileBackend",
        "SQLiteBackend",
    ],
)
def test_storage_names_importable(name: str) -> None:
    from messages import storage

    assert getattr(storage, name) is not None


def test_content_part_is_the_union_of_part_types() -> None:
    members = set(typing.get_args(ContentPart))
    assert members == {TextPart, ImagePart, AudioPart, FilePart, ReasoningPart}


# =====================================================================================
# Errors
# =====================================================================================


@pytest.mark.parametrize("cls", [ValidationError, DecodeError, OrderingError, StorageError])
def test_error_hierarchy(cls: type[MessageError]) -> None:
    assert issubclass(cls, MessageError)
    assert issubclass(MessageError, ValueError)
    assert issubclass(cls, ValueError)


def test_decode_error_has_path() -> None:
    with pytest.raises(DecodeError) as info:
        from_dict({"role": "user", "content": 5})
    assert isinstance(info.value.path, str)
    assert "content" in info.value.path


def test_errors_pickle() -> None:
    err = DecodeError("bad", "messages[3].content")
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is DecodeError
    assert back.path == err.path
    assert str(back) == str(err)


# =====================================================================================
# Roles
# =====================================================================================


def test_role_members_values_codes() -> None:
    import enum

    assert issubclass(MessageRole, enum.Enum)
    assert [(r.name, r.value, r.code) for r in MessageRole] == [
        ("SYSTEM", "system", 0),
        ("DEVELOPER", "developer", 1),
        ("USER", "user", 2),
        ("ASSISTANT", "assistant", 3),
        ("TOOL", "tool", 4),
    ]


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (MessageRole.USER, MessageRole.USER),
        ("user", MessageRole.USER),
        ("USER", MessageRole.USER),
        ("  Assistant\t", MessageRole.ASSISTANT),
        ("\nSYSTEM ", MessageRole.SYSTEM),
        ("Developer", MessageRole.DEVELOPER),
        ("tOOl", MessageRole.TOOL),
    ],
)
def test_role_parse_accepts(given: Any, expected: MessageRole) -> None:
    assert MessageRole.parse(given) is expected


@pytest.mark.parametrize(
    "bad", ["", " ", "model", "function", "users", None, 3, 2.0, b"user", ["user"]]
)
def test_role_parse_rejects_listing_valid_roles(bad: Any) -> None:
    with pytest.raises(ValidationError) as info:
        MessageRole.parse(bad)
    text = str(info.value)
    for r in ("system", "developer", "user", "assistant", "tool"):
        assert r in text


def test_role_parse_error_does_not_echo_input() -> None:
    _raises_clean(ValidationError, lambda: MessageRole.parse(SECRET))


# =====================================================================================
# Content parts
# =====================================================================================

PART_EXAMPLES: list[Any] = [
    TextPart("hi"),
    ImagePart(url="https://example.com/a.png"),
    ImagePart(data=B64, media_type="image/png", detail="low"),
    AudioPart(B64, "wav"),
    FilePart(data=B64, filename="a.pdf", media_type="application/pdf"),
    FilePart(file_id="file-1"),
    ReasoningPart("think", signature="sig", redacted=False, provider="anthropic"),
]


@pytest.mark.parametrize("part", PART_EXAMPLES, ids=lambda p: type(p).__name__)
def test_parts_frozen_slotted_hashable(part: Any) -> None:
    assert dataclasses.is_dataclass(part)
    assert hasattr(type(part), "__slots__")
    assert not hasattr(part, "__dict__")
    hash(part)
    assert part == dataclasses.replace(part)  # type: ignore[type-var]
    first = dataclasses.fields(part)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(part, first, "x")


def test_text_part_positional() -> None:
    assert TextPart("a").text == "a"
    with pytest.raises(ValidationError):
        TextPart(5)  # type: ignore[arg-type]


def test_image_part_positional_order() -> None:
    p = ImagePart(None, B64, "image/png", "high")
    assert (p.url, p.data, p.media_type, p.detail) == (None, B64, "image/png", "high")
    q = ImagePart("https://x/y.png")
    assert q.url == "https://x/y.png"
    assert q.data is None


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"url": "https://x/y.png", "data": B64, "media_type": "image/png"},
        {"data": B64},
        {"media_type": "image/png"},
        {"detail": "low"},
    ],
)
def test_image_part_rules(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        ImagePart(**kwargs)


def test_image_part_data_has_no_data_prefix() -> None:
    with pytest.raises(ValidationError):
        ImagePart(data="data:image/png;base64," + B64, media_type="image/png")


def test_image_part_data_url_round_trip() -> None:
    url = "data:image/png;base64," + B64
    p = ImagePart.from_data_url(url)
    assert isinstance(p, ImagePart)
    assert p.data == B64
    assert p.media_type == "image/png"
    assert p.url is None
    assert p.data_url == url
    assert ImagePart(data=B64, media_type="image/jpeg").data_url == "data:image/jpeg;base64," + B64


@pytest.mark.parametrize("bad", ["https://x/y.png", "data:", "data:image/png," + B64, "", 5])
def test_image_part_from_data_url_rejects(bad: Any) -> None:
    with pytest.raises(ValidationError):
        ImagePart.from_data_url(bad)


def test_audio_part() -> None:
    p = AudioPart(B64, "mp3")
    assert (p.data, p.format) == (B64, "mp3")
    with pytest.raises(ValidationError):
        AudioPart(None, "wav")  # type: ignore[arg-type]


def test_file_part_at_least_one_of_data_or_file_id() -> None:
    with pytest.raises(ValidationError):
        FilePart()
    with pytest.raises(ValidationError):
        FilePart(filename="a.txt", media_type="text/plain")
    assert FilePart(B64).data == B64
    assert FilePart(None, "file-1").file_id == "file-1"
    both = FilePart(B64, "file-1", "a.pdf", "application/pdf")
    assert (both.data, both.file_id, both.filename, both.media_type) == (
        B64,
        "file-1",
        "a.pdf",
        "application/pdf",
    )


def test_reasoning_part_defaults_and_positions() -> None:
    p = ReasoningPart("thinking")
    assert (p.text, p.signature, p.redacted, p.provider) == ("thinking", None, False, None)
    q = ReasoningPart("opaque", "sig", True, "anthropic")
    assert (q.signature, q.redacted, q.provider) == ("sig", True, "anthropic")


@pytest.mark.parametrize(
    "part",
    [
        TextPart(SECRET),
        ImagePart(data=B64 + "AAAA", media_type="image/png"),
        ReasoningPart(SECRET, signature=SECRET),
        AudioPart(SECRET, "wav"),
        FilePart(data=SECRET, filename="f"),
    ],
    ids=lambda p: type(p).__name__,
)
def test_part_repr_has_no_content(part: Any) -> None:
    assert SECRET not in repr(part)
    assert SECRET not in str(part)


# =====================================================================================
# Tools: ToolCall
# =====================================================================================


def test_tool_call_positional_and_default_arguments() -> None:
    c = ToolCall("call_1", "get_weather")
    assert c.id == "call_1"
    assert c.name == "get_weather"
    assert c.arguments == {}
    assert isinstance(c.arguments, Mapping)
    c2 = ToolCall("call_1", "get_weather", {"city": "Paris"})
    assert c2.arguments == {"city": "Paris"}
    c3 = ToolCall(id="call_1", name="get_weather", arguments='{"city":"Paris"}')
    assert c3.arguments == {"city": "Paris"}


def test_tool_call_string_and_mapping_arguments_are_equal_calls() -> None:
    a = ToolCall("c", "f", '{"x": [1, 2]}')
    b = ToolCall("c", "f", {"x": [1, 2]})
    assert a == b
    assert hash(a) == hash(b)


def test_tool_call_arguments_deeply_immutable() -> None:
    src = {"a": {"b": [1, 2]}, "c": "d"}
    call = ToolCall("c", "f", src)
    src["a"]["b"].append(3)  # type: ignore[index]
    assert call.arguments["a"]["b"] in ([1, 2], (1, 2))
    assert len(call.arguments["a"]["b"]) == 2
    with pytest.raises(TypeError):
        call.arguments["c"] = "x"  # type: ignore[index]
    with pytest.raises((TypeError, AttributeError)):
        call.arguments["a"]["b"].append(4)
    hash(call)


@pytest.mark.parametrize("bad", ["[1, 2]", '"x"', "1", "null", "{bad", "", "{} x"])
def test_tool_call_string_arguments_must_be_json_object(bad: str) -> None:
    with pytest.raises(ValidationError):
        ToolCall("c", "f", bad)


@pytest.mark.parametrize(
    "name",
    ["a", "get_weather", "get-weather", "mcp__server__tool-x", "A" * 64, "0", "-", "_", "a-b_C9"],
)
def test_tool_name_valid(name: str) -> None:
    assert ToolCall("c", name).name == name


@pytest.mark.parametrize(
    "name",
    ["", "a b", "a.b", "a/b", "a:b", "é", "a\n", "A" * 65, "tool!", " a", "a\u0660"],
)
def test_tool_name_invalid(name: str) -> None:
    with pytest.raises(ValidationError):
        ToolCall("c", name)


@pytest.mark.parametrize("bad_id", ["", None, 5])
def test_tool_call_id_non_empty(bad_id: Any) -> None:
    with pytest.raises(ValidationError):
        ToolCall(bad_id, "f")


def test_tool_call_extras() -> None:
    c = ToolCall("c", "f", {}, extras={"gemini": {"thought_signature": "abc"}})
    assert isinstance(c.extras, Mapping)
    assert c.extras["gemini"]["thought_signature"] == "abc"
    assert ToolCall("c", "f").extras == {}


def test_tool_call_get() -> None:
    c = ToolCall("c", "f", {"x": 1})
    assert c.get("x") == 1
    assert c.get("y") is None
    assert c.get("y", 5) == 5


def test_tool_call_arguments_json() -> None:
    original = '{ "b" : 2,  "a": 1 }'
    assert ToolCall("c", "f", original).arguments_json == original
    compact = ToolCall("c", "f", {"a": 1, "b": [1, "é"]}).arguments_json
    assert json.loads(compact) == {"a": 1, "b": [1, "é"]}
    assert ", " not in compact
    assert ": " not in compact
    assert ToolCall("c", "f").arguments_json == "{}"


def test_tool_call_arguments_json_exact_from_decoder() -> None:
    raw = '{"city": "Paris",  "unit": "c"}'
    m = from_dict(
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": raw}}
            ],
        }
    )
    assert isinstance(m, ToolCallMessage)
    assert m.tool_calls[0].arguments_json == raw
    resp = get_provider("openai").parse_response(
        {
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "f", "arguments": raw},
                            }
                        ],
                    },
                    "finish_reason": "tool_calls",
                }
            ]
        }
    )
    assert resp.message.tool_calls[0].arguments_json == raw


@dataclasses.dataclass
class _Weather:
    city: str
    unit: str = "c"


class _WeatherTD(TypedDict):
    city: str
    unit: str


class _WeatherNT(NamedTuple):
    city: str
    unit: str = "c"


def _weather_fn(*, city: str, unit: str = "c") -> tuple[str, str]:
    return (city, unit)


def test_arguments_as_dataclass_typeddict_namedtuple_callable() -> None:
    call = ToolCall("c", "f", {"city": "Paris"})
    assert call.arguments_as(_Weather) == _Weather("Paris", "c")
    full = ToolCall("c", "f", {"city": "Paris", "unit": "f"})
    td = full.arguments_as(_WeatherTD)
    assert td == {"city": "Paris", "unit": "f"}
    assert isinstance(td, dict)
    assert call.arguments_as(_WeatherNT) == _WeatherNT("Paris", "c")
    assert call.arguments_as(_weather_fn) == ("Paris", "c")
    assert full.arguments_as(lambda **kw: sorted(kw)) == ["city", "unit"]


def test_arguments_as_gives_mutable_plain_values() -> None:
    @dataclasses.dataclass
    class Items:
        items: list[int]
        opts: dict[str, Any]

    got = ToolCall("c", "f", {"items": [1, 2], "opts": {"a": [1]}}).arguments_as(Items)
    assert got.items == [1, 2]
    assert got.opts == {"a": [1]}


@pytest.mark.parametrize(
    ("args", "cls"),
    [
        ({}, _Weather),  # missing required
        ({"city": "x", "nope": 1}, _Weather),  # unknown key
        ({"unit": "c"}, _WeatherNT),
        ({"city": "x", "zzz": 1}, _weather_fn),
        ({"city": "x"}, _WeatherTD),  # TypedDict total: unit required
        ({"city": "x", "unit": "c", "extra": 1}, _WeatherTD),
    ],
)
def test_arguments_as_mismatch_is_validation_error(args: dict[str, Any], cls: Any) -> None:
    with pytest.raises(ValidationError):
        ToolCall("c", "f", args).arguments_as(cls)


def test_arguments_as_error_has_no_values() -> None:
    # Argument *names* are field names and may appear (as in validate_arguments
    # paths); argument *values* never do.
    call = ToolCall("c", "f", {"city": SECRET, "bogus": SECRET})
    _raises_clean(ValidationError, lambda: call.arguments_as(_Weather))
    _raises_clean(
        ValidationError, lambda: ToolCall("c", "f", {"unit": SECRET}).arguments_as(_WeatherTD)
    )


def test_arguments_as_callable_raising_type_error_becomes_validation_error() -> None:
    def strict(city: str) -> str:
        raise TypeError("internal")

    # a TypeError from *calling* it with wrong keywords is a mismatch
    with pytest.raises(ValidationError):
        ToolCall("c", "f", {"town": "x"}).arguments_as(strict)


def test_tool_call_repr_has_no_arguments() -> None:
    c = ToolCall("c", "f", {"k": SECRET})
    assert SECRET not in repr(c)
    assert SECRET not in str(c)


def test_tool_call_bad_json_error_has_no_content() -> None:
    _raises_clean(ValidationError, lambda: ToolCall("c", "f", '{"a": "' + SECRET + '"'))
    _raises_clean(ValidationError, lambda: ToolCall("c", "f", "[" + json.dumps(SECRET) + "]"))


def test_a_bad_tool_name_is_named_quoted_and_cut() -> None:
    # identifiers may appear in errors (API.md), escaped and cut to 64 characters
    with pytest.raises(ValidationError) as info:
        ToolCall("c", "get weather")
    assert "'get weather'" in str(info.value)
    with pytest.raises(ValidationError) as info:
        ToolCall("c", "\x1b[2J" + "n" * 100)
    assert "'\\x1b[2J" + "n" * 60 + "'..." in str(info.value)
    assert "\x1b" not in str(info.value)


# =====================================================================================
# Tools: ToolResult
# =====================================================================================


def test_tool_result_positional_and_defaults() -> None:
    r = ToolResult("c1", "ok")
    assert (r.tool_call_id, r.content, r.is_error, r.tool_name) == ("c1", "ok", False, None)
    r2 = ToolResult("c1", "boom", True, "get_weather")
    assert (r2.is_error, r2.tool_name) == (True, "get_weather")
    parts = ToolResult("c1", [TextPart("a"), ImagePart(url="https://x/y.png")])
    assert isinstance(parts.content, tuple)
    assert len(parts.content) == 2


def test_tool_result_success_error_to_message() -> None:
    s = ToolResult.success("c1", "42", "calc")
    assert isinstance(s, ToolResult)
    assert (s.is_error, s.content, s.tool_name) == (False, "42", "calc")
    e = ToolResult.error("c1", "failed")
    assert (e.is_error, e.content, e.tool_name) == (True, "failed", None)
    e2 = ToolResult.error("c1", "failed", tool_name="calc")
    assert e2.tool_name == "calc"
    m = e2.to_message()
    assert isinstance(m, ToolResultMessage)
    assert (m.tool_call_id, m.text, m.is_error, m.tool_name) == ("c1", "failed", True, "calc")
    assert m.result == e2


def test_tool_result_empty_string_content_valid() -> None:
    r = ToolResult("c1", "")
    assert r.content == ""
    assert r.to_message().text == ""


def test_tool_result_rejects_bad_input() -> None:
    with pytest.raises(ValidationError):
        ToolResult("", "x")
    with pytest.raises(ValidationError):
        ToolResult("c1", None)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        ToolResult("c1", [ReasoningPart("x")])


def test_tool_result_repr_has_no_content() -> None:
    assert SECRET not in repr(ToolResult("c1", SECRET))


# =====================================================================================
# Tools: ToolDefinition
# =====================================================================================

PARAMS = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City"},
        "unit": {"type": "string", "enum": ["c", "f"]},
        "days": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "where": {
            "type": "object",
            "properties": {"lat": {"type": "number"}},
            "required": ["lat"],
        },
    },
    "required": ["city"],
}


def test_tool_definition_positional_default_strict() -> None:
    d = ToolDefinition("get_weather", "Get the weather", PARAMS)
    assert (d.name, d.description, d.strict) == ("get_weather", "Get the weather", True)
    assert d.parameters["type"] == "object"
    assert isinstance(d.parameters, Mapping)
    d2 = ToolDefinition("get-weather", "x", PARAMS, False)
    assert d2.strict is False
    hash(d)


@pytest.mark.parametrize("name", ["a b", "", "a.b", "x" * 65])
def test_tool_definition_name_rule(name: str) -> None:
    with pytest.raises(ValidationError):
        ToolDefinition(name, "desc", PARAMS)


def test_tool_definition_description_rules() -> None:
    with pytest.raises(ValidationError):
        ToolDefinition("f", "", PARAMS)
    with pytest.warns(UserWarning):
        d = ToolDefinition("f", "x" * 1025, PARAMS)
    assert len(d.description) == 1025
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ToolDefinition("f", "x" * 1024, PARAMS)


@pytest.mark.parametrize(
    "params",
    [
        {"type": "string"},
        {"type": "array", "items": {}},
        {"properties": {}},
        {},
        {"type": ["object", "null"]},
    ],
)
def test_tool_definition_parameters_type_object(params: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        ToolDefinition("f", "d", params)


def _sent_parameters(provider: str, d: ToolDefinition) -> Mapping[str, Any]:
    """Find the parameter schema in what the provider sends for a tool."""
    tools = get_provider(provider).format_tools([d])
    found: list[Mapping[str, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, Mapping):
            if (
                node.get("type") == "object"
                and "properties" in node
                and "city" in node["properties"]
            ):
                found.append(node)
                return
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(tools)
    assert found, f"no parameter schema found in {provider} tools"
    return found[0]


def test_strict_enforces_additional_properties_false_in_what_is_sent() -> None:
    d = ToolDefinition("get_weather", "Get the weather", PARAMS)
    sent = _sent_parameters("openai", d)
    assert sent.get("additionalProperties") is False
    loose = ToolDefinition("get_weather", "Get the weather", PARAMS, strict=False)
    assert _sent_parameters("openai", loose).get("additionalProperties") is not False


def test_strict_definition_rejects_extra_arguments() -> None:
    d = ToolDefinition("f", "d", PARAMS)
    with pytest.raises(ValidationError):
        d.validate_arguments({"city": "x", "surprise": 1})


def _doc_fn(city: str, days: int = 1, unit: str | None = None) -> str:
    """Get the weather.

    Args:
        city: The city name.
        days: How many days.
    """
    return city


def test_from_function() -> None:
    d = ToolDefinition.from_function(_doc_fn)
    assert isinstance(d, ToolDefinition)
    assert d.name == "_doc_fn"
    assert d.description.startswith("Get the weather")
    p = d.parameters
    assert p["type"] == "object"
    assert set(p["properties"]) == {"city", "days", "unit"}
    assert list(p["required"]) == ["city"]
    assert p["properties"]["city"]["type"] == "string"
    assert p["properties"]["days"]["type"] == "integer"
    assert p["properties"]["city"].get("description") == "The city name."
    named = ToolDefinition.from_function(_doc_fn, "weather", "Weather lookup")
    assert (named.name, named.description) == ("weather", "Weather lookup")


@dataclasses.dataclass
class _DC:
    """Search the web.

    Attributes:
        query: What to search for.
    """

    query: str
    limit: int = 10
    lang: str | None = None


class _TD(TypedDict):
    query: str
    limit: NotRequired[int]


class _NT(NamedTuple):
    query: str
    limit: int = 10


@pytest.mark.parametrize("tp", [_DC, _TD, _NT], ids=["dataclass", "TypedDict", "NamedTuple"])
def test_from_type_positional(tp: Any) -> None:
    d = ToolDefinition.from_type(tp, "search", "Search the web")
    assert (d.name, d.description) == ("search", "Search the web")
    p = d.parameters
    assert p["type"] == "object"
    assert "query" in p["properties"]
    assert "limit" in p["properties"]
    assert list(p["required"]) == ["query"]
    assert p["properties"]["query"]["type"] == "string"
    assert p["properties"]["limit"]["type"] == "integer"


def test_from_type_docstring_descriptions() -> None:
    d = ToolDefinition.from_type(_DC, "search", "Search the web")
    assert d.parameters["properties"]["query"].get("description") == "What to search for."
    # the arguments of a call for it build the type back
    assert ToolCall("c", "search", {"query": "q"}).arguments_as(_DC) == _DC("q")


@pytest.mark.parametrize(
    ("args", "path_part"),
    [
        ({}, "city"),
        ({"city": 5}, "city"),
        ({"city": "x", "unit": "k"}, "unit"),
        ({"city": "x", "days": "3"}, "days"),
        ({"city": "x", "days": True}, "days"),
        ({"city": "x", "tags": ["a", 3]}, "tags[1]"),
        ({"city": "x", "tags": "a"}, "tags"),
        ({"city": "x", "where": {}}, "where.lat"),
        ({"city": "x", "where": {"lat": "n"}}, "where.lat"),
        ({"city": "x", "where": {"lat": 1.0, "zz": 1}}, "where"),
        ({"city": "x", "bogus": 1}, "bogus"),
    ],
)
def test_validate_arguments_names_the_path(args: dict[str, Any], path_part: str) -> None:
    d = ToolDefinition("get_weather", "Get the weather", PARAMS)
    with pytest.raises(ValidationError) as info:
        d.validate_arguments(args)
    assert path_part in str(info.value)


def test_validate_arguments_accepts_call_or_mapping() -> None:
    d = ToolDefinition("get_weather", "Get the weather", PARAMS)
    ok = {"city": "x", "unit": "c", "days": 3, "tags": ["a"], "where": {"lat": 1}}
    d.validate_arguments(ok)
    d.validate_arguments(ToolCall("c1", "get_weather", ok))
    with pytest.raises(ValidationError):
        d.validate_arguments(ToolCall("c1", "get_weather", {"unit": "c"}))


def test_validate_arguments_error_has_no_values() -> None:
    d = ToolDefinition("get_weather", "Get the weather", PARAMS)
    _raises_clean(ValidationError, lambda: d.validate_arguments({"city": "x", "unit": SECRET}))
    _raises_clean(ValidationError, lambda: d.validate_arguments({"city": SECRET, "bogus": SECRET}))
    _raises_clean(
        ValidationError, lambda: d.validate_arguments({"city": "x", "where": {"lat": SECRET}})
    )


# =====================================================================================
# Tools: streaming deltas
# =====================================================================================


def test_tool_call_delta_fields() -> None:
    d = ToolCallDelta(0)
    assert (d.index, d.id, d.name, d.arguments_delta) == (0, None, None, None)
    d2 = ToolCallDelta(1, "c1", "f", '{"a"')
    assert (d2.index, d2.id, d2.name, d2.arguments_delta) == (1, "c1", "f", '{"a"')
    with pytest.raises(ValidationError):
        ToolCallDelta(-1)


def test_tool_call_accumulator_in_index_order() -> None:
    acc = ToolCallAccumulator()
    acc.feed(ToolCallDelta(1, "c2", "g", ""))
    acc.feed(ToolCallDelta(0, "c1", "f", '{"a":'))
    acc.feed(ToolCallDelta(1, arguments_delta='{"b": 2}'))
    acc.feed(ToolCallDelta(0, arguments_delta=" 1}"))
    calls = acc.tool_calls()
    assert isinstance(calls, tuple)
    assert [(c.id, c.name, dict(c.arguments)) for c in calls] == [
        ("c1", "f", {"a": 1}),
        ("c2", "g", {"b": 2}),
    ]
    assert acc.invalid_tool_calls() == ()


def test_tool_call_accumulator_empty_arguments_become_empty_object() -> None:
    acc = ToolCallAccumulator()
    acc.feed(ToolCallDelta(0, "c1", "f"))
    acc.feed(ToolCallDelta(0, arguments_delta=""))
    assert acc.tool_calls()[0].arguments == {}


@pytest.mark.parametrize("raw", ['{"a": ', "[1]", "nope", '"s"'])
def test_invalid_accumulated_arguments_kept_raw(raw: str) -> None:
    acc = ToolCallAccumulator()
    acc.feed(ToolCallDelta(0, "c1", "f", raw[:2]))
    acc.feed(ToolCallDelta(0, arguments_delta=raw[2:]))
    acc.feed(ToolCallDelta(1, "c2", "g", "{}"))
    assert [c.id for c in acc.tool_calls()] == ["c2"]
    (bad,) = acc.invalid_tool_calls()
    assert isinstance(bad, InvalidToolCall)
    assert (bad.id, bad.name, bad.raw_arguments) == ("c1", "f", raw)
    assert isinstance(bad.error, str)
    assert bad.error


def test_invalid_tool_call_fields_positional() -> None:
    bad = InvalidToolCall("c1", "f", "{x", "invalid JSON")
    assert (bad.id, bad.name, bad.raw_arguments, bad.error) == ("c1", "f", "{x", "invalid JSON")
    hash(bad)
    no_name = InvalidToolCall("c2", None, "", "e")
    assert no_name.name is None
    with pytest.raises(ValidationError):
        InvalidToolCall(None, None, "", "e")  # type: ignore[arg-type]  # an id is required


def test_invalid_tool_call_repr_hides_raw() -> None:
    bad = InvalidToolCall("c1", "f", SECRET, "invalid JSON")
    assert SECRET not in repr(bad)


# =====================================================================================
# Messages
# =====================================================================================


def _call(i: int = 1, name: str = "f") -> ToolCall:
    return ToolCall(f"call_{i}", name, {"i": i})


ALL_MESSAGES: list[Message] = [
    SystemMessage("sys"),
    DeveloperMessage("dev"),
    UserMessage("hi"),
    UserMessage(["a", TextPart("b"), ImagePart(url="https://x/y.png")]),
    AssistantMessage("hello"),
    AssistantMessage([ReasoningPart("think"), TextPart("answer")]),
    ToolCallMessage([_call(1), _call(2)]),
    ToolCallMessage([_call(1)], "let me check"),
    ToolResultMessage("call_1", "42"),
    ToolResultMessage("call_1", "boom", True, "f"),
]


@pytest.mark.parametrize("m", ALL_MESSAGES, ids=lambda m: type(m).__name__)
def test_messages_frozen_slotted_hashable_dataclasses(m: Message) -> None:
    assert isinstance(m, Message)
    assert dataclasses.is_dataclass(m)
    assert not hasattr(m, "__dict__")
    hash(m)
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.name = "x"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(m)) == m


@pytest.mark.parametrize("m", ALL_MESSAGES, ids=lambda m: type(m).__name__)
def test_common_fields(m: Message) -> None:
    assert isinstance(m.id, str)
    assert m.id
    assert m.name is None
    assert isinstance(m.metadata, Mapping)
    assert m.metadata == {}
    assert isinstance(m.extras, Mapping)
    assert m.extras == {}
    assert isinstance(m.created_at, dt.datetime)
    assert m.created_at.tzinfo is not None
    assert m.created_at.utcoffset() == dt.timedelta(0)
    assert isinstance(m.role, MessageRole)
    assert isinstance(m.text, str)
    assert isinstance(m.parts, tuple)
    assert all(isinstance(p, typing.get_args(ContentPart)) for p in m.parts)
    assert isinstance(m.tool_calls, tuple)


def test_ids_unique_and_time_ordered() -> None:
    ids = [UserMessage("x").id for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    assert ids == sorted(ids)


def test_ids_unique_across_processes_and_time_ordered() -> None:
    code = "from messages import UserMessage; print(UserMessage('x').id)"
    first = UserMessage("x").id
    outs = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
        ).stdout.strip()
        for _ in range(3)
    ]
    assert len(set(outs)) == 3
    assert outs == sorted(outs)
    assert first < outs[0]
    assert UserMessage("x").id > outs[-1]


def test_created_at_set_at_construction_aware_utc() -> None:
    before = dt.datetime.now(dt.UTC)
    m = UserMessage("x")
    after = dt.datetime.now(dt.UTC)
    assert before - dt.timedelta(seconds=1) <= m.created_at <= after + dt.timedelta(seconds=1)
    given = dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    late = UserMessage("x")
    import time

    time.sleep(0.02)
    assert abs((late.created_at - dt.datetime.now(dt.UTC)).total_seconds()) >= 0.015
    m2 = UserMessage("x", created_at=given)
    assert m2.created_at == given
    assert m2.created_at.utcoffset() == dt.timedelta(0)
    with pytest.raises(ValidationError):
        UserMessage("x", created_at=dt.datetime(2024, 1, 1))


def test_given_id_kept() -> None:
    assert UserMessage("x", id="m-1").id == "m-1"


def test_equality_and_hash_ignore_id_and_created_at() -> None:
    t1 = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)
    t2 = dt.datetime(2021, 1, 1, tzinfo=dt.UTC)
    a = UserMessage("hi", id="a", created_at=t1, name="n", metadata={"k": 1})
    b = UserMessage("hi", id="b", created_at=t2, name="n", metadata={"k": 1})
    assert a == b
    assert hash(a) == hash(b)
    assert a != UserMessage("hi", id="a", created_at=t1, name="m", metadata={"k": 1})
    assert a != UserMessage("hi", id="a", created_at=t1, name="n", metadata={"k": 2})
    assert a != UserMessage(
        "hi", id="a", created_at=t1, name="n", metadata={"k": 1}, extras={"x": 1}
    )
    assert a != UserMessage("ho", id="a", created_at=t1, name="n", metadata={"k": 1})
    # different classes with the same text are not equal
    assert SystemMessage("x") != DeveloperMessage("x")  # type: ignore[comparison-overlap]
    assert AssistantMessage("x") != UserMessage("x")  # type: ignore[comparison-overlap]


def test_metadata_and_extras_deeply_immutable() -> None:
    meta = {"a": [1, {"b": 2}]}
    m = UserMessage("x", metadata=meta)
    meta["a"].append(3)
    assert len(m.metadata["a"]) == 2
    with pytest.raises(TypeError):
        m.metadata["z"] = 1  # type: ignore[index]
    hash(m)


ROLE_TABLE = [
    (SystemMessage("x"), MessageRole.SYSTEM),
    (DeveloperMessage("x"), MessageRole.DEVELOPER),
    (UserMessage("x"), MessageRole.USER),
    (AssistantMessage("x"), MessageRole.ASSISTANT),
    (ToolCallMessage([_call()]), MessageRole.ASSISTANT),
    (ToolResultMessage("c", "x"), MessageRole.TOOL),
]


@pytest.mark.parametrize(("m", "role"), ROLE_TABLE, ids=lambda x: getattr(x, "name", ""))
def test_roles_per_class(m: Message, role: MessageRole) -> None:
    assert m.role is role
    assert type(m).role is role


def test_text_joins_text_parts_without_separator() -> None:
    m = UserMessage(["a", TextPart("b"), ImagePart(url="https://x/y.png"), TextPart("c")])
    assert m.text == "abc"
    assert UserMessage([ImagePart(url="https://x/y.png")]).text == ""
    a = AssistantMessage([ReasoningPart("think"), TextPart("x"), TextPart("y")])
    assert a.text == "xy"
    assert ToolCallMessage([_call()]).text == ""
    assert ToolCallMessage([_call()], [ReasoningPart("r"), TextPart("t")]).text == "t"


def test_parts_views() -> None:
    assert UserMessage("hi").parts == (TextPart("hi"),)
    parts = (TextPart("a"), ImagePart(url="https://x/y.png"))
    assert UserMessage(parts).parts == parts
    assert ToolResultMessage("c", "r").parts == (TextPart("r"),)


def test_tool_calls_view() -> None:
    calls = (_call(1), _call(2))
    assert ToolCallMessage(calls).tool_calls == calls
    for m in (
        SystemMessage("x"),
        UserMessage("x"),
        AssistantMessage("x"),
        ToolResultMessage("c", "x"),
    ):
        assert m.tool_calls == ()


def test_positional_signatures_from_the_table() -> None:
    assert SystemMessage("s").text == "s"
    assert DeveloperMessage("d").text == "d"
    assert UserMessage("u").text == "u"
    assert AssistantMessage("a").text == "a"
    tcm = ToolCallMessage([_call()], "txt")
    assert (tcm.tool_calls[0].id, tcm.text) == ("call_1", "txt")
    assert ToolCallMessage(tool_calls=[_call()], content=None).text == ""
    trm = ToolResultMessage("call_1", "res", True, "f")
    assert (trm.tool_call_id, trm.text, trm.is_error, trm.tool_name) == ("call_1", "res", True, "f")
    trm2 = ToolResultMessage("call_1", "res")
    assert (trm2.is_error, trm2.tool_name) == (False, None)


@pytest.mark.parametrize(
    "build",
    [
        lambda: SystemMessage(None),  # type: ignore[arg-type]
        lambda: DeveloperMessage(None),  # type: ignore[arg-type]
        lambda: UserMessage(None),  # type: ignore[arg-type]
        lambda: AssistantMessage(None),  # type: ignore[arg-type]
        lambda: ToolResultMessage("c", None),  # type: ignore[arg-type]
        lambda: SystemMessage([TextPart("x")]),  # type: ignore[arg-type]
        lambda: SystemMessage(5),  # type: ignore[arg-type]
        lambda: UserMessage([ReasoningPart("x")]),
        lambda: UserMessage(5),  # type: ignore[arg-type]
        lambda: AssistantMessage([ImagePart(url="https://x/y.png")]),
        lambda: ToolCallMessage([]),
        lambda: ToolCallMessage(()),
        lambda: ToolCallMessage([_call(1), _call(1)]),
        lambda: ToolCallMessage(["not a call"]),  # type: ignore[list-item]
        lambda: ToolCallMessage([_call()], [ImagePart(url="https://x/y.png")]),
        lambda: ToolResultMessage("", "x"),
        lambda: ToolResultMessage(None, "x"),  # type: ignore[arg-type]
        lambda: ToolResultMessage("c", [ReasoningPart("x")]),
    ],
)
def test_message_rules(build: Callable[[], Message]) -> None:
    with pytest.raises(ValidationError):
        build()


@pytest.mark.parametrize(
    "build",
    [
        lambda: SystemMessage(""),
        lambda: DeveloperMessage(""),
        lambda: UserMessage(""),
        lambda: AssistantMessage(""),
        lambda: ToolResultMessage("c", ""),
        lambda: ToolCallMessage([_call()], ""),
        lambda: ToolCallMessage([_call()], None),
        lambda: UserMessage([]),
        lambda: AssistantMessage([]),
    ],
)
def test_empty_string_content_valid_for_every_role(build: Callable[[], Message]) -> None:
    m = build()
    assert m.text == ""
    assert from_dict(m.to_dict()) == m


def test_tool_call_message_is_assistant_subclass_with_text_and_reasoning() -> None:
    assert issubclass(ToolCallMessage, AssistantMessage)
    m = ToolCallMessage([_call()], [ReasoningPart("r", signature="s", provider="anthropic"), "t"])
    assert isinstance(m, AssistantMessage)
    assert m.text == "t"
    assert m.role is MessageRole.ASSISTANT
    assert from_dict(to_dict(m)) == m


def test_tool_result_message_result() -> None:
    m = ToolResultMessage("c1", "out", True, "f")
    r = m.result
    assert isinstance(r, ToolResult)
    assert (r.tool_call_id, r.content, r.is_error, r.tool_name) == ("c1", "out", True, "f")


def test_factories() -> None:
    assert type(Message.system("s")) is SystemMessage
    assert Message.system("s").text == "s"
    assert type(Message.developer("d")) is DeveloperMessage
    assert type(Message.user("u")) is UserMessage
    assert type(Message.user([TextPart("u")])) is UserMessage
    a = Message.assistant("a")
    assert type(a) is AssistantMessage
    assert a.text == "a"
    tc = Message.assistant(tool_calls=[_call()])
    assert type(tc) is ToolCallMessage
    assert tc.text == ""
    tc2 = Message.assistant("t", [_call()])
    assert type(tc2) is ToolCallMessage
    assert tc2.text == "t"
    tr = Message.tool_result("c1", "x")
    assert type(tr) is ToolResultMessage
    assert (tr.is_error, tr.tool_name) == (False, None)
    tr2 = Message.tool_result("c1", "x", True, "f")
    assert (tr2.is_error, tr2.tool_name) == (True, "f")
    tr3 = Message.tool_result(tool_call_id="c1", content="x", is_error=True, tool_name="f")
    assert tr3 == tr2


def test_factory_assistant_without_content_or_calls_is_rejected() -> None:
    with pytest.raises(ValidationError):
        Message.assistant()


def test_replace_and_with_keep_id() -> None:
    m = UserMessage("a", id="keep")
    r = dataclasses.replace(m, content="b")
    assert r.id == "keep"
    assert r.text == "b"
    assert r.created_at == m.created_at
    w = m.with_name("bob")
    assert (w.id, w.name) == ("keep", "bob")
    assert m.with_metadata({"k": 1}).id == "keep"
    with pytest.raises(ValidationError):
        dataclasses.replace(m, content=None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "m",
    [
        SystemMessage(SECRET),
        UserMessage(SECRET),
        UserMessage([TextPart(SECRET)]),
        AssistantMessage([ReasoningPart(SECRET), TextPart(SECRET)]),
        ToolCallMessage([ToolCall("c", "f", {"k": SECRET})], SECRET),
        ToolResultMessage("c", SECRET),
        UserMessage("x", metadata={"k": SECRET}),
    ],
    ids=lambda m: type(m).__name__,
)
def test_message_repr_and_str_have_no_content(m: Message) -> None:
    assert SECRET not in repr(m)
    assert SECRET not in str(m)
    assert m.id in repr(m)


# =====================================================================================
# Canonical dict / JSON codec
# =====================================================================================


def test_canonical_dict_shape_user() -> None:
    m = UserMessage("hi", name="bob", metadata={"k": 1})
    d = m.to_dict()
    assert d["role"] == "user"
    assert d["content"] == "hi"
    assert d["name"] == "bob"
    assert d["id"] == m.id
    assert d["metadata"] == {"k": 1}
    assert "extras" not in d
    assert "tool_calls" not in d
    assert "tool_call_id" not in d
    assert "is_error" not in d
    assert "tool_name" not in d
    created = dt.datetime.fromisoformat(d["created_at"].replace("Z", "+00:00"))
    assert created == m.created_at
    json.dumps(d)  # plain JSON types


def test_canonical_dict_omits_empty_optionals() -> None:
    d = UserMessage("hi").to_dict()
    assert set(d) == {"id", "role", "content", "created_at"}


def test_canonical_dict_tool_call_message() -> None:
    m = ToolCallMessage([ToolCall("c1", "get_weather", {"city": "Paris"})])
    d = m.to_dict()
    assert d["role"] == "assistant"
    assert d.get("content") in (None, "") or "content" not in d
    (tc,) = d["tool_calls"]
    assert tc["id"] == "c1"
    assert tc["type"] == "function"
    assert tc["function"]["name"] == "get_weather"
    assert isinstance(tc["function"]["arguments"], str)
    assert json.loads(tc["function"]["arguments"]) == {"city": "Paris"}


def test_canonical_dict_tool_result() -> None:
    d = ToolResultMessage("c1", "boom", True, "get_weather").to_dict()
    assert d["role"] == "tool"
    assert d["tool_call_id"] == "c1"
    assert d["content"] == "boom"
    assert d["is_error"] is True
    assert d["tool_name"] == "get_weather"
    d2 = ToolResultMessage("c1", "ok").to_dict()
    assert "is_error" not in d2
    assert "tool_name" not in d2


def test_canonical_dict_parts_in_openai_shape() -> None:
    m = UserMessage(
        [
            TextPart("look"),
            ImagePart(url="https://x/y.png", detail="high"),
            ImagePart(data=B64, media_type="image/png"),
        ]
    )
    content = m.to_dict()["content"]
    assert isinstance(content, list)
    assert content[0] == {"type": "text", "text": "look"}
    assert content[1]["type"] == "image_url"
    assert content[1]["image_url"]["url"] == "https://x/y.png"
    assert content[1]["image_url"]["detail"] == "high"
    assert content[2]["type"] == "image_url"
    assert content[2]["image_url"]["url"] == "data:image/png;base64," + B64


def test_canonical_dict_from_openai_shape_without_storage_fields() -> None:
    m = from_dict(
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
    )
    assert type(m) is UserMessage
    assert m.text == "ab"
    assert m.id
    s = from_dict({"role": "system", "content": "s"})
    assert type(s) is SystemMessage
    d = from_dict({"role": "developer", "content": "d"})
    assert type(d) is DeveloperMessage
    t = from_dict({"role": "tool", "tool_call_id": "c1", "content": "r"})
    assert type(t) is ToolResultMessage
    assert t.is_error is False


def test_created_at_iso_8601_in_dict_and_parsed_back() -> None:
    d = {"role": "user", "content": "x", "created_at": "2024-05-06T07:08:09.123456+00:00"}
    m = from_dict(d)
    assert m.created_at == dt.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=dt.UTC)
    z = from_dict({"role": "user", "content": "x", "created_at": "2024-05-06T07:08:09Z"})
    assert z.created_at == dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=dt.UTC)
    off = from_dict({"role": "user", "content": "x", "created_at": "2024-05-06T09:08:09+02:00"})
    assert off.created_at == z.created_at
    assert off.created_at.utcoffset() == dt.timedelta(0)


@pytest.mark.parametrize("m", ALL_MESSAGES, ids=lambda m: type(m).__name__)
def test_round_trip_exact_same_class_same_id(m: Message) -> None:
    for back in (from_dict(m.to_dict()), Message.from_dict(m.to_dict()), from_dict(to_dict(m))):
        assert back == m
        assert type(back) is type(m)
        assert back.id == m.id
        assert back.created_at == m.created_at
    j = from_json(to_json(m))
    assert j == m
    assert type(j) is type(m)
    assert j.id == m.id
    assert j.created_at == m.created_at


def test_round_trip_with_everything() -> None:
    m = ToolCallMessage(
        [
            ToolCall(
                "c1",
                "f",
                {"a": [1, 2.5, None, True, {"b": "é\u2028"}]},
                extras={"gemini": {"sig": "x"}},
            )
        ],
        [ReasoningPart("r", "sig", False, "anthropic"), TextPart("t")],
        name="bot",
        metadata={"trace": {"id": 1}},
        extras={"x_custom": [1, 2]},
        id="fixed",
        created_at=dt.datetime(2024, 1, 1, 12, 0, 0, 123456, tzinfo=dt.UTC),
    )
    back = from_json(to_json(m))
    assert isinstance(back, ToolCallMessage)
    assert back == m
    assert back.id == "fixed"
    assert back.created_at == m.created_at
    assert back.tool_calls[0].extras == m.tool_calls[0].extras
    parts_user = UserMessage(
        [
            TextPart("a"),
            ImagePart(url="https://x/y.png", detail="low"),
            ImagePart(data=B64, media_type="image/webp", detail="auto"),
            AudioPart(B64, "mp3"),
            FilePart(data=B64, filename="a.pdf", media_type="application/pdf"),
            FilePart(file_id="file-1"),
        ]
    )
    assert from_dict(to_dict(parts_user)) == parts_user
    redacted = AssistantMessage([ReasoningPart("opaque", None, True, "anthropic"), TextPart("x")])
    assert from_dict(redacted.to_dict()) == redacted


def test_list_codec() -> None:
    ms = [
        SystemMessage("s"),
        UserMessage("u"),
        ToolCallMessage([_call()]),
        ToolResultMessage("call_1", "r"),
    ]
    ds = to_dict(ms)
    assert isinstance(ds, list)
    assert len(ds) == 4
    assert all(isinstance(d, dict) for d in ds)
    back = from_dict(ds)
    assert isinstance(back, list)
    assert back == ms
    assert [type(b) for b in back] == [type(m) for m in ms]
    assert [b.id for b in back] == [m.id for m in ms]
    text = to_json(ms)
    assert isinstance(text, str)
    assert isinstance(json.loads(text), list)
    back2 = from_json(text)
    assert isinstance(back2, list)
    assert back2 == ms
    assert from_json("[]") == []
    assert to_json([]) == "[]"
    assert to_dict(tuple(ms)) == ds
    assert to_dict(Messages(ms)) == ds


def test_to_json_is_str_and_from_json_accepts_bytes() -> None:
    m = UserMessage("é")
    text = to_json(m)
    assert isinstance(text, str)
    assert json.loads(text)["content"] == "é"
    assert from_json(text.encode("utf-8")) == m


def test_module_and_method_codecs_agree() -> None:
    m = UserMessage("x", metadata={"a": 1})
    assert to_dict(m) == m.to_dict()
    assert json.loads(to_json(m)) == m.to_dict()


@pytest.mark.parametrize(
    "d",
    [
        {"role": "user", "content": "x", "x_unknown": {"a": [1]}},
        {"role": "assistant", "content": "x", "refusal": None, "audio": {"id": "a"}},
        {"role": "tool", "tool_call_id": "c", "content": "x", "weird": 1},
    ],
)
def test_unknown_keys_go_to_extras_and_come_back(d: dict[str, Any]) -> None:
    m = from_dict(d)
    known = {"role", "content", "tool_call_id"}
    for k, v in d.items():
        if k not in known:
            assert m.extras[k] == v
    out = m.to_dict()
    for k, v in d.items():
        assert out[k] == v
    assert from_dict(out) == m


def test_extras_given_explicitly_round_trip() -> None:
    m = UserMessage("x", extras={"provider_field": 1})
    d = m.to_dict()
    assert from_dict(d) == m
    assert from_dict(d).extras == {"provider_field": 1}


def test_assistant_picks_class_by_tool_calls() -> None:
    assert type(from_dict({"role": "assistant", "content": "x"})) is AssistantMessage
    assert (
        type(from_dict({"role": "assistant", "content": "x", "tool_calls": []})) is AssistantMessage
    )
    tc = from_dict(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        }
    )
    assert type(tc) is ToolCallMessage


def test_message_from_dict_on_subclass() -> None:
    d = UserMessage("x").to_dict()
    assert type(UserMessage.from_dict(d)) is UserMessage
    with pytest.raises(DecodeError):
        SystemMessage.from_dict(d)


# -- registry ---------------------------------------------------------------------------


class _AuditNote(AssistantMessage):
    """A user subclass: an assistant note marked in its extras."""

    __slots__ = ()


def _is_audit_note(d: Mapping[str, Any]) -> bool:
    metadata = d.get("metadata")
    return isinstance(metadata, Mapping) and metadata.get("kind") == "audit_note"


def test_registry_register_user_class_round_trips_as_itself() -> None:
    registry = MessageRegistry()  # starts with the built-in classes
    registry.register(MessageRole.ASSISTANT, _AuditNote, _is_audit_note, AssistantMessage)
    note = _AuditNote("a note", metadata={"kind": "audit_note"})
    assert isinstance(note, AssistantMessage)
    back = from_dict(note.to_dict(), registry)
    assert type(back) is _AuditNote
    assert back == note
    assert back.id == note.id
    assert type(from_dict(AssistantMessage("x").to_dict(), registry)) is AssistantMessage
    assert type(from_dict(ToolCallMessage([_call()]).to_dict(), registry)) is ToolCallMessage
    # the default registry did not change
    assert type(from_dict(note.to_dict())) is AssistantMessage


def test_default_registry_register_signature_and_round_trip() -> None:
    default_registry.register(
        "assistant", _AuditNote, predicate=_is_audit_note, before=AssistantMessage
    )
    try:
        note = _AuditNote("a note", metadata={"kind": "audit_note"})
        back = from_dict(note.to_dict())
        assert type(back) is _AuditNote
        assert back == note
        assert type(Message.from_dict(note.to_dict())) is _AuditNote
        back_json = from_json(to_json([note]))
        assert isinstance(back_json, list)
        assert type(back_json[0]) is _AuditNote
        assert type(Messages.from_dicts([note.to_dict()])[0]) is _AuditNote
        assert type(from_dict(AssistantMessage("x").to_dict())) is AssistantMessage
        assert type(from_dict(ToolCallMessage([_call()]).to_dict())) is ToolCallMessage
    finally:
        default_registry.unregister("assistant", _AuditNote)
    assert type(from_dict(note.to_dict())) is AssistantMessage


# =====================================================================================
# Collections
# =====================================================================================


def _conversation() -> list[Message]:
    return [
        SystemMessage("sys"),
        UserMessage("hi"),
        ToolCallMessage([_call(1), _call(2)]),
        ToolResultMessage("call_2", "two"),
        ToolResultMessage("call_1", "one"),
        AssistantMessage("done"),
        UserMessage("thanks"),
        AssistantMessage("bye"),
    ]


def test_messages_is_immutable_sequence() -> None:
    conv = _conversation()
    ms = Messages(conv)
    assert isinstance(ms, Sequence)
    assert len(ms) == len(conv)
    assert list(ms) == conv
    assert ms[0] == conv[0]
    assert isinstance(ms[1:3], Messages)
    assert list(ms[1:3]) == conv[1:3]
    with pytest.raises((TypeError, AttributeError)):
        ms[0] = UserMessage("x")  # type: ignore[index]
    conv.append(UserMessage("late"))
    assert len(ms) == len(conv) - 1
    assert Messages() == Messages([])
    assert len(Messages()) == 0


def test_messages_methods() -> None:
    conv = _conversation()
    ms = Messages(conv)
    extra = UserMessage("x")
    appended = ms.append(extra)
    assert isinstance(appended, Messages)
    assert len(appended) == len(ms) + 1
    assert len(ms) == len(conv)
    assert appended.last() is extra
    ext = ms.extend([extra, extra])
    assert isinstance(ext, Messages)
    assert len(ext) == len(ms) + 2
    f = ms.filter(lambda m: m.role is MessageRole.USER)
    assert isinstance(f, Messages)
    assert [m.text for m in f] == ["hi", "thanks"]
    assert [m.text for m in ms.for_roles(MessageRole.USER)] == ["hi", "thanks"]
    assert [m.text for m in ms.for_roles("user", "system")] == ["sys", "hi", "thanks"]
    assert all(m.role is not MessageRole.ASSISTANT for m in ms.except_roles(MessageRole.ASSISTANT))
    assert len(ms.except_roles("assistant", "tool")) == 3
    assert ms.first() == conv[0]
    assert ms.last() == conv[-1]
    assert Messages().first() is None
    assert Messages().last() is None
    assert ms.get(conv[3].id) is conv[3]
    assert ms.get("nope") is None


def test_messages_merged_per_role_and_without_empty() -> None:
    ms = Messages(
        [
            UserMessage("a"),
            UserMessage("b"),
            AssistantMessage("c"),
            AssistantMessage("d"),
            UserMessage("e"),
        ]
    )
    merged = ms.merged_per_role()
    assert isinstance(merged, Messages)
    # the separator is the library's choice (a blank line); order and roles are the contract
    assert [m.role for m in merged] == [MessageRole.USER, MessageRole.ASSISTANT, MessageRole.USER]
    assert [m.text.replace("\n", "") for m in merged] == ["ab", "cd", "e"]
    assert merged[0].id == ms[0].id
    # tool calls and results are not text messages to merge
    tools = Messages([ToolCallMessage([_call(1)]), ToolCallMessage([_call(2)])])
    assert len(tools.merged_per_role()) == 2
    we = Messages(
        [UserMessage(""), UserMessage("x"), AssistantMessage(""), ToolCallMessage([_call()])]
    )
    kept = we.without_empty()
    assert isinstance(kept, Messages)
    assert [type(m) for m in kept] == [UserMessage, ToolCallMessage]


def test_messages_dicts_round_trip() -> None:
    ms = Messages(_conversation())
    ds = ms.to_dicts()
    assert isinstance(ds, list)
    assert all(isinstance(d, dict) for d in ds)
    back = Messages.from_dicts(ds)
    assert isinstance(back, Messages)
    assert back == ms
    assert [m.id for m in back] == [m.id for m in ms]
    with pytest.raises(DecodeError):
        Messages.from_dicts([{"role": "nope"}])


def test_message_store() -> None:
    sys_m = SystemMessage("s")
    u1, u2 = UserMessage("a"), UserMessage("b")
    store = MessageStore()
    s1 = store.with_section("system", [sys_m]).with_section("chat", [u1])
    assert isinstance(s1, MessageStore)
    assert isinstance(s1.section("chat"), Messages)
    assert list(s1.section("chat")) == [u1]
    s2 = s1.append_to("chat", [u2])
    assert list(s2.section("chat")) == [u1, u2]
    assert list(s1.section("chat")) == [u1]
    assert list(s2.to_messages()) == [sys_m, u1, u2]
    assert isinstance(s2.to_messages(), Messages)
    s3 = s2.with_section("context", [UserMessage("c")])
    assert [m.text for m in s3.select("context", "system").to_messages()] in (
        ["c", "s"],
        ["s", "c"],
    )
    assert [m.text for m in s3.remove_section("chat").to_messages()] == ["s", "c"]
    assert isinstance(s3.parameters, Mapping)
    back = MessageStore.from_dict(s3.to_dict())
    assert back == s3
    assert list(back.to_messages()) == list(s3.to_messages())
    json.dumps(s3.to_dict())


def test_message_store_parameters_round_trip() -> None:
    store = MessageStore([("chat", [UserMessage("x")])], {"temperature": 0.2, "stop": ["a"]})
    assert store.parameters["temperature"] == 0.2
    back = MessageStore.from_dict(store.to_dict())
    assert back.parameters == store.parameters
    assert back == store


def test_message_store_missing_section() -> None:
    store = MessageStore().with_section("a", [])
    try:
        missing = store.section("nope")
    except (KeyError, ValidationError):
        return
    assert isinstance(missing, Messages)
    assert len(missing) == 0


# =====================================================================================
# ConversationHistory, OrderingPolicy, repair
# =====================================================================================


def test_history_constructor_and_default_strict_policy() -> None:
    h = ConversationHistory()
    assert h.len() == 0
    assert len(h) == 0
    assert h.last is None
    with pytest.raises(OrderingError):
        h.add(UserMessage("no system first"))
    assert len(h) == 0
    h2 = ConversationHistory(_conversation())
    assert len(h2) == len(_conversation())
    h3 = ConversationHistory([UserMessage("x")], policy=OrderingPolicy.lenient())
    assert h3.len() == 1


def test_history_methods() -> None:
    conv = _conversation()
    h = ConversationHistory(conv[:2])
    h.add(conv[2])
    h.extend(conv[3:])
    snap = h.messages()
    assert isinstance(snap, tuple)
    assert list(snap) == conv
    assert h.len() == len(conv) == len(h)
    assert h.last == conv[-1]
    assert list(h) == conv
    assert h.get(conv[1].id) == conv[1]
    assert h.get("nope") is None
    new = UserMessage("thanks!")
    h.replace(conv[6].id, new)
    assert h.messages()[6] == new
    removed_target = h.messages()[-1]
    h.remove(removed_target.id)
    assert h.len() == len(conv) - 1
    h.validate()
    h.clear()
    assert h.len() == 0
    assert h.messages() == ()


def test_history_iteration_over_snapshot() -> None:
    h = ConversationHistory([SystemMessage("s"), UserMessage("u")])
    seen = []
    for m in h:
        seen.append(m)
        if len(seen) == 1:
            h.add(AssistantMessage("a"))
    assert len(seen) == 2
    assert h.len() == 3


def test_history_pending_tool_calls() -> None:
    h = ConversationHistory([SystemMessage("s"), UserMessage("u")])
    assert list(h.pending_tool_calls) == []
    h.add(ToolCallMessage([_call(1), _call(2)]))
    assert {c.id for c in h.pending_tool_calls} == {"call_1", "call_2"}
    assert all(isinstance(c, ToolCall) for c in h.pending_tool_calls)
    h.add(ToolResultMessage("call_2", "x"))
    assert [c.id for c in h.pending_tool_calls] == ["call_1"]
    with pytest.raises(OrderingError):
        h.add(UserMessage("too soon"))
    h.add(ToolResultMessage("call_1", "x"))
    assert h.pending_tool_calls == ()
    h.add(AssistantMessage("ok"))


@pytest.mark.parametrize(
    "seq",
    [
        [UserMessage("u")],
        [AssistantMessage("a")],
        [SystemMessage("s"), UserMessage("a"), UserMessage("b")],
        [SystemMessage("s"), UserMessage("a"), AssistantMessage("b"), AssistantMessage("c")],
        [SystemMessage("s"), UserMessage("u"), ToolResultMessage("call_1", "x")],
        [SystemMessage("s"), UserMessage("u"), ToolCallMessage([_call(1)]), UserMessage("x")],
        [SystemMessage("s"), UserMessage("u"), ToolCallMessage([_call(1)]), AssistantMessage("x")],
        [
            SystemMessage("s"),
            UserMessage("u"),
            ToolCallMessage([_call(1)]),
            ToolResultMessage("call_9", "x"),
        ],
        [
            SystemMessage("s"),
            UserMessage("u"),
            ToolCallMessage([_call(1), _call(2)]),
            ToolResultMessage("call_1", "x"),
            ToolResultMessage("call_1", "x"),
        ],
    ],
)
def test_strict_policy_violations(seq: list[Message]) -> None:
    with pytest.raises(OrderingError) as info:
        ConversationHistory(seq)
    assert isinstance(info.value.rule, str)
    assert isinstance(info.value.index, int)
    h = ConversationHistory([])
    with pytest.raises(OrderingError):
        h.extend(seq)
    assert h.len() == 0


@pytest.mark.parametrize(
    "seq",
    [
        [SystemMessage("s"), UserMessage("u"), AssistantMessage("a")],
        [DeveloperMessage("d"), UserMessage("u"), AssistantMessage("a")],
        [
            SystemMessage("s"),
            UserMessage("u"),
            ToolCallMessage([_call(1), _call(2)]),
            ToolResultMessage("call_2", "b"),
            ToolResultMessage("call_1", "a"),
            AssistantMessage("x"),
            UserMessage("again"),
        ],
    ],
)
def test_strict_policy_accepts(seq: list[Message]) -> None:
    h = ConversationHistory(seq)
    h.validate()
    assert h.len() == len(seq)


def test_violation_leaves_history_unchanged() -> None:
    h = ConversationHistory([SystemMessage("s"), UserMessage("u")])
    before = h.messages()
    with pytest.raises(OrderingError):
        h.add(UserMessage("again"))
    with pytest.raises(OrderingError):
        h.extend([AssistantMessage("ok"), AssistantMessage("again")])
    assert h.messages() == before
    assert [m.id for m in h.messages()] == [m.id for m in before]


def test_lenient_policy() -> None:
    lenient = OrderingPolicy.lenient()
    assert isinstance(lenient, OrderingPolicy)
    assert isinstance(OrderingPolicy.strict(), OrderingPolicy)
    h = ConversationHistory(
        [UserMessage("a"), UserMessage("b"), AssistantMessage("c"), AssistantMessage("d")],
        policy=lenient,
    )
    h.validate()
    h.add(ToolCallMessage([_call(1)]))
    with pytest.raises(OrderingError):
        h.add(UserMessage("before the result"))
    with pytest.raises(OrderingError):
        h.add(ToolResultMessage("call_unknown", "x"))
    h.add(ToolResultMessage("call_1", "x"))
    with pytest.raises(OrderingError):
        h.add(ToolResultMessage("call_1", "dup"))
    with pytest.raises(OrderingError):
        ConversationHistory([ToolResultMessage("orphan", "x")], policy=lenient)


def test_history_replace_and_remove_keep_rules() -> None:
    h = ConversationHistory([SystemMessage("s"), UserMessage("u"), AssistantMessage("a")])
    with pytest.raises(OrderingError):
        h.replace(h.messages()[1].id, AssistantMessage("x"))
    with pytest.raises(OrderingError):
        h.remove(h.messages()[1].id)
    assert h.len() == 3
    # an unknown id is both a lookup miss and bad input
    calls: list[Callable[[], Message]] = [
        lambda: h.remove("no-such-id"),
        lambda: h.replace("no-such-id", UserMessage("x")),
    ]
    for call in calls:
        with pytest.raises(KeyError):
            call()
        with pytest.raises(MessageError):
            call()
    assert h.len() == 3


def test_history_to_dict_from_dict() -> None:
    h = ConversationHistory(_conversation())
    d = h.to_dict()
    assert isinstance(d, dict)
    json.dumps(d)
    back = ConversationHistory.from_dict(d)
    assert isinstance(back, ConversationHistory)
    assert back.messages() == h.messages()
    assert [m.id for m in back] == [m.id for m in h]
    lenient = ConversationHistory(
        [UserMessage("a"), UserMessage("b")], policy=OrderingPolicy.lenient()
    )
    back_l = ConversationHistory.from_dict(lenient.to_dict())
    assert back_l.len() == 2
    back_l.add(UserMessage("c"))  # the lenient policy came back too


def _long_conversation(turns: int) -> list[Message]:
    out: list[Message] = [SystemMessage("You are helpful. " * 5)]
    for i in range(turns):
        out.append(UserMessage(f"question {i} " * 10))
        if i % 2:
            out.append(
                ToolCallMessage([ToolCall(f"c{i}a", "f", {"q": i}), ToolCall(f"c{i}b", "g")])
            )
            out.append(ToolResultMessage(f"c{i}b", "result " * 20))
            out.append(ToolResultMessage(f"c{i}a", "result " * 20))
        out.append(AssistantMessage(f"answer {i} " * 10))
    return out


@pytest.mark.parametrize("budget", [60, 150, 400, 1000])
def test_truncate(budget: int) -> None:
    def counter(m: Message) -> int:
        return 5 + len(m.text) // 4 + sum(len(c.arguments_json) // 4 for c in m.tool_calls)

    conv = _long_conversation(12)
    h = ConversationHistory(conv)
    h.truncate(budget, counter)
    h.validate()
    kept = h.messages()
    assert isinstance(kept[0], SystemMessage)
    assert sum(counter(m) for m in kept) <= budget or len(kept) == 1
    ids = [m.id for m in kept]
    original_ids = [m.id for m in conv]
    # what survives is the newest suffix of the turns (plus the system message)
    assert ids[1:] == original_ids[len(original_ids) - len(ids) + 1 :]
    # never separates calls from results
    pending: set[str] = set()
    for m in kept:
        if isinstance(m, ToolCallMessage):
            pending = {c.id for c in m.tool_calls}
        elif isinstance(m, ToolResultMessage):
            assert m.tool_call_id in pending
            pending.discard(m.tool_call_id)
        else:
            assert not pending


def test_truncate_default_counter_and_keyword() -> None:
    h = ConversationHistory(_long_conversation(20))
    h.truncate(max_tokens=300)
    h.validate()
    assert isinstance(h.messages()[0], SystemMessage)
    assert h.len() < len(_long_conversation(20))
    assert sum(messages.estimate_tokens(m) for m in h) <= 300


def test_repair_signature_and_result() -> None:
    broken = [
        SystemMessage("s"),
        UserMessage("u"),
        ToolResultMessage("orphan", "x"),
        ToolCallMessage([_call(1), _call(2)]),
        ToolResultMessage("call_1", "r"),
        ToolResultMessage("call_1", "dup"),
        UserMessage("next"),
        UserMessage("next2"),
    ]
    fixed, repairs = messages.repair(broken, policy=OrderingPolicy.strict())
    assert isinstance(fixed, Messages)
    assert isinstance(repairs, tuple)
    assert repairs
    assert all(isinstance(r, Repair) for r in repairs)
    ConversationHistory(fixed).validate()
    texts = [m.text for m in fixed]
    assert "x" not in texts  # orphan dropped
    assert "dup" not in texts  # duplicate dropped
    answered = [m for m in fixed if isinstance(m, ToolResultMessage) and m.tool_call_id == "call_2"]
    assert len(answered) == 1
    assert answered[0].is_error is True
    users = [m for m in fixed if m.role is MessageRole.USER]
    assert len(users) == 2  # the user run merged
    # every change is listed: orphan, duplicate, missing answer, merge
    assert len(repairs) >= 4
    for r in repairs:
        assert isinstance(r.index, int)
        assert isinstance(r.rule, str)
        assert isinstance(r.action, str)


def test_repair_clean_input_is_unchanged_and_positional_default() -> None:
    conv = _conversation()
    fixed, repairs = messages.repair(conv)
    assert repairs == ()
    assert list(fixed) == conv
    fixed_l, rep_l = messages.repair(
        [UserMessage("a"), UserMessage("b")], policy=OrderingPolicy.lenient()
    )
    assert rep_l == ()
    assert len(fixed_l) == 2


def test_repair_repr_no_content() -> None:
    _, repairs = messages.repair(
        [SystemMessage("s"), UserMessage(SECRET), ToolResultMessage("o", SECRET)]
    )
    for r in repairs:
        assert SECRET not in repr(r)


def test_history_repr_and_errors_have_no_content() -> None:
    h = ConversationHistory([SystemMessage(SECRET), UserMessage(SECRET)])
    assert SECRET not in repr(h)
    _raises_clean(OrderingError, lambda: h.add(UserMessage(SECRET)))


# =====================================================================================
# Envelope
# =====================================================================================


def test_envelope_constants_and_types() -> None:
    assert Envelope.schema == "agents-api.message"
    assert Envelope.version == 1
    assert [t.name for t in EnvelopeType] == [
        "TEXT",
        "TOOL_CALL",
        "TOOL_RESULT",
        "INPUT_REQUIRED",
        "APPROVAL_REQUIRED",
        "FINAL_RESULT",
        "ERROR",
        "DELTA",
        "MULTIMODAL_PART",
    ]
    for t in EnvelopeType:
        assert t.value == t.name.lower()


def test_envelope_fields() -> None:
    env = Envelope(EnvelopeType.TEXT, "user", "hello", {"k": 1}, {"m": 2})
    assert env.type is EnvelopeType.TEXT
    assert env.schema == "agents-api.message"
    assert env.version == 1
    assert env.content == "hello"
    assert env.payload == {"k": 1}
    assert env.metadata == {"m": 2}
    for attr in ("role", "id", "created_at", "updated_at"):
        assert hasattr(env, attr)
    d = env.to_dict()
    assert d["schema"] == "agents-api.message"
    assert d["version"] == 1
    assert d["type"] == "text"
    assert d["content"] == "hello"
    assert d["payload"] == {"k": 1}
    assert d["metadata"] == {"m": 2}
    json.dumps(d)


def test_envelope_normalize_legacy_row() -> None:
    row = {
        "role": "assistant",
        "content": "calling",
        "metadata": {"type": "tool_call", "tool_call_id": "c1", "trace": "t"},
    }
    env = Envelope.normalize(row)
    assert isinstance(env, Envelope)
    assert env.type is EnvelopeType.TOOL_CALL
    assert env.payload.get("tool_call_id") == "c1"
    assert env.metadata.get("trace") == "t"
    plain = Envelope.normalize({"role": "user", "content": "hi", "metadata": {}})
    assert plain.type is EnvelopeType.TEXT
    assert plain.content == "hi"


def test_envelope_normalize_versioned_and_draft_data() -> None:
    versioned = {
        "schema": "agents-api.message",
        "version": 1,
        "type": "tool_result",
        "role": "tool",
        "content": "42",
        "payload": {"tool_call_id": "c1"},
        "metadata": {},
    }
    env = Envelope.normalize(versioned)
    assert env.type is EnvelopeType.TOOL_RESULT
    assert env.payload == {"tool_call_id": "c1"}
    draft = dict(versioned)
    draft["data"] = draft.pop("payload")
    env2 = Envelope.normalize(draft)
    assert env2.payload == {"tool_call_id": "c1"}
    assert "data" not in env2.to_dict()
    assert Envelope.normalize(env.to_dict()) == env


def test_envelope_normalize_rejects_with_decode_error() -> None:
    bads: list[Any] = [
        None,
        5,
        [],
        {"schema": "other", "version": 1, "type": "text", "role": "user"},
    ]
    for bad in bads:
        with pytest.raises(DecodeError):
            Envelope.normalize(bad)


def test_envelope_to_provider_message() -> None:
    env = Envelope(EnvelopeType.TOOL_CALL, "assistant", "x", {"tool_call_id": "c1"}, {"trace": "t"})
    pm = env.to_provider_message()
    assert set(pm) >= {"role", "content", "metadata"}
    assert pm["role"] == "assistant"
    assert pm["content"] == "x"
    assert pm["metadata"]["type"] == "tool_call"
    assert pm["metadata"]["trace"] == "t"
    folded = json.dumps(pm["metadata"])
    assert "c1" in folded
    pms = to_provider_messages([env, {"role": "user", "content": "hi", "metadata": {}}])
    assert isinstance(pms, list)
    assert pms[0] == pm
    assert pms[1]["role"] == "user"


@pytest.mark.parametrize(
    "m",
    [
        UserMessage("hi", metadata={"k": 1}),
        SystemMessage("s"),
        AssistantMessage("a"),
        ToolCallMessage([ToolCall("c1", "f", {"a": 1})], "calling"),
        ToolResultMessage("c1", "42", True, "f"),
    ],
    ids=lambda m: type(m).__name__,
)
def test_envelope_from_message_to_message(m: Message) -> None:
    env = Envelope.from_message(m)
    assert isinstance(env, Envelope)
    back = env.to_message()
    assert type(back) is type(m)
    assert back == m
    assert back.id == m.id
    assert Envelope.normalize(json.loads(json.dumps(env.to_dict()))).to_message() == m
    assert back.text == m.text
    assert back.tool_calls == m.tool_calls
    if isinstance(m, ToolResultMessage):
        assert isinstance(back, ToolResultMessage)
        assert (back.tool_call_id, back.is_error) == (m.tool_call_id, m.is_error)
    expected_type = {
        ToolCallMessage: EnvelopeType.TOOL_CALL,
        ToolResultMessage: EnvelopeType.TOOL_RESULT,
    }.get(type(m), EnvelopeType.TEXT)
    assert env.type is expected_type


def test_to_provider_messages_accepts_messages() -> None:
    out = to_provider_messages([UserMessage("hi")])
    assert out[0]["role"] == "user"
    assert out[0]["content"] == "hi"


# =====================================================================================
# Providers
# =====================================================================================


@pytest.mark.parametrize("name", PROVIDER_NAMES)
def test_get_provider_all_six(name: str) -> None:
    p = get_provider(name)
    for method in (
        "format_request",
        "convert",
        "format_tools",
        "parse_response",
        "parse_messages",
        "stream",
    ):
        assert callable(getattr(p, method))


def test_get_provider_unknown() -> None:
    with pytest.raises(ValidationError):
        get_provider("nope")


TOOL = ToolDefinition("get_weather", "Get the weather", PARAMS)


def _sample_conversation() -> list[Message]:
    return [
        SystemMessage("be brief"),
        UserMessage("weather?"),
        ToolCallMessage([ToolCall("call_1", "get_weather", {"city": "Paris"})]),
        ToolResultMessage("call_1", "sunny", tool_name="get_weather"),
        AssistantMessage("It is sunny."),
        UserMessage("thanks"),
    ]


@pytest.mark.parametrize("name", PROVIDER_NAMES)
def test_format_request_convert_format_tools(name: str) -> None:
    p = get_provider(name)
    conv = _sample_conversation()
    tool = TOOL  # a default (strict) definition formats without a loss everywhere
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        body = p.format_request(conv, [tool])
    assert isinstance(body, dict)
    json.dumps(body)
    c = p.convert(conv, [tool])
    assert isinstance(c, Conversion)
    assert isinstance(c.body, dict)
    assert isinstance(c.losses, tuple)
    assert c.losses == ()
    assert c.body == body
    tools = p.format_tools([tool])
    assert "get_weather" in json.dumps(tools)
    assert body == p.format_request(conv, tools=[tool], strict=True)
    no_tools = p.format_request(conv)
    assert "get_weather" not in json.dumps(
        {k: v for k, v in no_tools.items() if "tool" in k.lower() and k != "messages"}
    )


@pytest.mark.parametrize("name", PROVIDER_NAMES)
def test_format_request_round_trips_through_parse_messages(name: str) -> None:
    p = get_provider(name)
    conv = _sample_conversation()
    body = p.format_request(conv)
    back = p.parse_messages(body)
    assert isinstance(back, list)
    assert all(isinstance(m, Message) for m in back)
    assert [m.role for m in back] == [m.role for m in conv]
    assert [m.text for m in back] == [m.text for m in conv]
    assert [type(m) for m in back] == [type(m) for m in conv]


@pytest.mark.parametrize("name", ["openai", "groq", "vllm", "ollama", "gemini"])
def test_lossy_conversion_warns_and_strict_raises(name: str) -> None:
    # is_error cannot be carried by these wires (fixtures README, fact 8)
    p = get_provider(name)
    conv = [
        SystemMessage("s"),
        UserMessage("u"),
        ToolCallMessage([ToolCall("call_1", "get_weather", {"city": "Paris"})]),
        ToolResultMessage("call_1", "boom", True, "get_weather"),
        UserMessage("x", extras={"not": "sent"}),
    ]
    c = p.convert(conv)
    if name == "gemini":
        # Gemini carries errors by convention ({"error": ...}); only check the protocol
        assert isinstance(c.losses, tuple)
        return
    assert c.losses
    for loss in c.losses:
        assert isinstance(loss, Loss)
        assert isinstance(loss.path, str)
        assert loss.path
        assert isinstance(loss.what, str)
        assert isinstance(loss.rule, str)
    with pytest.warns(LossWarning) as record:
        body = p.format_request(conv)
    assert body == c.body
    text = " ".join(str(w.message) for w in record)
    assert c.losses[0].path in text
    with pytest.raises(ValidationError):
        p.format_request(conv, strict=True)


def test_loss_warning_is_user_warning() -> None:
    assert issubclass(LossWarning, UserWarning)
    loss = Loss("messages[0].content", "audio", "dropped")
    assert (loss.path, loss.what, loss.rule) == ("messages[0].content", "audio", "dropped")
    assert Conversion({"messages": []}, (loss,)).losses == (loss,)


_MARKED_PARTS: list[tuple[str, Any, str]] = [
    ("user", AudioPart("QVVESU9NQVJL", "wav"), "QVVESU9NQVJL"),
    (
        "user",
        FilePart(data="RklMRU1BUks=", filename="a.pdf", media_type="application/pdf"),
        "RklMRU1BUks=",
    ),
    ("user", FilePart(file_id="file-MARK"), "file-MARK"),
    ("user", ImagePart(url="https://example.com/IMGMARK.png"), "IMGMARK"),
    ("user", ImagePart(data="SU1HREFUQQ==", media_type="image/png"), "SU1HREFUQQ=="),
    ("assistant", ReasoningPart("REASONMARK"), "REASONMARK"),
    ("assistant", ReasoningPart("SIGNEDMARK", signature="s", provider="anthropic"), "SIGNEDMARK"),
    ("assistant", ReasoningPart("GEMMARK", signature="s", provider="gemini"), "GEMMARK"),
]


@pytest.mark.parametrize("name", PROVIDER_NAMES)
@pytest.mark.parametrize(
    ("role", "part", "mark"), _MARKED_PARTS, ids=lambda x: getattr(x, "__class__", type(x)).__name__
)
def test_every_part_is_carried_or_reported(name: str, role: str, part: Any, mark: str) -> None:
    # "Whatever the provider cannot carry is never dropped silently"
    convs: list[tuple[list[Message], int]]
    if role == "user":
        convs = [([SystemMessage("s"), UserMessage([TextPart("x"), part])], 1)]
        tool_turn: list[Message] = [
            SystemMessage("s"),
            UserMessage("u"),
            ToolCallMessage([ToolCall("call_1", "f")]),
            ToolResultMessage("call_1", [TextPart("r"), part], tool_name="f"),
        ]
        convs.append((tool_turn, 3))
    else:
        assistant_turn: list[Message] = [
            SystemMessage("s"),
            UserMessage("u"),
            AssistantMessage([part, TextPart("a")]),
            UserMessage("v"),
        ]
        convs = [(assistant_turn, 2)]
    for conv, index in convs:
        c = get_provider(name).convert(conv)
        carried = mark in json.dumps(c.body)
        reported = any(loss.path.startswith(f"messages[{index}]") for loss in c.losses)
        # both when only a detail (e.g. a file name) is lost
        assert carried or reported, (name, part, index)


@pytest.mark.parametrize("name", ["openai", "groq", "vllm"])
def test_file_part_is_carried_or_reported(name: str) -> None:
    # a part is either in the body or named by a Loss: never silently gone
    p = get_provider(name)
    conv = [SystemMessage("s"), UserMessage([TextPart("x"), FilePart(file_id="file-XYZ")])]
    c = p.convert(conv)
    carried = "file-XYZ" in json.dumps(c.body)
    reported = any(loss.path.startswith("messages[1]") for loss in c.losses)
    assert carried != reported


def test_finish_reason_members() -> None:
    assert [m.name for m in FinishReason] == [
        "STOP",
        "TOOL_CALLS",
        "LENGTH",
        "CONTENT_FILTER",
        "ERROR",
        "OTHER",
    ]
    for m in FinishReason:
        assert m.value == m.name.lower()


def test_usage_fields() -> None:
    u = Usage(3, 4, 7)
    assert (u.input_tokens, u.output_tokens, u.total_tokens) == (3, 4, 7)
    assert Usage(input_tokens=1, output_tokens=2, total_tokens=3) == Usage(1, 2, 3)


RESPONSES: dict[str, dict[str, Any]] = {
    "openai": {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-4o",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    },
    "anthropic": {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": [{"type": "text", "text": "Hi"}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 3, "output_tokens": 2},
    },
    "gemini": {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "Hi"}]}, "finishReason": "STOP"}
        ],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 5},
        "modelVersion": "gemini-x",
    },
    "ollama": {
        "model": "llama-x",
        "created_at": "2024-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": "Hi"},
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": 3,
        "eval_count": 2,
    },
}
RESPONSES["groq"] = {**RESPONSES["openai"], "model": "llama-x"}
RESPONSES["vllm"] = {**RESPONSES["openai"], "model": "qwen-x"}


@pytest.mark.parametrize("name", PROVIDER_NAMES)
def test_parse_response(name: str) -> None:
    r = get_provider(name).parse_response(RESPONSES[name])
    assert isinstance(r, ChatResponse)
    assert isinstance(r.message, AssistantMessage)
    assert r.message.text == "Hi"
    assert r.finish_reason is FinishReason.STOP
    assert isinstance(r.usage, Usage)
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (3, 2, 5)
    assert isinstance(r.model, str)
    assert r.invalid_tool_calls == ()
    usage = r.message.metadata["usage"]
    assert isinstance(usage, Mapping)
    assert (usage["input_tokens"], usage["output_tokens"], usage["total_tokens"]) == (3, 2, 5)
    json.dumps(r.message.to_dict())


@pytest.mark.parametrize("name", PROVIDER_NAMES)
def test_parse_response_without_usage(name: str) -> None:
    body = json.loads(json.dumps(RESPONSES[name]))
    for k in ("usage", "usageMetadata", "prompt_eval_count", "eval_count"):
        body.pop(k, None)
    r = get_provider(name).parse_response(body)
    if name == "ollama":
        return  # Ollama omits zero counts; a missing count means 0 (fixtures README, fact 6)
    assert r.usage is None
    assert "usage" not in r.message.metadata


@pytest.mark.parametrize("name", ["openai", "groq", "vllm"])
def test_invalid_tool_arguments_go_to_invalid_tool_calls(name: str) -> None:
    body = {
        "id": "x",
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "let me check",
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "f", "arguments": '{"a": '},
                        },
                        {
                            "id": "c2",
                            "type": "function",
                            "function": {"name": "g", "arguments": '{"b": 1}'},
                        },
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
    }
    r = get_provider(name).parse_response(body)
    assert r.finish_reason is FinishReason.TOOL_CALLS
    assert [c.id for c in r.message.tool_calls] == ["c2"]
    assert isinstance(r.message, ToolCallMessage)
    assert r.message.text == "let me check"
    (bad,) = r.invalid_tool_calls
    assert isinstance(bad, InvalidToolCall)
    assert (bad.id, bad.name, bad.raw_arguments) == ("c1", "f", '{"a": ')
    assert isinstance(r.invalid_tool_calls, tuple)


def test_invalid_only_tool_call_still_parses() -> None:
    body = {
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "f", "arguments": "[1]"},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
    }
    r = get_provider("openai").parse_response(body)
    assert isinstance(r.message, AssistantMessage)
    assert r.message.tool_calls == ()
    assert r.invalid_tool_calls[0].raw_arguments == "[1]"


@pytest.mark.parametrize(
    ("name", "body", "reason"),
    [
        (
            "openai",
            {
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": "x"},
                        "finish_reason": "length",
                    }
                ]
            },
            FinishReason.LENGTH,
        ),
        (
            "openai",
            {
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": "x"},
                        "finish_reason": "content_filter",
                    }
                ]
            },
            FinishReason.CONTENT_FILTER,
        ),
        (
            "anthropic",
            {"type": "message", "role": "assistant", "content": [], "stop_reason": "refusal"},
            FinishReason.CONTENT_FILTER,
        ),
        (
            "anthropic",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": "x"}],
                "stop_reason": "max_tokens",
            },
            FinishReason.LENGTH,
        ),
        (
            "gemini",
            {
                "candidates": [
                    {
                        "content": {
                            "role": "model",
                            "parts": [{"functionCall": {"name": "f", "args": {}}}],
                        },
                        "finishReason": "STOP",
                    }
                ]
            },
            FinishReason.TOOL_CALLS,
        ),
        ("gemini", {"candidates": [{"finishReason": "SAFETY"}]}, FinishReason.CONTENT_FILTER),
        (
            "gemini",
            {
                "candidates": [
                    {
                        "content": {"role": "model", "parts": [{"text": "x"}]},
                        "finishReason": "MALFORMED_FUNCTION_CALL",
                    }
                ]
            },
            FinishReason.ERROR,
        ),
        (
            "ollama",
            {
                "message": {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [{"function": {"name": "f", "arguments": {}}}],
                },
                "done": True,
                "done_reason": "stop",
            },
            FinishReason.TOOL_CALLS,
        ),
        (
            "ollama",
            {
                "message": {"role": "assistant", "content": "x"},
                "done": True,
                "done_reason": "length",
            },
            FinishReason.LENGTH,
        ),
    ],
)
def test_finish_reason_normalisation(name: str, body: dict[str, Any], reason: FinishReason) -> None:
    assert get_provider(name).parse_response(body).finish_reason is reason


def test_usage_conventions_anthropic_and_gemini() -> None:
    a = get_provider("anthropic").parse_response(
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": "x"}],
            "stop_reason": "end_turn",
            "usage": {
                "input_tokens": 10,
                "cache_creation_input_tokens": 5,
                "cache_read_input_tokens": 7,
                "output_tokens": 3,
            },
        }
    )
    assert a.usage is not None
    assert (a.usage.input_tokens, a.usage.output_tokens, a.usage.total_tokens) == (22, 3, 25)
    g = get_provider("gemini").parse_response(
        {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": "x"}]}, "finishReason": "STOP"}
            ],
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 4,
                "thoughtsTokenCount": 6,
                "totalTokenCount": 20,
            },
        }
    )
    assert g.usage is not None
    assert (g.usage.input_tokens, g.usage.output_tokens, g.usage.total_tokens) == (10, 10, 20)


STREAMS: dict[str, list[dict[str, Any]]] = {
    "openai": [
        {
            "id": "x",
            "model": "m",
            "choices": [
                {"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}
            ],
        },
        {
            "id": "x",
            "model": "m",
            "choices": [{"index": 0, "delta": {"content": "Hel"}, "finish_reason": None}],
        },
        {
            "id": "x",
            "model": "m",
            "choices": [{"index": 0, "delta": {"content": "lo"}, "finish_reason": None}],
        },
        {
            "id": "x",
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "f", "arguments": ""},
                            }
                        ]
                    },
                    "finish_reason": None,
                }
            ],
        },
        {
            "id": "x",
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"a":'}}]},
                    "finish_reason": None,
                }
            ],
        },
        {
            "id": "x",
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "delta": {"tool_calls": [{"index": 0, "function": {"arguments": " 1}"}}]},
                    "finish_reason": None,
                }
            ],
        },
        {
            "id": "x",
            "model": "m",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
        },
        {
            "id": "x",
            "model": "m",
            "choices": [],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        },
    ],
    "anthropic": [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "m",
                "content": [],
                "stop_reason": None,
                "usage": {"input_tokens": 3, "output_tokens": 1},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "lo"}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "c1", "name": "f", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": ""},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": '{"a":'},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": " 1}"},
        },
        {"type": "content_block_stop", "index": 1},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 2},
        },
        {"type": "message_stop"},
    ],
    "gemini": [
        {
            "candidates": [{"content": {"role": "model", "parts": [{"text": "Hel"}]}}],
            "usageMetadata": {
                "promptTokenCount": 3,
                "candidatesTokenCount": 1,
                "totalTokenCount": 4,
            },
        },
        {
            "candidates": [{"content": {"role": "model", "parts": [{"text": "lo"}]}}],
            "usageMetadata": {
                "promptTokenCount": 3,
                "candidatesTokenCount": 1,
                "totalTokenCount": 4,
            },
        },
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [{"functionCall": {"id": "c1", "name": "f", "args": {"a": 1}}}],
                    },
                    "finishReason": "STOP",
                }
            ],
            "usageMetadata": {
                "promptTokenCount": 3,
                "candidatesTokenCount": 2,
                "totalTokenCount": 5,
            },
        },
    ],
    "ollama": [
        {"model": "m", "message": {"role": "assistant", "content": "Hel"}, "done": False},
        {"model": "m", "message": {"role": "assistant", "content": "lo"}, "done": False},
        {
            "model": "m",
            "message": {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": {"a": 1}}}],
            },
            "done": False,
        },
        {
            "model": "m",
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": 3,
            "eval_count": 2,
        },
    ],
}
STREAMS["groq"] = STREAMS["openai"]
STREAMS["vllm"] = STREAMS["openai"]


@pytest.mark.parametrize("name", PROVIDER_NAMES)
def test_stream(name: str) -> None:
    acc = get_provider(name).stream()
    assert isinstance(acc, StreamAccumulator)
    deltas: list[StreamDelta] = []
    for event in STREAMS[name]:
        got = acc.feed(event)
        assert isinstance(got, tuple)
        assert all(isinstance(d, StreamDelta) for d in got)
        deltas.extend(got)
    assert "".join(d.text for d in deltas if d.kind == "text") == "Hello"
    assert any(d.kind == "tool_call" for d in deltas)
    r = acc.finish()
    assert isinstance(r, ChatResponse)
    assert r.message.text == "Hello"
    assert [(c.id, c.name, dict(c.arguments)) for c in r.message.tool_calls] == [
        ("c1", "f", {"a": 1})
    ]
    assert isinstance(r.message, ToolCallMessage)
    assert r.finish_reason is FinishReason.TOOL_CALLS
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (3, 2, 5)
    assert r.message.metadata["usage"]["total_tokens"] == 5


@pytest.mark.parametrize("name", ["openai", "groq", "vllm"])
def test_stream_invalid_arguments_kept_not_raised(name: str) -> None:
    acc = get_provider(name).stream()
    events = [
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "f", "arguments": '{"a": '},
                            }
                        ],
                    },
                    "finish_reason": None,
                }
            ]
        },
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    for e in events:
        acc.feed(e)
    r = acc.finish()
    assert r.message.tool_calls == ()
    (bad,) = r.invalid_tool_calls
    assert (bad.id, bad.name, bad.raw_arguments) == ("c1", "f", '{"a": ')


def test_stream_invalid_arguments_anthropic_kept() -> None:
    acc = get_provider("anthropic").stream()
    events = [
        *STREAMS["anthropic"][:6],
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": '{"a": '},
        },
        {"type": "content_block_stop", "index": 1},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 2},
        },
        {"type": "message_stop"},
    ]
    for e in events:
        acc.feed(e)
    r = acc.finish()
    assert r.message.text == "Hello"
    (bad,) = r.invalid_tool_calls
    assert (bad.id, bad.name, bad.raw_arguments) == ("c1", "f", '{"a": ')


def test_stream_delta_fields() -> None:
    d = StreamDelta("text", "hi")
    assert (d.kind, d.text, d.tool_call) == ("text", "hi", None)
    t = StreamDelta("tool_call", tool_call=ToolCallDelta(0, "c", "f"))
    assert t.tool_call is not None
    assert t.tool_call.index == 0


@pytest.mark.parametrize("name", PROVIDER_NAMES)
def test_parse_messages_accepts_list_and_body(name: str) -> None:
    p = get_provider(name)
    body = p.format_request([SystemMessage("s"), UserMessage("u")])
    from_body = p.parse_messages(body)
    assert [m.text for m in from_body] == ["s", "u"]
    if name in ("openai", "groq", "vllm", "ollama"):
        assert [m.text for m in p.parse_messages(body["messages"])] == ["s", "u"]
    elif name == "anthropic":
        assert [m.text for m in p.parse_messages([{"role": "user", "content": "u"}])] == ["u"]
    else:
        assert [m.text for m in p.parse_messages([{"role": "user", "parts": [{"text": "u"}]}])] == [
            "u"
        ]


def test_reasoning_replayed_only_to_named_provider() -> None:
    conv = [
        SystemMessage("s"),
        UserMessage("u"),
        AssistantMessage(
            [
                ReasoningPart("deep thought", signature="SIG-ANTHROPIC-ONLY", provider="anthropic"),
                TextPart("a"),
            ]
        ),
        UserMessage("again"),
    ]
    a = get_provider("anthropic").format_request(conv)
    assert "SIG-ANTHROPIC-ONLY" in json.dumps(a)
    for name in ("openai", "groq", "vllm", "ollama", "gemini"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LossWarning)
            body = get_provider(name).format_request(conv)
        assert "SIG-ANTHROPIC-ONLY" not in json.dumps(body), name


def test_gemini_call_signature_not_sent_to_other_providers() -> None:
    call = ToolCall("c1", "f", {}, extras={"gemini": {"thoughtSignature": "GEMSIG"}})
    r = get_provider("gemini").parse_response(
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {
                                "functionCall": {"name": "f", "args": {}},
                                "thoughtSignature": "GEMSIG",
                            }
                        ],
                    },
                    "finishReason": "STOP",
                }
            ]
        }
    )
    parsed = r.message.tool_calls[0]
    assert parsed.extras  # kept on the call
    conv = [
        SystemMessage("s"),
        UserMessage("u"),
        ToolCallMessage([parsed]),
        ToolResultMessage(parsed.id, "r", tool_name="f"),
    ]
    assert "GEMSIG" in json.dumps(get_provider("gemini").format_request(conv))
    for name in ("openai", "anthropic", "ollama"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LossWarning)
            assert "GEMSIG" not in json.dumps(get_provider(name).format_request(conv)), name
    assert call.extras


def test_extras_never_sent_to_a_provider() -> None:
    conv = [
        SystemMessage("s"),
        UserMessage("u", extras={"x_secret_field": "EXTRAVALUE"}, metadata={"m": "METAVALUE"}),
    ]
    for name in PROVIDER_NAMES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LossWarning)
            text = json.dumps(get_provider(name).format_request(conv))
        assert "EXTRAVALUE" not in text, name


@pytest.mark.parametrize("name", PROVIDER_NAMES)
def test_strict_format_request_raises_validation_error_on_loss(name: str) -> None:
    conv = [
        SystemMessage("s"),
        UserMessage(
            [
                TextPart("x"),
                AudioPart(B64, "wav"),
                FilePart(file_id="file-1"),
                ImagePart(url="https://x/y.png", detail="high"),
            ]
        ),
        AssistantMessage(
            [ReasoningPart("r", signature="sig", provider="other-vendor"), TextPart("a")]
        ),
        UserMessage("u", name="bob"),
    ]
    c = get_provider(name).convert(conv)
    assert c.losses, name
    with pytest.raises(ValidationError):
        get_provider(name).format_request(conv, strict=True)
    with pytest.warns(LossWarning):
        get_provider(name).format_request(conv)


# =====================================================================================
# Storage
# =====================================================================================


def test_session_identity() -> None:
    a = SessionIdentity("agent", "s1")
    assert (a.agent, a.session, a.scope) == ("agent", "s1", None)
    b = SessionIdentity("agent", "s1", "user-7")
    assert b.scope == "user-7"
    assert SessionIdentity(agent="agent", session="s1", scope=None) == a
    hash(a)


def test_chat_history_config_defaults() -> None:
    c = ChatHistoryConfig()
    assert c.context_window == 60000
    assert c.reserved_for_completion == 1000
    assert c.store_meta is True
    assert c.on_before_save is None
    assert c.on_after_load is None
    assert c.on_before_add is None
    assert c.on_after_add is None
    assert c.truncation is None
    c2 = ChatHistoryConfig(1000, 100, False)
    assert (c2.context_window, c2.reserved_for_completion, c2.store_meta) == (1000, 100, False)


def _backends(tmp_path: Path) -> Iterator[tuple[str, Callable[[], Any]]]:
    yield "memory", MemoryBackend
    yield "jsonfile", lambda: JsonFileBackend(tmp_path / "json")
    yield "sqlite", lambda: SQLiteBackend(tmp_path / "db.sqlite")


def test_chat_history_storage_all_backends(tmp_path: Path) -> None:
    for kind, make in _backends(tmp_path):
        backend = make()
        ident = SessionIdentity("agent", "session-1", "scope")
        s = ChatHistoryStorage(backend, ident)
        assert s.len() == 0
        assert s.last_message() is None
        conv = _conversation()
        for m in conv:
            s.add_message(m)
        assert s.len() == len(conv)
        assert len(s) == len(conv)
        assert isinstance(s.messages(), (tuple, list, Messages))
        assert list(s.messages()) == conv
        assert s.last_message() == conv[-1]
        s.save()
        # a fresh storage on the same backend sees what was saved
        backend2 = backend if kind == "memory" else make()
        s2 = ChatHistoryStorage(backend2, ident, None)
        assert list(s2.messages()) == conv
        assert [m.id for m in s2.messages()] == [m.id for m in conv]
        assert [type(m) for m in s2.messages()] == [type(m) for m in conv]
        s.add_message(UserMessage("not saved"))
        s.reload()
        assert s.len() == len(conv)
        other = ChatHistoryStorage(
            backend2, SessionIdentity("agent", "session-2"), ChatHistoryConfig()
        )
        assert other.len() == 0
        for obj in (backend, backend2):
            close = getattr(obj, "close", None)
            if close is not None:
                close()


def test_storage_sqlite_corrupt_data_is_storage_error(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "x.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StorageError):
        s = ChatHistoryStorage(SQLiteBackend(path), SessionIdentity("a", "b"))
        s.messages()
    assert sqlite3  # the stdlib module, no mocks


def test_storage_jsonfile_corrupt_is_storage_error(tmp_path: Path) -> None:
    ident = SessionIdentity("a", "b")
    backend = JsonFileBackend(tmp_path)
    s = ChatHistoryStorage(backend, ident)
    s.add_message(SystemMessage("x"))
    s.save()
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert files
    for f in files:
        f.write_text('{"role": "user", "content": 5' + SECRET, encoding="utf-8")
    with pytest.raises(StorageError) as info:
        ChatHistoryStorage(JsonFileBackend(tmp_path), ident).messages()
    assert SECRET not in str(info.value)


# =====================================================================================
# Command line
# =====================================================================================


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "messages", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=60,
    )


def test_cli_convert_validate_stats(tmp_path: Path) -> None:
    conv = _sample_conversation()
    src = tmp_path / "in.json"
    src.write_text(to_json(conv), encoding="utf-8")
    out = tmp_path / "out.json"
    r = _cli("convert", str(src), "--from", "canonical", "--to", "anthropic", "-o", str(out))
    assert r.returncode == 0, r.stderr
    body = json.loads(out.read_text(encoding="utf-8"))
    assert [m.text for m in get_provider("anthropic").parse_messages(body)] == [
        m.text for m in conv
    ]
    back = tmp_path / "back.json"
    r2 = _cli("convert", str(out), "--from", "anthropic", "--to", "canonical", "-o", str(back))
    assert r2.returncode == 0, r2.stderr
    decoded = from_json(back.read_text(encoding="utf-8"))
    assert isinstance(decoded, list)
    assert [m.text for m in decoded] == [m.text for m in conv]
    # stdout when no -o, stdin with "-"
    r3 = _cli("convert", "-", "--from", "canonical", "--to", "openai", stdin=to_json(conv))
    assert r3.returncode == 0, r3.stderr
    assert [m.text for m in get_provider("openai").parse_messages(json.loads(r3.stdout))] == [
        m.text for m in conv
    ]
    assert _cli("validate", str(src)).returncode == 0
    assert _cli("validate", str(out), "--format", "anthropic").returncode == 0
    assert _cli("validate", str(src), "--policy", "lenient").returncode == 0
    assert _cli("validate", "-", "--policy", "strict", stdin=to_json(conv)).returncode == 0
    s = _cli("stats", str(src))
    assert s.returncode == 0, s.stderr
    assert s.stdout.strip()
    assert _cli("stats", str(out), "--format", "anthropic").returncode == 0


def test_cli_exit_codes(tmp_path: Path) -> None:
    bad_order = tmp_path / "bad_order.json"
    bad_order.write_text(to_json([UserMessage("a"), UserMessage("b")]), encoding="utf-8")
    r = _cli("validate", str(bad_order))
    assert r.returncode == 1
    assert r.stderr.strip()
    assert _cli("validate", str(bad_order), "--policy", "lenient").returncode == 0
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps([{"role": "user", "content": "x"}, {"role": "user", "content": 5, "x": SECRET}]),
        encoding="utf-8",
    )
    r1 = _cli("validate", str(bad), "--policy", "lenient")
    assert r1.returncode == 1
    assert "[1]" in r1.stderr
    assert "content" in r1.stderr
    assert SECRET not in r1.stderr
    not_json = tmp_path / "nj.json"
    not_json.write_text("{" + SECRET, encoding="utf-8")
    r_nj = _cli("convert", str(not_json), "--from", "canonical", "--to", "openai")
    assert r_nj.returncode == 1
    assert SECRET not in r_nj.stderr
    assert _cli().returncode == 2
    assert _cli("bogus").returncode == 2
    assert _cli("convert", str(bad_order), "--from", "canonical").returncode == 2
    assert _cli("convert", str(bad_order), "--from", "nope", "--to", "openai").returncode == 2
    assert _cli("validate", str(bad_order), "--policy", "nope").returncode == 2
    assert _cli("validate", str(tmp_path / "missing.json")).returncode in (1, 2)


# =====================================================================================
# Error rules: decoders and parsers raise only DecodeError, never leak content
# =====================================================================================


def _deep_json(depth: int) -> str:
    return "[" * depth + "]" * depth


def _deep_obj(depth: int) -> Any:
    node: Any = {"role": "user", "content": "x"}
    for _ in range(depth):
        node = {"content": [node], "role": "user"}
    return node


NASTY: list[Any] = [
    None,
    5,
    -1.5,
    float("nan"),
    float("inf"),
    True,
    "",
    "x",
    b"\xff",
    [],
    {},
    [None],
    [5],
    [{}],
    {"role": None},
    {"role": 5},
    {"role": "user"},
    {"role": "user", "content": None},
    {"role": "user", "content": [None]},
    {"role": "user", "content": [{"type": "image_url"}]},
    {"role": "user", "content": [{"type": "image_url", "image_url": {"url": 5}}]},
    {"role": "user", "content": [{"type": "nope"}]},
    {"role": "user", "content": "x", "created_at": "yesterday"},
    {"role": "user", "content": "x", "created_at": 5},
    {"role": "user", "content": "x", "id": 5},
    {"role": "user", "content": "x", "metadata": [1]},
    {"role": "user", "content": "x", "metadata": {"a": float("nan")}},
    {"role": "user", "content": "x", "extras": "e"},
    {"role": "user", "content": "x", "name": 5},
    {"role": "assistant", "tool_calls": "x"},
    {"role": "assistant", "tool_calls": [None]},
    {"role": "assistant", "tool_calls": [{"id": "c", "function": None}]},
    {
        "role": "assistant",
        "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "[1]"}}],
    },
    {
        "role": "assistant",
        "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{bad"}}],
    },
    {
        "role": "assistant",
        "tool_calls": [{"id": "c", "function": {"name": "a b", "arguments": "{}"}}],
    },
    {"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": 5}}]},
    {
        "role": "assistant",
        "tool_calls": [
            {"id": "c", "function": {"name": "f"}},
            {"id": "c", "function": {"name": "f"}},
        ],
    },
    {"role": "tool", "content": "x"},
    {"role": "tool", "content": "x", "tool_call_id": 5},
    {"role": "tool", "content": "x", "tool_call_id": "c", "is_error": "yes"},
    {"role": "user\ud800", "content": "x"},
    {"role": "user", "content": "\ud800"},
    {1: "x"},
    _deep_obj(5000),
]


@pytest.mark.parametrize("value", NASTY, ids=lambda v: type(v).__name__)
def test_from_dict_only_decode_error(value: Any) -> None:
    try:
        from_dict(value)
    except DecodeError as e:
        assert isinstance(e.path, str)
    with contextlib.suppress(DecodeError):
        Message.from_dict(value)
    with contextlib.suppress(DecodeError):
        Messages.from_dicts(value)


NASTY_JSON: list[Any] = [
    None,
    5,
    [],
    {},
    "",
    " ",
    "nul",
    "NaN",
    "[NaN]",
    '{"role": "user", "content": NaN}',
    '{"role": "user", "content": Infinity}',
    '{"role": "user", "content": "x"} trailing',
    '{"role": "user", "content": "\\ud800"}',
    '"\\udfff"',
    b"\xff\xfe",
    b'{"role": "user", "content": "\xed\xa0\x80"}',
    "\ud800",
    _deep_json(100_000),
    '{"a":' * 100_000,
    "[" * 100_000,
    '{"role": "user", "content": ' + "[" * 5000 + "]" * 5000 + "}",
    "1e999999",
    '{"role": "user", "content": "x", "metadata": {"a": 1e400}}',
    '{"role": "user", "content": "x", "role": "system"}',
    "[" + ",".join(['{"role": "user", "content": "x"}'] * 3) + ",5]",
]


@pytest.mark.parametrize("value", NASTY_JSON, ids=lambda v: type(v).__name__)
def test_from_json_only_decode_error(value: Any) -> None:
    try:
        from_json(value)
    except DecodeError as e:
        assert isinstance(e.path, str)


def test_from_json_deeply_nested_is_decode_error() -> None:
    with pytest.raises(DecodeError):
        from_json(_deep_json(100_000))
    with pytest.raises(DecodeError):
        from_dict(_deep_obj(100_000))


@pytest.mark.parametrize("name", PROVIDER_NAMES)
@pytest.mark.parametrize("value", [*NASTY[:20], _deep_obj(3000)], ids=lambda v: type(v).__name__)
def test_provider_parsers_only_decode_error(name: str, value: Any) -> None:
    p = get_provider(name)
    for fn in (p.parse_response, p.parse_messages):
        _decode_or_ok(fn, value)
    acc = p.stream()
    try:
        acc.feed(value)
        acc.finish()
    except DecodeError:
        pass


PROVIDER_NASTY: list[Any] = [
    {"choices": None},
    {"choices": [None]},
    {"choices": [{"message": None}]},
    {"choices": [{"message": {"role": "assistant", "content": 5}}]},
    {"choices": [{"message": {"tool_calls": [{"function": {"name": None, "arguments": None}}]}}]},
    {
        "choices": [{"message": {"content": "x"}, "finish_reason": 5}],
        "usage": {"prompt_tokens": "a"},
    },
    {"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": float("nan")}},
    {"content": None, "stop_reason": 5},
    {"content": [None, 5, {"type": None}]},
    {"content": [{"type": "tool_use", "id": 5, "name": None, "input": "x"}]},
    {"content": [{"type": "text", "text": None}], "usage": {"input_tokens": []}},
    {"candidates": None},
    {"candidates": [{"content": {"parts": None}}]},
    {"candidates": [{"content": {"parts": [None, {"functionCall": None}]}}]},
    {"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": [1]}}]}}]},
    {
        "candidates": [{"content": {"parts": [{"text": 5}]}}],
        "usageMetadata": {"promptTokenCount": "x"},
    },
    {"message": None, "done": "yes"},
    {"message": {"content": 5, "tool_calls": [None]}},
    {"message": {"content": "x", "tool_calls": [{"function": {"name": "f", "arguments": "[1"}}]}},
    {"messages": None},
    {"messages": [None, 5, {"role": None}]},
    {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": None}]}]},
    {"messages": [{"role": "user", "content": [{"type": "image", "source": None}]}]},
    {"contents": [{"role": "user", "parts": [{"inlineData": None}]}]},
    {"system": 5, "messages": [{"role": "user", "content": "x"}]},
    {"systemInstruction": 5, "contents": []},
    {"messages": [{"role": "user", "content": "x", "images": [5]}]},
    {"type": "content_block_delta", "index": "x", "delta": None},
    {"type": "message_start", "message": None},
    {"error": None},
    {"error": {"message": SECRET}},
]


@pytest.mark.parametrize("name", PROVIDER_NAMES)
def test_provider_parsers_structured_nasty_only_decode_error(name: str) -> None:
    p = get_provider(name)
    for value in PROVIDER_NASTY:
        for fn in (p.parse_response, p.parse_messages):
            e = _decode_or_ok(fn, value)
            assert SECRET not in str(e)
        acc = p.stream()
        try:
            acc.feed(value)
            acc.finish()
        except DecodeError as e:
            assert SECRET not in str(e)


@pytest.mark.parametrize(
    "d",
    [
        {"role": "user", "content": 5, "x": SECRET},
        {"role": "assistant", "tool_calls": [{"id": "c", "function": SECRET}]},
        {"role": "user", "content": "x", "created_at": SECRET},
        {"role": "user", "content": "x", "metadata": {"k": [SECRET, float("nan")]}},
        {"role": "tool", "content": SECRET},
        {SECRET: SECRET},
    ],
)
def test_decode_errors_never_contain_content(d: dict[str, Any]) -> None:
    with pytest.raises(DecodeError) as info:
        from_dict(d)
    assert SECRET not in str(info.value)
    assert SECRET not in repr(info.value)
    assert SECRET not in info.value.path
    with pytest.raises(DecodeError) as info2:
        from_json(json.dumps(d))
    assert SECRET not in str(info2.value)


@pytest.mark.parametrize(
    "d",
    [
        {"role": SECRET, "content": "x"},
        {"role": "user", "content": [{"type": SECRET}]},
    ],
)
def test_decode_errors_may_name_an_identifier_quoted(d: dict[str, Any]) -> None:
    with pytest.raises(DecodeError) as info:
        from_dict(d)
    assert f"'{SECRET}'" in str(info.value)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        ({"id": "c", "function": {"name": SECRET + " x", "arguments": "{}"}}, SECRET + " x"),
        ({"id": "c", "function": {"name": "f", "arguments": '{"a": "' + SECRET}}, "f"),
        ({"id": "c", "function": {"name": "f", "arguments": json.dumps([SECRET])}}, "f"),
    ],
)
def test_a_malformed_stored_call_loads_as_an_invalid_call(call: dict[str, Any], name: str) -> None:
    m = from_dict({"role": "assistant", "tool_calls": [call]})
    assert isinstance(m, ToolCallMessage)
    (bad,) = m.invalid_tool_calls
    assert bad.name == name and bad.raw_arguments == call["function"]["arguments"]
    assert SECRET not in bad.error and SECRET not in repr(m)


def test_from_json_bad_text_error_has_no_content() -> None:
    for text in ('{"role": "user", "content": "' + SECRET, SECRET, '{"' + SECRET + '": nul}'):
        with pytest.raises(DecodeError) as info:
            from_json(text)
        assert SECRET not in str(info.value)


@pytest.mark.parametrize(
    ("name", "body"),
    [
        (
            "openai",
            {"choices": [{"message": {"role": "assistant", "content": 5, "refusal": SECRET}}]},
        ),
        ("anthropic", {"content": [{"type": "tool_use", "id": "x", "name": SECRET, "input": {}}]}),
        (
            "gemini",
            {
                "candidates": [
                    {"content": {"parts": [{"functionCall": {"name": SECRET, "args": {}}}]}}
                ]
            },
        ),
        (
            "ollama",
            {
                "message": {
                    "role": "assistant",
                    "content": SECRET,
                    "tool_calls": [{"function": {"name": SECRET}}],
                }
            },
        ),
        # a role is an identifier (shown, escaped and cut); the content never is
        ("openai", {"messages": [{"role": "robot", "content": SECRET}]}),
    ],
)
def test_provider_errors_never_contain_content(name: str, body: dict[str, Any]) -> None:
    p = get_provider(name)
    for fn in (p.parse_response, p.parse_messages):
        e = _decode_or_ok(fn, body)
        assert SECRET not in str(e)
        assert SECRET not in repr(e)


def test_chat_response_repr_has_no_content() -> None:
    body = json.loads(json.dumps(RESPONSES["openai"]))
    body["choices"][0]["message"]["content"] = SECRET
    r = get_provider("openai").parse_response(body)
    assert SECRET not in repr(r)


def test_envelope_repr_has_no_content() -> None:
    env = Envelope(EnvelopeType.TEXT, "user", SECRET, {"k": SECRET}, {"m": SECRET})
    assert SECRET not in repr(env)
    assert SECRET not in str(env)


# =====================================================================================
# The fixture corpus, read the way fixtures/README.md describes it
# =====================================================================================

from tests.conftest import fixture_entries, load_fixture  # noqa: E402 - grouped with its section

_RESPONSE_ENTRIES = [
    e
    for e in fixture_entries(*PROVIDER_NAMES)
    if e["kind"] in ("response", "stream")
    or (
        e["kind"] == "adversarial"
        and e["expected"].get("behavior") == "tolerate"
        and "messages" not in e["expected"]
    )
]
_REQUEST_ENTRIES = [
    e
    for e in fixture_entries(*PROVIDER_NAMES)
    if e["kind"] == "request"
    or (
        e["kind"] == "adversarial"
        and "messages" in e["expected"]
        and e["expected"].get("behavior") == "tolerate"
    )
]
_ERROR_ENTRIES = [
    e
    for e in fixture_entries(*PROVIDER_NAMES)
    if e["kind"] == "adversarial" and e["expected"].get("behavior") == "error"
]


def _parse_any(entry: dict[str, Any]) -> ChatResponse:
    p = get_provider(entry["provider"])
    data = load_fixture(entry)
    if isinstance(data, list):
        acc = p.stream()
        for event in data:
            acc.feed(event)
        return acc.finish()
    return p.parse_response(data)


@pytest.mark.parametrize("entry", _RESPONSE_ENTRIES, ids=lambda e: e["file"])
def test_fixture_response_facts(entry: dict[str, Any]) -> None:
    exp = entry["expected"]
    r = _parse_any(entry)
    assert isinstance(r, ChatResponse)
    if "text" in exp:
        assert r.message.text == exp["text"]
    if "text_length" in exp:
        assert len(r.message.text) == exp["text_length"]
        assert r.message.text.startswith(exp["text_prefix"])
    if "finish_reason" in exp:
        assert r.finish_reason.value == exp["finish_reason"]
    if "usage" in exp:
        if exp["usage"] is None:
            assert r.usage is None
        else:
            assert r.usage is not None
            got = (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens)
            assert got == (
                exp["usage"]["input_tokens"],
                exp["usage"]["output_tokens"],
                exp["usage"]["total_tokens"],
            )
            assert r.message.metadata["usage"]["total_tokens"] == exp["usage"]["total_tokens"]
    if "tool_calls" in exp:
        assert len(r.message.tool_calls) == len(exp["tool_calls"])
        for call, want in zip(r.message.tool_calls, exp["tool_calls"], strict=True):
            assert call.name == want["name"]
            assert call.arguments == want["arguments"]  # a frozen mapping equals the plain one
            if want.get("id") is not None:
                assert call.id == want["id"]
            else:
                assert call.id
    if exp.get("reasoning") is not None:
        assert "".join(p.text for p in r.message.reasoning if not p.redacted) == exp["reasoning"]
    elif "reasoning" in exp:
        assert not [p for p in r.message.reasoning if p.text and not p.redacted]
    if "provider_finish_reason" in exp and exp["provider_finish_reason"] is not None:
        assert r.provider_finish_reason == exp["provider_finish_reason"]
    if "refusal" in exp:
        assert r.refusal == exp["refusal"]


@pytest.mark.parametrize("entry", _REQUEST_ENTRIES, ids=lambda e: e["file"])
def test_fixture_request_facts(entry: dict[str, Any]) -> None:
    exp = entry["expected"]
    p = get_provider(entry["provider"])
    got = p.parse_messages(load_fixture(entry))
    assert isinstance(got, list)
    assert len(got) == len(exp["messages"])
    for m, want in zip(got, exp["messages"], strict=True):
        assert m.role.value == want["role"]
        if "result_json" not in want:
            assert m.text == want["text"]
        if want["role"] == "tool":
            assert isinstance(m, ToolResultMessage)
            assert m.is_error is want["is_error"]
            if want.get("tool_call_id") is not None:
                assert m.tool_call_id == want["tool_call_id"]
            if want.get("tool_name") is not None:
                assert m.tool_name == want["tool_name"]
        assert [c.name for c in m.tool_calls] == [c["name"] for c in want["tool_calls"]]
        assert [c.arguments for c in m.tool_calls] == [c["arguments"] for c in want["tool_calls"]]
    # what was read formats again for the same provider without raising
    assert isinstance(p.convert(got).body, dict)


@pytest.mark.parametrize("entry", _ERROR_ENTRIES, ids=lambda e: e["file"])
def test_fixture_error_behaviour(entry: dict[str, Any]) -> None:
    exp = entry["expected"]
    p = get_provider(entry["provider"])
    data = load_fixture(entry)
    try:
        if entry["file"].split("/")[-1].startswith("request_"):
            p.parse_messages(data)
            raise AssertionError("a request the provider rejects must not parse")
        r = _parse_any(entry)
    except DecodeError as e:
        field = exp["error_field"].split(" ")[0]
        assert field.split(".")[-1].split("[")[0] in str(e)
        return
    # the documented lenient alternative: the call is kept raw, never repaired
    assert "raw_arguments" in exp
    assert [c.raw_arguments for c in r.invalid_tool_calls] == [exp["raw_arguments"]]


# =====================================================================================
# Where this contract departs from the seeds
# =====================================================================================


def _quiet(fn: Callable[[], Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LossWarning)
        return fn()


@pytest.mark.parametrize("name", PROVIDER_NAMES)
def test_hyphen_tool_names_and_text_beside_calls_survive_each_provider(name: str) -> None:
    p = get_provider(name)
    tool = ToolDefinition(
        "mcp-get-weather",
        "Get the weather",
        {"type": "object", "properties": {"city": {"type": "string"}}},
        strict=False,
    )
    conv = [
        SystemMessage("s"),
        UserMessage("u"),
        ToolCallMessage(
            [ToolCall("call_1", "mcp-get-weather", {"city": "Paris"})], "Let me check."
        ),
        ToolResultMessage("call_1", "sunny", tool_name="mcp-get-weather"),
        AssistantMessage("ok"),
    ]
    body = _quiet(lambda: p.format_request(conv, [tool]))
    assert "mcp-get-weather" in json.dumps(p.format_tools([tool]))
    back = p.parse_messages(body)
    (tcm,) = [m for m in back if isinstance(m, ToolCallMessage)]
    assert tcm.text == "Let me check."
    assert [c.name for c in tcm.tool_calls] == ["mcp-get-weather"]
    assert dict(tcm.tool_calls[0].arguments) == {"city": "Paris"}


@pytest.mark.parametrize("name", PROVIDER_NAMES)
def test_hyphen_tool_name_in_responses(name: str) -> None:
    bodies: dict[str, Any] = {
        "openai": {
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "a-b", "arguments": "{}"},
                            }
                        ],
                    },
                    "finish_reason": "tool_calls",
                }
            ]
        },
        "anthropic": {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "c1", "name": "a-b", "input": {}}],
            "stop_reason": "tool_use",
        },
        "gemini": {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [{"functionCall": {"name": "a-b", "args": {}}}],
                    },
                    "finishReason": "STOP",
                }
            ]
        },
        "ollama": {
            "message": {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"function": {"name": "a-b", "arguments": {}}}],
            },
            "done": True,
            "done_reason": "stop",
        },
    }
    body = bodies.get(name, bodies["openai"])
    r = get_provider(name).parse_response(body)
    assert [c.name for c in r.message.tool_calls] == ["a-b"]
    assert r.finish_reason is FinishReason.TOOL_CALLS


@pytest.mark.parametrize("name", PROVIDER_NAMES)
def test_developer_role_accepted_by_every_provider(name: str) -> None:
    conv = [DeveloperMessage("rules"), UserMessage("u")]
    body = _quiet(lambda: get_provider(name).format_request(conv))
    assert "rules" in json.dumps(body)
    back = get_provider(name).parse_messages(body)
    assert back[0].text == "rules"
    assert back[0].role in (MessageRole.DEVELOPER, MessageRole.SYSTEM)


def test_developer_role_round_trips_canonically() -> None:
    m = from_dict({"role": "developer", "content": "x"})
    assert type(m) is DeveloperMessage
    assert m.role is MessageRole.DEVELOPER
    assert m.to_dict()["role"] == "developer"
    assert (
        type(
            get_provider("openai").parse_messages(
                {"messages": [{"role": "developer", "content": "x"}]}
            )[0]
        )
        is DeveloperMessage
    )


@pytest.mark.parametrize(
    "d",
    [
        {"role": "system", "content": None},
        {"role": "developer", "content": None},
        {"role": "user", "content": None},
        {"role": "tool", "tool_call_id": "c", "content": None},
    ],
)
def test_none_content_is_invalid_when_decoding(d: dict[str, Any]) -> None:
    with pytest.raises(DecodeError) as info:
        from_dict(d)
    assert "content" in info.value.path


def test_tool_call_message_may_have_none_content() -> None:
    m = from_dict(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        }
    )
    assert isinstance(m, ToolCallMessage)
    assert m.text == ""
    assert ToolCallMessage([ToolCall("c", "f")], None).text == ""


def test_accumulator_feed_rejects_a_non_delta() -> None:
    with pytest.raises(ValidationError):
        ToolCallAccumulator().feed({"index": 0})  # type: ignore[arg-type]


def test_frozen_arrays_equal_plain_lists() -> None:
    # what a caller wrote compares equal to what is stored (deeply immutable)
    call = ToolCall("c", "f", {"tags": ["a", "b"], "nested": [{"x": [1]}]})
    assert call.arguments == {"tags": ["a", "b"], "nested": [{"x": [1]}]}
    assert call.arguments["tags"] == ["a", "b"]
    assert call.arguments["tags"] == ("a", "b")
    assert call.arguments["tags"] != ["a"]
    assert isinstance(call.arguments["tags"], tuple)
    m = from_dict({"role": "user", "content": "x", "metadata": {"tags": ["t"]}, "x_custom": [1, 2]})
    assert m.metadata == {"tags": ["t"]}
    assert m.extras == {"x_custom": [1, 2]}
    d = ToolDefinition.from_function(_doc_fn)
    assert d.parameters["required"] == ["city"]
    hash(call)
    hash(m)


# =====================================================================================
# More of the provider contract: body keys, opaque state, tool definitions
# =====================================================================================

BODY_KEYS = {
    "openai": ({"messages"}, "tools"),
    "groq": ({"messages"}, "tools"),
    "vllm": ({"messages"}, "tools"),
    "ollama": ({"messages"}, "tools"),
    "anthropic": ({"messages", "system"}, "tools"),
    "gemini": ({"contents", "systemInstruction"}, "tools"),
}


@pytest.mark.parametrize("name", PROVIDER_NAMES)
def test_format_request_body_keys(name: str) -> None:
    keys, tools_key = BODY_KEYS[name]
    tool = ToolDefinition(
        "f", "d", {"type": "object", "properties": {"a": {"type": "string"}}}, strict=False
    )
    body = get_provider(name).format_request([SystemMessage("s"), UserMessage("u")], [tool])
    assert keys <= set(body)
    assert tools_key in body
    assert "model" not in body  # the message part only, ready to merge with model and options


@pytest.mark.parametrize("producer", PROVIDER_NAMES)
def test_signatures_replayed_only_to_the_named_provider(producer: str) -> None:
    conv = [
        SystemMessage("s"),
        UserMessage("u"),
        AssistantMessage(
            [ReasoningPart("thinking", signature="SIGVALUE", provider=producer), TextPart("a")]
        ),
        UserMessage("again"),
    ]
    for target in PROVIDER_NAMES:
        body = json.dumps(_quiet(lambda t=target: get_provider(t).format_request(conv)))  # type: ignore[misc]
        if target != producer:
            assert "SIGVALUE" not in body, (producer, target)


def test_tool_definition_value_equality_and_dict() -> None:
    schema = {
        "type": "object",
        "properties": {"command": {"type": "string"}},
        "required": ["command"],
    }
    a = ToolDefinition("tool", "desc", schema)
    b = ToolDefinition("tool", "desc", json.loads(json.dumps(schema)))
    assert a == b
    assert hash(a) == hash(b)
    assert a != ToolDefinition("tool", "desc", schema, strict=False)
    assert a != ToolDefinition("tool2", "desc", schema)
    assert a.parameters == schema
    schema["required"].append("x")  # type: ignore[attr-defined]
    assert a.parameters["required"] == ["command"]  # copied, deeply immutable


# =====================================================================================
# Error messages the seeds' example tests look for (API.md: errors name the field)
# =====================================================================================


@pytest.mark.parametrize(
    ("build", "pattern"),
    [
        (lambda: ToolDefinition("", "d", PARAMS), r"name.*empty"),
        (lambda: ToolCall("c", ""), r"name.*empty"),
        (lambda: ToolDefinition("a" * 65, "d", PARAMS), r"64"),
        (lambda: ToolDefinition("tool", "", PARAMS), r"description"),
        (
            lambda: ToolDefinition("tool", "d", {"type": "array", "items": {"type": "string"}}),
            r"object",
        ),
        (lambda: ToolResultMessage("", "x"), r"tool_call_id"),
        (lambda: UserMessage(None), r"content"),  # type: ignore[arg-type]
        (lambda: SystemMessage(None), r"content"),  # type: ignore[arg-type]
    ],
)
def test_validation_messages_name_the_field(build: Callable[[], object], pattern: str) -> None:
    with pytest.raises(ValidationError, match=pattern):
        build()


def test_ordering_messages_name_the_rule() -> None:
    h = ConversationHistory()
    with pytest.raises(OrderingError, match=r"(?i)system.*first"):
        h.add(UserMessage("u"))
    h.add(SystemMessage("s"))
    with pytest.raises(OrderingError, match=r"(?i)system.*already"):
        h.add(SystemMessage("s2"))
    h.add(UserMessage("u"))
    with pytest.raises(OrderingError, match=r"(?i)user.*assistant.*alternate"):
        h.add(UserMessage("u2"))
    h.add(AssistantMessage("a"))
    with pytest.raises(OrderingError, match=r"(?i)tool.*tool_calls"):
        h.add(ToolResultMessage("call_123", "r"))
    h.add(UserMessage("u3"))
    h.add(ToolCallMessage([ToolCall("call_abc", "my_tool")]))
    with pytest.raises(OrderingError, match=r"tool_call_id"):
        h.add(ToolResultMessage("call_xyz", "r"))
    h.clear()
    h.add(SystemMessage("again after clear"))
    assert h.len() == 1


@pytest.mark.parametrize(
    ("name", "body"),
    [
        (
            "anthropic",
            {
                "type": "message",
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hmm", "signature": "SIG"},
                    {"type": "text", "text": "x"},
                ],
                "stop_reason": "end_turn",
            },
        ),
        (
            "gemini",
            {
                "candidates": [
                    {
                        "content": {
                            "role": "model",
                            "parts": [{"text": "hmm", "thought": True}, {"text": "x"}],
                        },
                        "finishReason": "STOP",
                    }
                ]
            },
        ),
        (
            "ollama",
            {
                "message": {"role": "assistant", "content": "x", "thinking": "hmm"},
                "done": True,
                "done_reason": "stop",
            },
        ),
        (
            "vllm",
            {
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": "x", "reasoning": "hmm"},
                        "finish_reason": "stop",
                    }
                ]
            },
        ),
    ],
)
def test_parsed_reasoning_names_its_provider(name: str, body: dict[str, Any]) -> None:
    r = get_provider(name).parse_response(body)
    assert r.message.text == "x"
    (part,) = r.message.reasoning
    assert isinstance(part, ReasoningPart)
    assert part.text == "hmm"
    assert part.provider == name
    if name == "anthropic":
        assert part.signature == "SIG"


def test_gemini_call_state_is_tagged_with_its_provider() -> None:
    r = get_provider("gemini").parse_response(
        {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {
                                "functionCall": {"name": "f", "args": {}},
                                "thoughtSignature": "GEMSIG",
                            }
                        ],
                    },
                    "finishReason": "STOP",
                }
            ]
        }
    )
    (call,) = r.message.tool_calls
    assert "gemini" in call.extras
    assert "GEMSIG" in json.dumps(call.extras)


def test_loss_warning_names_path_and_rule() -> None:
    conv = [SystemMessage("s"), UserMessage([TextPart("x"), AudioPart(B64, "wav")])]
    (loss,) = get_provider("anthropic").convert(conv).losses
    with pytest.warns(LossWarning) as record:
        get_provider("anthropic").format_request(conv)
    (w,) = record
    assert isinstance(w.message, UserWarning)
    assert loss.path in str(w.message)
    assert loss.rule in str(w.message)


def _optional_fn(city: str, unit: str | None, days: int = 1) -> None:
    """Forecast."""


def test_from_function_optional_and_defaults_not_required() -> None:
    d = ToolDefinition.from_function(_optional_fn)
    assert d.parameters["required"] == ["city"]
    assert set(d.parameters["properties"]) == {"city", "unit", "days"}
    assert d.description == "Forecast."
    d.validate_arguments({"city": "x"})
    d.validate_arguments({"city": "x", "unit": None, "days": 2})
    with pytest.raises(ValidationError, match="days"):
        d.validate_arguments({"city": "x", "days": "2"})


def test_repair_rejects_a_policy_that_is_not_one() -> None:
    with pytest.raises(ValidationError, match="policy"):
        messages.repair([], policy=5)  # type: ignore[arg-type]


def test_history_is_thread_safe_for_readers_and_writers() -> None:
    import threading

    h = ConversationHistory([SystemMessage("s")], policy=OrderingPolicy.lenient())
    errors: list[BaseException] = []
    stop = threading.Event()

    def write(k: int) -> None:
        try:
            for i in range(200):
                h.add(UserMessage(f"{k}-{i}"))
        except BaseException as e:
            errors.append(e)

    def read() -> None:
        try:
            while not stop.is_set():
                snap = h.messages()
                assert len(snap) >= 1
                assert isinstance(snap[0], SystemMessage)
                assert len(list(h)) >= len(snap)
                last = h.last
                assert last is not None
        except BaseException as e:
            errors.append(e)

    writers = [threading.Thread(target=write, args=(k,)) for k in range(4)]
    readers = [threading.Thread(target=read) for _ in range(2)]
    for t in readers + writers:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    for t in readers:
        t.join()
    assert errors == []
    assert h.len() == 1 + 4 * 200
    assert len({m.id for m in h}) == h.len()


@pytest.mark.parametrize(
    ("name", "body"),
    [
        (
            "openai",
            {
                "choices": [
                    {
                        "index": 0,
                        "message": {
                            "role": "assistant",
                            "tool_calls": [
                                {
                                    "id": "c",
                                    "type": "function",
                                    "function": {
                                        "name": "f",
                                        "arguments": '{"a": [1, {"b": [2]}]}',
                                    },
                                }
                            ],
                        },
                        "finish_reason": "tool_calls",
                    }
                ]
            },
        ),
        (
            "anthropic",
            {
                "content": [
                    {"type": "tool_use", "id": "c", "name": "f", "input": {"a": [1, {"b": [2]}]}}
                ],
                "stop_reason": "tool_use",
            },
        ),
        (
            "gemini",
            {
                "candidates": [
                    {
                        "content": {
                            "parts": [
                                {"functionCall": {"name": "f", "args": {"a": [1, {"b": [2]}]}}}
                            ]
                        },
                        "finishReason": "STOP",
                    }
                ]
            },
        ),
        (
            "ollama",
            {
                "message": {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {"function": {"name": "f", "arguments": {"a": [1, {"b": [2]}]}}}
                    ],
                },
                "done": True,
            },
        ),
    ],
)
def test_parsed_arguments_equal_the_plain_object(name: str, body: dict[str, Any]) -> None:
    (call,) = get_provider(name).parse_response(body).message.tool_calls
    assert call.arguments == {"a": [1, {"b": [2]}]}
    assert from_dict(to_dict(ToolCallMessage([call]))).tool_calls[0].arguments == {
        "a": [1, {"b": [2]}]
    }
