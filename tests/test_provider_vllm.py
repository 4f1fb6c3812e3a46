"""vLLM's OpenAI-compatible format: fixtures, reasoning fields, its differences, fuzzing."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import AudioPart, FilePart, Message, ReasoningPart, TextPart, ToolCall, ToolDefinition
from messages.providers import FinishReason, get_provider
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

P = get_provider("vllm")
ENTRIES = fixture_entries("vllm")


def test_every_vllm_fixture_kind_is_covered() -> None:
    assert {e["kind"] for e in ENTRIES} <= {"request", "response", "stream", "adversarial"}
    assert len(ENTRIES) >= 19


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


# -- reasoning: `reasoning` (current) vs `reasoning_content` (legacy), never both --------


def _response(message: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": "m",
        "choices": [{"message": {"role": "assistant", **message}, "finish_reason": "stop"}],
    }


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"reasoning": "new"}, "new"),
        ({"reasoning_content": "old"}, "old"),
        ({"reasoning": "same", "reasoning_content": "same"}, "same"),
        ({"reasoning": None, "reasoning_content": "old"}, "old"),
        ({"reasoning": "", "reasoning_content": None}, None),
        ({}, None),
    ],
)
def test_response_reads_one_reasoning_field(fields: dict[str, Any], expected: str | None) -> None:
    r = P.parse_response(_response({"content": "answer", **fields}))
    assert r.reasoning == expected
    assert r.text == "answer"
    if expected:
        (part,) = r.message.reasoning
        assert (part.provider, part.signature) == ("vllm", None)


def test_dual_field_stream_counts_reasoning_once() -> None:
    # The transitional release sent both keys with the same text, and
    # reasoning_content: null on content deltas.
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "x",
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    events = [
        chunk({"role": "assistant", "content": ""}),
        chunk({"reasoning": "think ", "reasoning_content": "think "}),
        chunk({"reasoning": "more", "reasoning_content": "more"}),
        chunk({"content": "answer", "reasoning_content": None}),
        chunk({}, "stop"),
    ]
    r, deltas = run_stream(P, events)
    assert (r.reasoning, r.text, r.finish_reason) == ("think more", "answer", FinishReason.STOP)
    assert [d.kind for d in deltas] == ["reasoning", "reasoning", "text"]


def test_legacy_reasoning_content_stream() -> None:
    events = [
        {"choices": [{"index": 0, "delta": {"reasoning_content": "a"}, "finish_reason": None}]},
        {"choices": [{"index": 0, "delta": {"content": "b"}, "finish_reason": "stop"}]},
    ]
    r, _ = run_stream(P, events)
    assert (r.reasoning, r.text) == ("a", "b")


def test_its_own_reasoning_is_sent_back_as_reasoning() -> None:
    call = ToolCall("chatcmpl-tool-1", "f", {})
    m = Message.assistant([ReasoningPart("because", provider="vllm")], [call])
    conversion = P.convert([m])
    assert conversion.losses == ()
    wire = conversion.body["messages"][0]
    assert wire["reasoning"] == "because"
    assert "reasoning_content" not in wire
    assert wire["content"] is None


@pytest.mark.parametrize("provider", [None, "groq", "ollama", "openai", "vllm@other"])
def test_reasoning_of_any_other_origin_is_a_loss(provider: str | None) -> None:
    # unsigned reasoning is tied to where it came from, like signed reasoning
    call = ToolCall("chatcmpl-tool-1", "f", {})
    m = Message.assistant([ReasoningPart("because", provider=provider)], [call])
    conversion = P.convert([m])
    assert "reasoning" not in conversion.body["messages"][0]
    (loss,) = conversion.losses
    assert loss.path == "messages[0].content[0]"
    assert loss.what == f"reasoning from {provider or 'an unnamed provider'}"
    assert "because" not in str(loss)


@pytest.mark.parametrize(
    ("part", "what"),
    [
        (
            ReasoningPart("t", signature="sig", provider="anthropic"),
            "signed reasoning from anthropic",
        ),
        (
            ReasoningPart("t", redacted=True, provider="anthropic"),
            "signed reasoning from anthropic",
        ),
        (ReasoningPart("t", signature="s", provider="gemini"), "signed reasoning from gemini"),
        (ReasoningPart("summary", provider="gemini"), "reasoning from gemini"),
    ],
)
def test_reasoning_tied_to_another_provider_is_never_replayed(
    part: ReasoningPart, what: str
) -> None:
    m = Message.assistant([part, TextPart("ok")])
    conversion = P.convert([m])
    assert conversion.body["messages"] == [{"role": "assistant", "content": "ok"}]
    (loss,) = conversion.losses
    assert (loss.path, loss.what) == ("messages[0].content[0]", what)


# -- what vLLM cannot carry -------------------------------------------------------------


def test_developer_becomes_system_with_a_loss() -> None:
    conversion = P.convert([Message.developer("rules")])
    assert conversion.body["messages"] == [{"role": "system", "content": "rules"}]
    (loss,) = conversion.losses
    assert (loss.path, loss.what) == ("messages[0]", "developer role")


def test_audio_is_sent_and_files_are_dropped() -> None:
    m = Message.user([TextPart("a"), AudioPart(data="AA==", format="mp3"), FilePart(file_id="f1")])
    conversion = P.convert([m])
    parts = conversion.body["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["text", "input_audio"]
    (loss,) = conversion.losses
    assert (loss.path, loss.what) == ("messages[0].content[2]", "file part")


def test_strict_tools_carry_no_strict_flag_but_a_closed_schema() -> None:
    tool = ToolDefinition(
        "f", "Does f.", {"type": "object", "properties": {"a": {"type": "string"}}}
    )
    (wire,) = P.format_tools([tool])
    assert "strict" not in wire["function"]
    assert wire["function"]["parameters"]["additionalProperties"] is False
    assert "required" not in wire["function"]["parameters"]


def test_opaque_ids_are_kept_as_they_are() -> None:
    body = _response(
        {
            "tool_calls": [
                {
                    "id": "functions.get_weather:0",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": "{}"},
                }
            ]
        }
    )
    r = P.parse_response(body)
    assert r.tool_calls[0].id == "functions.get_weather:0"
    wire = P.convert([r.message, Message.tool_result("functions.get_weather:0", "ok")]).body
    assert wire["messages"][1]["tool_call_id"] == "functions.get_weather:0"


def test_first_fragment_without_arguments_key() -> None:
    events = [
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {"id": "t1", "index": 0, "type": "function", "function": {"name": "f"}}
                        ]
                    },
                }
            ]
        },
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    r, _ = run_stream(P, events)
    assert [(c.id, dict(c.arguments)) for c in r.tool_calls] == [("t1", {})]


# -- fuzzing ------------------------------------------------------------------------------

_FIXTURES = [(e, load_fixture(e)) for e in ENTRIES]


@settings(max_examples=100)
@given(json_values)
def test_fuzz_parsers_raise_only_decode_error(value: Any) -> None:
    accepts_or_decode_error(P.parse_response, value)
    accepts_or_decode_error(P.parse_messages, value)
    feed_all_or_decode_error(P, [value])


@settings(max_examples=100)
@given(st.sampled_from(_FIXTURES), mutations)
def test_fuzz_mutated_fixtures_raise_only_decode_error(fixture: Any, mutation: Any) -> None:
    entry, data = fixture
    broken = mutate(data, *mutation)
    mutated_only_decode_error(P, entry, broken)


_FLAT_ERROR = {
    "object": "error",
    "message": "This model's maximum context length is 4096 tokens.",
    "type": "BadRequestError",
    "param": None,
    "code": 400,
}


def test_flat_error_body_is_an_error_response() -> None:
    # vLLM's ErrorResponse (before it was wrapped as {"error": {...}})
    r = get_provider("vllm").parse_response(_FLAT_ERROR)
    assert r.finish_reason is FinishReason.ERROR
    assert r.error == _FLAT_ERROR["message"]
    assert r.message.metadata["error"]["code"] == 400


def test_flat_error_in_a_stream_ends_it_with_an_error() -> None:
    acc = get_provider("vllm").stream()
    acc.feed({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"content": "Hel"}}]})
    acc.feed(_FLAT_ERROR)
    acc.feed("[DONE]")  # type: ignore[arg-type]  # the SSE sentinel is passed over
    r = acc.finish()
    assert r.finish_reason is FinishReason.ERROR
    assert (r.text, r.error) == ("Hel", _FLAT_ERROR["message"])
