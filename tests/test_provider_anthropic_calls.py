"""Anthropic: invalid tool calls travel with the message, in and out (API.md, second wave).

A ``tool_use`` whose name breaks the rule or whose input is not an object is an
InvalidToolCall of its message, whether it comes in a response, a stream or an
imported request; formatting sends it back in its place as a ``tool_use`` with
``input: {}`` (a loss), or not at all when the API would refuse its name (a loss),
and its result pairs with it like any call.
"""

from __future__ import annotations

from typing import Any

import pytest

from messages import (
    DecodeError,
    InvalidToolCall,
    Message,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
    ValidationError,
)
from messages.providers.anthropic import PROVIDER
from tests.conftest import SECRET


def use(call_id: str, name: str = "get_weather", args: Any = None) -> dict[str, Any]:
    return {
        "type": "tool_use",
        "id": call_id,
        "name": name,
        "input": {"city": "Paris"} if args is None else args,
    }


def result(call_id: str, text: str = "18C") -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": text}


def response(content: list[Any]) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": content,
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 3, "output_tokens": 4},
    }


# -- importing a request ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "raw", "error"),
    [
        (use("t2", name="get weather"), '{"city":"Paris"}', "invalid tool name 'get weather'"),
        (use("t2", args=[1, 2]), "[1,2]", "expected an object, got array"),
        (use("t2", args="{}"), "{}", "expected an object, got string"),
        (use("t2", args=None) | {"input": None}, "", "expected an object, got null"),
        (use("t2", name=""), '{"city":"Paris"}', "an empty tool name"),
        (use("t2", name="x" * 65), '{"city":"Paris"}', "invalid tool name"),
    ],
)
def test_a_request_with_a_malformed_tool_use_imports_with_an_invalid_call(
    bad: dict[str, Any], raw: str, error: str
) -> None:
    body = {
        "system": "Be brief.",
        "messages": [
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "content": [use("t1"), bad]},
            {"role": "user", "content": [result("t1"), result("t2", "bad call")]},
        ],
    }
    ms = PROVIDER.parse_messages(body)
    calls = ms[2]
    assert isinstance(calls, ToolCallMessage)
    assert [c.id for c in calls.tool_calls] == ["t1"]
    [invalid] = calls.invalid_tool_calls
    assert (invalid.id, invalid.name, invalid.raw_arguments) == ("t2", bad["name"], raw)
    assert invalid.error.startswith("messages[1].content[1].")
    assert error in invalid.error
    # the conversation is whole: the second result answers the invalid call
    assert [m.tool_call_id for m in ms[3:]] == ["t1", "t2"]  # type: ignore[attr-defined]
    # formatted again, it goes back with input {} (a name the API refuses: not at all)
    again = PROVIDER.convert(ms)
    sent = ["t1", "t2"] if bad["name"] == "get_weather" else ["t1"]
    assert [b["tool_use_id"] for b in again.body["messages"][2]["content"]] == sent


def test_a_tool_use_without_an_id_still_fails_the_import() -> None:
    with pytest.raises(DecodeError) as info:
        PROVIDER.parse_messages(
            [{"role": "assistant", "content": [{"type": "tool_use", "name": "f", "input": {}}]}]
        )
    assert info.value.path == "[0].content[0].id"


def test_a_repeated_tool_use_id_in_a_request_is_refused_naming_the_id() -> None:
    with pytest.raises(DecodeError) as info:
        PROVIDER.parse_messages([{"role": "assistant", "content": [use("t1"), use("t1")]}])
    assert info.value.message == "duplicate tool_use id 't1' within the message"


# -- formatting ----------------------------------------------------------------------------


def _turns(invalid: InvalidToolCall) -> list[Any]:
    return [
        Message.user("Weather?"),
        ToolCallMessage((ToolCall("t1", "get_weather", {"city": "Paris"}),), None, (invalid,)),
        ToolResultMessage("t1", "18C"),
        ToolResultMessage(invalid.id, "could not parse the arguments", is_error=True),
    ]


def test_an_invalid_call_goes_back_with_empty_input_and_its_result_pairs() -> None:
    bad = InvalidToolCall("t2", "get_weather", '{"city": "Par', "content[1].input: invalid JSON")
    conversion = PROVIDER.convert(_turns(bad))
    assert conversion.body["messages"][1:] == [
        {
            "role": "assistant",
            "content": [
                use("t1"),
                {"type": "tool_use", "id": "t2", "name": "get_weather", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                result("t1"),
                {
                    "type": "tool_result",
                    "tool_use_id": "t2",
                    "content": "could not parse the arguments",
                    "is_error": True,
                },
            ],
        },
    ]
    assert [(loss.path, loss.what, loss.rule) for loss in conversion.losses] == [
        (
            "messages[1].tool_calls[1].raw_arguments",
            "arguments of an invalid tool call",
            "sent as input {}: Anthropic needs an object",
        )
    ]
    with pytest.raises(ValidationError) as info:
        PROVIDER.format_request(_turns(bad), strict=True)
    assert info.value.path == "messages[1].tool_calls[1].raw_arguments"


@pytest.mark.parametrize("name", ["get weather", None, "x" * 65, ""])
def test_an_invalid_call_whose_name_the_api_refuses_is_not_sent(name: str | None) -> None:
    # the API checks tool_use names in a request against ^[a-zA-Z0-9_-]{1,64}$
    bad = InvalidToolCall("t2", name, "{}", "content[1].name: invalid tool name")
    conversion = PROVIDER.convert(_turns(bad))
    assert conversion.body["messages"][1:] == [
        {"role": "assistant", "content": [use("t1")]},
        {"role": "user", "content": [result("t1")]},
    ]
    assert [loss.path for loss in conversion.losses] == ["messages[1].tool_calls[1]", "messages[3]"]


def test_an_unanswered_invalid_call_is_answered_like_any_call() -> None:
    bad = InvalidToolCall("t2", "get_weather", "[1]", "content[1].input: not an object")
    turns = [*_turns(bad)[:3], Message.user("thanks")]
    conversion = PROVIDER.convert(turns)
    user = conversion.body["messages"][2]["content"]
    assert [b.get("tool_use_id") for b in user] == ["t1", "t2", None]
    assert user[1]["is_error"] is True
    assert [loss.path for loss in conversion.losses] == [
        "messages[1].tool_calls[1].raw_arguments",
        "messages[1].tool_calls[1]",
    ]


def test_an_invalid_call_alone_is_a_call_message() -> None:
    bad = InvalidToolCall("t2", "get_weather", "[1]", "content[0].input: not an object")
    m = Message.assistant(invalid_tool_calls=[bad])
    body = PROVIDER.convert([Message.user("q"), m]).body
    assert body["messages"][1] == {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "t2", "name": "get_weather", "input": {}}],
    }


# -- round trips in wire order -------------------------------------------------------------

_INTERLEAVED = [
    {"type": "text", "text": "Checking both."},
    use("t1"),
    use("t2", args=["not", "an", "object"]),
    use("t3", name="bad name"),
    use("t4", args={"city": "Tokyo"}),
]


def _as_sent(content: list[Any]) -> list[Any]:
    """What goes back: invalid calls' input as {}, a refused name not at all."""
    out = []
    for block in content:
        if block.get("name") == "bad name":
            continue
        if block["type"] == "tool_use" and not isinstance(block["input"], dict):
            out.append({**block, "input": {}})
        else:
            out.append(block)
    return out


@pytest.mark.parametrize("how", ["response", "request"])
def test_invalid_calls_go_back_in_their_wire_order(how: str) -> None:
    m: Message
    if how == "response":
        m = PROVIDER.parse_response(response(_INTERLEAVED)).message
    else:
        m = PROVIDER.parse_messages([{"role": "assistant", "content": _INTERLEAVED}])[0]
    assert isinstance(m, ToolCallMessage)
    assert [c.id for c in m.tool_calls] == ["t1", "t4"]
    assert [c.id for c in m.invalid_tool_calls] == ["t2", "t3"]
    results = [Message.tool_result(c, "r") for c in ("t1", "t2", "t3", "t4")]
    sent = PROVIDER.convert([Message.user("q"), m, *results])
    assert sent.body["messages"][1]["content"] == _as_sent(_INTERLEAVED)
    assert [b["tool_use_id"] for b in sent.body["messages"][2]["content"]] == ["t1", "t2", "t4"]


def test_a_response_keeps_an_invalid_call_before_a_valid_one_in_order() -> None:
    content = [use("t0", args=[1]), use("t1")]
    r = PROVIDER.parse_response(response(content))
    assert r.invalid_tool_calls == r.message.invalid_tool_calls
    assert r.message.extras["anthropic"]["order"] == "ic"
    sent = PROVIDER.convert([Message.user("q"), r.message]).body["messages"][1]["content"]
    assert sent == [{**content[0], "input": {}}, content[1]]


def test_a_streamed_invalid_call_goes_back_with_empty_input() -> None:
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "m", "model": "x", "usage": {}}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"a": tru'},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}},
        {"type": "message_stop"},
    ]
    acc = PROVIDER.stream()
    for event in events:
        acc.feed(event)
    r = acc.finish()
    [bad] = r.message.invalid_tool_calls
    assert (bad.id, bad.name, bad.raw_arguments) == ("t1", "f", '{"a": tru')
    assert r.invalid_tool_calls == (bad,)
    sent = PROVIDER.convert([Message.user("q"), r.message]).body["messages"][1]
    assert sent == {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}],
    }


def test_invalid_calls_never_show_their_arguments() -> None:
    r = PROVIDER.parse_response(response([use("t1", name="bad name", args=SECRET)]))
    [bad] = r.invalid_tool_calls
    assert SECRET not in bad.error
    assert SECRET not in repr(r.message)
    with pytest.warns(UserWarning) as record:
        PROVIDER.format_request([UserMessage("q"), r.message])
    assert all(SECRET not in str(w.message) for w in record)
