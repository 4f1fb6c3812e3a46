"""Cohere v2 chat: fixtures, the round trip of its own traffic, state kept for it only."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from messages import (
    AudioPart,
    ConversationHistory,
    ImagePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolDefinition,
    ToolResultMessage,
    ValidationError,
)
from messages.providers import FinishReason, StreamDelta, get_provider, iter_sse
from messages.providers.cohere import PROVIDER as COHERE
from messages.providers.cohere import CohereStream
from tests.conftest import FIXTURES, fixture_entries, load_fixture
from tests.conversations import any_sequences
from tests.provider_facts import compare_messages, unknown_blocks
from tests.provider_fidelity import (
    accepts_or_decode_error,
    check_adversarial,
    check_response,
    check_stream,
    entries_of,
    entry_id,
    feed_all_or_decode_error,
    json_values,
    mutate,
    mutated_only_decode_error,
    mutations,
)
from tests.strategies import message_lists

P = get_provider("cohere")
ENTRIES = fixture_entries("cohere")


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / "cohere" / name).read_text(encoding="utf-8"))


def events(name: str) -> list[Any]:
    text = (FIXTURES / "cohere" / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_every_cohere_fixture_kind_is_covered() -> None:
    assert get_provider("Cohere") is COHERE
    assert {e["kind"] for e in ENTRIES} == {"request", "response", "stream", "adversarial"}
    on_disk = {
        f"cohere/{p.relative_to(FIXTURES / 'cohere')}"
        for p in (FIXTURES / "cohere").rglob("*.json*")
    }
    assert on_disk == {e["file"] for e in ENTRIES}


# -- fixtures ------------------------------------------------------------------------------


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "request"), ids=entry_id)
def test_request_fixture_parses_and_formats_back_unchanged(entry: dict[str, Any]) -> None:
    data = load_fixture(entry)
    ms = P.parse_messages(data)
    compare_messages(ms, entry["expected"]["messages"])
    tools = P.parse_tools(data)
    assert [t.name for t in tools] == entry["expected"]["tools"]
    conversion = P.convert(ms, tools)
    assert conversion.losses == (), [str(loss) for loss in conversion.losses]
    body = conversion.body
    assert body["messages"] == data["messages"]
    assert body.get("documents") == data.get("documents")
    assert body.get("tools") == data.get("tools")
    assert json.loads(json.dumps(body)) == body


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "response"), ids=entry_id)
def test_response_fixture_facts(entry: dict[str, Any]) -> None:
    r = check_response(P, entry, load_fixture(entry))
    if "error" in entry["expected"]:
        assert r.error == entry["expected"]["error"]["message"]
        assert r.message.metadata["error"] == entry["expected"]["error"]
    else:
        assert r.error is None
        assert r.id == load_fixture(entry)["id"]


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "stream"), ids=entry_id)
def test_stream_fixture_facts(entry: dict[str, Any]) -> None:
    r = check_stream(P, entry, load_fixture(entry))
    assert r.id == load_fixture(entry)[0]["id"]


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "adversarial"), ids=entry_id)
def test_adversarial_fixture_behaviour(entry: dict[str, Any]) -> None:
    data = load_fixture(entry)
    check_adversarial(P, entry, data)
    if "unknown_blocks" in entry["expected"]:
        r = P.parse_response(data)
        assert unknown_blocks(r.message) == entry["expected"]["unknown_blocks"]


@pytest.mark.parametrize(
    ("response", "stream"),
    [
        ("response_text.json", "stream_text.jsonl"),
        ("response_reasoning.json", None),
        ("response_tool_calls_parallel.json", None),
        ("response_citations.json", None),
    ],
)
def test_a_response_and_its_stream_read_alike(response: str, stream: str | None) -> None:
    r = P.parse_response(fixture(response))
    if stream is not None:
        s = P.stream().feed_all(events(stream))
        assert (s.message.content, s.tool_calls, s.usage) == (
            r.message.content,
            r.tool_calls,
            r.usage,
        )
    assert r.message.metadata["usage"] == r.usage.to_dict() if r.usage else True


def test_the_openai_provider_cannot_read_cohere_responses() -> None:
    # what the issue reports: Cohere traffic through the openai provider fails
    from messages import DecodeError

    with pytest.raises(DecodeError, match="choices"):
        get_provider("openai").parse_response(fixture("response_text.json"))
    assert P.parse_response(fixture("response_text.json")).text == "The capital of France is Paris."


# -- responses and streams -----------------------------------------------------------------


def test_finish_reasons_and_usage() -> None:
    body = fixture("response_text.json")
    for raw, want in [
        ("COMPLETE", FinishReason.STOP),
        ("STOP_SEQUENCE", FinishReason.STOP),
        ("MAX_TOKENS", FinishReason.LENGTH),
        ("TOOL_CALL", FinishReason.TOOL_CALLS),
        ("ERROR", FinishReason.ERROR),
        ("TIMEOUT", FinishReason.ERROR),
        ("SOMETHING_NEW", FinishReason.OTHER),
    ]:
        r = P.parse_response({**body, "finish_reason": raw})
        assert (r.finish_reason, r.provider_finish_reason) == (want, raw)
    usage = P.parse_response(body).usage
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.cached_input_tokens) == (507, 10, 448)
    billed_only = {**body, "usage": {"billed_units": {"input_tokens": 12, "output_tokens": 7}}}
    usage = P.parse_response(billed_only).usage
    assert usage is not None and (usage.input_tokens, usage.total_tokens) == (12, 19)
    assert P.parse_response({**body, "usage": {}}).usage is None


def test_thinking_and_the_tool_plan_are_reasoning_tagged_cohere() -> None:
    r = P.parse_response(fixture("response_recorded_thinking_tool_call.json"))
    (thought,) = r.message.reasoning
    assert thought.provider == "cohere" and thought.signature is None
    assert r.text == ""
    body = fixture("response_tool_calls_parallel.json")
    r = P.parse_response(body)
    (plan,) = r.message.reasoning
    assert (plan.text, plan.provider, r.text) == (body["message"]["tool_plan"], "cohere", "")
    # back to Cohere as its tool_plan; to anyone else a loss, never text
    history = [Message.user("q"), r.message]
    history += [ToolResultMessage(c.id, "ok") for c in r.tool_calls]
    sent = P.convert(history).body["messages"][1]
    assert sent == body["message"]
    conversion = get_provider("anthropic").convert(history)
    assert plan.text not in json.dumps(conversion.body)
    assert [loss.path for loss in conversion.losses] == ["messages[1].content[0]"]


def test_stream_deltas_skip_done_and_unknown_events() -> None:
    acc = P.stream()
    assert isinstance(acc, CohereStream)
    deltas: list[StreamDelta] = []
    for event in [*events("stream_reasoning.jsonl"), {"type": "debug", "delta": {}}, "[DONE]"]:
        deltas.extend(acc.feed(event))
    kinds = {d.kind for d in deltas}
    assert kinds == {"text", "reasoning"}
    assert acc.event_count == len(events("stream_reasoning.jsonl")) + 1
    r = acc.finish()
    assert r.reasoning and r.reasoning.startswith("The user is asking")


def test_stream_from_raw_sse_lines() -> None:
    lines = []
    for event in events("stream_tool_calls_parallel.jsonl"):
        lines += [f"event: {event['type']}", f"data: {json.dumps(event)}", ""]
    lines += ["data: [DONE]", ""]
    r = P.stream().feed_all(iter_sse(lines))
    assert [c.name for c in r.tool_calls] == ["weather", "cityAttractions"]
    assert r.finish_reason is FinishReason.TOOL_CALLS


def test_stream_error_and_citations() -> None:
    acc = P.stream()
    for event in events("stream_citations.jsonl")[:-1]:
        acc.feed(event)
    acc.feed({"type": "message-end", "delta": {"finish_reason": "ERROR", "error": "overloaded"}})
    r = acc.finish()
    assert (r.finish_reason, r.error) == (FinishReason.ERROR, "overloaded")
    assert r.message.metadata["error"] == {"message": "overloaded"}
    (citation,) = r.message.extras["cohere"]["citations"]
    assert citation["text"] == "automation of tasks"


def test_a_stream_without_message_end_is_truncated() -> None:
    acc = P.stream()
    for event in events("stream_tool_calls_parallel.jsonl")[:40]:
        acc.feed(event)
    r = acc.finish()
    assert r.finish_reason is FinishReason.ERROR
    assert r.error == "stream ended before message-end (truncated)"
    assert [c.name for c in r.tool_calls] == ["weather"]
    assert [c.name for c in r.invalid_tool_calls] == ["cityAttractions"]  # cut mid-arguments


# -- state kept for Cohere only --------------------------------------------------------------


def _conversation(*turns: Message) -> list[Message]:
    return [Message.system("You are helpful."), Message.user("Hi"), *turns]


def test_citations_go_back_to_cohere_only() -> None:
    answer = P.parse_response(fixture("response_citations.json")).message
    body = P.convert([*_conversation(answer), Message.user("More?")]).body
    assert (
        body["messages"][2]["citations"]
        == fixture("response_citations.json")["message"]["citations"]
    )
    for other in ("openai", "anthropic", "gemini"):
        conversion = get_provider(other).convert([*_conversation(answer), Message.user("More?")])
        assert "TEXT_CONTENT" not in json.dumps(conversion.body)
        assert any("citations from cohere" in loss.what for loss in conversion.losses), other


def test_thinking_goes_back_to_cohere_only_and_foreign_reasoning_is_a_loss() -> None:
    turn = P.parse_response(fixture("response_recorded_thinking_tool_call.json")).message
    (call,) = turn.tool_calls
    history = _conversation(turn, ToolResultMessage(call.id, "24C, sunny"))
    body = P.convert(history).body
    assert body["messages"][2]["content"][0]["type"] == "thinking"
    thought = turn.reasoning[0].text
    for other in ("openai", "anthropic", "gemini", "mistral"):
        conversion = get_provider(other).convert(history)
        assert thought not in json.dumps(conversion.body), other
        assert any(loss.path.startswith("messages[2]") for loss in conversion.losses), other
    foreign = Message.assistant(
        (ReasoningPart("hmm", signature="sig", provider="anthropic"),), [call]
    )
    conversion = P.convert(_conversation(foreign, ToolResultMessage(call.id, "x")))
    assert "hmm" not in json.dumps(conversion.body)
    assert [loss.path for loss in conversion.losses] == ["messages[2].content[0]"]


def test_documents_in_tool_results_and_top_level() -> None:
    data = fixture("request_thinking_tool_roundtrip.json")
    ms = P.parse_messages(data)
    result = ms[3]
    assert json.loads(result.text) == data["messages"][3]["content"][0]["document"]["data"]
    conversion = get_provider("openai").convert(ms)
    wire = json.dumps(conversion.body)
    assert "Osaka guide" not in wire  # the request documents: cohere only
    assert '\\"temperature\\":\\"24C\\"' in wire  # the tool document's data, as text
    what = {loss.what for loss in conversion.losses}
    assert "request documents from cohere" in what
    assert "document blocks from cohere" in what


def test_unknown_blocks_go_back_in_place() -> None:
    data = fixture("adversarial/unknown_content_block.json")
    answer = P.parse_response(data).message
    body = P.convert([*_conversation(answer), Message.user("ok")]).body
    assert body["messages"][2]["content"] == data["message"]["content"]
    conversion = get_provider("openai").convert([*_conversation(answer), Message.user("ok")])
    assert any("cohere image block" in loss.what for loss in conversion.losses)


# -- formatting other providers' conversations ------------------------------------------------


def test_text_beside_a_call_is_content() -> None:
    call = ToolCall("toolu_1", "get_weather", {"city": "Paris"})
    turn = Message.assistant("Let me check.", [call])
    body = P.convert(_conversation(turn, ToolResultMessage("toolu_1", "18C"))).body
    assert body["messages"][2] == {
        "role": "assistant",
        "content": "Let me check.",
        "tool_calls": [
            {
                "id": "toolu_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
            }
        ],
    }


def test_pairing_errors_and_losses() -> None:
    a, b = ToolCall("c1", "f", {}), ToolCall("c2", "f", {})
    ms = [
        Message.user("q"),
        Message.assistant(None, [a, b]),
        ToolResultMessage("c1", "failed", is_error=True),
        ToolResultMessage("zz", "orphan"),
        Message.developer("be brief", name="ops"),
        Message.user((TextPart("see"), AudioPart("AAAA", "wav"), ImagePart(url="https://x/y.png"))),
    ]
    conversion = P.convert(ms)
    out = conversion.body["messages"]
    assert [m["role"] for m in out] == ["user", "assistant", "tool", "tool", "system", "user"]
    assert out[2]["content"] == "Error: failed"
    assert out[3]["tool_call_id"] == "c2" and out[3]["content"].startswith("Error")
    assert out[5]["content"][1] == {"type": "image_url", "image_url": {"url": "https://x/y.png"}}
    assert [loss.path for loss in conversion.losses] == [
        "messages[2].is_error",
        "messages[3]",
        "messages[4].name",
        "messages[1].tool_calls[1]",
        "messages[4]",
        "messages[5].content[1]",
    ]


def test_tools_both_ways() -> None:
    tool = ToolDefinition(
        "get_weather", "Weather.", {"type": "object", "properties": {"city": {"type": "string"}}}
    )
    (entry,) = P.format_tools([tool])
    assert entry["type"] == "function" and "strict" not in entry["function"]
    assert entry["function"]["parameters"]["additionalProperties"] is False
    (back,) = P.parse_tools([entry])
    assert (back.name, back.strict) == ("get_weather", False)


def test_a_cohere_reply_continues_a_foreign_conversation() -> None:
    openai = get_provider("openai")
    history = ConversationHistory([Message.system("s"), Message.user("Weather?")])
    history.add(openai.parse_response(_openai_fixture("response_tool_calls_parallel.json")).message)
    for call in history.pending_tool_calls:
        history.add(ToolResultMessage(call.id, "ok"))
    history.add(P.parse_response(fixture("response_text.json")).message)
    history.validate()
    body = P.convert(history.messages()).body
    assert [m["role"] for m in body["messages"]] == [
        "system", "user", "assistant", "tool", "tool", "assistant",
    ]  # fmt: skip


def _openai_fixture(name: str) -> Any:
    return json.loads((FIXTURES / "openai" / name).read_text(encoding="utf-8"))


# -- properties -------------------------------------------------------------------------------

_texts = st.text(max_size=12)
_json_leaf = st.none() | st.booleans() | st.integers(-(10**6), 10**6) | _texts
_json_object = st.dictionaries(
    st.text(max_size=5),
    st.recursive(_json_leaf, lambda c: st.lists(c, max_size=3), max_leaves=5),
    max_size=3,
)
_names = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,10}", fullmatch=True)


@st.composite
def _assistant(draw: st.DrawFn, turn: int) -> dict[str, Any]:
    d: dict[str, Any] = {"role": "assistant"}
    calls = draw(st.lists(st.tuples(_names, _json_object), max_size=2))
    blocks = st.one_of(
        st.builds(lambda t: {"type": "text", "text": t}, _texts),
        st.builds(lambda t: {"type": "thinking", "thinking": t}, _texts),
    )
    content = draw(st.none() | _texts.filter(bool) | st.lists(blocks, min_size=1, max_size=3))
    if content is None and not calls:
        content = draw(_texts)
    if content is not None:
        d["content"] = content
    if calls:
        plan = draw(st.none() | _texts.filter(bool))
        if plan is not None:
            d["tool_plan"] = plan
        d["tool_calls"] = [
            {
                "id": f"{name}_{turn}_{k}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            for k, (name, args) in enumerate(calls)
        ]
    if draw(st.booleans()):
        d["citations"] = [
            {"start": 0, "end": 1, "text": "x", "sources": [{"type": "tool", "id": "t:0"}]}
        ]
    return d


def _result(call: dict[str, Any], draw: st.DrawFn) -> dict[str, Any]:
    doc = st.builds(
        lambda data, doc_id: {"type": "document", "document": {"data": data, **doc_id}},
        _texts | _json_object,
        st.just({}) | st.builds(lambda i: {"id": i}, _names),
    )
    block = st.builds(lambda t: {"type": "text", "text": t}, _texts) | doc
    content = draw(_texts | st.lists(block, min_size=1, max_size=3))
    return {"role": "tool", "tool_call_id": call["id"], "content": content}


@st.composite
def cohere_bodies(draw: st.DrawFn) -> dict[str, Any]:
    """Request bodies as Cohere takes them: every call answered before the next turn."""
    out: list[dict[str, Any]] = []
    if draw(st.booleans()):
        system = draw(
            _texts
            | st.lists(
                st.builds(lambda t: {"type": "text", "text": t}, _texts), min_size=1, max_size=2
            )
        )
        out.append({"role": "system", "content": system})
    for turn in range(draw(st.integers(1, 4))):
        user_block = st.builds(lambda t: {"type": "text", "text": t}, _texts) | st.builds(
            lambda u: {"type": "image_url", "image_url": {"url": f"https://example.com/{u}.png"}},
            _names,
        )
        out.append(
            {"role": "user", "content": draw(_texts | st.lists(user_block, min_size=1, max_size=3))}
        )
        turn_body = draw(_assistant(turn))
        out.append(turn_body)
        calls = list(turn_body.get("tool_calls", ()))
        out.extend(_result(call, draw) for call in draw(st.permutations(calls)))
    body: dict[str, Any] = {"messages": out}
    if draw(st.booleans()):
        body["documents"] = draw(
            st.lists(
                _texts | st.builds(lambda d: {"data": d}, _json_object), min_size=1, max_size=2
            )
        )
    return body


@settings(max_examples=150, deadline=None)
@given(cohere_bodies())
def test_round_trip_of_cohere_requests_is_lossless(body: dict[str, Any]) -> None:
    ms = P.parse_messages(body)
    conversion = P.convert(ms)
    assert conversion.losses == ()
    assert conversion.body == body
    again = P.parse_messages(json.loads(json.dumps(conversion.body)))
    assert [m.to_dict() | {"id": 0, "created_at": 0} for m in again] == [
        m.to_dict() | {"id": 0, "created_at": 0} for m in ms
    ]


_FIXTURES = [(e, load_fixture(e)) for e in ENTRIES]


@settings(max_examples=150)
@given(json_values)
def test_fuzz_parsers_raise_only_decode_error(value: Any) -> None:
    accepts_or_decode_error(P.parse_response, value)
    accepts_or_decode_error(P.parse_messages, value)
    accepts_or_decode_error(P.parse_tools, value)
    feed_all_or_decode_error(P, [value])


@settings(max_examples=200)
@given(st.sampled_from(_FIXTURES), mutations)
def test_fuzz_mutated_fixtures_raise_only_decode_error(fixture_: Any, mutation: Any) -> None:
    entry, data = fixture_
    mutated_only_decode_error(P, entry, mutate(data, *mutation))


@settings(max_examples=150, deadline=None)
@given(message_lists | any_sequences())
def test_any_conversation_formats_to_a_body_cohere_reads_back_the_same(ms: list[Message]) -> None:
    # an inline image whose media type has parameters, or does not survive a data URL at all,
    # comes back without them (data URLs)
    assume(not any(_odd_media_type(p) for m in ms for p in m.parts))
    body = P.convert(ms).body
    assert json.loads(json.dumps(body)) == body
    again = P.convert(P.parse_messages(body))
    assert again.body == body
    assert again.losses == ()


def _odd_media_type(p: object) -> bool:
    if not isinstance(p, ImagePart) or p.data is None:
        return False
    try:
        return ImagePart.from_data_url(p.data_url).media_type != p.media_type
    except ValidationError:
        return True
