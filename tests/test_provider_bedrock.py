"""The Bedrock Converse provider: fixtures (hand-authored from the AWS API reference and
recorded by public SDK test suites, each named in tests/fixtures/MANIFEST.json), the
formatting rules, reasoning replayed only to Bedrock, cache points, media, and fuzzing."""

from __future__ import annotations

import copy
import dataclasses
import json
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    CacheHint,
    ContentPart,
    DecodeError,
    FilePart,
    ImagePart,
    InvalidToolCall,
    Message,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolCallMessage,
    ToolDefinition,
    ToolResultMessage,
)
from messages.providers import FinishReason, LossWarning, get_provider
from tests.conftest import FIXTURES, fixture_entries, load_fixture
from tests.conversations import any_sequences, conversations
from tests.fixture_checks import (
    check_entry,
    json_values,
    mutate,
    mutated_only_decode_error,
    only_decode_error,
    paths,
    run_stream,
)
from tests.provider_facts import compare_messages
from tests.strategies import messages as any_messages

PROVIDER = get_provider("bedrock")
ENTRIES = fixture_entries("bedrock")
NOT_REQUESTS = [e for e in ENTRIES if e["kind"] != "request"]
REQUESTS = [e for e in ENTRIES if e["kind"] == "request"]


def fixture(name: str) -> Any:
    return copy.deepcopy(load_fixture({"file": f"bedrock/{name}"}))


def test_every_fixture_file_has_an_entry_naming_its_source() -> None:
    files = {p.relative_to(FIXTURES).as_posix() for p in (FIXTURES / "bedrock").rglob("*.json*")}
    assert files == {e["file"] for e in ENTRIES}
    assert all(e["sources"] for e in ENTRIES)
    recorded = [e for e in ENTRIES if "_recorded_" in e["file"]]
    assert recorded and all(
        s.startswith("https://github.com/") for e in recorded for s in e["sources"]
    )


@pytest.mark.parametrize("entry", NOT_REQUESTS, ids=lambda e: e["file"])
def test_responses_streams_and_adversarial_inputs(entry: dict[str, Any]) -> None:
    check_entry(PROVIDER, entry, load_fixture(entry), frozenset())


@pytest.mark.parametrize("entry", REQUESTS, ids=lambda e: e["file"])
def test_requests_import_and_format_back_to_the_same_turns(entry: dict[str, Any]) -> None:
    body = load_fixture(entry)
    messages = PROVIDER.parse_messages(body)
    compare_messages(messages, entry["expected"]["messages"], ids=False)
    tools = PROVIDER.parse_tools(body)
    assert [t.name for t in tools] == entry["expected"]["tools"]
    conversion = PROVIDER.convert(messages, tools)
    assert conversion.losses == ()
    assert conversion.body["messages"] == body["messages"]
    assert conversion.body.get("system", []) == body.get("system", [])
    assert json.loads(json.dumps(conversion.body)) == conversion.body
    # the tool specs: names and schemas as they came (a missing description is the name)
    sent = [t["toolSpec"] for t in conversion.body.get("toolConfig", {}).get("tools", [])]
    wire = [t["toolSpec"] for t in body.get("toolConfig", {}).get("tools", []) if "toolSpec" in t]
    assert [(s["name"], s["inputSchema"]) for s in sent] == [
        (s["name"], s["inputSchema"]) for s in wire
    ]


def test_a_parsed_response_goes_back_as_the_recorded_next_request_has_it() -> None:
    """pydantic-ai's recording: the response's turn, replayed, is the next request's turn."""
    reply = PROVIDER.parse_response(fixture("response_recorded_thinking_tool_use.json"))
    request = fixture("request_recorded_thinking_tool_result.json")
    question, _, result = PROVIDER.parse_messages(request)
    body = PROVIDER.format_request([question, reply.message, result])
    assert body["messages"] == request["messages"]
    [reasoning] = reply.message.reasoning
    assert reasoning.provider == "bedrock"
    assert reasoning.signature is not None and reasoning.signature.startswith("ErcBCkgI")


def test_a_stream_gives_the_message_the_response_gives() -> None:
    streamed = run_stream(PROVIDER, fixture("stream_tool_calls_parallel.jsonl"))
    whole = PROVIDER.parse_response(fixture("response_tool_calls_parallel.json"))
    assert streamed.tool_calls == whole.tool_calls
    assert streamed.usage == whole.usage
    assert streamed.finish_reason is whole.finish_reason is FinishReason.TOOL_CALLS


def test_stream_deltas_and_the_done_sentinel() -> None:
    acc = PROVIDER.stream()
    deltas = [d for e in fixture("stream_recorded_reasoning.jsonl") for d in acc.feed(e)]
    done: Any = "[DONE]"  # what iter_sse yields at the end of an SSE stream
    assert acc.feed(done) == ()
    kinds = {d.kind for d in deltas}
    assert kinds == {"reasoning", "text"}
    r = acc.finish()
    assert "".join(d.text for d in deltas if d.kind == "text") == r.text
    assert r.message.reasoning[0].signature is not None


def test_redacted_reasoning_stays_base64_and_boto3_bytes_read_the_same() -> None:
    body = fixture("response_recorded_redacted_tool_use.json")
    text = PROVIDER.parse_response(body)
    raw = copy.deepcopy(body)
    import base64

    block = raw["output"]["message"]["content"][0]["reasoningContent"]
    block["redactedContent"] = base64.b64decode(block["redactedContent"])  # what boto3 gives
    as_bytes = PROVIDER.parse_response(raw)
    assert text.message == as_bytes.message
    [part] = text.message.reasoning
    assert (
        part.redacted
        and part.text
        == body["output"]["message"]["content"][0]["reasoningContent"]["redactedContent"]
    )
    wire = PROVIDER.format_request([Message.user("q"), text.message])["messages"][1]["content"]
    assert wire[0] == {"reasoningContent": {"redactedContent": part.text}}


# -- reasoning goes back to Bedrock only -----------------------------------------------------


@pytest.mark.parametrize("other", ["anthropic", "gemini", "openai", "openai_responses"])
def test_bedrock_reasoning_is_a_loss_elsewhere_and_others_reasoning_here(other: str) -> None:
    reply = PROVIDER.parse_response(fixture("response_recorded_thinking_tool_use.json"))
    call = reply.tool_calls[0]
    history = [Message.user("q"), reply.message, Message.tool_result(call.id, "Mexico")]
    sig = reply.message.reasoning[0].signature
    assert sig is not None
    elsewhere = get_provider(other).convert(history)
    assert sig not in json.dumps(elsewhere.body)
    assert any(loss.path.startswith("messages[1]") for loss in elsewhere.losses)
    foreign = Message.assistant(
        [ReasoningPart("thought", signature="abc", provider=other), TextPart("hi")]
    )
    here = PROVIDER.convert([Message.user("q"), foreign])
    assert "abc" not in json.dumps(here.body)
    assert [loss.path for loss in here.losses] == ["messages[1].content[0]"]


def test_another_origin_of_bedrock_gets_no_signature() -> None:
    reply = PROVIDER.parse_response(fixture("response_recorded_thinking_tool_use.json"))
    other = get_provider("bedrock", origin="us-west-2")
    conversion = other.convert([Message.user("q"), reply.message])
    assert "reasoningContent" not in json.dumps(conversion.body)
    assert conversion.losses


# -- formatting rules --------------------------------------------------------------------------


def test_tool_config_is_derived_from_the_calls_when_no_tools_are_given() -> None:
    history = [
        Message.user("weather?"),
        Message.assistant(tool_calls=[ToolCall("t1", "get_weather", {"city": "Paris"})]),
        Message.tool_result("t1", "18C"),
    ]
    body = PROVIDER.format_request(history)
    assert body["toolConfig"] == {
        "tools": [
            {
                "toolSpec": {
                    "name": "get_weather",
                    "inputSchema": {"json": {"type": "object", "properties": {}}},
                }
            }
        ]
    }
    tool = ToolDefinition("get_weather", "Weather of a city.", {"type": "object", "properties": {}})
    given_tools = PROVIDER.format_request(history, [tool])
    assert given_tools["toolConfig"]["tools"][0]["toolSpec"]["description"] == "Weather of a city."
    assert "toolConfig" not in PROVIDER.format_request([Message.user("hi")])


def test_system_results_and_unanswered_calls() -> None:
    history = [
        Message.system("be brief"),
        Message.user("a"),
        Message.assistant(tool_calls=[ToolCall("t1", "f"), ToolCall("t2", "f")]),
        Message.tool_result("t2", "two", is_error=True),
        Message.tool_result("zz", "orphan"),
        Message.user("next"),
        Message.system("late"),
    ]
    conversion = PROVIDER.convert(history)
    body = conversion.body
    assert body["system"] == [{"text": "be brief"}, {"text": "late"}]
    assert [t["role"] for t in body["messages"]] == ["user", "assistant", "user"]
    results = body["messages"][2]["content"]
    assert results[0] == {
        "toolResult": {"toolUseId": "t2", "content": [{"text": "two"}], "status": "error"}
    }
    assert (
        results[1]["toolResult"]["toolUseId"] == "t1"
        and results[1]["toolResult"]["status"] == "error"
    )
    assert results[2] == {"text": "next"}
    assert sorted(loss.path for loss in conversion.losses) == [
        "messages[2].tool_calls[0]",
        "messages[4]",
        "messages[6]",
    ]


def test_invalid_calls_and_blank_text() -> None:
    bad = InvalidToolCall("t9", "lookup", "{not json", "bad json")
    m = ToolCallMessage([ToolCall("t1", "lookup")], "  ", invalid_tool_calls=[bad])
    conversion = PROVIDER.convert([Message.user("q"), m])
    content = conversion.body["messages"][1]["content"]
    assert content == [
        {"toolUse": {"toolUseId": "t1", "name": "lookup", "input": {}}},
        {"toolUse": {"toolUseId": "t9", "name": "lookup", "input": {}}},
    ]
    assert {loss.path for loss in conversion.losses} == {
        "messages[1].content",
        "messages[1].tool_calls[1].raw_arguments",
    }


def test_media_parts_map_to_blocks_and_back() -> None:
    parts: list[ContentPart] = [
        TextPart("look"),
        ImagePart(data="iVBORw0KGgo=", media_type="image/png"),
        ImagePart(url="s3://bucket/a.webp"),
        FilePart(data="JVBERi0=", media_type="application/pdf", filename="report.pdf"),
        FilePart(file_id="s3://bucket/clip.mov", media_type="video/quicktime"),
    ]
    conversion = PROVIDER.convert([Message.user(parts)])
    assert conversion.losses == ()
    blocks = conversion.body["messages"][0]["content"]
    assert blocks[1] == {"image": {"format": "png", "source": {"bytes": "iVBORw0KGgo="}}}
    assert blocks[2] == {
        "image": {"format": "webp", "source": {"s3Location": {"uri": "s3://bucket/a.webp"}}}
    }
    assert blocks[3] == {
        "document": {"format": "pdf", "name": "report", "source": {"bytes": "JVBERi0="}}
    }
    assert blocks[4] == {
        "video": {"format": "mov", "source": {"s3Location": {"uri": "s3://bucket/clip.mov"}}}
    }
    [back] = PROVIDER.parse_messages(conversion.body)
    assert PROVIDER.convert([back]).body == conversion.body


def test_what_bedrock_cannot_take_is_a_loss() -> None:
    parts: list[ContentPart] = [
        TextPart("x"),
        ImagePart(url="https://example.com/a.png"),
        FilePart(data="AAAA", media_type="application/zip"),
        FilePart(data="JVBERi0=", media_type="application/pdf", filename="a:b"),
    ]
    conversion = PROVIDER.convert([Message.user(parts, name="ann")])
    assert sorted(loss.path for loss in conversion.losses) == [
        "messages[0].content[1]",
        "messages[0].content[2]",
        "messages[0].content[3].filename",
        "messages[0].name",
    ]
    with pytest.warns(LossWarning):
        PROVIDER.format_request([Message.user(parts)])


def test_kept_blocks_go_back_to_bedrock_only() -> None:
    body = fixture("request_media.json")
    [m] = PROVIDER.parse_messages(body)
    assert PROVIDER.convert([m]).body["messages"] == body["messages"]  # bucketOwner kept
    anthropic = get_provider("anthropic").convert([m])
    assert "111122223333" not in json.dumps(anthropic.body)
    reply = PROVIDER.parse_response(fixture("adversarial/response_unknown_block.json"))
    again = PROVIDER.format_request([Message.user("q"), reply.message])
    assert "searchResultContent" in again["messages"][1]["content"][1]


# -- cache points ------------------------------------------------------------------------------


@pytest.mark.parametrize("ttl", [None, "5m", "1h"])
def test_cache_hints_are_cache_points_both_ways(ttl: str | None) -> None:
    hint = CacheHint(ttl)
    point = {"cachePoint": {"type": "default"} if ttl is None else {"type": "default", "ttl": ttl}}
    history = [
        Message.system("rules", cache=hint),
        Message.user("q", cache=hint),
        Message.assistant(tool_calls=[ToolCall("t1", "f")]),
        Message.tool_result("t1", "r", cache=hint),
        Message.assistant("done", cache=hint),
    ]
    body = PROVIDER.format_request(history)
    assert body["system"] == [{"text": "rules"}, point]
    assert body["messages"][0]["content"] == [{"text": "q"}, point]
    assert body["messages"][2]["content"][1] == point
    assert body["messages"][3]["content"] == [{"text": "done"}, point]
    back = PROVIDER.parse_messages(body)
    assert [m.cache for m in back] == [hint, hint, None, hint, hint]


def test_a_recorded_mid_message_cache_point_is_kept_in_place() -> None:
    body = fixture("request_recorded_cache_points.json")
    system, user = PROVIDER.parse_messages(body)
    assert system.cache == CacheHint() and user.cache == CacheHint()
    assert PROVIDER.convert([system, user]).body["messages"] == body["messages"]


# -- errors ----------------------------------------------------------------------------------------


def test_an_error_body_and_stream_exceptions_are_error_responses() -> None:
    r = PROVIDER.parse_response({"message": "Malformed input request"})
    assert r.finish_reason is FinishReason.ERROR
    acc = PROVIDER.stream()
    acc.feed({"throttlingException": {"message": "Too many requests"}})
    assert acc.finish().error == "throttlingException: Too many requests"


def test_another_format_stream_is_refused() -> None:
    with pytest.raises(DecodeError):
        PROVIDER.stream().feed({"type": "message_start", "message": {}})


# -- properties ----------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(st.one_of(conversations(), any_sequences()))
def test_its_own_wire_round_trips(ms: list[Message]) -> None:
    """Formatted, parsed and formatted again: the same body, with nothing more lost."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LossWarning)
        first = PROVIDER.convert(ms)
    again = PROVIDER.convert(PROVIDER.parse_messages(first.body))
    assert again.body == first.body
    assert again.losses == ()


@settings(max_examples=80, deadline=None)
@given(st.lists(any_messages, max_size=6))
def test_any_messages_format_to_json_and_read_back(ms: list[Message]) -> None:
    body = PROVIDER.convert(ms).body
    assert json.loads(json.dumps(body)) == body
    PROVIDER.parse_messages(body)


@settings(max_examples=200)
@given(json_values)
def test_fuzz_arbitrary_json_only_raises_decode_error(value: Any) -> None:
    only_decode_error(PROVIDER, value)


_WORDS = st.sampled_from(
    [
        "text",
        "toolUse",
        "toolResult",
        "reasoningContent",
        "reasoningText",
        "redactedContent",
        "cachePoint",
        "image",
        "document",
        "video",
        "bytes",
        "s3Location",
        "json",
        "contentBlockDelta",
        "contentBlockStart",
        "messageStop",
        "metadata",
        "[DONE]",
        "default",
        "",
    ]
)


@settings(max_examples=300)
@given(st.data())
def test_fuzz_mutated_fixtures_only_raise_decode_error(data: st.DataObject) -> None:
    entry = data.draw(st.sampled_from(ENTRIES))
    original = load_fixture(entry)
    where = data.draw(st.sampled_from(list(paths(original))))
    delete = bool(where) and data.draw(st.booleans())
    mutated = mutate(original, where, data.draw(json_values | _WORDS), delete)
    mutated_only_decode_error(PROVIDER, entry, mutated)


def test_at_most_four_checkpoints_and_longer_lifetimes_first() -> None:
    ms: list[Message] = [Message.system("s", cache=CacheHint())]
    for k in range(4):
        ms.append(Message.user(f"q{k}", cache=CacheHint("1h")))
        ms.append(Message.assistant(f"a{k}"))
    conversion = PROVIDER.convert(ms)
    points = [b for b in conversion.body.get("system", []) if "cachePoint" in b]
    points += [b for t in conversion.body["messages"] for b in t["content"] if "cachePoint" in b]
    assert len(points) == 4
    assert [(x.path, x.what) for x in conversion.losses] == [("messages[0].cache", "cache hint")]
    assert all(p["cachePoint"] == {"type": "default", "ttl": "1h"} for p in points)
    late = PROVIDER.convert(
        [Message.user("a", cache=CacheHint()), Message.assistant("b", cache=CacheHint("1h"))]
    )
    assert late.body["messages"][1]["content"][-1] == {"cachePoint": {"type": "default"}}
    assert [x.path for x in late.losses] == ["messages[1].cache.ttl"]


def test_bare_event_payloads_and_the_boto3_request_id() -> None:
    """Events given as their bare payloads (a decoder that keeps the ``:event-type`` header
    apart) read as the wrapped ones; boto3's ResponseMetadata.RequestId is the id."""
    events = fixture("stream_tool_calls_parallel.jsonl")
    bare = [next(iter(e.values())) for e in events]
    assert run_stream(PROVIDER, bare) == run_stream(PROVIDER, events)
    body = fixture("response_text.json")
    body["ResponseMetadata"] = {
        "RequestId": "5d8ad8b2-1f3c-4a44-b3b5-0a5f8e7e0d61",
        "HTTPStatusCode": 200,
    }
    assert PROVIDER.parse_response(body).id == "5d8ad8b2-1f3c-4a44-b3b5-0a5f8e7e0d61"


def test_a_json_result_goes_back_as_json_while_it_is_an_object() -> None:
    body = fixture("request_tool_roundtrip.json")
    ms = PROVIDER.parse_messages(body)
    result = ms[3]
    assert isinstance(result, ToolResultMessage)
    assert result.content == '{"temperature":18,"conditions":"light rain"}'
    assert (
        PROVIDER.format_request(ms)["messages"][2]["content"][0]
        == body["messages"][2]["content"][0]
    )
    # edited into a JSON array: Bedrock takes only an object in a json block, so it goes as text
    edited = dataclasses.replace(result, content="[1, 2]")
    sent = PROVIDER.format_request([*ms[:3], edited, ms[4]])["messages"][2]["content"][0]
    assert sent["toolResult"]["content"] == [{"text": "[1, 2]"}]


def test_system_blocks_are_kept_while_the_text_is_unchanged() -> None:
    body = {
        "system": [
            {"text": "Rules."},
            {"cachePoint": {"type": "default"}},
            {"guardContent": {"text": {"text": "Be safe."}}},
            {"text": " More rules."},
        ],
        "messages": [{"role": "user", "content": [{"text": "hi"}]}],
    }
    system, user = PROVIDER.parse_messages(body)
    assert system.text == "Rules. More rules."
    assert PROVIDER.convert([system, user]).body == body
    changed = PROVIDER.convert([system.with_content("New rules."), user])
    assert changed.body["system"] == [{"text": "New rules."}]
    assert [x.what for x in changed.losses] == ["kept system blocks"]
    other = get_provider("bedrock", origin="eu-west-1").convert([system, user])
    assert other.body["system"] == [{"text": "Rules. More rules."}]
    assert [x.what for x in other.losses] == ["bedrock system blocks"]


def test_image_bytes_an_image_part_refuses_read_back_as_a_file_part() -> None:
    """Found by hypothesis: a FilePart of an image type whose data is a data: URL goes as
    image bytes; reading them back gives that FilePart (an ImagePart refuses such data)."""
    ms: list[Message] = [Message.user([FilePart(data="data:x;base64,abc", media_type="image/png")])]
    body = PROVIDER.format_request(ms)
    assert PROVIDER.parse_messages(body) == ms


def test_cited_text_is_answer_text_and_its_citations_go_back_to_bedrock_only() -> None:
    r = run_stream(PROVIDER, fixture("stream_recorded_document_citations.jsonl"))
    assert r.text.startswith("Based on the supplied document, generative artificial intelligence")
    turn = PROVIDER.format_request([Message.user("q"), r.message])["messages"][1]["content"]
    cited = [b["citationsContent"] for b in turn if "citationsContent" in b]
    assert len(cited) == 6
    assert cited[0]["citations"][0]["title"] == "document-1"
    pieces = [
        b["text"] if "text" in b else b["citationsContent"]["content"][0]["text"] for b in turn
    ]
    assert "".join(pieces) == r.text  # in wire order, as streamed
    elsewhere = get_provider("openai").convert([Message.user("q"), r.message])
    assert elsewhere.body["messages"][1]["content"] == r.text
    assert {x.what for x in elsewhere.losses} == {"bedrock part keys 'citations'"}
