"""Recorded chat-completions traffic (tests/fixtures/openai/*recorded*, *web_search*).

The MANIFEST facts of these fixtures run in test_provider_openai.py; this module
checks what the facts do not cover: the state kept in ``extras["openai"]``
(annotations, logprobs, a refusal), the ``[DONE]`` sentinel, and that a
response message sent back as it came imports without losing its annotations.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from messages import DecodeError
from messages.providers import get_provider
from tests.conftest import fixture_entries, load_fixture
from tests.provider_fidelity import run_stream

P = get_provider("openai")


def _load(file: str) -> Any:
    [entry] = [e for e in fixture_entries("openai", "groq", "vllm") if e["file"] == file]
    return load_fixture(entry)


def test_search_answer_keeps_its_url_citations() -> None:
    body = _load("openai/response_web_search_annotations.json")
    r = P.parse_response(body)
    kept = r.message.extras["openai"]["annotations"]
    assert len(kept) == 7
    first = kept[0]
    assert first["type"] == "url_citation"
    cite = first["url_citation"]
    assert cite["title"].startswith("Iceland volcano emits smoke")
    # the indexes point into the answer text as parsed
    assert r.text[cite["start_index"] : cite["end_index"]].startswith("([reuters.com](")
    assert r.usage is not None and r.usage.reasoning_tokens == 0
    assert r.usage.cached_input_tokens == 0


def test_annotations_are_not_sent_back_and_cost_no_loss() -> None:
    r = P.parse_response(_load("openai/response_web_search_annotations.json"))
    conversion = P.convert([r.message])
    assert conversion.losses == ()
    assert conversion.body["messages"] == [{"role": "assistant", "content": r.text}]


def test_streamed_logprobs_are_joined_like_a_response() -> None:
    r, _ = run_stream(P, _load("openai/stream_recorded_logprobs.jsonl"))
    lp = r.message.extras["openai"]["logprobs"]
    assert [t["token"] for t in lp["content"]] == ["Foo", "."]
    assert lp["content"][1]["logprob"] == -2.4962392
    assert lp["content"][0]["bytes"] == [70, 111, 111]
    assert lp["refusal"] is None


def test_response_logprobs_are_kept() -> None:
    body = _load("openai/response_recorded_tool_call.json")
    body["choices"][0]["logprobs"] = {
        "content": [{"token": "Hi", "logprob": -0.5, "bytes": [72, 105], "top_logprobs": []}],
        "refusal": None,
    }
    r = P.parse_response(body)
    assert r.message.extras["openai"]["logprobs"] == body["choices"][0]["logprobs"]
    # logprobs null (the recorded body) keeps nothing
    body["choices"][0]["logprobs"] = None
    assert "openai" not in P.parse_response(body).message.extras


def test_streamed_refusal_logprobs_follow_the_refusal() -> None:
    events = _load("openai/stream_recorded_refusal.jsonl")
    for event in events[1:12]:
        token = event["choices"][0]["delta"]["refusal"]
        event["choices"][0]["logprobs"] = {
            "content": None,
            "refusal": [{"token": token, "logprob": -0.1, "bytes": [], "top_logprobs": []}],
        }
    r, _ = run_stream(P, events)
    assert r.refusal == "I'm sorry, but I can't assist with that request."
    lp = r.message.extras["openai"]["logprobs"]
    assert "".join(t["token"] for t in lp["refusal"]) == r.refusal
    assert lp["content"] is None


def test_streamed_annotations_are_kept() -> None:
    cite = {
        "type": "url_citation",
        "url_citation": {
            "start_index": 0,
            "end_index": 3,
            "title": "T",
            "url": "https://a.example",
        },
    }
    events = _load("openai/stream_recorded_logprobs.jsonl")
    events[3]["choices"][0]["delta"] = {"annotations": [cite]}
    r, _ = run_stream(P, events)
    assert r.message.extras["openai"]["annotations"] == [cite]


@pytest.mark.parametrize(
    ("where", "value"),
    [("annotations", "x"), ("logprobs", "x"), ("logprobs", {"content": 3})],
)
def test_malformed_annotations_or_logprobs_are_decode_errors(where: str, value: Any) -> None:
    events = _load("openai/stream_recorded_logprobs.jsonl")
    if where == "annotations":
        events[1]["choices"][0]["delta"]["annotations"] = value
    else:
        events[1]["choices"][0]["logprobs"] = value
    acc = P.stream()
    acc.feed(events[0])
    with pytest.raises(DecodeError) as info:
        acc.feed(events[1])
    assert info.value.path.startswith("choices[0]")


def test_done_sentinel_is_accepted_after_the_usage_chunk() -> None:
    acc = P.stream()
    for event in _load("openai/stream_recorded_two_tools.jsonl"):
        acc.feed(event)
    assert acc.feed("[DONE]") == ()  # type: ignore[arg-type]
    r = acc.finish()
    assert [c.id for c in r.tool_calls] == [
        "call_lQnnsesjFMWMQ5IeWPHzR4th",
        "call_2xjOUgaCdiwAcl9ZBL9LyMUU",
    ]
    assert r.usage is not None and r.usage.total_tokens == 209


def test_a_response_message_sent_back_keeps_its_annotations() -> None:
    """An SDK ``message.model_dump()`` appended to the history as it came."""
    answer = _load("openai/response_web_search_annotations.json")["choices"][0]["message"]
    body = {"messages": [{"role": "user", "content": "News?"}, answer]}
    _, m = P.parse_messages(body)
    assert m.extras["openai"]["annotations"] == answer["annotations"]
    assert P.convert([m]).body["messages"] == [{"role": "assistant", "content": answer["content"]}]


# -- Groq compound models: tools run on the server ------------------------------------------

GROQ = get_provider("groq")


def test_groq_executed_tools_are_kept() -> None:
    body = _load("groq/response_recorded_compound_web_search.json")
    r = GROQ.parse_response(body)
    [tool] = r.message.extras["groq"]["executed_tools"]
    assert tool["type"] == "search"
    assert tool["arguments"] == '{"query": "What is the weather in San Francisco today?"}'
    assert [x["url"] for x in tool["search_results"]["results"]] == [
        "https://www.weatherapi.com/",
        "https://weathershogun.com/weather/usa/ca/san-francisco/480/september/2025-09-17",
    ]
    assert r.tool_calls == ()  # run by Groq, not calls for the client
    assert r.reasoning is not None and "<tool>\nsearch(" in r.reasoning
    # not sent back, and no loss for it
    conversion = GROQ.convert([r.message])
    assert conversion.losses == ()
    assert "executed_tools" not in conversion.body["messages"][0]


def test_groq_streamed_executed_tools_merge_by_index() -> None:
    events = _load("groq/stream_compound_executed_tools.jsonl")
    # Groq sends an executed tool's arguments first and its output in a later delta
    later = json.loads(json.dumps(events[1]))
    later["choices"][0]["delta"] = {
        "executed_tools": [{"index": 0, "type": "search", "output": "Title: SF Weather"}]
    }
    r, _ = run_stream(GROQ, [*events[:2], later, *events[2:]])
    [tool] = r.message.extras["groq"]["executed_tools"]
    assert tool["arguments"] == '{"query": "weather in San Francisco"}'
    assert tool["output"] == "Title: SF Weather"
    assert tool["search_results"]["results"][0]["score"] == 0.98


# -- n > 1 -----------------------------------------------------------------------------------


def test_other_choices_of_a_response_are_kept() -> None:
    body = _load("openai/response_recorded_three_choices.json")
    r = P.parse_response(body)
    assert r.text == body["choices"][0]["message"]["content"]
    kept = r.message.extras["openai"]["choices"]
    assert kept == body["choices"][1:]
    assert json.loads(kept[1]["message"]["content"])["temperature"] == 63.0
    assert P.convert([r.message]).losses == ()


def test_other_choices_of_a_stream_are_kept_in_order() -> None:
    """The recorded refusal stream with a second answer interleaved at index 1 (how
    OpenAI streams n=2: one choice per chunk)."""
    events = _load("openai/stream_recorded_refusal.jsonl")
    mixed: list[Any] = []
    for event in events:
        mixed.append(event)
        if event["choices"]:
            other = json.loads(json.dumps(event))
            other["choices"][0]["index"] = 1
            other["choices"][0]["delta"] = {"content": "x"} if event["choices"][0]["delta"] else {}
            mixed.append(other)
    r, deltas = run_stream(P, mixed)
    assert r.refusal == "I'm sorry, but I can't assist with that request."
    assert r.text == "" and all(d.kind != "text" for d in deltas)
    kept = r.message.extras["openai"]["choices"]
    assert [c["index"] for c in kept] == [1] * 13
    assert "".join(c["delta"].get("content", "") for c in kept) == "x" * 12
    assert kept[-1]["finish_reason"] == "stop"


def test_two_choices_in_one_chunk() -> None:
    chunk = _load("openai/stream_recorded_logprobs.jsonl")[1]
    second = {**chunk["choices"][0], "index": 1, "delta": {"content": "Bar"}}
    chunk["choices"].append(second)
    acc = P.stream()
    acc.feed(chunk)
    r = acc.finish()
    assert r.text == "Foo"
    assert r.message.extras["openai"]["choices"] == [second]
