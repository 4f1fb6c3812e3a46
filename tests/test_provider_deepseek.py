"""DeepSeek's chat format: fixtures, thinking-mode reasoning rules, cache usage, fuzzing."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import CacheHint, ImagePart, Message, ReasoningPart, TextPart, ToolCall
from messages.providers import FinishReason, get_provider
from messages.providers.deepseek import PROVIDER as DEEPSEEK
from messages.providers.deepseek import DeepSeekProvider
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

P = get_provider("deepseek")
ENTRIES = fixture_entries("deepseek")


def test_every_deepseek_fixture_kind_is_covered() -> None:
    kinds = {e["kind"] for e in ENTRIES}
    assert kinds == {"request", "response", "stream", "adversarial", "error_response"}
    assert len(ENTRIES) >= 17


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "request"), ids=entry_id)
def test_request_fixture_parses_and_formats_back(entry: dict[str, Any]) -> None:
    check_request(P, entry, load_fixture(entry))


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "response"), ids=entry_id)
def test_response_fixture_facts(entry: dict[str, Any]) -> None:
    r = check_response(P, entry, load_fixture(entry))
    expected = entry["expected"]
    assert r.usage is not None
    for key in ("cached_input_tokens", "reasoning_tokens"):
        if key in expected:
            assert getattr(r.usage, key) == expected[key]
    if r.reasoning:
        assert [p.provider for p in r.message.reasoning] == ["deepseek"]


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "stream"), ids=entry_id)
def test_stream_fixture_facts(entry: dict[str, Any]) -> None:
    check_stream(P, entry, load_fixture(entry))


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "error_response"), ids=entry_id)
def test_error_body_fixture(entry: dict[str, Any]) -> None:
    check_error_response(P, entry, load_fixture(entry))


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "adversarial"), ids=entry_id)
def test_adversarial_fixture_behaviour(entry: dict[str, Any]) -> None:
    check_adversarial(P, entry, load_fixture(entry))


# -- thinking mode: what goes back ---------------------------------------------------------


def _tool_turn(reasoning: ReasoningPart | None, call_id: str = "call_00_a") -> Message:
    content = [reasoning] if reasoning is not None else None
    return Message.assistant(content, [ToolCall(call_id, "get_weather", {"city": "Paris"})])


def test_a_tool_call_turn_sends_its_reasoning_back() -> None:
    own = ReasoningPart("check the weather", provider="deepseek")
    ms = [Message.user("q"), _tool_turn(own), Message.tool_result("call_00_a", "18C")]
    conversion = P.convert(ms)
    assert conversion.losses == ()
    assert conversion.body["messages"][1]["reasoning_content"] == "check the weather"
    # and a parsed DeepSeek response does too, in every later request
    r = P.parse_response(load_fixture({"file": "deepseek/response_tool_calls_parallel.json"}))
    ms = [Message.user("q"), r.message]
    ms += [Message.tool_result(c.id, "ok") for c in r.tool_calls]
    ms += [Message.assistant("done"), Message.user("more")]
    wire = P.convert(ms).body["messages"]
    assert wire[1]["reasoning_content"] == r.reasoning


def test_a_tool_call_turn_without_deepseek_reasoning_carries_an_empty_one() -> None:
    foreign = ReasoningPart("thought elsewhere", provider="groq")
    ms = [
        Message.user("q"),
        _tool_turn(foreign),
        Message.tool_result("call_00_a", "18C"),
        _tool_turn(None, "call_01_b"),
        Message.tool_result("call_01_b", "19C"),
    ]
    conversion = P.convert(ms)
    wire = conversion.body["messages"]
    assert wire[1]["reasoning_content"] == "" and wire[3]["reasoning_content"] == ""
    assert "thought elsewhere" not in str(conversion.body)
    assert [(x.path, x.what) for x in conversion.losses] == [
        ("messages[1].content[0]", "reasoning from groq")
    ]


def test_a_turn_without_calls_gets_no_placeholder() -> None:
    wire = P.convert([Message.user("q"), Message.assistant("a"), Message.user("b")]).body
    assert wire["messages"][1] == {"role": "assistant", "content": "a"}


def test_reasoning_of_another_origin_is_a_loss() -> None:
    there = P.at("azure")
    part = ReasoningPart("mine", provider="deepseek")
    ms = [Message.user("q"), Message.assistant([part, TextPart("A.")])]
    conversion = there.convert(ms)
    assert "reasoning_content" not in conversion.body["messages"][1]
    assert [x.what for x in conversion.losses] == ["reasoning from deepseek"]
    assert P.convert(ms).body["messages"][1]["reasoning_content"] == "mine"


def test_outside_thinking_mode_no_reasoning_is_sent() -> None:
    assert get_provider("deepseek") is DEEPSEEK
    plain = DEEPSEEK.with_thinking(False)
    assert isinstance(plain, DeepSeekProvider)
    assert (DEEPSEEK.thinking, plain.thinking, plain.tag) == (True, False, "deepseek")
    own = ReasoningPart("check", provider="deepseek")
    ms = [Message.user("q"), _tool_turn(own), Message.tool_result("call_00_a", "18C")]
    conversion = plain.convert(ms)
    assert "reasoning_content" not in conversion.body["messages"][1]
    assert [(x.path, x.what) for x in conversion.losses] == [
        ("messages[1].content[0]", "reasoning")
    ]
    # the shared provider is unchanged, and thinking can be turned back on
    assert P.convert(ms).body["messages"][1]["reasoning_content"] == "check"
    assert plain.with_thinking(True).convert(ms).losses == ()
    assert repr(plain) == "<provider deepseek (no thinking)>"


# -- content and other rules ----------------------------------------------------------------


def test_images_are_dropped_with_a_loss() -> None:
    m = Message.user([TextPart("what is this?"), ImagePart(url="https://x.test/a.png")])
    conversion = P.convert([m])
    assert conversion.body["messages"][0]["content"] == [{"type": "text", "text": "what is this?"}]
    assert [(x.path, x.what) for x in conversion.losses] == [
        ("messages[0].content[1]", "image part")
    ]


def test_an_image_in_a_tool_result_is_dropped_in_place() -> None:
    """DeepSeek takes no images anywhere: the part is dropped (one Loss), not moved to
    a user message that would carry nothing but a marker."""
    image = ImagePart(data="iVBORw0KGgo=", media_type="image/png")
    ms = [
        Message.user("chart?"),
        Message.assistant(None, [ToolCall("call_1", "chart", {})]),
        Message.tool_result("call_1", [TextPart("rendered"), image]),
    ]
    conversion = P.convert(ms)
    wire = conversion.body["messages"]
    assert [m["role"] for m in wire] == ["user", "assistant", "tool"]
    assert wire[2]["content"] == [{"type": "text", "text": "rendered"}]
    assert [(x.path, x.what) for x in conversion.losses] == [
        ("messages[2].content[1]", "image part")
    ]


def test_developer_becomes_system_and_cache_hints_are_reported() -> None:
    m = Message.developer("rules", cache=CacheHint())
    conversion = P.convert([m, Message.user("hi")])
    assert conversion.body["messages"][0] == {"role": "system", "content": "rules"}
    assert [(x.path, x.what, x.rule) for x in conversion.losses] == [
        (
            "messages[0]",
            "developer role",
            "sent as a system message: deepseek has no developer role",
        ),
        (
            "messages[0].cache",
            "cache hint",
            "dropped: deepseek takes no cache breakpoints (it caches request prefixes by itself)",
        ),
    ]


def test_stream_usage_keeps_the_cache_hits() -> None:
    r, _ = run_stream(P, load_fixture({"file": "deepseek/stream_tool_calls_parallel.jsonl"}))
    assert r.usage is not None and r.usage.cached_input_tokens == 384
    assert r.usage.reasoning_tokens == 41
    assert r.message.metadata["usage"]["cached_input_tokens"] == 384


def test_insufficient_resource_in_a_stream_is_an_error() -> None:
    chunk = {"id": "x", "model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": None}]}
    done = {
        **chunk,
        "choices": [{"index": 0, "delta": {}, "finish_reason": "insufficient_system_resource"}],
    }
    r, _ = run_stream(P, [chunk, done])
    assert r.finish_reason is FinishReason.ERROR
    assert r.provider_finish_reason == "insufficient_system_resource"


def test_prefix_goes_back_to_deepseek_only() -> None:
    body = load_fixture({"file": "deepseek/request_prefix_completion.json"})
    ms = P.parse_messages(body)
    assert P.convert(ms).body["messages"][1]["prefix"] is True
    conversion = get_provider("openai").convert(ms)
    assert "prefix" not in conversion.body["messages"][1]
    assert [x.what for x in conversion.losses] == ["prefix flag from deepseek"]


# -- fuzzing --------------------------------------------------------------------------------

_FIXTURES = [(e, load_fixture(e)) for e in ENTRIES]


@settings(max_examples=100)
@given(json_values)
def test_fuzz_parsers_raise_only_decode_error(value: Any) -> None:
    accepts_or_decode_error(P.parse_response, value)
    accepts_or_decode_error(P.parse_messages, value)
    feed_all_or_decode_error(P, [value, {"usage": value}])


@settings(max_examples=100)
@given(st.sampled_from(_FIXTURES), mutations)
def test_fuzz_mutated_fixtures_raise_only_decode_error(fixture: Any, mutation: Any) -> None:
    entry, data = fixture
    broken = mutate(data, *mutation)
    mutated_only_decode_error(P, entry, broken)
