"""Anthropic parsers over recorded traffic (the ``*_recorded_*`` fixtures).

The MANIFEST facts of these files are checked with every other fixture; this module
checks what the facts do not cover: the content of the blocks kept verbatim
(server tools, compaction), and that a response read back into a request formats
to the same blocks.
"""

from __future__ import annotations

from typing import Any

from messages.providers.anthropic import PROVIDER
from tests.conftest import fixture_entries, load_fixture
from tests.fixture_checks import run_stream


def _data(name: str) -> Any:
    (entry,) = [e for e in fixture_entries("anthropic") if e["file"] == f"anthropic/{name}"]
    return load_fixture(entry)


def _kept(extras: Any) -> list[Any]:
    return [dict(item["value"]) for item in extras["anthropic"]["unknown"]]


def test_compaction_delta_fills_the_kept_block() -> None:
    # The block starts with content/encrypted_content null; the delta carries both.
    r = run_stream(PROVIDER, _data("stream_recorded_compaction.jsonl"))
    assert _kept(r.message.extras) == [
        {
            "type": "compaction",
            "content": "Earlier conversation summarized.",
            "encrypted_content": "EpwBCioIDxgCEAEYASJALd_opaque_compaction_payload",
        }
    ]


def test_compaction_deltas_are_joined() -> None:
    r = run_stream(PROVIDER, _data("stream_recorded_compaction_multi_delta.jsonl"))
    [block] = _kept(r.message.extras)
    assert block["content"] == "Earlier conversation summarized in full."
    assert block["encrypted_content"] == (
        "EpwBCioIDxgCEAEYASJALd_opaque_chunk_oneEpwBCioIDxgCEAEYASJALd_opaque_chunk_two"
    )


def test_streamed_compaction_goes_back_as_the_api_sent_it() -> None:
    r = run_stream(PROVIDER, _data("stream_recorded_compaction.jsonl"))
    body = PROVIDER.format_request([r.message])
    assert body["messages"][0]["content"][0] == {
        "type": "compaction",
        "content": "Earlier conversation summarized.",
        "encrypted_content": "EpwBCioIDxgCEAEYASJALd_opaque_compaction_payload",
    }


def test_server_tool_use_input_is_joined_from_its_deltas() -> None:
    r = run_stream(PROVIDER, _data("stream_recorded_server_tool_use.jsonl"))
    assert _kept(r.message.extras) == [
        {
            "type": "server_tool_use",
            "id": "srvtoolu_01WebSearch",
            "name": "web_search",
            "input": {"query": "weather in Paris"},
        }
    ]
    assert r.id == "msg_01ServerToolUseInputJson"


def test_server_tool_results_are_kept_whole_and_in_place() -> None:
    r = run_stream(PROVIDER, _data("stream_recorded_server_tool_results.jsonl"))
    kept = _kept(r.message.extras)
    assert [k["type"] for k in kept] == [
        "server_tool_use",
        "web_search_tool_result",
        "code_execution_tool_result",
    ]
    assert kept[2]["content"]["stdout"] == "hello"
    body = PROVIDER.format_request([r.message])
    assert [b["type"] for b in body["messages"][0]["content"]] == [
        "server_tool_use",
        "tool_use",
        "web_search_tool_result",
        "code_execution_tool_result",
    ]


def test_redacted_thinking_goes_back_byte_for_byte() -> None:
    events = _data("stream_recorded_redacted_thinking.jsonl")
    r = run_stream(PROVIDER, events)
    body = PROVIDER.format_request([r.message])
    sent = body["messages"][0]["content"]
    assert sent[:2] == [events[1]["content_block"], events[3]["content_block"]]
    assert sent[2] == {"type": "text", "text": r.text}


def test_web_search_stream_replays_with_citations_in_place() -> None:
    events = _data("stream_recorded_web_search_citations.jsonl")
    r = run_stream(PROVIDER, events)
    blocks = PROVIDER.format_request([r.message])["messages"][0]["content"]
    assert [b["type"] for b in blocks] == [
        "thinking",
        "server_tool_use",
        "web_search_tool_result",
        "text",
        "text",
        "text",
        "text",
    ]
    assert blocks[1]["input"] == {"query": "San Francisco weather today"}
    [result] = [
        e["content_block"] for e in events if e["type"] == "content_block_start" and e["index"] == 2
    ]
    assert blocks[2] == result
    cited = [
        e["delta"]["citation"]
        for e in events
        if e.get("delta", {}).get("type") == "citations_delta"
    ]
    assert [b.get("citations") for b in blocks[3:]] == [None, [cited[0]], [cited[1]], None]
