"""The Gemini Interactions API: fixtures both ways, thoughts and their signatures, layout,
built-in tool steps, previous_interaction_id, tool pairing, tools, and fuzzing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    ConversationHistory,
    DecodeError,
    ImagePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolCallMessage,
    ToolDefinition,
    ToolResultMessage,
    UserMessage,
    ValidationError,
)
from messages.providers import FinishReason, get_provider
from messages.providers.gemini_interactions import PROVIDER
from tests.conftest import FIXTURES, fixture_entries, load_fixture
from tests.provider_facts import compare_messages, unknown_blocks
from tests.provider_fidelity import (
    accepts_or_decode_error,
    check_error_response,
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

P = PROVIDER
assert get_provider("gemini_interactions") is PROVIDER
ENTRIES = fixture_entries("gemini_interactions")
DIR = FIXTURES / "gemini_interactions"


def fixture(name: str) -> Any:
    return json.loads((DIR / name).read_text(encoding="utf-8"))


def _events(name: str) -> list[Any]:
    lines = (DIR / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_every_fixture_kind_is_covered() -> None:
    kinds = {e["kind"] for e in ENTRIES}
    assert kinds == {"request", "response", "stream", "error_response"}
    files = {p.name for p in DIR.iterdir() if p.suffix in (".json", ".jsonl")}
    # a continued request starts with a result, which no ordering policy validates alone
    continued = {"request_previous_interaction.json"}
    assert files == {e["file"].split("/", 1)[1] for e in ENTRIES} | continued


def test_a_continued_request_goes_back_continued() -> None:
    """The streaming guide's turn 2: previous_interaction_id and a function_result only."""
    body = fixture("request_previous_interaction.json")
    (result,) = P.parse_messages(body)
    assert isinstance(result, ToolResultMessage)
    assert (result.tool_call_id, result.tool_name) == ("un6k8t18", "get_weather")
    assert json.loads(result.text) == body["input"][0]["result"]
    conversion = P.convert([result])
    assert conversion.losses == ()
    assert conversion.body == {
        "previous_interaction_id": body["previous_interaction_id"], "input": body["input"]
    }  # fmt: skip


# -- requests: facts, and back to the same input --------------------------------------------


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "request"), ids=entry_id)
def test_request_fixture_parses_and_formats_back(entry: dict[str, Any]) -> None:
    body = load_fixture(entry)
    ms = P.parse_messages(body)
    compare_messages(ms, entry["expected"]["messages"])
    assert [t.name for t in P.parse_tools(body)] == entry["expected"]["tools"]
    conversion = P.convert(ms, _tools(body))
    assert conversion.losses == (), [str(loss) for loss in conversion.losses]
    out = conversion.body
    assert out.get("system_instruction") == body.get("system_instruction")
    assert out.get("previous_interaction_id") == body.get("previous_interaction_id")
    assert out.get("tools", []) == body.get("tools", [])
    assert json.loads(json.dumps(out)) == out
    if entry["file"].endswith("legacy_turns.json"):
        # launch-era turns go out as steps; read back they are the same conversation
        assert all("type" in step for step in out["input"])
        assert P.parse_messages(out) == ms
    else:
        assert out["input"] == body["input"]


def _tools(body: dict[str, Any]) -> list[Any]:
    """The body's tools in their order: definitions for functions, built-in ones as given."""
    functions = iter(P.parse_tools(body))
    return [next(functions) if t["type"] == "function" else t for t in body.get("tools", [])]


# -- responses and streams ------------------------------------------------------------------


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "response"), ids=entry_id)
def test_response_fixture_facts(entry: dict[str, Any]) -> None:
    r = check_response(P, entry, load_fixture(entry))
    for part in r.message.reasoning:
        assert part.provider == "gemini_interactions"
        assert part.signature


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "stream"), ids=entry_id)
def test_stream_fixture_facts(entry: dict[str, Any]) -> None:
    check_stream(P, entry, [e for e in load_fixture(entry) if e != "[DONE]"])
    # the [DONE] sentinel of an SSE stream is skipped, not an error
    done: Any = "[DONE]"
    assert P.stream().feed(done) == ()


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "error_response"), ids=entry_id)
def test_error_body_fixture(entry: dict[str, Any]) -> None:
    check_error_response(P, entry, load_fixture(entry))


def test_stream_gives_the_response_the_unary_call_gives() -> None:
    streamed = P.stream().feed_all(_events("stream_tool_calls_parallel.jsonl"))
    unary = P.parse_response(fixture("response_tool_calls_parallel.json"))
    assert streamed.tool_calls == unary.tool_calls
    assert streamed.message.reasoning == unary.message.reasoning
    assert streamed.finish_reason is unary.finish_reason is FinishReason.TOOL_CALLS
    assert streamed.usage == unary.usage


def test_truncated_stream_is_an_error_that_keeps_what_came() -> None:
    events = _events("stream_text.jsonl")[:8]
    r = P.stream().feed_all(events)
    assert r.finish_reason is FinishReason.ERROR
    assert r.error is not None and "truncated" in r.error
    assert r.text == "1, 2, 3, 4, 5, 6, 7, 8, 9, 10."


def test_streamed_arguments_that_are_not_json_become_an_invalid_call() -> None:
    events: list[dict[str, Any]] = [
        {"event_type": "step.start", "index": 0,
         "step": {"type": "function_call", "id": "c1", "name": "get_weather", "arguments": {}}},
        {"event_type": "step.delta", "index": 0,
         "delta": {"type": "arguments_delta", "arguments": '{"location": "Pa'}},
        {"event_type": "interaction.completed",
         "interaction": {"id": "v1_x", "status": "requires_action"}},
    ]  # fmt: skip
    r = P.stream().feed_all(events)
    assert r.tool_calls == ()
    (bad,) = r.invalid_tool_calls
    assert (bad.id, bad.name, bad.raw_arguments) == ("c1", "get_weather", '{"location": "Pa')


# -- thoughts and their signatures ------------------------------------------------------------


def _history() -> list[Message]:
    calls = P.parse_response(fixture("response_tool_calls_parallel.json")).message
    assert isinstance(calls, ToolCallMessage)
    return [
        Message.system("You are a travel assistant."),
        Message.user("Weather in Paris and Tokyo?"),
        calls,
        ToolResultMessage(calls.tool_calls[0].id, "18°C"),
        ToolResultMessage(calls.tool_calls[1].id, "timed out", is_error=True),
        P.parse_response(fixture("response_thinking.json")).message,
        Message.user("And tomorrow?"),
    ]


def test_thought_signatures_go_back_in_place_to_this_provider_only() -> None:
    history = _history()
    sig = fixture("response_tool_calls_parallel.json")["steps"][0]["signature"]
    body = P.convert(history).body
    steps = body["input"]
    assert [s["type"] for s in steps] == [
        "user_input", "thought", "function_call", "function_call", "function_result",
        "function_result", "thought", "model_output", "user_input",
    ]  # fmt: skip
    assert steps[1] == {"type": "thought", "signature": sig}
    assert steps[5]["is_error"] is True
    assert P.convert(history).losses == ()
    for other in ("gemini", "anthropic", "openai_responses", "openai"):
        conversion = get_provider(other).convert(history)
        assert sig not in json.dumps(conversion.body)
        assert any(loss.path.startswith("messages[2]") for loss in conversion.losses)


def test_another_providers_reasoning_is_a_loss_here() -> None:
    turn = Message.assistant(
        [ReasoningPart("thinking", signature="EqQBsig", provider="anthropic"), TextPart("Hi")]
    )
    conversion = P.convert([Message.user("Hello"), turn])
    assert "EqQBsig" not in json.dumps(conversion.body)
    assert conversion.body["input"][1] == {
        "type": "model_output", "content": [{"type": "text", "text": "Hi"}]
    }  # fmt: skip
    assert [loss.path for loss in conversion.losses] == ["messages[1].content[0]"]


def test_an_origin_does_not_receive_another_origins_signatures() -> None:
    vertex = get_provider("gemini_interactions", origin="vertex")
    msg = P.parse_response(fixture("response_thinking.json")).message
    conversion = vertex.convert([Message.user("q"), msg])
    assert [s["type"] for s in conversion.body["input"]] == ["user_input", "model_output"]
    assert conversion.losses


def test_interleaved_steps_keep_their_order() -> None:
    body = {
        "id": "v1_interleaved",
        "status": "requires_action",
        "steps": [
            {"type": "thought", "signature": "s1", "summary": [{"type": "text", "text": "a"}]},
            {"type": "model_output", "content": [{"type": "text", "text": "Let me check."}]},
            {"type": "thought", "signature": "s2"},
            {"type": "function_call", "id": "c1", "name": "lookup", "arguments": {"q": 1}},
            {"type": "model_output", "content": [{"type": "text", "text": "One more."}]},
            {"type": "model_output", "content": [{"type": "text", "text": "Then this."}]},
            {"type": "function_call", "id": "c2", "name": "lookup", "arguments": {}},
        ],
    }
    msg = P.parse_response(body).message
    assert msg.text == "Let me check.One more.Then this."
    sent = P.convert([Message.user("q"), msg]).body["input"][1:]
    assert sent == body["steps"]


# -- built-in tool steps ------------------------------------------------------------------------


def test_builtin_tool_steps_are_kept_and_replayed_only_here() -> None:
    r = P.parse_response(fixture("response_builtin_search.json"))
    kinds = [b["type"] for b in unknown_blocks(r.message)]
    assert kinds == ["google_search_call", "google_search_result"]
    again = P.convert([Message.user("q"), r.message]).body["input"][1:]
    assert again == fixture("response_builtin_search.json")["steps"]
    elsewhere = get_provider("gemini").convert([Message.user("q"), r.message])
    assert "Gs8BAXLI2nwSearchSig" not in json.dumps(elsewhere.body)
    what = [loss.what for loss in elsewhere.losses]
    assert "gemini_interactions google_search_call block" in what


# -- previous_interaction_id --------------------------------------------------------------------


def test_previous_interaction_id_true_sends_what_follows_the_last_interaction() -> None:
    history = _history()
    body = P.format_request(history, previous_interaction_id=True)
    assert body["previous_interaction_id"] == "v1_ChdRVEhJTktJTkdfRVhBTVBMRV8xMjM"
    assert body["input"] == [
        {"type": "user_input", "content": [{"type": "text", "text": "And tomorrow?"}]}
    ]
    assert body["system_instruction"] == "You are a travel assistant."


def test_previous_interaction_id_names_an_interaction() -> None:
    history = _history()
    body = P.format_request(history, previous_interaction_id="v1_ChdGUVFJYXBXVUdLVEF4TjhQ")
    assert body["previous_interaction_id"] == "v1_ChdGUVFJYXBXVUdLVEF4TjhQ"
    assert [s["type"] for s in body["input"]] == [
        "function_result", "function_result", "thought", "model_output", "user_input"
    ]  # fmt: skip
    with pytest.raises(ValidationError) as info:
        P.format_request(history, previous_interaction_id="v1_unknown")
    assert info.value.path == "previous_interaction_id"
    plain = [Message.user("hi")]
    assert "previous_interaction_id" not in P.format_request(plain, previous_interaction_id=True)


# -- tool pairing, names, hints ---------------------------------------------------------------


def test_unanswered_calls_get_an_error_result_and_orphans_are_dropped() -> None:
    call = ToolCall("c1", "lookup", {"q": "x"})
    conversion = P.convert(
        [
            Message.user("q"),
            Message.assistant(tool_calls=[call]),
            Message.user("never mind"),
            ToolResultMessage("nobody", "late"),
        ]
    )
    steps = conversion.body["input"]
    assert steps[2]["type"] == "function_result"
    assert steps[2]["call_id"] == "c1" and steps[2]["is_error"] is True
    assert [s["type"] for s in steps] == [
        "user_input",
        "function_call",
        "function_result",
        "user_input",
    ]
    assert [loss.what for loss in conversion.losses] == [
        "unanswered tool call", "tool result that answers no open call"
    ]  # fmt: skip


def test_conversation_history_and_toolbox_are_accepted() -> None:
    history = ConversationHistory([Message.system("s"), Message.user("u")])
    tool = ToolDefinition(
        "lookup", "Look a word up.", {"type": "object", "properties": {"q": {"type": "string"}}}
    )
    body = P.format_request(history, [tool, {"type": "google_search"}])
    assert body["tools"] == [
        {"type": "function", "name": "lookup", "description": "Look a word up.",
         "parameters": tool.wire_parameters()},
        {"type": "google_search"},
    ]  # fmt: skip
    assert P.parse_tools(body) == [
        ToolDefinition("lookup", "Look a word up.", tool.wire_parameters(), strict=False)
    ]


def test_images_audio_and_files_as_content_items() -> None:
    user = UserMessage(
        [TextPart("see"), ImagePart(url="https://example.com/cat.png", detail="auto")]
    )
    conversion = P.convert([user])
    assert conversion.body["input"][0]["content"][1] == {
        "type": "image", "uri": "https://example.com/cat.png"
    }  # fmt: skip
    assert [loss.path for loss in conversion.losses] == ["messages[0].content[1].detail"]


# -- fuzzing ------------------------------------------------------------------------------------


@settings(max_examples=150)
@given(json_values)
def test_parsers_raise_only_decode_error(value: Any) -> None:
    accepts_or_decode_error(P.parse_response, value)
    accepts_or_decode_error(P.parse_messages, value)
    accepts_or_decode_error(P.parse_tools, value)
    feed_all_or_decode_error(P, [value])


@settings(max_examples=150)
@given(st.sampled_from([e for e in ENTRIES if e["kind"] != "error_response"]), mutations)
def test_mutated_fixtures_raise_only_decode_error(entry: dict[str, Any], mutation: Any) -> None:
    path, replacement = mutation
    mutated_only_decode_error(P, entry, mutate(load_fixture(entry), path, replacement))


@settings(max_examples=120)
@given(message_lists)
def test_formatting_is_stable_through_its_own_parser(messages: list[Message]) -> None:
    """What this provider sends, read back and sent again, is sent the same."""
    first = P.convert(messages).body
    again = P.convert(P.parse_messages(first)).body
    assert again == first
    with pytest.raises(DecodeError):
        P.parse_messages({"input": [{"type": "function_result", "result": "x"}]})


# -- more of the wire ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "calls", "finish"),
    [
        ("completed", False, FinishReason.STOP),
        ("completed", True, FinishReason.TOOL_CALLS),
        ("requires_action", True, FinishReason.TOOL_CALLS),
        ("incomplete", False, FinishReason.LENGTH),
        ("requires_continuation", False, FinishReason.LENGTH),
        ("budget_exceeded", False, FinishReason.LENGTH),
        ("failed", False, FinishReason.ERROR),
        ("cancelled", False, FinishReason.OTHER),
        ("in_progress", False, FinishReason.OTHER),
    ],
)
def test_status_gives_the_finish_reason(status: str, calls: bool, finish: FinishReason) -> None:
    steps: list[Any] = [{"type": "model_output", "content": [{"type": "text", "text": "x"}]}]
    if calls:
        steps.append({"type": "function_call", "id": "c1", "name": "f", "arguments": {}})
    r = P.parse_response({"id": "v1_s", "status": status, "steps": steps})
    assert (r.finish_reason, r.provider_finish_reason, r.id) == (finish, status, "v1_s")


def test_kept_keys_and_summaries_go_back_as_they_came() -> None:
    steps = [
        {"type": "thought", "signature": "s1",
         "summary": [{"type": "text", "text": "a"}, {"type": "image", "data": "AAAA", "mime_type": "image/png"}]},
        {"type": "model_output", "content": [
            {"type": "text", "text": "Cited.", "annotations": [{"type": "url_citation", "url": "https://a.example"}]},
            {"type": "image", "data": "iVBORw0KGgo=", "mime_type": "image/png"},
        ]},
    ]  # fmt: skip
    msg = P.parse_response({"id": "v1_k", "status": "completed", "steps": steps}).message
    assert msg.text == "Cited." and msg.reasoning[0].text == "a"
    assert P.convert([Message.user("q"), msg]).body["input"][1:] == steps


def test_launch_era_turns_with_calls_and_results() -> None:
    body = {
        "input": [
            {"role": "user", "content": [{"type": "text", "text": "Weather in Boston?"}]},
            {"role": "model", "content": [
                {"type": "thought", "signature": "s1"},
                {"type": "function_call", "id": "gth23981", "name": "get_weather",
                 "arguments": {"location": "Boston, MA"}},
            ]},
            {"role": "user", "content": [
                {"type": "function_result", "call_id": "gth23981", "name": "get_weather",
                 "result": [{"type": "text", "text": "{\"weather\":\"sunny\"}"}]},
            ]},
        ]
    }  # fmt: skip
    user, turn, result = P.parse_messages(body)
    assert isinstance(turn, ToolCallMessage) and turn.reasoning[0].signature == "s1"
    assert isinstance(result, ToolResultMessage) and result.text == '{"weather":"sunny"}'
    steps = P.convert([user, turn, result]).body["input"]
    assert [s["type"] for s in steps] == [
        "user_input",
        "thought",
        "function_call",
        "function_result",
    ]
    assert steps[3]["result"] == [{"type": "text", "text": '{"weather":"sunny"}'}]


def test_a_call_without_an_id_gets_a_stable_derived_one() -> None:
    body = {"id": "v1_d", "status": "requires_action",
            "outputs": [{"type": "function_call", "name": "f", "arguments": {"a": 1}}]}  # fmt: skip
    first, again = P.parse_response(body), P.parse_response(body)
    (call,) = first.tool_calls
    assert call.id.startswith("call_derived_") and again.tool_calls[0].id == call.id


def test_an_invalid_call_goes_back_with_an_object() -> None:
    body = {"id": "v1_i", "status": "requires_action", "steps": [
        {"type": "function_call", "id": "c1", "name": "bad name!", "arguments": {"a": 1}},
        {"type": "function_call", "id": "c2", "name": "f", "arguments": "[1, 2]"},
    ]}  # fmt: skip
    r = P.parse_response(body)
    assert r.tool_calls == () and [c.id for c in r.invalid_tool_calls] == ["c1", "c2"]
    conversion = P.convert([Message.user("q"), r.message])
    sent = conversion.body["input"][1:]
    assert sent[0]["arguments"] == {"a": 1} and sent[0]["name"] == "bad name!"
    assert sent[1]["arguments"] == {}
    assert [loss.what for loss in conversion.losses] == ["invalid tool call arguments"]


def test_system_and_developer_messages_join_the_system_instruction() -> None:
    conversion = P.convert(
        [Message.system("A"), Message.developer("B"), Message.user("q"), Message.system("C")]
    )
    assert conversion.body["system_instruction"] == "A\n\nB\n\nC"
    assert [loss.path for loss in conversion.losses] == ["messages[1]", "messages[3]"]


def test_other_wire_formats_are_refused_with_a_path() -> None:
    with pytest.raises(DecodeError):
        P.parse_response({"candidates": [{"content": {"parts": [{"text": "hi"}]}}]})
    with pytest.raises(DecodeError) as info:
        P.stream().feed({"choices": [], "object": "chat.completion.chunk"})
    assert info.value.path == "event_type"


def test_finish_twice_gives_the_same_and_the_events_stay_as_fed() -> None:
    events = _events("stream_thinking.jsonl")
    before = json.dumps(events)
    acc = P.stream()
    for event in events:
        acc.feed(event)
    first, second = acc.finish(), acc.finish()
    assert (first.text, first.reasoning) == (second.text, second.reasoning)
    assert json.dumps(events) == before


def test_a_streamed_call_without_arguments_takes_none() -> None:
    events: list[dict[str, Any]] = [
        {"event_type": "step.start", "index": 0,
         "step": {"type": "function_call", "id": "c1", "name": "now"}},
        {"event_type": "step.stop", "index": 0},
        {"event_type": "interaction.completed",
         "interaction": {"id": "v1_n", "status": "requires_action"}},
    ]  # fmt: skip
    (call,) = P.stream().feed_all(events).tool_calls
    assert (call.id, call.name, dict(call.arguments)) == ("c1", "now", {})


def test_a_model_output_with_an_error_keeps_its_text_and_its_error() -> None:
    steps = [
        {"type": "model_output", "content": [{"type": "text", "text": "Partial"}],
         "error": {"code": 13, "message": "internal"}},
        {"type": "thought", "signature": "s"},
        {"type": "model_output", "content": [{"type": "text", "text": " answer"}]},
    ]  # fmt: skip
    r = P.parse_response({"id": "v1_e", "status": "failed", "steps": steps})
    assert (r.text, r.finish_reason) == ("Partial answer", FinishReason.ERROR)
    assert P.convert([Message.user("q"), r.message]).body["input"][1:] == steps


def test_a_stored_interaction_imports_as_its_timeline() -> None:
    """An Interaction read with GET holds its user_input step: parse_messages reads the
    timeline when there is no input."""
    body = fixture("response_sdk_requires_continuation.json")
    user, answer = P.parse_messages(body)
    assert (user.text, answer.text) == ("Hello", "A")
    assert P.format_request([user, answer])["previous_interaction_id"] == "int_turn_0"
