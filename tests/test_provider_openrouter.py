"""OpenRouter's chat format: fixtures, reasoning_details kept and reassembled, cache hints
and cache_control, usage with cost, fuzzing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import CacheHint, ImagePart, Message, ReasoningPart, TextPart, ToolCall
from messages.providers import FinishReason, get_provider
from tests.conftest import fixture_entries, load_fixture
from tests.provider_facts import unknown_blocks
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

P = get_provider("openrouter")
ENTRIES = fixture_entries("openrouter")


def test_every_openrouter_fixture_kind_is_covered() -> None:
    kinds = {e["kind"] for e in ENTRIES}
    assert kinds == {"request", "response", "stream", "adversarial", "error_response"}
    assert len(ENTRIES) >= 20


def _extra_facts(r: Any, expected: dict[str, Any]) -> None:
    """Facts the shared checks do not cover: cost, cache usage, reasoning blocks."""
    if "cost" in expected:
        assert r.message.metadata["cost"] == expected["cost"]
    else:
        assert "cost" not in r.message.metadata
    for key in ("cached_input_tokens", "cache_creation_input_tokens"):
        if key in expected:
            assert getattr(r.usage, key) == expected[key]
    if "reasoning_blocks" in expected:
        got = [(p.text, p.signature, p.redacted) for p in r.message.reasoning]
        want = [(b["text"], b.get("signature"), False) for b in expected["reasoning_blocks"]]
        assert got == want
        assert all(p.provider == "openrouter" for p in r.message.reasoning)
        kept = r.message.extras["openrouter"]["reasoning_details"]
        assert [b["type"] for b in kept] == ["reasoning.text"] * len(want)


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "request"), ids=entry_id)
def test_request_fixture_parses_and_formats_back(entry: dict[str, Any]) -> None:
    data = load_fixture(entry)
    check_request(P, entry, data)
    # reasoning blocks, cache_control and every other key go back exactly as they came
    assert (
        P.convert(P.parse_messages(data), P.parse_tools(data)).body["messages"] == data["messages"]
    )


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "response"), ids=entry_id)
def test_response_fixture_facts(entry: dict[str, Any]) -> None:
    _extra_facts(check_response(P, entry, load_fixture(entry)), entry["expected"])


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "stream"), ids=entry_id)
def test_stream_fixture_facts(entry: dict[str, Any]) -> None:
    _extra_facts(check_stream(P, entry, load_fixture(entry)), entry["expected"])


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "error_response"), ids=entry_id)
def test_error_body_fixture(entry: dict[str, Any]) -> None:
    check_error_response(P, entry, load_fixture(entry))


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "adversarial"), ids=entry_id)
def test_adversarial_fixture_behaviour(entry: dict[str, Any]) -> None:
    check_adversarial(P, entry, load_fixture(entry))


# -- reasoning_details ------------------------------------------------------------------------


def test_reasoning_details_go_back_verbatim_on_the_turn() -> None:
    data = load_fixture({"file": "openrouter/response_tool_calls_parallel.json"})
    r = P.parse_response(data)
    ms = [Message.user("q"), r.message]
    ms += [Message.tool_result(c.id, "ok") for c in r.tool_calls]
    wire = P.convert(ms).body["messages"][1]
    assert wire["reasoning_details"] == data["choices"][0]["message"]["reasoning_details"]
    assert "reasoning" not in wire  # the blocks carry it


def test_a_streamed_turn_goes_back_as_its_reassembled_blocks() -> None:
    r, deltas = run_stream(P, load_fixture({"file": "openrouter/stream_reasoning_details.jsonl"}))
    assert [d.text for d in deltas if d.kind == "reasoning"] == [
        "The user asks which is greater.",
        " 9.8 = 9.80",
        " > 9.11.",
    ]
    (block,) = r.message.extras["openrouter"]["reasoning_details"]
    assert dict(block) == {
        "type": "reasoning.text",
        "text": r.reasoning,
        "format": "anthropic-claude-v1",
        "index": 0,
        "signature": r.message.reasoning[0].signature,
    }
    wire = P.convert([Message.user("q"), r.message, Message.user("b")]).body["messages"][1]
    assert wire["reasoning_details"] == [dict(block)]


def test_stream_fragments_of_several_blocks_and_types() -> None:
    def chunk(*details: dict[str, Any], **delta: Any) -> dict[str, Any]:
        d = {"reasoning_details": list(details), **delta}
        return {
            "id": "g",
            "model": "m",
            "choices": [{"index": 0, "delta": d, "finish_reason": None}],
        }

    summary = {"type": "reasoning.summary", "format": "openai-responses-v1", "id": "rs_1"}
    events = [
        chunk({**summary, "summary": "**Plan**", "index": 0}, reasoning="**Plan**"),
        chunk({**summary, "summary": " then act", "index": 0}, reasoning=" then act"),
        chunk({"type": "reasoning.encrypted", "data": "gAAA", "id": "rs_1", "index": 1}),
        chunk({"type": "reasoning.encrypted", "data": "BBB==", "index": 1}),
        {
            "id": "g",
            "model": "m",
            "choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": "stop"}],
        },
    ]
    r, deltas = run_stream(P, events)
    assert "".join(d.text for d in deltas if d.kind == "reasoning") == "**Plan** then act"
    parts = r.message.reasoning
    assert [(p.text, p.redacted) for p in parts] == [
        ("**Plan** then act", False),
        ("gAAABBB==", True),
    ]
    kept = r.message.extras["openrouter"]["reasoning_details"]
    assert [dict(b) for b in kept] == [
        {**summary, "summary": "**Plan** then act", "index": 0},
        {"type": "reasoning.encrypted", "data": "gAAABBB==", "id": "rs_1", "index": 1},
    ]
    assert r.reasoning == "**Plan** then act"


def test_plain_reasoning_without_blocks_goes_back_as_reasoning() -> None:
    r = P.parse_response(
        {
            "id": "g",
            "model": "deepseek/deepseek-r1",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "A.", "reasoning": "think"},
                }
            ],
        }
    )
    assert r.reasoning == "think"
    wire = P.convert([Message.user("q"), r.message]).body["messages"][1]
    assert wire == {"role": "assistant", "content": "A.", "reasoning": "think"}


def test_reasoning_goes_back_only_to_openrouter() -> None:
    r = P.parse_response(load_fixture({"file": "openrouter/response_tool_calls_parallel.json"}))
    ms = [Message.user("q"), r.message]
    ms += [Message.tool_result(c.id, "ok") for c in r.tool_calls]
    signature = r.message.reasoning[0].signature
    assert signature
    for name in ("openai", "groq", "vllm", "deepseek", "mistral", "anthropic", "gemini"):
        conversion = get_provider(name).convert(ms)
        wire = json.dumps(conversion.body)
        assert signature not in wire, name
        assert any(x.path.startswith("messages[1]") for x in conversion.losses), name
    there = P.at("eu")  # another origin of OpenRouter is another endpoint
    conversion = there.convert(ms)
    assert "reasoning_details" not in conversion.body["messages"][1]
    assert {x.what for x in conversion.losses} == {
        "reasoning details from openrouter",
        "signed reasoning from openrouter",
    }


def test_other_providers_reasoning_is_a_loss_here() -> None:
    signed = ReasoningPart("t", "sig", provider="anthropic")
    ms = [Message.user("q"), Message.assistant([signed, TextPart("A.")])]
    conversion = P.convert(ms)
    assert conversion.body["messages"][1] == {"role": "assistant", "content": "A."}
    assert [x.what for x in conversion.losses] == ["signed reasoning from anthropic"]


# -- caching ------------------------------------------------------------------------------------


def test_cache_control_on_a_last_part_is_the_message_hint() -> None:
    body = load_fixture({"file": "openrouter/request_cache_control.json"})
    ms = P.parse_messages(body)
    assert [m.cache for m in ms] == [CacheHint("1h"), CacheHint()]
    # the system parts' lengths are kept, so that the request goes back split as it came
    assert [m.extras for m in ms] == [{"openrouter": {"lengths": (97, 55)}}, {}]
    assert P.convert(ms).body["messages"] == body["messages"]
    # elsewhere the hints are carried (OpenAI: breakpoints, without the ttl) or reported
    openai = get_provider("openai").convert(ms)
    for wire in openai.body["messages"]:
        assert wire["content"][-1]["prompt_cache_breakpoint"] == {"mode": "explicit"}
    assert [(x.path, x.what) for x in openai.losses] == [
        ("messages[0].cache.ttl", "cache hint ttl")
    ]
    for name in ("groq", "deepseek", "mistral", "gemini"):
        conversion = get_provider(name).convert(ms)
        assert "cache_control" not in json.dumps(conversion.body), name
        whats = [(x.path, x.what) for x in conversion.losses if x.what == "cache hint"]
        assert whats == [("messages[0].cache", "cache hint"), ("messages[1].cache", "cache hint")]


def test_cache_control_on_another_part_is_a_kept_key() -> None:
    wire = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "doc", "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": "question"},
            ],
        }
    ]
    (m,) = P.parse_messages(wire)
    assert m.cache is None
    assert P.convert([m]).body["messages"] == wire
    for name in ("openai", "groq", "deepseek", "mistral", "gemini", "openai_responses"):
        conversion = get_provider(name).convert([m])
        assert "cache_control" not in json.dumps(conversion.body), name
        whats = [x.what for x in conversion.losses]
        assert "openrouter part keys 'cache_control'" in whats, (name, whats)


def test_cache_hints_become_cache_control_on_the_last_part() -> None:
    hint = CacheHint()
    ms = [
        Message.system("long instructions", cache=CacheHint("1h")),
        Message.user([TextPart("a"), ImagePart(url="https://x.test/a.png")], cache=hint),
        Message.assistant(None, [ToolCall("call_1", "f", {})], cache=hint),
        Message.tool_result("call_1", "result", cache=hint),
        Message.assistant("done", cache=hint),
    ]
    conversion = P.convert(ms)
    wire = conversion.body["messages"]
    control = {"type": "ephemeral"}
    assert wire[0]["content"] == [
        {
            "type": "text",
            "text": "long instructions",
            "cache_control": {"type": "ephemeral", "ttl": "1h"},
        }
    ]
    assert wire[1]["content"][-1]["cache_control"] == control
    assert "cache_control" not in wire[1]["content"][0]
    assert wire[3]["content"] == [{"type": "text", "text": "result", "cache_control": control}]
    assert wire[4]["content"] == [{"type": "text", "text": "done", "cache_control": control}]
    assert [(x.path, x.rule) for x in conversion.losses] == [
        ("messages[2].cache", "dropped: its message has no content part to mark")
    ]
    # the request reads back as the same messages
    back = P.parse_messages(conversion.body)
    assert [m.cache for m in back] == [CacheHint("1h"), hint, None, hint, hint]
    # elsewhere in the family a hint is reported, never dropped silently
    for name in ("groq", "vllm", "deepseek", "mistral"):
        losses = get_provider(name).convert(ms[:2]).losses
        assert [x.path for x in losses if x.what == "cache hint"] == [
            "messages[0].cache",
            "messages[1].cache",
        ], name


def test_a_cache_hint_on_a_held_or_dropped_message() -> None:
    hint = CacheHint()
    ms = [
        Message.user("q"),
        Message.assistant(None, [ToolCall("call_1", "f", {})]),
        Message.system("note", cache=hint),
        Message.tool_result("call_1", "ok"),
        Message.tool_result("call_9", "orphan", cache=hint),
        Message.user("next"),
    ]
    conversion = P.convert(ms)
    wire = conversion.body["messages"]
    assert wire[3] == {
        "role": "system",
        "content": [{"type": "text", "text": "note", "cache_control": {"type": "ephemeral"}}],
    }
    assert ("messages[4].cache", "dropped: its message is not sent") in [
        (x.path, x.rule) for x in conversion.losses
    ]


def test_usage_cost_and_cache_writes() -> None:
    r = P.parse_response(load_fixture({"file": "openrouter/response_tool_calls_parallel.json"}))
    assert r.usage is not None
    assert (r.usage.cached_input_tokens, r.usage.cache_creation_input_tokens) == (480, 0)
    assert r.message.metadata["cost"] == 0.004056
    assert r.message.metadata["cost_details"] == {"upstream_inference_cost": None}
    assert r.message.metadata["usage"] == r.usage.to_dict()


def test_error_finish_reason_and_error_object_with_choices() -> None:
    r, _ = run_stream(P, load_fixture({"file": "openrouter/stream_error_midstream.jsonl"}))
    assert (r.finish_reason, r.error) == (FinishReason.ERROR, "Provider disconnected")


def test_unknown_reasoning_block_is_kept_and_sent_back() -> None:
    data = load_fixture({"file": "openrouter/adversarial/unknown_reasoning_block.json"})
    r = P.parse_response(data)
    assert r.message.reasoning == () and unknown_blocks(r.message) == []
    wire = P.convert([Message.user("q"), r.message]).body["messages"][1]
    assert wire["reasoning_details"] == data["choices"][0]["message"]["reasoning_details"]


# -- fuzzing ------------------------------------------------------------------------------------

_FIXTURES = [(e, load_fixture(e)) for e in ENTRIES]
_DETAILS = st.lists(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(
                ["reasoning.text", "reasoning.summary", "reasoning.encrypted", "x"]
            )
        },
        optional={
            "text": json_values,
            "summary": json_values,
            "data": json_values,
            "signature": json_values,
            "index": json_values,
            "id": json_values,
        },
    ),
    max_size=4,
)


@settings(max_examples=100)
@given(json_values, _DETAILS)
def test_fuzz_parsers_raise_only_decode_error(value: Any, details: Any) -> None:
    accepts_or_decode_error(P.parse_response, value)
    accepts_or_decode_error(P.parse_messages, value)
    chunk = {"choices": [{"index": 0, "delta": {"reasoning_details": details}}]}
    feed_all_or_decode_error(P, [value, chunk, {"error": value}, {"usage": value}])
    message = {"role": "assistant", "content": "a", "reasoning_details": details}
    accepts_or_decode_error(P.parse_messages, [message])


@settings(max_examples=100)
@given(st.sampled_from(_FIXTURES), mutations)
def test_fuzz_mutated_fixtures_raise_only_decode_error(fixture: Any, mutation: Any) -> None:
    entry, data = fixture
    broken = mutate(data, *mutation)
    mutated_only_decode_error(P, entry, broken)
