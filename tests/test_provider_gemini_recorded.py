"""Gemini parsers over recorded traffic (the ``*_recorded_*`` fixtures).

The MANIFEST facts are checked with every fixture; this module checks the parts kept
verbatim (code execution) and signatures on the way back.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from messages import DecodeError, Message
from messages._frozen import thaw
from messages.providers.gemini import PROVIDER
from tests.conftest import fixture_entries, load_fixture
from tests.fixture_checks import run_stream


def _data(name: str) -> Any:
    (entry,) = [e for e in fixture_entries("gemini") if e["file"] == f"gemini/{name}"]
    return load_fixture(entry)


def test_code_execution_parts_go_back_in_place() -> None:
    body = _data("request_recorded_code_execution_replay.json")
    out = PROVIDER.format_request(PROVIDER.parse_messages(body))
    assert out["contents"] == body["contents"]
    assert out["systemInstruction"]["parts"] == body["systemInstruction"]["parts"]


def test_code_execution_response_replays_as_the_model_sent_it() -> None:
    body = _data("response_recorded_code_execution.json")
    r = PROVIDER.parse_response(body)
    out = PROVIDER.format_request([r.message])
    assert out["contents"] == [body["candidates"][0]["content"]]


def test_streamed_call_signature_goes_back_on_the_call_part() -> None:
    events = _data("stream_recorded_call_signature.jsonl")
    r = run_stream(PROVIDER, events)
    [part] = PROVIDER.format_request([r.message])["contents"][0]["parts"]
    wire = events[0]["candidates"][0]["content"]["parts"][0]
    assert part["thoughtSignature"] == wire["thoughtSignature"]
    assert part["functionCall"]["name"] == "get_country"
    assert part["functionCall"]["args"] == {}


def test_text_signature_is_kept_for_the_replay() -> None:
    body = _data("response_recorded_text_signature.json")
    r = PROVIDER.parse_response(body)
    [part] = PROVIDER.format_request([r.message])["contents"][0]["parts"]
    assert part == body["candidates"][0]["content"]["parts"][0]


def test_grounding_metadata_is_kept_in_the_message_metadata() -> None:
    body = _data("response_recorded_grounding.json")
    r = PROVIDER.parse_response(body)
    grounding = body["candidates"][0]["groundingMetadata"]
    assert thaw(r.message.metadata["candidate"]) == {"groundingMetadata": grounding}
    # response information: never sent back, and the conversation formats as before
    again = PROVIDER.format_request([Message.user("q"), r.message])
    assert "groundingMetadata" not in json.dumps(again)
    # a stream keeps the same, the last chunk's value of each field winning
    acc = PROVIDER.stream()
    for cut in (dict(body, candidates=[{**body["candidates"][0], "groundingMetadata": {}}]), body):
        acc.feed(cut)
    assert acc.finish().message.metadata["candidate"] == r.message.metadata["candidate"]


def test_safety_ratings_and_other_candidate_fields_are_kept() -> None:
    body = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": "hi"}]},
                "finishReason": "STOP",
                "index": 0,
                "safetyRatings": [{"category": "HARM_CATEGORY_HARASSMENT", "probability": "LOW"}],
                "avgLogprobs": -0.25,
                "citationMetadata": {"citationSources": [{"startIndex": 0, "endIndex": 2}]},
            }
        ]
    }
    m = PROVIDER.parse_response(body).message
    assert set(m.metadata["candidate"]) == {"safetyRatings", "avgLogprobs", "citationMetadata"}
    plain = {"candidates": [{**body["candidates"][0]}]}
    for key in ("safetyRatings", "avgLogprobs", "citationMetadata"):
        del plain["candidates"][0][key]
    assert "candidate" not in PROVIDER.parse_response(plain).message.metadata
    nan = {"candidates": [{**plain["candidates"][0], "avgLogprobs": float("nan")}]}
    with pytest.raises(DecodeError, match=r"candidates\[0\]"):
        PROVIDER.parse_response(nan)
