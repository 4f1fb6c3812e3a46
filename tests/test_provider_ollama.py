"""Ollama /api/chat: fixtures, derived ids and pairing, images, NDJSON streams, fuzzing."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    AudioPart,
    ConversationHistory,
    DecodeError,
    FilePart,
    ImagePart,
    Message,
    OrderingPolicy,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolCallMessage,
    ToolDefinition,
    ToolResultMessage,
)
from messages.providers import FinishReason, get_provider
from messages.providers._base import is_derived_id
from messages.providers.ollama import UNKNOWN_IMAGE_TYPE, sniff_image_type
from tests.conftest import fixture_entries, load_fixture
from tests.provider_fidelity import (
    accepts_or_decode_error,
    check_adversarial,
    check_request,
    check_response,
    check_stream,
    entries_of,
    entry_id,
    feed_all_or_decode_error,
    json_values,
    mutate,
    mutated_only_decode_error,
    mutations,
    run_stream,
)

P = get_provider("ollama")
ENTRIES = fixture_entries("ollama")
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"


def test_every_ollama_fixture_kind_is_covered() -> None:
    assert {e["kind"] for e in ENTRIES} <= {"request", "response", "stream", "adversarial"}
    assert len(ENTRIES) >= 18


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "request"), ids=entry_id)
def test_request_fixture_parses_and_formats_back(entry: dict[str, Any]) -> None:
    check_request(P, entry, load_fixture(entry))


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "response"), ids=entry_id)
def test_response_fixture_facts(entry: dict[str, Any]) -> None:
    check_response(P, entry, load_fixture(entry))


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "stream"), ids=entry_id)
def test_stream_fixture_facts(entry: dict[str, Any]) -> None:
    check_stream(P, entry, load_fixture(entry))


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "adversarial"), ids=entry_id)
def test_adversarial_fixture_behaviour(entry: dict[str, Any]) -> None:
    check_adversarial(P, entry, load_fixture(entry))


# -- ids: derived when missing, paired by tool_name and order --------------------------


def _roundtrip_fixture() -> dict[str, Any]:
    (entry,) = [e for e in ENTRIES if e["file"] == "ollama/request_tool_roundtrip.json"]
    data: dict[str, Any] = load_fixture(entry)
    return data


def test_id_less_calls_get_stable_ids_that_their_results_carry() -> None:
    data = _roundtrip_fixture()
    ms = P.parse_messages(data)
    again = P.parse_messages(data)
    call_msg = ms[2]
    assert isinstance(call_msg, ToolCallMessage)
    ids = [c.id for c in call_msg.tool_calls]
    assert all(is_derived_id(i) for i in ids) and len(set(ids)) == 2
    assert ids == [c.id for c in again[2].tool_calls]
    results = [m for m in ms if isinstance(m, ToolResultMessage)]
    assert [r.tool_call_id for r in results] == ids
    assert [r.tool_name for r in results] == ["get_weather", "get_weather"]
    history = ConversationHistory(ms)
    history.validate()
    assert history.pending_tool_calls == ()


def test_results_pair_by_tool_name_before_order() -> None:
    body = {
        "messages": [
            {"role": "user", "content": "both"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"function": {"name": "get_time", "arguments": {}}},
                    {"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}},
                ],
            },
            {"role": "tool", "tool_name": "get_weather", "content": "cold"},
            {"role": "tool", "tool_name": "get_time", "content": "noon"},
        ]
    }
    ms = P.parse_messages(body)
    calls = {c.name: c.id for c in ms[1].tool_calls}
    assert ms[2].tool_call_id == calls["get_weather"]  # type: ignore[attr-defined]
    assert ms[3].tool_call_id == calls["get_time"]  # type: ignore[attr-defined]
    ConversationHistory(ms, policy=OrderingPolicy.lenient()).validate()


def test_result_without_name_takes_the_next_open_call_and_orphans_stay_orphans() -> None:
    body = [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "f", "arguments": {}}}],
        },
        {"role": "tool", "content": "one"},
        {"role": "tool", "content": "two"},
    ]
    ms = P.parse_messages(body)
    assert ms[1].tool_call_id == ms[0].tool_calls[0].id  # type: ignore[attr-defined]
    orphan = ms[2].tool_call_id  # type: ignore[attr-defined]
    assert is_derived_id(orphan) and orphan != ms[1].tool_call_id  # type: ignore[attr-defined]


def test_derived_ids_are_not_sent_back_real_ids_are() -> None:
    data = _roundtrip_fixture()
    wire = P.convert(P.parse_messages(data)).body["messages"]
    assert all("id" not in c for c in wire[2]["tool_calls"])
    assert all("tool_call_id" not in m for m in wire if m["role"] == "tool")
    ms = [
        Message.assistant(None, [ToolCall("call_abc", "f", {"x": [1, 2]})]),
        Message.tool_result("call_abc", "ok"),
    ]
    wire = P.convert(ms).body["messages"]
    assert wire[0]["tool_calls"] == [
        {"id": "call_abc", "function": {"index": 0, "name": "f", "arguments": {"x": [1, 2]}}}
    ]
    assert wire[1] == {
        "role": "tool",
        "tool_call_id": "call_abc",
        "tool_name": "f",
        "content": "ok",
    }


def test_arguments_are_sent_as_plain_objects_never_strings() -> None:
    call = ToolCall("c", "f", '{"nested": {"list": [1, {"a": null}]}}')
    wire = P.convert([Message.assistant(None, [call])]).body["messages"][0]
    args = wire["tool_calls"][0]["function"]["arguments"]
    assert args == {"nested": {"list": [1, {"a": None}]}}
    assert type(args) is dict and type(args["nested"]["list"]) is list


def test_response_ids_are_derived_from_the_response_and_stable() -> None:
    body = {
        "model": "qwen3",
        "created_at": "2025-01-01T00:00:00Z",
        "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "f", "arguments": {}}}],
        },
        "done": True,
        "done_reason": "stop",
    }
    first, again = P.parse_response(body), P.parse_response(body)
    assert first.tool_calls[0].id == again.tool_calls[0].id
    assert is_derived_id(first.tool_calls[0].id)
    later = P.parse_response({**body, "created_at": "2025-01-01T00:00:05Z"})
    assert later.tool_calls[0].id != first.tool_calls[0].id
    assert first.finish_reason is FinishReason.TOOL_CALLS


# -- images and other parts -------------------------------------------------------------


def test_images_are_bare_base64_and_urls_are_dropped() -> None:
    m = Message.user(
        [
            TextPart("what is "),
            ImagePart(data=PNG, media_type="image/png"),
            TextPart("this?"),
            ImagePart(url="https://x.test/a.png"),
            ImagePart(data=PNG, media_type="image/png", detail="low"),
            AudioPart(data="AA==", format="wav"),
            FilePart(file_id="f1"),
        ]
    )
    conversion = P.convert([m])
    assert conversion.body["messages"] == [
        {"role": "user", "content": "what is this?", "images": [PNG, PNG]}
    ]
    assert [(loss.path, loss.what) for loss in conversion.losses] == [
        ("messages[0].content[3]", "image URL"),
        ("messages[0].content[4].detail", "image detail"),
        ("messages[0].content[5]", "audio part"),
        ("messages[0].content[6]", "file part"),
    ]


def test_images_in_tool_results_stay_on_the_tool_message() -> None:
    ms = [
        Message.assistant(None, [ToolCall("call_1", "shot", {})]),
        Message.tool_result(
            "call_1", [TextPart("screen"), ImagePart(data=PNG, media_type="image/png")]
        ),
    ]
    conversion = P.convert(ms)
    assert conversion.losses == ()
    assert conversion.body["messages"][1]["images"] == [PNG]
    back = P.parse_messages(conversion.body)
    assert back[1].parts == ms[1].parts


@pytest.mark.parametrize(
    ("data", "media_type"),
    [
        (PNG, "image/png"),
        ("/9j/4AAQSkZJRg==", "image/jpeg"),
        ("R0lGODlhAQABAA==", "image/gif"),
        ("UklGRiQAAABXRUJQ", "image/webp"),
        ("Qk0eAAAAAAAAAA==", "image/bmp"),
        ("AAAA", UNKNOWN_IMAGE_TYPE),
    ],
)
def test_image_media_type_is_sniffed(data: str, media_type: str) -> None:
    assert sniff_image_type(data) == media_type
    (m,) = P.parse_messages([{"role": "user", "content": "", "images": [data]}])
    assert m.parts == (ImagePart(data=data, media_type=media_type),)


@pytest.mark.parametrize(
    ("images", "path"),
    [
        (["data:image/png;base64,AAAA"], "[0].images[0]"),
        ([PNG, "not base64!"], "[0].images[1]"),
        ([3], "[0].images[0]"),
        ("AAAA", "[0].images"),
    ],
)
def test_bad_images_name_the_path(images: Any, path: str) -> None:
    with pytest.raises(DecodeError) as info:
        P.parse_messages([{"role": "user", "content": "x", "images": images}])
    assert info.value.path == path


# -- reasoning, roles, errors ----------------------------------------------------------


def test_thinking_goes_back_only_to_ollama() -> None:
    m = Message.assistant(
        [
            ReasoningPart("mine", provider="ollama"),
            ReasoningPart("vllm's", provider="vllm"),
            ReasoningPart("claude's", signature="sig", provider="anthropic"),
            TextPart("answer"),
        ]
    )
    conversion = P.convert([m])
    assert conversion.body["messages"] == [
        {"role": "assistant", "content": "answer", "thinking": "mine"}
    ]
    assert [(loss.path, loss.what) for loss in conversion.losses] == [
        ("messages[0].content[1]", "reasoning from vllm"),
        ("messages[0].content[2]", "signed reasoning from anthropic"),
    ]
    (back,) = P.parse_messages(conversion.body)
    assert back.reasoning == (ReasoningPart("mine", provider="ollama"),)


def test_developer_becomes_system_and_is_error_becomes_a_prefix() -> None:
    ms = [
        Message.developer("rules"),
        Message.assistant(None, [ToolCall("call_1", "f", {})]),
        Message.tool_result("call_1", "boom", is_error=True),
    ]
    conversion = P.convert(ms)
    wire = conversion.body["messages"]
    assert wire[0] == {"role": "system", "content": "rules"}
    assert wire[2]["content"] == "Error: boom"
    assert [loss.what for loss in conversion.losses] == ["developer role", "is_error flag"]


def test_tools_are_function_tools_without_strict_flag() -> None:
    tool = ToolDefinition(
        "f", "Does f.", {"type": "object", "properties": {"a": {"type": "string"}}}
    )
    (wire,) = P.format_tools([tool])
    assert wire == {
        "type": "function",
        "function": {
            "name": "f",
            "description": "Does f.",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "additionalProperties": False,
            },
        },
    }


@pytest.mark.parametrize(
    ("done_reason", "has_calls", "expected"),
    [
        ("stop", False, FinishReason.STOP),
        ("stop", True, FinishReason.TOOL_CALLS),
        (None, False, FinishReason.STOP),
        (None, True, FinishReason.TOOL_CALLS),
        ("length", False, FinishReason.LENGTH),
        ("load", False, FinishReason.STOP),
        ("unload", False, FinishReason.STOP),
        ("something_new", False, FinishReason.OTHER),
    ],
)
def test_done_reason_mapping(
    done_reason: str | None, has_calls: bool, expected: FinishReason
) -> None:
    message: dict[str, Any] = {"role": "assistant", "content": "x"}
    if has_calls:
        message["tool_calls"] = [{"id": "call_1", "function": {"name": "f", "arguments": {}}}]
    body: dict[str, Any] = {"model": "m", "message": message, "done": True, "eval_count": 2}
    if done_reason is not None:
        body["done_reason"] = done_reason
    r = P.parse_response(body)
    assert (r.finish_reason, r.provider_finish_reason) == (expected, done_reason)
    assert r.usage is not None and (r.usage.input_tokens, r.usage.total_tokens) == (0, 2)


def test_error_body_and_error_line() -> None:
    r = P.parse_response({"error": "model 'x' not found"})
    assert (r.finish_reason, r.error) == (FinishReason.ERROR, "model 'x' not found")
    events = [
        {"model": "m", "message": {"role": "assistant", "content": "par"}, "done": False},
        {"error": "an error was encountered while running the model"},
    ]
    r, _ = run_stream(P, events)
    assert (r.text, r.finish_reason) == ("par", FinishReason.ERROR)
    assert r.message.metadata["error"]["message"].startswith("an error")


def test_string_arguments_are_read_and_bad_ones_become_invalid_calls() -> None:
    body: dict[str, Any] = {
        "model": "m",
        "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "call_1", "function": {"name": "f", "arguments": '{"a": 1}'}},
                {"id": "call_2", "function": {"name": "g", "arguments": '{"a": '}},
            ],
        },
        "done": True,
    }
    r = P.parse_response(body)
    assert [(c.id, dict(c.arguments)) for c in r.tool_calls] == [("call_1", {"a": 1})]
    (bad,) = r.invalid_tool_calls
    assert (bad.id, bad.raw_arguments) == ("call_2", '{"a": ')
    assert "message.tool_calls[1].function.arguments" in bad.error
    # a stored conversation holding the same turn imports with the invalid call in it
    (m,) = P.parse_messages(
        [{"role": "assistant", "content": "", "tool_calls": body["message"]["tool_calls"]}]
    )
    assert isinstance(m, ToolCallMessage)
    assert [c.id for c in m.tool_calls] == ["call_1"]
    (stored,) = m.invalid_tool_calls
    assert (stored.id, stored.raw_arguments) == ("call_2", '{"a": ')
    assert stored.error.startswith("[0].tool_calls[1].function.arguments")


def test_arguments_json_cannot_hold_and_repeated_ids_become_invalid_calls() -> None:
    calls = [
        {"function": {"name": "f", "arguments": {"x": float("inf")}}},
        {"id": "c", "function": {"name": "f", "arguments": {"x": 1}}},
        {"id": "c", "function": {"name": "g", "arguments": {"x": 2}}},
    ]
    body = {"model": "m", "message": {"role": "assistant", "content": "", "tool_calls": calls}}
    r = P.parse_response({**body, "done": True})
    assert [(c.id, c.name) for c in r.tool_calls] == [("c", "f")]
    assert [(c.name, c.raw_arguments) for c in r.invalid_tool_calls] == [
        ("f", '{"x":Infinity}'),
        ("g", '{"x":2}'),
    ]
    acc = P.stream()
    acc.feed(body)
    acc.feed({"model": "m", "message": {"role": "assistant", "content": ""}, "done": True})
    streamed = acc.finish()
    assert streamed.tool_calls == r.tool_calls
    assert [(c.name, c.raw_arguments) for c in streamed.invalid_tool_calls] == [
        ("f", '{"x":Infinity}'),
        ("g", '{"x":2}'),
    ]


# -- streaming ------------------------------------------------------------------------


def _line(message: dict[str, Any], done: bool = False, **extra: Any) -> dict[str, Any]:
    return {
        "model": "m",
        "created_at": "t",
        "message": {"role": "assistant", **message},
        "done": done,
        **extra,
    }


def test_whole_calls_are_appended_across_lines() -> None:
    events = [
        _line({"content": "", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]}),
        _line(
            {
                "content": "",
                "tool_calls": [
                    {"function": {"name": "f", "arguments": {"a": 2}}},
                    {"function": {"name": "g", "arguments": {}}},
                ],
            }
        ),
        _line({"content": ""}, True, done_reason="stop", prompt_eval_count=5, eval_count=7),
    ]
    r, deltas = run_stream(P, events)
    assert [dict(c.arguments) for c in r.tool_calls] == [{"a": 1}, {"a": 2}, {}]
    assert len({c.id for c in r.tool_calls}) == 3
    assert [d.tool_call.index for d in deltas if d.tool_call] == [0, 1, 2]
    assert r.finish_reason is FinishReason.TOOL_CALLS
    assert r.usage is not None and r.usage.total_tokens == 12
    again, _ = run_stream(P, events)
    assert [c.id for c in again.tool_calls] == [c.id for c in r.tool_calls]


def test_truncated_ndjson_stream_finishes_with_what_it_has() -> None:
    r, _ = run_stream(P, [_line({"content": "The cap"})])
    assert (r.text, r.finish_reason, r.usage) == ("The cap", FinishReason.ERROR, None)
    assert r.error is not None and "truncated" in r.error


# -- fuzzing ------------------------------------------------------------------------------

_FIXTURES = [(e, load_fixture(e)) for e in ENTRIES]


@settings(max_examples=100)
@given(json_values)
def test_fuzz_parsers_raise_only_decode_error(value: Any) -> None:
    accepts_or_decode_error(P.parse_response, value)
    accepts_or_decode_error(P.parse_messages, value)
    feed_all_or_decode_error(P, [value, {"message": value, "done": True}])


@settings(max_examples=100)
@given(st.sampled_from(_FIXTURES), mutations)
def test_fuzz_mutated_fixtures_raise_only_decode_error(fixture: Any, mutation: Any) -> None:
    entry, data = fixture
    broken = mutate(data, *mutation)
    mutated_only_decode_error(P, entry, broken)


def test_message_name_is_a_loss_on_ollama() -> None:
    from messages import Message
    from messages.providers import get_provider

    conversion = get_provider("ollama").convert([Message.user("hi", name="alice")])
    assert conversion.body["messages"] == [{"role": "user", "content": "hi"}]
    assert [(loss.path, loss.what) for loss in conversion.losses] == [
        ("messages[0].name", "message name")
    ]
