"""Recorded Responses API traffic (tests/fixtures/openai_responses/*_recorded_*).

The MANIFEST facts run in test_provider_openai_responses.py; this module checks
what they do not cover: items written back in place (an empty assistant message
before a call), a stream whose terminal event repeats no output, the citations of
a streamed answer, and tool definitions of the recorded requests.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from messages import Message, from_json, to_json
from messages.providers import get_provider
from tests.conftest import fixture_entries, load_fixture
from tests.provider_fidelity import run_stream

P = get_provider("openai_responses")
TERMINAL = ("response.completed", "response.incomplete", "response.failed")


def _load(file: str) -> Any:
    [entry] = [e for e in fixture_entries("openai_responses") if e["file"] == file]
    return copy.deepcopy(load_fixture(entry))


def test_an_empty_assistant_message_before_a_call_goes_back_in_place() -> None:
    body = _load("openai_responses/request_recorded_function_roundtrip.json")
    ms = P.parse_messages(body)
    assert [m.role.value for m in ms] == ["system", "user", "assistant", "tool"]
    for conversation in (ms, from_json(to_json(ms))):
        assert isinstance(conversation, list)
        out = P.convert(conversation).body
        assert out["input"] == body["input"]
        assert out["instructions"] == ""


def test_an_empty_assistant_message_alone_goes_back() -> None:
    items = [{"role": "user", "content": "q"}, {"role": "assistant", "content": ""}]
    assert P.convert(P.parse_messages({"input": items})).body["input"] == items


def test_streamed_citation_is_kept_when_the_terminal_event_has_no_output() -> None:
    events = _load("openai_responses/stream_recorded_web_search_citation.jsonl")
    full, _ = run_stream(P, events)
    for event in events:
        if event["type"] in TERMINAL:
            event["response"]["output"] = []
    assembled, deltas = run_stream(P, events)
    assert assembled.text == full.text
    assert "".join(d.text for d in deltas if d.kind == "text") == full.text
    assert dict(assembled.message.extras) == dict(full.message.extras)
    [entry] = [x for x in full.message.extras["openai_responses"]["items"] if "message" in x]
    [part] = entry["parts"]
    [cite] = part["annotations"]
    assert cite["url"] == "https://www.britannica.com/place/Mount-Columbia?utm_source=openai"
    assert full.text[cite["start_index"] : cite["end_index"]].startswith("([britannica.com]")
    assert full.usage is not None and full.usage.reasoning_tokens == 100


RECORDED_STREAMS = [
    e["file"] for e in fixture_entries("openai_responses") if "stream_recorded" in e["file"]
]


# The Copilot proxy's terminal items have other ids than its streamed items (test_sse.py).
SAME_IDS = [f for f in RECORDED_STREAMS if "id_rotation" not in f]


@pytest.mark.parametrize("file", SAME_IDS)
def test_recorded_stream_assembles_without_the_terminal_output(file: str) -> None:
    events = _load(file)
    full, _ = run_stream(P, events)
    for event in events:
        if event["type"] in TERMINAL:
            event["response"]["output"] = []
    assembled, _ = run_stream(P, events)
    assert (assembled.text, assembled.tool_calls, assembled.usage) == (
        full.text,
        full.tool_calls,
        full.usage,
    )
    assert dict(assembled.message.extras) == dict(full.message.extras)


@pytest.mark.parametrize("file", RECORDED_STREAMS)
def test_recorded_stream_turn_goes_back_as_the_response_output(file: str) -> None:
    events = _load(file)
    r, _ = run_stream(P, events)
    body = P.convert([Message.user("q"), r.message]).body
    assert body["input"][1:] == events[-1]["response"]["output"]


def test_mcp_items_go_back_unchanged_after_the_answer_is_read() -> None:
    data = _load("openai_responses/response_recorded_mcp_call.json")
    r = P.parse_response(data)
    [call] = [
        b["value"]
        for b in r.message.extras["openai_responses"]["unknown"]
        if b["type"] == "mcp_call"
    ]
    assert call["output"] == '["Lies of P", "Bloodborne", "Sekiro"]'
    assert r.tool_calls == ()  # run by OpenAI against the MCP server
    assert P.convert([Message.user("q"), r.message]).body["input"][1:] == data["output"]


def test_recorded_function_tool_with_an_empty_description_reads_its_name() -> None:
    """A ToolDefinition needs a description; parse_tools documents the name as the fallback."""
    tool = {
        "description": "",
        "name": "get_capital",
        "parameters": {
            "additionalProperties": False,
            "properties": {"country": {"type": "string"}},
            "required": ["country"],
            "type": "object",
        },
        "strict": True,
        "type": "function",
    }
    [t] = P.parse_tools({"tools": [tool]})
    assert (t.name, t.description, t.strict) == ("get_capital", "get_capital", True)
    assert P.convert([], [t]).body["tools"] == [{**tool, "description": "get_capital"}]


def test_reasoning_with_empty_summary_keeps_its_encrypted_content() -> None:
    data = _load("openai_responses/response_recorded_custom_tool_call.json")
    r = P.parse_response(data)
    [part] = r.message.reasoning
    assert part.text == "" and part.signature == data["output"][0]["encrypted_content"]
    assert r.reasoning is None
    assert P.convert([Message.user("q"), r.message]).body["input"][1:] == data["output"]
