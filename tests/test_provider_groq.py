"""Groq's OpenAI-compatible format: fixtures, x_groq, error bodies, its differences, fuzzing."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import AudioPart, FilePart, ImagePart, Message, ReasoningPart, TextPart, ToolCall
from messages.providers import FinishReason, get_provider
from tests.conftest import fixture_entries, load_fixture
from tests.provider_fidelity import (
    accepts_or_decode_error,
    check_adversarial,
    check_error_response,
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

P = get_provider("groq")
ENTRIES = fixture_entries("groq")


def test_every_groq_fixture_kind_is_covered() -> None:
    assert {e["kind"] for e in ENTRIES} <= {
        "request",
        "response",
        "stream",
        "adversarial",
        "error_response",
    }
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


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "error_response"), ids=entry_id)
def test_error_body_fixture(entry: dict[str, Any]) -> None:
    check_error_response(P, entry, load_fixture(entry))


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "adversarial"), ids=entry_id)
def test_adversarial_fixture_behaviour(entry: dict[str, Any]) -> None:
    check_adversarial(P, entry, load_fixture(entry))


# -- x_groq -------------------------------------------------------------------------------


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": "c",
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


X_USAGE = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12, "queue_time": 0.01}


def test_usage_comes_from_x_groq_on_the_final_chunk() -> None:
    r, _ = run_stream(
        P, [_chunk({"content": "hi"}), _chunk({}, "stop", x_groq={"id": "req_1", "usage": X_USAGE})]
    )
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (10, 2, 12)
    assert r.message.metadata["usage"]["total_tokens"] == 12


def test_top_level_usage_wins_over_x_groq_usage() -> None:
    top = {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}
    events = [
        _chunk({"content": "hi"}),
        _chunk({}, "stop", x_groq={"id": "req_1", "usage": X_USAGE}),
        {"id": "c", "model": "m", "choices": [], "usage": top},
    ]
    r, _ = run_stream(P, events)
    assert r.usage is not None and r.usage.output_tokens == 3


def test_x_groq_error_ends_the_stream_with_an_error() -> None:
    r, _ = run_stream(
        P,
        [
            _chunk({"content": "par"}),
            _chunk({}, None, x_groq={"id": "r", "error": "over capacity"}),
        ],
    )
    assert (r.text, r.finish_reason, r.error) == ("par", FinishReason.ERROR, "over capacity")


def test_other_providers_ignore_x_groq() -> None:
    r, _ = run_stream(get_provider("openai"), [_chunk({}, "stop", x_groq={"usage": X_USAGE})])
    assert r.usage is None


def test_whole_calls_several_per_delta() -> None:
    calls = [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "f", "arguments": '{"a":1}'},
            "index": 0,
        },
        {
            "id": "call_2",
            "type": "function",
            "function": {"name": "g", "arguments": "{}"},
            "index": 1,
        },
    ]
    r, deltas = run_stream(P, [_chunk({"tool_calls": calls}), _chunk({}, "tool_calls")])
    assert [(c.id, c.name) for c in r.tool_calls] == [("call_1", "f"), ("call_2", "g")]
    assert [d.tool_call.arguments_delta for d in deltas if d.tool_call] == ['{"a":1}', "{}"]


# -- formatting ---------------------------------------------------------------------------


def test_reasoning_roundtrip_uses_the_reasoning_field() -> None:
    m = Message.assistant([ReasoningPart("why", provider="groq")], [ToolCall("call_1", "f", {})])
    wire = P.convert([m]).body["messages"][0]
    assert wire["reasoning"] == "why"
    back = P.parse_messages([wire])
    assert back[0].reasoning == (ReasoningPart("why", provider="groq"),)


@pytest.mark.parametrize(
    ("part", "what"),
    [
        (AudioPart(data="AA==", format="wav"), "audio part"),
        (FilePart(file_id="file-1"), "file part"),
    ],
)
def test_audio_and_files_are_dropped_with_a_loss(part: Any, what: str) -> None:
    conversion = P.convert([Message.user([TextPart("x"), part])])
    assert conversion.body["messages"][0]["content"] == [{"type": "text", "text": "x"}]
    (loss,) = conversion.losses
    assert (loss.path, loss.what) == ("messages[0].content[1]", what)


def test_images_are_sent_as_image_url() -> None:
    m = Message.user([ImagePart(url="https://x.test/a.png")])
    conversion = P.convert([m])
    assert conversion.losses == ()
    assert conversion.body["messages"][0]["content"][0]["image_url"] == {
        "url": "https://x.test/a.png"
    }


def test_developer_becomes_system_with_a_loss() -> None:
    conversion = P.convert([Message.developer("rules"), Message.user("hi")])
    assert conversion.body["messages"][0] == {"role": "system", "content": "rules"}
    assert [loss.what for loss in conversion.losses] == ["developer role"]


def test_audio_in_a_tool_result_is_dropped_not_moved() -> None:
    """Groq takes no audio: the part is dropped where it is (one Loss), and no user
    message is added after the results to carry nothing."""
    ms = [
        Message.assistant(None, [ToolCall("call_1", "rec", {})]),
        Message.tool_result("call_1", [TextPart("done"), AudioPart(data="AA==", format="wav")]),
    ]
    conversion = P.convert(ms)
    wire = conversion.body["messages"]
    assert [m["role"] for m in wire] == ["assistant", "tool"]
    assert wire[1]["content"] == [{"type": "text", "text": "done"}]
    assert [loss.what for loss in conversion.losses] == ["audio part"]


# -- fuzzing ------------------------------------------------------------------------------

_FIXTURES = [(e, load_fixture(e)) for e in ENTRIES]


@settings(max_examples=100)
@given(json_values)
def test_fuzz_parsers_raise_only_decode_error(value: Any) -> None:
    accepts_or_decode_error(P.parse_response, value)
    accepts_or_decode_error(P.parse_messages, value)
    feed_all_or_decode_error(P, [value, {"x_groq": value}])


@settings(max_examples=100)
@given(st.sampled_from(_FIXTURES), mutations)
def test_fuzz_mutated_fixtures_raise_only_decode_error(fixture: Any, mutation: Any) -> None:
    entry, data = fixture
    broken = mutate(data, *mutation)
    mutated_only_decode_error(P, entry, broken)
