"""Mistral's chat format: fixtures, 9-character tool-call ids, chunks, placement of results."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    CacheHint,
    ConversationHistory,
    FilePart,
    ImagePart,
    InvalidToolCall,
    Message,
    ReasoningPart,
    TextPart,
    ToolCall,
    ValidationError,
)
from messages.providers import FinishReason, get_provider
from messages.providers.mistral import PROVIDER as MISTRAL
from messages.providers.mistral import MistralIds, mistral_id
from tests.conftest import fixture_entries, load_fixture
from tests.provider_facts import unknown_blocks
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
    normalize_wire,
    run_stream,
)

P = get_provider("mistral")
ENTRIES = fixture_entries("mistral")
MISTRAL_ID = re.compile(r"^[a-zA-Z0-9]{9}$")


def test_every_mistral_fixture_kind_is_covered() -> None:
    assert get_provider("mistral") is MISTRAL
    assert {e["kind"] for e in ENTRIES} == {"request", "response", "stream", "adversarial"}
    assert len(ENTRIES) >= 20


@pytest.mark.parametrize(
    "entry", [pytest.param(e, id=entry_id(e)) for e in entries_of(ENTRIES, "request")]
)
def test_request_fixture_parses_and_formats_back(entry: dict[str, Any]) -> None:
    check_request(P, entry, load_fixture(entry))


def test_recorded_request_messages_format_back() -> None:
    # the conversation of the recorded request (its tool aside) goes back equal, but
    # for the tool call's "index" (positional; not kept by the chat-completions reader)
    (entry,) = [e for e in ENTRIES if e["file"] == "mistral/request_recorded_tool_roundtrip.json"]
    data = load_fixture(entry)
    body = P.convert(P.parse_messages(data)).body
    want = json.loads(json.dumps(data["messages"]))
    assert want[1]["tool_calls"][0].pop("index") == 0
    assert normalize_wire("mistral", body["messages"]) == normalize_wire("mistral", want)
    [tool] = P.parse_tools(data)
    assert (tool.name, dict(tool.parameters)) == (
        "get_image",
        data["tools"][0]["function"]["parameters"],
    )


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "response"), ids=entry_id)
def test_response_fixture_facts(entry: dict[str, Any]) -> None:
    r = check_response(P, entry, load_fixture(entry))
    assert all(MISTRAL_ID.match(c.id) for c in r.tool_calls)


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "stream"), ids=entry_id)
def test_stream_fixture_facts(entry: dict[str, Any]) -> None:
    check_stream(P, entry, load_fixture(entry))


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "adversarial"), ids=entry_id)
def test_adversarial_fixture_behaviour(entry: dict[str, Any]) -> None:
    data = load_fixture(entry)
    check_adversarial(P, entry, data)
    if "unknown_blocks" in entry["expected"]:
        r = P.parse_response(data)
        assert unknown_blocks(r.message) == entry["expected"]["unknown_blocks"]


# -- tool-call ids --------------------------------------------------------------------------


def _calls_turn(*ids: str) -> Message:
    return Message.assistant(None, [ToolCall(i, "get_weather", {"city": i}) for i in ids])


def _sent_ids(body: dict[str, Any]) -> tuple[list[str], list[str]]:
    calls = [c["id"] for m in body["messages"] for c in m.get("tool_calls") or ()]
    results = [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
    return calls, results


def test_foreign_ids_get_derived_ids_the_same_for_call_and_result() -> None:
    openai_id, anthropic_id = "call_abc123def456ghi789jkl0", "toolu_01A09q90qw90lq917835lq9"
    ms = [
        Message.user("q"),
        _calls_turn(openai_id, anthropic_id, "D681PevKs"),
        Message.tool_result(anthropic_id, "b"),
        Message.tool_result(openai_id, "a"),
        Message.tool_result("D681PevKs", "c"),
    ]
    conversion = P.convert(ms)
    assert conversion.losses == ()
    calls, results = _sent_ids(conversion.body)
    assert all(MISTRAL_ID.match(i) for i in calls + results)
    assert calls[2] == "D681PevKs"  # a Mistral id is kept as it is
    assert calls[0] == mistral_id(openai_id) and calls[1] == mistral_id(anthropic_id)
    assert results == [calls[1], calls[0], calls[2]]
    # deterministic: the same conversation gives the same body
    assert P.convert(ms).body == conversion.body


def test_derived_ids_never_collide() -> None:
    first = "call_first_id_from_openai"
    clash = mistral_id(first)  # a native id equal to the id derived for another call
    ms = [
        Message.user("q"),
        _calls_turn(first),
        Message.tool_result(first, "a"),
        Message.assistant("ok"),
        Message.user("again"),
        _calls_turn(clash),
        Message.tool_result(clash, "b"),
    ]
    calls, results = _sent_ids(P.convert(ms).body)
    assert calls == [clash, mistral_id(clash)]  # the native id is taken: it is derived too
    assert results == calls
    # a derived id that is taken too: derived again, with a counter
    taken = mistral_id(clash)
    ms = [
        Message.user("q"),
        _calls_turn(first, taken),
        Message.tool_result(first, "a"),
        Message.tool_result(taken, "b"),
        Message.assistant("ok"),
        Message.user("again"),
        _calls_turn(clash),
        Message.tool_result(clash, "c"),
    ]
    calls, results = _sent_ids(P.convert(ms).body)
    assert calls == [clash, taken, mistral_id(clash, 1)]
    assert results == calls
    ids = MistralIds()
    many = [f"call_{n}" for n in range(3000)]
    assert len({ids[i] for i in many}) == 3000
    assert all(ids[i] == ids[i] for i in many[:10])


def test_ids_map_back_on_parse() -> None:
    openai = get_provider("openai")
    r = openai.parse_response(load_fixture({"file": "openai/response_tool_calls_parallel.json"}))
    ms = [Message.system("s"), Message.user("q"), Message.assistant(None, r.tool_calls)]
    ms += [Message.tool_result(c.id, "ok") for c in r.tool_calls]
    ms.append(Message.assistant("done"))
    body = P.convert(ms).body
    ids = MISTRAL.wire_ids(ms)
    assert sorted(ids) == sorted(c.id for c in r.tool_calls)
    assert all(MISTRAL_ID.match(v) for v in ids.values())
    plain = P.parse_messages(body)
    assert [c.id for c in plain[2].tool_calls] == [ids[c.id] for c in r.tool_calls]
    back = MISTRAL.parse_messages(body, ids=ids)
    assert back == ms
    ConversationHistory(back).validate()
    with pytest.raises(ValidationError) as info:
        MISTRAL.parse_messages(body, ids={"a": 1})  # type: ignore[dict-item]
    assert info.value.path == "ids"


def test_a_mistral_reply_continues_a_foreign_conversation() -> None:
    r = get_provider("groq").parse_response(
        load_fixture({"file": "groq/response_tool_calls_parallel.json"})
    )
    history = ConversationHistory([Message.system("s"), Message.user("q"), r.message])
    for c in r.tool_calls:
        history.add(Message.tool_result(c.id, "ok"))
    reply = P.parse_response(load_fixture({"file": "mistral/response_tool_calls_parallel.json"}))
    history.add(reply.message)
    for c in reply.tool_calls:
        history.add(Message.tool_result(c.id, "fine"))
    history.validate()
    calls, results = _sent_ids(P.convert(history.messages()).body)
    assert calls[2:] == ["D681PevKs", "t7Qw2ZxLm"]  # Mistral's own ids are never changed
    assert len(set(calls)) == 4 and sorted(results) == sorted(calls)


def test_invalid_calls_and_unanswered_calls_get_mistral_ids() -> None:
    bad = InvalidToolCall("call_bad_1", "get_weather", '{"city": ', "not JSON")
    ms = [
        Message.user("q"),
        Message.assistant(None, [ToolCall("x" * 30, "f", {})], invalid_tool_calls=[bad]),
    ]
    conversion = P.convert(ms)
    calls, results = _sent_ids(conversion.body)
    assert len(calls) == 2 and all(MISTRAL_ID.match(i) for i in calls)
    assert results == calls  # every call answered, even in the last turn
    assert [x.what for x in conversion.losses] == ["unanswered tool call", "unanswered tool call"]
    assert P.wire_ids(ms) == {"x" * 30: calls[0], "call_bad_1": calls[1]}  # type: ignore[attr-defined]


# -- where messages may stand ---------------------------------------------------------------


def test_a_user_message_after_results_gets_an_assistant_turn_before_it() -> None:
    ms = [
        Message.user("q"),
        _calls_turn("D681PevKs"),
        Message.tool_result("D681PevKs", "18C"),
        Message.user("never mind"),
    ]
    conversion = P.convert(ms)
    roles = [m["role"] for m in conversion.body["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant", "user"]
    assert conversion.body["messages"][3] == {"role": "assistant", "content": "Understood."}
    assert [(x.path, x.what) for x in conversion.losses] == [
        ("messages[3]", "user message right after tool results")
    ]
    # OpenAI takes the user message right there
    assert [m["role"] for m in get_provider("openai").convert(ms).body["messages"]][3] == "user"


def test_media_moved_out_of_results_and_held_system_messages_follow_an_assistant_turn() -> None:
    ms = [
        Message.user("q"),
        _calls_turn("D681PevKs"),
        Message.system("be brief"),
        Message.tool_result(
            "D681PevKs", [TextPart("chart"), ImagePart(url="https://x.test/c.png")]
        ),
        Message.assistant("Here it is."),
        Message.user("thanks"),
    ]
    conversion = P.convert(ms)
    roles = [m["role"] for m in conversion.body["messages"]]
    assert roles == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
        "system",
        "assistant",
        "user",
    ]
    _check_mistral_order(conversion.body)


def _check_mistral_order(body: dict[str, Any]) -> None:
    """The message order mistral-common's validator enforces, and call/result pairing."""
    after = {
        "system": {"user", "assistant", "system"},
        "user": {"assistant", "system", "user"},
        "assistant": {"assistant", "user", "tool"},
        "tool": {"assistant", "tool"},
    }
    messages = body["messages"]
    for a, b in itertools.pairwise(messages):
        assert b["role"] in after[a["role"]], (a["role"], b["role"])
    pending: list[str] = []
    for m in messages:
        if m["role"] == "assistant":
            assert not pending, "calls left unanswered before an assistant message"
            pending = [c["id"] for c in m.get("tool_calls") or ()]
            assert all(MISTRAL_ID.match(i) for i in pending)
        elif m["role"] == "tool":
            pending.remove(m["tool_call_id"])
    assert not pending
    assert messages[-1]["role"] in ("user", "tool") or messages[-1].get("prefix") is True


# -- content --------------------------------------------------------------------------------


def test_thinking_chunks_go_back_to_mistral_only() -> None:
    r = P.parse_response(load_fixture({"file": "mistral/response_thinking.json"}))
    ms = [Message.user("q"), r.message, Message.user("more")]
    wire = P.convert(ms).body["messages"][1]
    assert wire["content"][0] == {
        "type": "thinking",
        "thinking": [{"type": "text", "text": r.reasoning}],
    }
    assert wire["content"][1] == {"type": "text", "text": r.text}
    conversion = get_provider("openai").convert(ms)
    assert conversion.body["messages"][1] == {"role": "assistant", "content": r.text}
    assert [x.what for x in conversion.losses] == ["reasoning"]
    foreign = Message.assistant([ReasoningPart("t", provider="vllm"), TextPart("A.")])
    conversion = P.convert([Message.user("q"), foreign, Message.user("b")])
    assert conversion.body["messages"][1] == {"role": "assistant", "content": "A."}
    assert [x.what for x in conversion.losses] == ["reasoning from vllm"]


def test_unknown_chunks_go_back_in_place() -> None:
    r = P.parse_response(load_fixture({"file": "mistral/adversarial/unknown_chunk_types.json"}))
    ms = [Message.user("q"), r.message, Message.user("b")]
    conversion = P.convert(ms)
    assert conversion.losses == ()
    original = load_fixture({"file": "mistral/adversarial/unknown_chunk_types.json"})
    assert conversion.body["messages"][1]["content"] == original["choices"][0]["message"]["content"]
    losses = get_provider("groq").convert(ms).losses
    assert [x.what for x in losses] == ["mistral reference block", "mistral thinking block"]


def test_documents_and_images() -> None:
    pdf = FilePart(data="JVBERi0=", media_type="application/pdf", filename="a.pdf")
    m = Message.user([TextPart("read"), pdf, ImagePart(url="https://x.test/a.png", detail="low")])
    conversion = P.convert([m])
    assert conversion.losses == ()
    assert conversion.body["messages"][0]["content"][1:] == [
        {
            "type": "document_url",
            "document_url": "data:application/pdf;base64,JVBERi0=",
            "document_name": "a.pdf",
        },
        {"type": "image_url", "image_url": {"url": "https://x.test/a.png", "detail": "low"}},
    ]
    assert P.parse_messages(conversion.body)[0] == m
    conversion = P.convert([Message.user([FilePart(file_id="file-abc")])])
    assert [x.what for x in conversion.losses] == ["file part without inline data and a media type"]
    body = load_fixture({"file": "mistral/request_document_url.json"})
    web = P.parse_messages(body)
    assert [x.what for x in get_provider("openai").convert(web).losses] == [
        "mistral document_url block"
    ]


def test_model_length_is_length_and_error_is_error() -> None:
    chunk = {
        "id": "x",
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "a"}, "finish_reason": None}],
    }
    stop = {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "error"}]}
    r, _ = run_stream(P, [chunk, stop])
    assert (r.text, r.finish_reason) == ("a", FinishReason.ERROR)


def test_names_are_a_loss() -> None:
    ms = [Message.system("s", name="ops"), Message.user("q", name="ann"), Message.assistant("a")]
    conversion = P.convert(ms)
    assert all("name" not in m for m in conversion.body["messages"])
    assert [(x.path, x.what) for x in conversion.losses] == [
        ("messages[0].name", "message name"),
        ("messages[1].name", "message name"),
    ]


def test_cache_hints_are_reported() -> None:
    m = Message.user("long document", cache=CacheHint("1h"))
    conversion = P.convert([m])
    assert conversion.body["messages"][0] == {"role": "user", "content": "long document"}
    assert [(x.path, x.rule) for x in conversion.losses] == [
        (
            "messages[0].cache",
            "dropped: mistral takes no cache breakpoints (it caches prompt prefixes by itself)",
        )
    ]


def test_switching_to_mistral_gives_a_valid_request() -> None:
    for name in ("openai", "anthropic", "gemini", "openai_responses", "ollama"):
        r = get_provider(name).parse_response(
            load_fixture({"file": f"{name}/response_tool_calls_parallel.json"})
        )
        ms = [Message.system("s"), Message.user("q"), r.message]
        ms += [Message.tool_result(c.id, "ok") for c in r.tool_calls]
        ms.append(Message.user("and tomorrow?"))
        body = P.convert(ms).body
        _check_mistral_order(body)
        assert json.loads(json.dumps(body)) == body


# -- fuzzing --------------------------------------------------------------------------------

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
