"""Gemini parsers over recorded traffic (the ``*_recorded_*`` fixtures).

The MANIFEST facts are checked with every fixture; this module checks the parts kept
verbatim (code execution) and signatures on the way back.
"""

from __future__ import annotations

from typing import Any

import pytest

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


def _holds(value: Any, wanted: Any) -> bool:
    """Whether ``wanted`` is ``value`` or is somewhere inside it."""
    if value == wanted:
        return True
    if isinstance(value, dict) or hasattr(value, "items"):
        return any(_holds(v, wanted) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds(v, wanted) for v in value)
    return False


@pytest.mark.xfail(
    strict=True,
    reason="candidate groundingMetadata (search grounding) is dropped without a trace: "
    "neither the message's extras nor its metadata keep it",
)
def test_grounding_metadata_is_kept() -> None:
    body = _data("response_recorded_grounding.json")
    r = PROVIDER.parse_response(body)
    grounding = body["candidates"][0]["groundingMetadata"]
    assert _holds(r.message.extras, grounding) or _holds(r.message.metadata, grounding)
