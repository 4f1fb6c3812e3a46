"""Gemini: opaque state is tagged with the provider's origin and replayed only to it."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from messages import Message, ReasoningPart, TextPart
from messages.providers import get_provider
from messages.providers.gemini import DUMMY_SIGNATURE, PROVIDER

SIG, TEXT_SIG, CALL_SIG = "dGhvdWdodA==", "dGV4dA==", "Y2FsbA=="
VERTEX = get_provider("gemini", origin="vertex")
CODE = {"executableCode": {"language": "PYTHON", "code": "print(1)"}}

RESPONSE: dict[str, Any] = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"text": "plan", "thought": True, "thoughtSignature": SIG},
                    {"text": "Checking.", "thoughtSignature": TEXT_SIG},
                    CODE,
                    {
                        "functionCall": {"id": "c1", "name": "f", "args": {}},
                        "thoughtSignature": CALL_SIG,
                    },
                ],
            },
            "finishReason": "STOP",
        }
    ],
    "responseId": "r1",
}


def _turn(provider: Any) -> list[Message]:
    message = provider.parse_response(copy.deepcopy(RESPONSE)).message
    return [Message.user("q"), message, Message.tool_result("c1", "ok")]


def test_state_is_kept_under_the_providers_tag() -> None:
    assert VERTEX.tag == "gemini@vertex"
    message = _turn(VERTEX)[1]
    assert message.reasoning == (ReasoningPart("plan", SIG, False, "gemini@vertex"),)
    assert set(message.extras) == {"gemini@vertex"}
    assert message.extras["gemini@vertex"]["text_signature"] == TEXT_SIG
    assert message.tool_calls[0].extras == {"gemini@vertex": {"thought_signature": CALL_SIG}}
    # a stream tags it the same way
    stream = VERTEX.stream()
    stream.feed(copy.deepcopy(RESPONSE))
    streamed = stream.finish().message
    assert set(streamed.extras) == {"gemini@vertex"}
    assert streamed.reasoning == message.reasoning
    assert streamed.tool_calls == message.tool_calls
    # an import too
    ms = VERTEX.parse_messages({"contents": PROVIDER.convert(_turn(PROVIDER)).body["contents"]})
    assert ms[1].tool_calls[0].extras == {"gemini@vertex": {"thought_signature": CALL_SIG}}
    assert ms[1].reasoning[0].provider == "gemini@vertex"


@pytest.mark.parametrize("provider", [PROVIDER, VERTEX], ids=["gemini", "vertex"])
def test_the_same_origin_gets_everything_back(provider: Any) -> None:
    conversion = provider.convert(_turn(provider))
    assert conversion.losses == ()
    assert conversion.body["contents"][1]["parts"] == RESPONSE["candidates"][0]["content"]["parts"]


@pytest.mark.parametrize(
    ("source", "target"), [(VERTEX, PROVIDER), (PROVIDER, VERTEX)], ids=["to-gemini", "to-vertex"]
)
def test_another_origin_gets_none_of_it(source: Any, target: Any) -> None:
    conversion = target.convert(_turn(source))
    parts = conversion.body["contents"][1]["parts"]
    # no signature of the other endpoint, no thought; the call is taken for one this
    # origin did not make (the documented dummy signature, Gemini 3 validates it)
    assert parts == [
        {"text": "Checking."},
        {
            "functionCall": {"id": "c1", "name": "f", "args": {}},
            "thoughtSignature": DUMMY_SIGNATURE,
        },
    ]
    tag = source.tag
    assert [(x.path, x.what) for x in conversion.losses] == [
        ("messages[1]", f"{tag} executableCode block"),
        ("messages[1]", f"thought signature from {tag} on the text"),
        ("messages[1].content[0]", f"reasoning from {tag}"),
        ("messages[1].tool_calls[0].extras." + tag, f"{tag} state of the tool call"),
    ]


def test_reasoning_of_a_plain_gemini_provider_is_not_sent_to_an_origin() -> None:
    ms = [
        Message.user("q"),
        Message.assistant([ReasoningPart("t", SIG, provider="gemini"), TextPart("a")]),
    ]
    conversion = VERTEX.convert(ms)
    assert conversion.body["contents"][1]["parts"] == [{"text": "a"}]
    assert [x.what for x in conversion.losses] == ["reasoning from gemini"]
