"""Gemini: invalid tool calls travel with the message (responses, streams, imports, requests)."""

from __future__ import annotations

import copy
import json
import warnings
from typing import Any

import pytest

from messages import (
    InvalidToolCall,
    Message,
    ToolCall,
    ToolCallAccumulator,
    ToolCallMessage,
    ToolResultMessage,
)
from messages._ids import DERIVED_ID_PREFIX
from messages._repair import UNANSWERED_TEXT
from messages.providers import FinishReason, LossWarning, get_provider
from messages.providers.gemini import DUMMY_SIGNATURE, PROVIDER

SIG = "c2lnbmF0dXJl"


def _response(parts: list[Any], response_id: str | None = "RID") -> dict[str, Any]:
    body: dict[str, Any] = {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]
    }
    if response_id is not None:
        body["responseId"] = response_id
    return body


DOTTED = {
    "functionCall": {"name": "files.read", "args": {"path": "a.txt"}},
    "thoughtSignature": SIG,
}
STRING_ARGS = {"functionCall": {"id": "c2", "name": "get_weather", "args": '{"city": "Par'}}
GOOD = {"functionCall": {"id": "c3", "name": "get_weather", "args": {"city": "Paris"}}}


# -- responses and streams ------------------------------------------------------------------


def test_a_response_puts_invalid_calls_in_the_message_with_their_signature() -> None:
    r = PROVIDER.parse_response(_response([DOTTED, STRING_ARGS, GOOD]))
    message = r.message
    assert isinstance(message, ToolCallMessage)
    assert r.invalid_tool_calls == message.invalid_tool_calls
    dotted, string_args = message.invalid_tool_calls
    assert (dotted.name, dotted.raw_arguments) == ("files.read", '{"path":"a.txt"}')
    assert dotted.error == (
        "candidates[0].content.parts[0].functionCall.name: invalid tool name 'files.read'"
    )
    assert dotted.id.startswith(DERIVED_ID_PREFIX)
    assert dotted.extras == {"gemini": {"thought_signature": SIG}}
    assert (string_args.id, string_args.raw_arguments) == ("c2", '{"city": "Par')
    assert string_args.error.startswith("candidates[0].content.parts[1].functionCall.args")
    assert [c.id for c in message.tool_calls] == ["c3"]
    assert r.finish_reason is FinishReason.TOOL_CALLS


def test_only_invalid_calls_still_make_a_tool_call_message() -> None:
    message = PROVIDER.parse_response(_response([{"text": "Reading."}, DOTTED])).message
    assert isinstance(message, ToolCallMessage)
    assert message.tool_calls == ()
    assert [c.name for c in message.invalid_tool_calls] == ["files.read"]
    assert message.text == "Reading."


def test_a_stream_gives_the_same_invalid_calls_and_a_delta_for_each() -> None:
    whole = PROVIDER.parse_response(_response([DOTTED, STRING_ARGS, GOOD]))
    stream = PROVIDER.stream()
    acc = ToolCallAccumulator()
    for part in (DOTTED, STRING_ARGS, GOOD):
        for delta in stream.feed(
            {"candidates": [{"content": {"parts": [part]}}], "responseId": "RID"}
        ):
            assert delta.tool_call is not None
            acc.feed(delta.tool_call)
    stream.feed({"candidates": [{"finishReason": "STOP"}]})
    r = stream.finish()

    def facts(calls: Any) -> list[Any]:  # the error names where: the stream's event
        return [(c.id, c.name, c.raw_arguments, c.extras) for c in calls]

    assert facts(r.message.invalid_tool_calls) == facts(whole.message.invalid_tool_calls)
    assert r.invalid_tool_calls == r.message.invalid_tool_calls
    assert r.tool_calls == whole.tool_calls
    # the deltas carry every call at its index, as the model wrote it
    assert [c.id for c in acc.tool_calls()] == ["c3"]
    assert [c.raw_arguments for c in acc.invalid_tool_calls()] == [
        '{"path":"a.txt"}',
        '{"city": "Par',
    ]
    assert len(acc) == 3


def test_a_streamed_partial_call_with_an_invalid_name_is_kept_with_its_signature() -> None:
    events: list[dict[str, Any]] = [
        {
            "candidates": [
                {
                    "content": {
                        "parts": [
                            {
                                "functionCall": {"name": "ns.tool", "willContinue": True},
                                "thoughtSignature": SIG,
                            }
                        ]
                    }
                }
            ]
        },
        {
            "candidates": [
                {
                    "content": {
                        "parts": [
                            {
                                "functionCall": {
                                    "partialArgs": [{"jsonPath": "$.q", "stringValue": "x"}]
                                }
                            }
                        ]
                    },
                    "finishReason": "STOP",
                }
            ]
        },
    ]
    stream = PROVIDER.stream()
    deltas = [d for e in events for d in stream.feed(e)]
    [bad] = stream.finish().message.invalid_tool_calls
    assert (bad.name, bad.raw_arguments) == ("ns.tool", '{"q":"x"}')
    assert bad.error == (
        "events[0].candidates[0].content.parts[0].functionCall.name: invalid tool name 'ns.tool'"
    )
    assert bad.extras == {"gemini": {"thought_signature": SIG}}
    assert [d.tool_call.arguments_delta for d in deltas if d.tool_call] == [None, '{"q":"x"}']


# -- importing requests ----------------------------------------------------------------------

BAD_REQUEST = {
    "contents": [
        {"role": "user", "parts": [{"text": "q"}]},
        {
            "role": "model",
            "parts": [
                {"functionCall": {"name": "bad name", "args": {"a": 1}}, "thoughtSignature": SIG},
                {"functionCall": {"name": "get_weather", "args": [1, 2]}},
                {"functionCall": {"id": "w1", "name": "get_weather", "args": {"city": "Paris"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "bad name", "response": {"error": "no such tool"}}},
                {"functionResponse": {"name": "get_weather", "response": {"error": "bad args"}}},
                {
                    "functionResponse": {
                        "id": "w1",
                        "name": "get_weather",
                        "response": {"output": "18C"},
                    }
                },
            ],
        },
    ]
}


def test_a_malformed_call_in_a_request_is_imported_as_an_invalid_call() -> None:
    ms = PROVIDER.parse_messages(copy.deepcopy(BAD_REQUEST))
    assert [m.role.value for m in ms] == ["user", "assistant", "tool", "tool", "tool"]
    calls = ms[1]
    assert isinstance(calls, ToolCallMessage)
    assert [c.id for c in calls.tool_calls] == ["w1"]
    bad_name, bad_args = calls.invalid_tool_calls
    assert (bad_name.name, bad_name.raw_arguments) == ("bad name", '{"a":1}')
    assert bad_name.error == "contents[1].parts[0].functionCall.name: invalid tool name 'bad name'"
    assert bad_name.extras == {"gemini": {"thought_signature": SIG}}
    assert (bad_args.name, bad_args.raw_arguments) == ("get_weather", "[1,2]")
    assert bad_args.error == "contents[1].parts[1].functionCall.args: expected an object, got array"
    # the responses pair with them by name and order, like any call's
    results = [m for m in ms if isinstance(m, ToolResultMessage)]
    assert [r.tool_call_id for r in results] == [bad_name.id, bad_args.id, "w1"]
    # ids are derived from the request: the same import gives the same ids
    again = PROVIDER.parse_messages(copy.deepcopy(BAD_REQUEST))[1]
    assert again.invalid_tool_calls == calls.invalid_tool_calls


def test_an_imported_invalid_call_goes_back_as_gemini_takes_it() -> None:
    ms = PROVIDER.parse_messages(copy.deepcopy(BAD_REQUEST))
    conversion = PROVIDER.convert(ms)
    model, answers = conversion.body["contents"][1:]
    # in the order they came (the signature stays on the first call part, where Gemini
    # looks for it), though the message lists the valid call first
    assert model["parts"] == [
        {"functionCall": {"name": "bad_name", "args": {"a": 1}}, "thoughtSignature": SIG},
        {"functionCall": {"name": "get_weather", "args": {}}},
        {"functionCall": {"id": "w1", "name": "get_weather", "args": {"city": "Paris"}}},
    ]
    # each functionResponse pairs with its call: same name, in call order
    assert [p["functionResponse"].get("id") for p in answers["parts"]] == [None, None, "w1"]
    assert [p["functionResponse"]["name"] for p in answers["parts"]] == [
        "bad_name",
        "get_weather",
        "get_weather",
    ]
    assert [(x.path, x.what) for x in conversion.losses] == [
        ("messages[1].tool_calls[1].name", "tool name Gemini rejects"),
        ("messages[1].tool_calls[2]", "tool call arguments that are not a JSON object"),
    ]


def test_the_order_of_valid_and_invalid_calls_survives_a_response() -> None:
    message = PROVIDER.parse_response(_response([DOTTED, GOOD])).message
    assert [c.id for c in message.tool_calls] == ["c3"]
    body = PROVIDER.convert(
        [
            Message.user("q"),
            message,
            *(Message.tool_result(c.id, "r") for c in message.invalid_tool_calls),
            *(Message.tool_result(c.id, "r") for c in message.tool_calls),
        ]
    ).body
    assert [p["functionCall"]["name"] for p in body["contents"][1]["parts"]] == [
        "files.read",
        "get_weather",
    ]
    assert body["contents"][1]["parts"][0]["thoughtSignature"] == SIG
    assert [p["functionResponse"]["name"] for p in body["contents"][2]["parts"]] == [
        "files.read",
        "get_weather",
    ]


# -- formatting ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "sent", "losses"),
    [
        (
            InvalidToolCall("c1", "get_weather", '{"city": "Par', "truncated"),
            {"id": "c1", "name": "get_weather", "args": {}},
            ["messages[1].tool_calls[0]"],
        ),
        (
            InvalidToolCall("c1", "files.read", '{"path": "a"}', "name"),
            {"id": "c1", "name": "files.read", "args": {"path": "a"}},
            [],
        ),
        (
            InvalidToolCall("c1", "read file!", "[]", "both"),
            {"id": "c1", "name": "read_file_", "args": {}},
            ["messages[1].tool_calls[0].name", "messages[1].tool_calls[0]"],
        ),
        (
            InvalidToolCall("c1", None, "", "no name"),
            {"id": "c1", "name": "unnamed_call", "args": {}},
            ["messages[1].tool_calls[0].name", "messages[1].tool_calls[0]"],
        ),
        (
            InvalidToolCall(f"{DERIVED_ID_PREFIX}{'0' * 24}", "get_weather", "x", "not JSON"),
            {"name": "get_weather", "args": {}},
            ["messages[1].tool_calls[0]"],
        ),
    ],
    ids=["args", "dotted-name", "name-and-args", "no-name", "derived-id"],
)
def test_an_invalid_call_is_sent_with_its_response(
    call: InvalidToolCall, sent: dict[str, Any], losses: list[str]
) -> None:
    ms = [
        Message.user("q"),
        Message.assistant(None, invalid_tool_calls=[call]),
        Message.tool_result(call.id, "bad call", is_error=True),
    ]
    conversion = PROVIDER.convert(ms)
    model, answer = conversion.body["contents"][1:]
    fc = model["parts"][0]["functionCall"]
    assert fc == sent
    fr = answer["parts"][0]["functionResponse"]
    assert fr == {
        **({"id": call.id} if "id" in sent else {}),
        "name": sent["name"],
        "response": {"error": "bad call"},
    }
    assert [x.path for x in conversion.losses] == losses
    if losses:
        with pytest.raises(Exception, match="cannot carry"):
            PROVIDER.format_request(ms, strict=True)
        with pytest.warns(LossWarning):
            PROVIDER.format_request(ms)


def test_an_invalid_calls_signature_is_replayed_and_foreign_ones_get_the_dummy() -> None:
    own = InvalidToolCall(
        "c1", "get_weather", "x", "bad", extras={"gemini": {"thought_signature": SIG}}
    )
    foreign = InvalidToolCall("c2", "get_weather", "x", "bad")
    for call, sig in ((own, SIG), (foreign, DUMMY_SIGNATURE)):
        ms = [Message.user("q"), Message.assistant(None, invalid_tool_calls=[call])]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LossWarning)
            part = PROVIDER.format_request(ms)["contents"][1]["parts"][0]
        assert part["thoughtSignature"] == sig


def test_valid_calls_come_before_invalid_ones_and_unanswered_ones_are_answered() -> None:
    good = ToolCall("g1", "get_weather", {"city": "Paris"})
    bad = InvalidToolCall("b1", "get_weather", "{", "truncated")
    ms = [
        Message.user("q"),
        Message.assistant(None, [good], invalid_tool_calls=[bad]),
        Message.tool_result("g1", "18C"),
        Message.user("and?"),
    ]
    conversion = PROVIDER.convert(ms)
    assert [p["functionCall"]["id"] for p in conversion.body["contents"][1]["parts"]] == [
        "g1",
        "b1",
    ]
    responses = conversion.body["contents"][2]["parts"][:2]
    assert responses[1] == {
        "functionResponse": {
            "id": "b1",
            "name": "get_weather",
            "response": {"error": UNANSWERED_TEXT},
        }
    }
    assert ("messages[1].tool_calls[1]", "unanswered tool call") in [
        (x.path, x.what) for x in conversion.losses
    ]


def test_another_providers_invalid_call_reaches_gemini() -> None:
    anthropic = get_provider("anthropic")
    r = anthropic.parse_response(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": [1]}],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    )
    [bad] = r.message.invalid_tool_calls
    ms = [Message.user("q"), r.message, Message.tool_result(bad.id, "retry", is_error=True)]
    conversion = PROVIDER.convert(ms)
    assert conversion.body["contents"][1]["parts"] == [
        {
            "functionCall": {"id": "toolu_1", "name": "f", "args": {}},
            "thoughtSignature": DUMMY_SIGNATURE,
        }
    ]
    assert conversion.body["contents"][2]["parts"][0]["functionResponse"]["id"] == "toolu_1"


def test_the_fixture_request_with_an_invalid_call_formats_back_unchanged() -> None:
    from tests.conftest import FIXTURES

    body = json.loads((FIXTURES / "gemini/request_call_with_invalid_tool_name.json").read_text())
    ms = PROVIDER.parse_messages(copy.deepcopy(body))
    [bad] = ms[1].invalid_tool_calls
    assert (bad.name, bad.raw_arguments) == ("files.read", '{"path":"notes.txt"}')
    assert ms[2].tool_call_id == bad.id  # type: ignore[attr-defined]
    conversion = PROVIDER.convert(ms)
    assert conversion.body == body
    assert conversion.losses == ()
