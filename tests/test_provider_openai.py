"""OpenAI chat completions: fixture fidelity, loss rules, strict tools, streaming, fuzzing."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    AudioPart,
    ConversationHistory,
    DecodeError,
    FilePart,
    ImagePart,
    Message,
    OrderingPolicy,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolCallMessage,
    ToolDefinition,
    ToolResultMessage,
    ValidationError,
    from_dict,
    to_dict,
)
from messages._repair import UNANSWERED_TEXT
from messages.providers import ChatResponse, FinishReason, LossWarning, Usage, get_provider
from messages.providers._base import build_assistant, is_derived_id, make_response, make_usage
from messages.providers._chat_completions import openai_strict_schema, respond
from tests.conftest import SECRET, fixture_entries, load_fixture
from tests.provider_facts import unknown_blocks
from tests.provider_fidelity import (
    accepts_or_decode_error,
    check_adversarial,
    check_request,
    check_response,
    check_stream,
    entries_of,
    entry_id,
    feed_all_or_decode_error,
    json_values,
    mutate,
    mutated_only_decode_error,
    mutations,
    run_stream,
)

P = get_provider("openai")
ENTRIES = fixture_entries("openai")


# -- fixtures ---------------------------------------------------------------------------


def test_every_openai_fixture_kind_is_covered() -> None:
    kinds = {e["kind"] for e in ENTRIES}
    assert kinds <= {"request", "response", "stream", "adversarial"}
    assert len(ENTRIES) >= 18


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "request"), ids=entry_id)
def test_request_fixture_parses_and_formats_back(entry: dict[str, Any]) -> None:
    check_request(P, entry, load_fixture(entry))


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "response"), ids=entry_id)
def test_response_fixture_facts(entry: dict[str, Any]) -> None:
    check_response(P, entry, load_fixture(entry))


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "stream"), ids=entry_id)
def test_stream_fixture_facts(entry: dict[str, Any]) -> None:
    check_stream(P, entry, load_fixture(entry))


@pytest.mark.parametrize("entry", entries_of(ENTRIES, "adversarial"), ids=entry_id)
def test_adversarial_fixture_behaviour(entry: dict[str, Any]) -> None:
    check_adversarial(P, entry, load_fixture(entry))


# -- formatting -----------------------------------------------------------------------

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"


def _conversation() -> list[Message]:
    call_a = ToolCall("call_a", "get_weather", {"city": "Paris"})
    call_b = ToolCall("call_b", "get_time", {})
    return [
        Message.developer("Be brief."),
        Message.user(
            [
                TextPart("Look: "),
                ImagePart(url="https://example.com/a.png", detail="high"),
                ImagePart(data=PNG, media_type="image/png"),
                AudioPart(data="UklGRg==", format="wav"),
                FilePart(data="JVBERi0=", filename="a.pdf", media_type="application/pdf"),
                FilePart(file_id="file-123"),
            ],
            name="alice",
        ),
        Message.assistant("Checking.", [call_a, call_b]),
        Message.tool_result("call_a", "18C"),
        Message.tool_result("call_b", "noon"),
        Message.assistant("Done."),
    ]


def test_full_conversation_wire_shape() -> None:
    conversion = P.convert(_conversation())
    assert conversion.losses == ()
    assert conversion.body == {
        "messages": [
            {"role": "developer", "content": "Be brief."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Look: "},
                    {
                        "type": "image_url",
                        "image_url": {"url": "https://example.com/a.png", "detail": "high"},
                    },
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
                    {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
                    {
                        "type": "file",
                        "file": {
                            "file_data": "data:application/pdf;base64,JVBERi0=",
                            "filename": "a.pdf",
                        },
                    },
                    {"type": "file", "file": {"file_id": "file-123"}},
                ],
                "name": "alice",
            },
            {
                "role": "assistant",
                "content": "Checking.",
                "tool_calls": [
                    {
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                    },
                    {
                        "id": "call_b",
                        "type": "function",
                        "function": {"name": "get_time", "arguments": "{}"},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "call_a", "content": "18C"},
            {"role": "tool", "tool_call_id": "call_b", "content": "noon"},
            {"role": "assistant", "content": "Done."},
        ]
    }


def test_every_part_kind_round_trips_through_the_wire() -> None:
    ms = _conversation()
    back = P.parse_messages(P.convert(ms).body)
    assert [type(m) for m in back] == [type(m) for m in ms]
    assert back[1].parts == ms[1].parts
    assert back[2].tool_calls == ms[2].tool_calls
    # the participant name travels both ways
    assert back[1].name == "alice"


def test_name_is_sent_but_metadata_and_extras_never_are() -> None:
    m = Message.user("hi", name="alice", metadata={"k": SECRET}, extras={"x": SECRET})
    body = P.format_request([m])
    assert body == {"messages": [{"role": "user", "content": "hi", "name": "alice"}]}


_CALL_C1 = Message.assistant(None, [ToolCall("c1", "f", {})])


def test_name_on_a_tool_message_is_a_loss() -> None:
    conversion = P.convert([_CALL_C1, Message.tool_result("c1", "ok", name="runner")])
    assert conversion.body["messages"][1] == {"role": "tool", "tool_call_id": "c1", "content": "ok"}
    assert [(loss.path, loss.what) for loss in conversion.losses] == [
        ("messages[1].name", "message name")
    ]


def test_empty_assistant_text_is_an_empty_string_without_calls_and_null_with_them() -> None:
    call = ToolCall("c1", "f", {})
    body = P.convert([Message.assistant(""), Message.assistant(None, [call])]).body
    assert body["messages"][0] == {"role": "assistant", "content": ""}
    assert body["messages"][1]["content"] is None


def test_user_message_with_no_parts_is_sent_as_empty_string() -> None:
    body = P.convert([Message.user([])]).body
    assert body["messages"] == [{"role": "user", "content": ""}]


def test_image_in_tool_result_moves_to_a_user_message_after_the_tool_run() -> None:
    call_a, call_b = ToolCall("a", "shot", {}), ToolCall("b", "shot", {})
    ms = [
        Message.assistant(None, [call_a, call_b]),
        Message.tool_result(
            "a", [TextPart("screen 1"), ImagePart(data=PNG, media_type="image/png")]
        ),
        Message.tool_result("b", [ImagePart(url="https://x.test/2.png")]),
        Message.user("next"),
    ]
    conversion = P.convert(ms)
    wire = conversion.body["messages"]
    assert [m["role"] for m in wire] == ["assistant", "tool", "tool", "user", "user"]
    assert wire[1] == {
        "role": "tool",
        "tool_call_id": "a",
        "content": [{"type": "text", "text": "screen 1"}],
    }
    assert wire[2]["content"][0]["type"] == "text"  # a pointer, never an empty tool message
    moved = wire[3]["content"]
    assert [p["type"] for p in moved] == ["text", "image_url", "text", "image_url"]
    assert moved[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert moved[3]["image_url"]["url"] == "https://x.test/2.png"
    assert [(loss.path, loss.what) for loss in conversion.losses] == [
        ("messages[1].content[1]", "image in a tool result"),
        ("messages[2].content[0]", "image in a tool result"),
    ]
    assert all("moved to a user message" in loss.rule for loss in conversion.losses)


def test_moved_parts_at_the_end_still_form_a_user_message() -> None:
    ms = [
        Message.assistant(None, [ToolCall("a", "shot", {})]),
        Message.tool_result("a", [ImagePart(data=PNG, media_type="image/png")]),
    ]
    wire = P.convert(ms).body["messages"]
    assert [m["role"] for m in wire] == ["assistant", "tool", "user"]


@pytest.mark.parametrize(
    ("content", "sent"),
    [
        ("timeout", "Error: timeout"),
        ("Error: timeout", "Error: timeout"),
        ("error 500", "error 500"),
        ("", "Error: "),
    ],
)
def test_is_error_is_sent_as_an_error_prefix_and_reported(content: str, sent: str) -> None:
    m = Message.tool_result("c1", content, is_error=True)
    conversion = P.convert([_CALL_C1, m])
    assert conversion.body["messages"][1]["content"] == sent
    (loss,) = conversion.losses
    assert loss.path == "messages[1].is_error"
    assert "Error: " in loss.rule


def test_is_error_with_parts_gets_a_leading_text_part() -> None:
    m = Message.tool_result("c1", [TextPart("boom")], is_error=True)
    content = P.convert([_CALL_C1, m]).body["messages"][1]["content"]
    assert content == [{"type": "text", "text": "Error: "}, {"type": "text", "text": "boom"}]


def test_is_error_with_a_kept_unknown_part_first() -> None:
    # An imported tool message whose first part is of a kind this package does
    # not know keeps it in place; marked as an error later, it still formats.
    ms = P.parse_messages(
        [
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": [{"type": "x_future", "data": 1}, {"type": "text", "text": "boom"}],
            },
        ]
    )
    result = ms[1]
    assert isinstance(result, ToolResultMessage)
    failed = dataclasses.replace(result, is_error=True)
    content = P.convert([ms[0], failed]).body["messages"][1]["content"]
    assert content == [
        {"type": "text", "text": "Error: "},
        {"type": "x_future", "data": 1},
        {"type": "text", "text": "boom"},
    ]


@pytest.mark.parametrize(
    "part",
    [
        ReasoningPart("plain thoughts"),
        ReasoningPart("vllm thoughts", provider="vllm"),
        ReasoningPart("signed", signature="sig", provider="anthropic"),
        ReasoningPart("opaque", redacted=True, provider="anthropic"),
    ],
)
def test_reasoning_is_never_sent_to_openai_chat(part: ReasoningPart) -> None:
    m = Message.assistant([part, TextPart("answer")])
    conversion = P.convert([m])
    assert conversion.body["messages"] == [{"role": "assistant", "content": "answer"}]
    (loss,) = conversion.losses
    assert loss.path == "messages[0].content[0]"
    assert "dropped" in loss.rule
    assert part.text not in str(loss)


def test_format_request_warns_per_loss_and_strict_raises() -> None:
    m = Message.assistant([ReasoningPart("r"), TextPart("a")])
    with pytest.warns(LossWarning, match=r"messages\[0\]\.content\[0\]"):
        P.format_request([m])
    with pytest.raises(ValidationError) as info:
        P.format_request([m], strict=True)
    assert info.value.path == "messages[0].content[0]"


def test_convert_rejects_a_non_message_with_its_position() -> None:
    with pytest.raises(ValidationError) as info:
        P.convert([Message.user("a"), {"role": "user"}])  # type: ignore[list-item]
    assert info.value.path == "messages[1]"


# -- tools ------------------------------------------------------------------------------

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "unit": {"type": "string", "enum": ["c", "f"]},
        "days": {"type": "integer"},
        "where": {
            "type": "object",
            "properties": {"lat": {"type": "number"}, "tag": {"$ref": "#/$defs/tag"}},
            "required": ["lat"],
        },
        "tags": {
            "type": "array",
            "items": {"type": "object", "properties": {"k": {"type": "string"}}},
        },
    },
    "required": ["city"],
    "$defs": {"tag": {"type": "string"}},
}


def test_strict_tool_follows_openai_strict_mode() -> None:
    tool = ToolDefinition("get_weather", "Weather for a city.", WEATHER, strict=True)
    (wire,) = P.format_tools([tool])
    fn = wire["function"]
    assert wire["type"] == "function"
    assert fn["strict"] is True
    params = fn["parameters"]
    assert params["additionalProperties"] is False
    assert params["required"] == ["city", "unit", "days", "where", "tags"]
    props = params["properties"]
    assert props["city"] == {"type": "string"}
    assert props["unit"] == {"type": ["string", "null"], "enum": ["c", "f", None]}
    assert props["days"] == {"type": ["integer", "null"]}
    where = props["where"]
    assert where["type"] == ["object", "null"]
    assert where["additionalProperties"] is False
    assert where["required"] == ["lat", "tag"]
    assert where["properties"]["tag"] == {"anyOf": [{"$ref": "#/$defs/tag"}, {"type": "null"}]}
    items = props["tags"]["items"]
    assert items["additionalProperties"] is False and items["required"] == ["k"]
    assert items["properties"]["k"] == {"type": ["string", "null"]}
    assert params["$defs"] == {"tag": {"type": "string"}}
    # The definition itself is unchanged.
    assert tool.parameters["required"] == ("city",)


def test_non_strict_tool_is_sent_as_written() -> None:
    tool = ToolDefinition("get_weather", "Weather for a city.", WEATHER, strict=False)
    (wire,) = P.format_tools([tool])
    assert "strict" not in wire["function"]
    assert wire["function"]["parameters"] == WEATHER


@pytest.mark.parametrize(
    ("prop", "strict"),
    [
        ({"type": "string"}, True),
        ({"type": "object", "properties": {"a": {"type": "integer"}}}, True),
        ({"type": "array", "items": {"type": "string"}}, True),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, True),
        ({"enum": ["a", "b"]}, True),
        ({"type": "object", "additionalProperties": {"type": "string"}}, False),  # dict[str, str]
        ({"type": "object"}, True),  # closed by the strict definition itself, as everywhere
        ({}, False),  # Any
        ({"description": "anything"}, False),
        ({"type": "array", "items": {}}, False),  # list[Any]
        ({"anyOf": [{}, {"type": "null"}]}, False),
    ],
)
def test_a_schema_strict_mode_cannot_express_goes_non_strict_with_a_loss(
    prop: dict[str, Any], strict: bool
) -> None:
    # Strict mode closes every object and needs every value typed; closing a map
    # or typing an Any would change what the model may send.
    schema = {"type": "object", "properties": {"x": prop}, "required": ["x"]}
    tool = ToolDefinition("f", "F.", schema, strict=True)
    conversion = P.convert([Message.user("q")], [tool])
    fn = conversion.body["tools"][0]["function"]
    assert fn["strict"] is strict
    if strict:
        assert conversion.losses == ()
    else:
        assert fn["parameters"] == tool.wire_parameters()  # as the definition says
        assert [loss.path for loss in conversion.losses] == ["tools[0]"]
        with pytest.warns(LossWarning, match=r"tools\[0\]"):
            P.format_tools([tool])
        with pytest.raises(ValidationError):
            P.format_request([Message.user("q")], [tool], strict=True)


def test_strict_schema_leaves_enum_and_default_values_alone() -> None:
    schema = {
        "type": "object",
        "properties": {"mode": {"enum": [{"properties": 1}], "default": {"type": "object"}}},
    }
    out = openai_strict_schema(schema)
    mode = out["properties"]["mode"]
    assert mode == {
        "anyOf": [{"enum": [{"properties": 1}], "default": {"type": "object"}}, {"type": "null"}]
    }


def test_tools_go_into_the_request_body() -> None:
    tool = ToolDefinition("f", "Does f.", {"type": "object", "properties": {}})
    body = P.convert([Message.user("x")], [tool]).body
    assert body["tools"] == P.format_tools([tool])


def test_format_tools_rejects_what_is_not_a_definition() -> None:
    with pytest.raises(ValidationError) as info:
        P.format_tools([{"name": "f"}])  # type: ignore[list-item]
    assert info.value.path == "tools[0]"


# -- responses --------------------------------------------------------------------------


def _response(message: dict[str, Any], **extra: Any) -> dict[str, Any]:
    body = {
        "id": "chatcmpl-1",
        "model": "gpt-x",
        "choices": [
            {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "stop"}
        ],
    }
    body.update(extra)
    return body


def test_usage_details_and_metadata() -> None:
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "total_tokens": 120,
        "prompt_tokens_details": {"cached_tokens": 64},
        "completion_tokens_details": {"reasoning_tokens": 12},
    }
    r = P.parse_response(_response({"content": "hi"}, usage=usage))
    assert r.usage is not None
    assert (r.usage.cached_input_tokens, r.usage.reasoning_tokens) == (64, 12)
    assert r.message.metadata["usage"] == {
        "input_tokens": 100,
        "output_tokens": 20,
        "total_tokens": 120,
        "cached_input_tokens": 64,
        "reasoning_tokens": 12,
    }
    assert (r.model, r.id) == ("gpt-x", "chatcmpl-1")


def test_missing_total_is_the_sum_and_missing_usage_is_none() -> None:
    r = P.parse_response(
        _response({"content": "hi"}, usage={"prompt_tokens": 3, "completion_tokens": 4})
    )
    assert r.usage is not None and r.usage.total_tokens == 7
    r = P.parse_response(_response({"content": "hi"}))
    assert r.usage is None and "usage" not in r.message.metadata


def test_refusal_is_kept_apart_from_the_text() -> None:
    r = P.parse_response(_response({"content": None, "refusal": "No."}))
    assert (r.text, r.refusal) == ("", "No.")
    assert r.message.extras["openai"]["refusal"] == "No."
    # Sent back to OpenAI as the assistant's refusal; another provider cannot carry it.
    assert P.convert([r.message]).body["messages"][0]["refusal"] == "No."
    conversion = get_provider("vllm").convert([r.message])
    assert "refusal" not in conversion.body["messages"][0]
    assert [loss.what for loss in conversion.losses] == ["refusal from openai"]


@pytest.mark.parametrize(
    ("raw", "normal"),
    [
        ("stop", FinishReason.STOP),
        ("length", FinishReason.LENGTH),
        ("tool_calls", FinishReason.TOOL_CALLS),
        ("function_call", FinishReason.TOOL_CALLS),
        ("content_filter", FinishReason.CONTENT_FILTER),
        ("something_new", FinishReason.OTHER),
    ],
)
def test_finish_reason_mapping(raw: str, normal: FinishReason) -> None:
    body = _response({"content": "x"})
    body["choices"][0]["finish_reason"] = raw
    r = P.parse_response(body)
    assert (r.finish_reason, r.provider_finish_reason) == (normal, raw)


def test_invalid_tool_calls_do_not_hide_the_valid_ones() -> None:
    calls = [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": '{"x":1}'}},
        {"id": "b", "type": "function", "function": {"name": "f", "arguments": "[1, 2]"}},
        {"id": "c", "type": "function", "function": {"name": "bad name", "arguments": "{}"}},
        {"id": "d", "type": "function", "function": {"name": "g", "arguments": ""}},
    ]
    r = P.parse_response(_response({"content": None, "tool_calls": calls}))
    assert [c.id for c in r.tool_calls] == ["a", "d"]
    assert r.tool_calls[1].arguments == {}
    assert [(b.id, b.raw_arguments) for b in r.invalid_tool_calls] == [("b", "[1, 2]"), ("c", "{}")]
    assert "tool_calls[1].function.arguments" in r.invalid_tool_calls[0].error
    assert "tool_calls[2].function.name" in r.invalid_tool_calls[1].error


def test_the_exact_arguments_string_is_kept() -> None:
    raw = '{"city": "Paris",  "unit":"c"}'
    calls = [{"id": "a", "type": "function", "function": {"name": "f", "arguments": raw}}]
    r = P.parse_response(_response({"content": None, "tool_calls": calls}))
    assert r.tool_calls[0].arguments_json == raw
    wire = P.convert([r.message]).body["messages"][0]
    assert wire["tool_calls"][0]["function"]["arguments"] == raw


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ([], "$"),
        ({"choices": None}, "choices"),
        ({"choices": [1]}, "choices[0]"),
        ({"choices": [{"message": []}]}, "choices[0].message"),
        ({"choices": [{"message": {"content": 5}}]}, "choices[0].message.content"),
        ({"choices": [{"message": {"tool_calls": {}}}]}, "choices[0].message.tool_calls"),
        ({"choices": [{"message": {"tool_calls": [{"function": {}}]}}]}, "choices[0].message.tool_calls[0].function.name"),
        ({"choices": [{"message": {"tool_calls": [{"id": 3, "function": {"name": "f"}}]}}]}, "choices[0].message.tool_calls[0].id"),
        ({"choices": [{"message": {}, "finish_reason": 1}]}, "choices[0].finish_reason"),
        ({"choices": [{"message": {}}], "usage": {"prompt_tokens": -1}}, "usage.prompt_tokens"),
    ],
)  # fmt: skip
def test_malformed_responses_name_the_path(body: Any, path: str) -> None:
    with pytest.raises(DecodeError) as info:
        P.parse_response(body)
    assert info.value.path == path


@pytest.mark.parametrize("arguments", ['{"a":1}', '{"a":'])
def test_a_repeated_call_id_is_an_invalid_call_and_the_rest_parses(arguments: str) -> None:
    calls = [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
        {"id": "a", "type": "function", "function": {"name": "g", "arguments": arguments}},
        {"id": "b", "type": "function", "function": {"name": "f", "arguments": "{}"}},
    ]
    r = P.parse_response(_response({"content": "text", "tool_calls": calls}))
    assert r.text == "text"
    assert [(c.id, c.name) for c in r.tool_calls] == [("a", "f"), ("b", "f")]
    [bad] = r.invalid_tool_calls
    assert (bad.name, bad.raw_arguments) == ("g", arguments)
    # the repeat gets an id of its own: ids stay unique across the message's calls,
    # so the message is valid and can be answered, stored and loaded again
    assert is_derived_id(bad.id)
    assert bad.error.startswith("choices[0].message.tool_calls")
    assert "'a'" in bad.error
    assert from_dict(to_dict(r.message)) == r.message
    assert P.parse_response(_response({"content": "text", "tool_calls": calls})) == r
    sent = P.convert([r.message]).body["messages"][0]["tool_calls"]
    assert [c["id"] for c in sent] == ["a", "b", bad.id]


def test_an_arguments_object_json_cannot_hold_is_an_invalid_call() -> None:
    # json.loads lets NaN through; such arguments are not a JSON object
    calls = [
        {
            "id": "a",
            "type": "function",
            "function": {"name": "f", "arguments": {"x": float("nan")}},
        },
        {"id": "b", "type": "function", "function": {"name": "f", "arguments": {"x": 1}}},
    ]
    r = P.parse_response(_response({"content": None, "tool_calls": calls}))
    assert [c.id for c in r.tool_calls] == ["b"]
    [bad] = r.invalid_tool_calls
    assert (bad.id, bad.raw_arguments) == ("a", '{"x":NaN}')
    assert "non-finite" in bad.error


def test_decode_errors_never_contain_content() -> None:
    bad = _response({"content": [{"type": "text", "text": 7, "secret": SECRET}]})
    with pytest.raises(DecodeError) as info:
        P.parse_response(bad)
    assert SECRET not in str(info.value)
    calls = [{"id": "a", "function": {"name": "f", "arguments": '{"k": "' + SECRET + '"'}}]
    r = P.parse_response(_response({"tool_calls": calls}))
    assert SECRET not in r.invalid_tool_calls[0].error
    assert SECRET not in repr(r)


def test_missing_call_id_gets_a_stable_derived_id() -> None:
    calls = [{"type": "function", "function": {"name": "f", "arguments": "{}"}}]
    first = P.parse_response(_response({"tool_calls": calls}))
    again = P.parse_response(_response({"tool_calls": calls}))
    assert first.tool_calls[0].id == again.tool_calls[0].id
    assert is_derived_id(first.tool_calls[0].id)
    assert len(first.tool_calls[0].id) <= 40


def test_error_body_is_an_error_response() -> None:
    body = {
        "error": {
            "message": "Rate limit reached",
            "type": "requests",
            "code": "rate_limit_exceeded",
        }
    }
    r = P.parse_response(body)
    assert r.finish_reason is FinishReason.ERROR
    assert r.error == "Rate limit reached"
    assert r.message.metadata["error"]["code"] == "rate_limit_exceeded"


# -- parse_messages ---------------------------------------------------------------------


def test_parse_messages_accepts_a_bare_list_with_list_paths() -> None:
    ms = P.parse_messages([{"role": "user", "content": "hi"}])
    assert ms[0].text == "hi"
    with pytest.raises(DecodeError) as info:
        P.parse_messages([{"role": "user", "content": "hi"}, {"role": "robot"}])
    assert info.value.path == "[1].role"


@pytest.mark.parametrize(
    ("messages", "path"),
    [
        ([{"content": "x"}], "messages[0].role"),
        ([{"role": "user"}], "messages[0].content"),
        ([{"role": "system", "content": [{"type": "image_url"}]}], "messages[0].content[0].type"),
        ([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:x"}}]}], "messages[0].content[0].image_url.url"),
        ([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u", "detail": "max"}}]}], "messages[0].content[0].image_url.url"),
        ([{"role": "user", "content": [{"type": "file", "file": {}}]}], "messages[0].content[0].file"),
        ([{"role": "user", "content": [{"text": "x"}]}], "messages[0].content[0].type"),
        ([{"role": "assistant", "tool_calls": [{"id": "a", "function": {"arguments": "{}"}}]}], "messages[0].tool_calls[0].function.name"),
        ([{"role": "assistant", "tool_calls": [{"id": 1, "function": {"name": "f"}}]}], "messages[0].tool_calls[0].id"),
        ([{"role": "user", "content": "x", "name": 3}], "messages[0].name"),
    ],
)  # fmt: skip
def test_malformed_requests_name_the_path(messages: list[Any], path: str) -> None:
    with pytest.raises(DecodeError) as info:
        P.parse_messages({"messages": messages})
    assert info.value.path == path


def test_unknown_parts_are_kept_and_re_sent_only_to_their_provider() -> None:
    video = {"type": "video_url", "video_url": {"url": "https://x.test/v.mp4"}}
    wire = {
        "role": "user",
        "content": [{"type": "text", "text": "a"}, video, {"type": "text", "text": "b"}],
    }
    (m,) = P.parse_messages({"messages": [wire]})
    assert m.text == "ab"
    assert unknown_blocks(m) == [{"path": "messages[0].content[1]", "type": "video_url"}]
    conversion = P.convert([m])
    assert conversion.losses == ()
    assert conversion.body["messages"] == [wire]
    conversion = get_provider("ollama").convert([m])
    assert conversion.body["messages"] == [{"role": "user", "content": "ab"}]
    (loss,) = conversion.losses
    assert (loss.path, loss.what) == ("messages[0]", "openai video_url block")


def test_opaque_state_of_another_provider_on_a_call_is_a_loss() -> None:
    call = ToolCall("c1", "f", {}, extras={"gemini": {"thought_signature": "c2ln"}})
    conversion = P.convert([Message.assistant(None, [call]), Message.tool_result("c1", "ok")])
    assert "extras" not in json.dumps(conversion.body)
    (loss,) = conversion.losses
    assert (loss.path, loss.what) == (
        "messages[0].tool_calls[0]",
        "opaque state from gemini on a tool call",
    )


def test_tool_message_without_id_pairs_with_the_open_call() -> None:
    ms = P.parse_messages(
        {
            "messages": [
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "c9", "function": {"name": "f", "arguments": "{}"}}],
                },
                {"role": "tool", "content": "ok"},
            ]
        }
    )
    assert ms[1].tool_call_id == "c9"  # type: ignore[attr-defined]


# -- streaming --------------------------------------------------------------------------


def _chunk(
    delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any
) -> dict[str, Any]:
    choice: dict[str, Any] = {"index": 0, "delta": delta or {}, "finish_reason": finish}
    return {"id": "chatcmpl-s", "model": "gpt-x", "choices": [choice], **extra}


def test_refusal_deltas_are_joined_apart_from_text() -> None:
    r, _ = run_stream(
        P, [_chunk({"refusal": "I can"}), _chunk({"refusal": "'t."}), _chunk(finish="stop")]
    )
    assert (r.text, r.refusal) == ("", "I can't.")


def test_truncated_stream_finishes_with_what_it_has() -> None:
    events = [
        _chunk({"content": "Hel"}),
        _chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "c1", "function": {"name": "f", "arguments": '{"a":'}}
                ]
            }
        ),
    ]
    r, _ = run_stream(P, events)
    assert r.text == "Hel"
    assert r.finish_reason is FinishReason.ERROR
    assert r.provider_finish_reason is None
    assert r.error is not None and "truncated" in r.error
    assert r.tool_calls == ()
    assert r.invalid_tool_calls[0].raw_arguments == '{"a":'


def test_a_new_id_at_the_same_index_starts_a_new_call() -> None:
    events = [
        _chunk(
            {"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": "{}"}}]}
        ),
        _chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "b", "function": {"name": "g", "arguments": '{"x":'}}
                ]
            }
        ),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]}),
        _chunk(finish="tool_calls"),
    ]
    r, deltas = run_stream(P, events)
    assert [(c.id, c.name, dict(c.arguments)) for c in r.tool_calls] == [
        ("a", "f", {}),
        ("b", "g", {"x": 1}),
    ]
    assert [d.tool_call.index for d in deltas if d.tool_call] == [0, 1, 1]


def test_stream_without_ids_derives_stable_ones() -> None:
    events = [
        _chunk({"tool_calls": [{"index": 0, "function": {"name": "f", "arguments": "{}"}}]}),
        _chunk(finish="tool_calls"),
    ]
    first, _ = run_stream(P, events)
    again, _ = run_stream(P, events)
    assert first.tool_calls[0].id == again.tool_calls[0].id
    assert is_derived_id(first.tool_calls[0].id)


@pytest.mark.parametrize(
    ("event", "path"),
    [
        ([], "$"),
        ({"choices": {"0": {}}}, "choices"),
        ({"choices": [{"delta": {"content": 1}}]}, "choices[0].delta.content"),
        ({"choices": [{"delta": {"tool_calls": [{"index": -1}]}}]}, "choices[0].delta.tool_calls[0].index"),
        ({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"name": 2}}]}}]}, "choices[0].delta.tool_calls[0].function.name"),
        ({"choices": [], "usage": {"completion_tokens": "x"}}, "usage.completion_tokens"),
    ],
)  # fmt: skip
def test_malformed_chunks_name_the_path(event: Any, path: str) -> None:
    with pytest.raises(DecodeError) as info:
        P.stream().feed(event)
    assert info.value.path == path


# -- fuzzing ------------------------------------------------------------------------------

_FIXTURES = [(e, load_fixture(e)) for e in ENTRIES]


@settings(max_examples=150)
@given(json_values)
def test_fuzz_parsers_raise_only_decode_error(value: Any) -> None:
    accepts_or_decode_error(P.parse_response, value)
    accepts_or_decode_error(P.parse_messages, value)
    feed_all_or_decode_error(P, [value, value])


@settings(max_examples=150)
@given(st.sampled_from(_FIXTURES), mutations)
def test_fuzz_mutated_fixtures_raise_only_decode_error(fixture: Any, mutation: Any) -> None:
    entry, data = fixture
    path, replacement = mutation
    broken = mutate(data, path, replacement)
    mutated_only_decode_error(P, entry, broken)


def test_deeply_nested_arguments_are_an_invalid_call_not_a_crash() -> None:
    deep = "[" * 5000 + "]" * 5000
    calls = [{"id": "a", "function": {"name": "f", "arguments": '{"x":' + deep + "}"}}]
    r = P.parse_response(_response({"tool_calls": calls}))
    assert r.tool_calls == () and len(r.invalid_tool_calls) == 1
    nested: Any = "x"
    for _ in range(3000):
        nested = [nested]
    accepts_or_decode_error(P.parse_response, _response({"content": nested}))
    assert json.dumps(P.convert([Message.user("ok")]).body)


# -- the fast builders equal the validated constructors ---------------------------------


@pytest.mark.parametrize(
    ("text", "reasoning", "calls"),
    [
        ("hi", None, ()),
        ("", None, ()),
        ("hi", "because", ()),
        ("", "because", ()),
        ("", None, (ToolCall("a", "f", {"x": 1}),)),
        ("hi", "because", (ToolCall("a", "f", {}), ToolCall("b", "g", {}))),
    ],
)
def test_respond_builds_what_build_assistant_builds(
    text: str, reasoning: str | None, calls: tuple[ToolCall, ...]
) -> None:
    usage = Usage(3, 4, 7, cached_input_tokens=1)
    fast = respond(text, reasoning, "openai", calls, usage, {"openai": {"refusal": "r"}})
    parts = (ReasoningPart(reasoning, provider="openai"),) if reasoning else ()
    slow = build_assistant(
        text, parts, calls, metadata={"usage": usage.to_dict()}, extras={"openai": {"refusal": "r"}}
    )
    assert type(fast) is type(slow)
    assert fast == slow
    assert fast.content == slow.content
    assert hash(fast) == hash(slow)


def test_fast_usage_and_response_equal_the_dataclasses() -> None:
    assert make_usage(1, 2, 3, 4, None, 5) == Usage(1, 2, 3, 4, None, 5)
    message = Message.assistant("x")
    usage = Usage(1, 2, 3)
    fast = make_response(message, FinishReason.STOP, usage, "m", (), "stop", None, "id", None)
    assert fast == ChatResponse(
        message, FinishReason.STOP, usage, "m", (), "stop", None, "id", None
    )


def test_chunks_of_other_choices_are_not_mixed_in() -> None:
    events = [
        _chunk({"content": "first"}),
        {
            "id": "s",
            "choices": [{"index": 1, "delta": {"content": "second"}, "finish_reason": None}],
        },
        {"id": "s", "choices": [{"index": 1, "delta": {}, "finish_reason": "length"}]},
        _chunk(finish="stop"),
    ]
    r, deltas = run_stream(P, events)
    assert (r.text, r.finish_reason) == ("first", FinishReason.STOP)
    assert len(deltas) == 1


def test_custom_tool_calls_are_kept_as_invalid_calls() -> None:
    calls = [
        {"id": "c1", "type": "custom", "custom": {"name": "grammar", "input": "SELECT 1"}},
        {"id": "c2", "type": "function", "function": {"name": "f", "arguments": "{}"}},
    ]
    r = P.parse_response(_response({"content": None, "tool_calls": calls}))
    assert [c.id for c in r.tool_calls] == ["c2"]
    (bad,) = r.invalid_tool_calls
    assert (bad.id, bad.name, bad.raw_arguments) == ("c1", "grammar", "SELECT 1")


def test_legacy_function_call_and_function_role_are_imported() -> None:
    # Deprecated but still accepted by the API: one function_call per assistant
    # turn, answered by a role "function" message naming the function.
    ms = P.parse_messages(
        [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            },
            {"role": "function", "name": "get_weather", "content": "18C"},
            {"role": "assistant", "content": "18C in Paris."},
        ]
    )
    call_turn, result = ms[1], ms[2]
    assert isinstance(call_turn, ToolCallMessage) and isinstance(result, ToolResultMessage)
    [call] = call_turn.tool_calls
    assert (call.name, dict(call.arguments)) == ("get_weather", {"city": "Paris"})
    assert call.arguments_json == '{"city": "Paris"}'
    assert (result.tool_call_id, result.tool_name, result.text) == (call.id, "get_weather", "18C")
    ConversationHistory(ms, policy=OrderingPolicy.lenient()).validate()
    # formatted again in the current shape: tool_calls and a tool message
    sent = P.convert(ms).body["messages"]
    assert sent[1]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert sent[2] == {"role": "tool", "tool_call_id": call.id, "content": "18C"}


def test_legacy_function_call_with_bad_arguments_is_an_invalid_call() -> None:
    (m,) = P.parse_messages(
        [{"role": "assistant", "function_call": {"name": "f", "arguments": "{"}}]
    )
    assert isinstance(m, ToolCallMessage) and m.tool_calls == ()
    (bad,) = m.invalid_tool_calls
    assert (bad.name, bad.raw_arguments) == ("f", "{")
    assert bad.error.startswith("[0].function_call.arguments")
    with pytest.raises(DecodeError) as info:
        P.parse_messages([{"role": "assistant", "function_call": {"arguments": "{}"}}])
    assert info.value.path == "[0].function_call.name"


def test_unanswered_calls_get_an_error_result_and_orphan_results_are_dropped() -> None:
    # OpenAI rejects an assistant tool_calls turn not followed by a tool message
    # per call, and a tool message that answers no call: each is fixed, a Loss.
    two = Message.assistant(None, [ToolCall("c1", "f", {}), ToolCall("c2", "f", {})])
    ms = [
        Message.user("q"),
        two,
        Message.tool_result("c1", "ok"),
        Message.user("next"),
        Message.tool_result("c9", "late"),
        Message.assistant(None, [ToolCall("c3", "f", {}), ToolCall("c4", "f", {})]),
        Message.tool_result("c4", "d"),
    ]
    for name in ("openai", "groq"):
        conversion = get_provider(name).convert(ms)
        sent = conversion.body["messages"]
        assert [(m["role"], m.get("tool_call_id")) for m in sent] == [
            ("user", None),
            ("assistant", None),
            ("tool", "c1"),
            ("tool", "c2"),
            ("user", None),
            ("assistant", None),
            ("tool", "c4"),
            ("tool", "c3"),
        ]
        assert sent[3]["content"] == sent[7]["content"] == f"Error: {UNANSWERED_TEXT}"
        assert [(loss.path, loss.what) for loss in conversion.losses] == [
            ("messages[1].tool_calls[1]", "unanswered tool call"),
            ("messages[4]", "tool result that answers no open call"),
            ("messages[5].tool_calls[0]", "unanswered tool call"),
        ]
        with pytest.raises(ValidationError):
            get_provider(name).format_request(ms, strict=True)
    # vLLM serves any sequence: sent as it is
    sent = get_provider("vllm").convert(ms).body["messages"]
    assert [(m["role"], m.get("tool_call_id")) for m in sent] == [
        ("user", None),
        ("assistant", None),
        ("tool", "c1"),
        ("user", None),
        ("tool", "c9"),
        ("assistant", None),
        ("tool", "c4"),
    ]


def test_a_last_turn_with_no_result_yet_is_left_pending() -> None:
    # as repair and ConversationHistory see it: a tool may still be running
    ms = [Message.user("q"), Message.assistant(None, [ToolCall("c1", "f", {})])]
    conversion = P.convert(ms)
    assert conversion.losses == ()
    assert len(conversion.body["messages"]) == 2


def test_results_in_any_order_pair_and_add_no_loss() -> None:
    ms = [
        Message.user("q"),
        Message.assistant(None, [ToolCall("c1", "f", {}), ToolCall("c2", "f", {})]),
        Message.tool_result("c2", "b"),
        Message.tool_result("c1", "a"),
        Message.assistant("done"),
    ]
    conversion = P.convert(ms)
    assert conversion.losses == ()
    assert len(conversion.body["messages"]) == 5


@pytest.mark.parametrize("name", ["openai", "groq", "vllm", "ollama"])
def test_parse_tools_reads_back_what_format_tools_wrote(name: str) -> None:
    p = get_provider(name)
    weather = ToolDefinition("get_weather", "Weather for a city.", WEATHER, strict=False)
    closed = ToolDefinition("get_time", "Time in a zone.", WEATHER, strict=True)
    for tools in ([weather], [weather, closed]):
        wire = p.format_tools(tools)
        assert p.format_tools(p.parse_tools({"tools": wire})) == wire
        assert p.format_tools(p.parse_tools(wire)) == wire
    strict = p.parse_tools(p.format_tools([closed]))[0].strict
    assert strict is (name == "openai")  # only OpenAI has a strict flag to read


def test_parse_tools_skips_non_function_tools_and_names_bad_entries() -> None:
    wire = [
        {"type": "custom", "custom": {"name": "grammar"}},
        {"type": "function", "function": {"name": "f"}},
    ]
    [tool] = P.parse_tools(wire)
    assert (tool.name, tool.description, dict(tool.parameters)) == (
        "f",
        "f",
        {"type": "object", "properties": {}},
    )
    assert P.parse_tools({"messages": []}) == []
    for bad, path in (
        ({"tools": 3}, "tools"),
        ([{"type": "function", "function": {"name": "a b"}}], "[0].function.name"),
        ([{"type": "function", "function": {"name": "f", "parameters": {"type": "array"}}}], "[0].function.parameters"),
    ):  # fmt: skip
        with pytest.raises(DecodeError) as info:
            P.parse_tools(bad)
        assert info.value.path.startswith(path)


def test_an_audio_answer_is_kept_and_referred_to_by_its_id() -> None:
    audio = {"id": "audio_abc", "data": "UklG", "expires_at": 1729018505, "transcript": "Hi"}
    r = P.parse_response(_response({"content": None, "audio": audio}))
    assert r.message.extras["openai"]["audio"] == audio
    turn = [Message.user("hi"), r.message, Message.user("again")]
    sent = P.convert(turn)
    assert sent.body["messages"][1] == {"role": "assistant", "audio": {"id": "audio_abc"}}
    assert sent.losses == ()
    # imported from a request, it goes back the same way
    wire = [{"role": "user", "content": "hi"}, {"role": "assistant", "audio": {"id": "audio_abc"}}]
    assert P.convert(P.parse_messages(wire)).body["messages"] == wire
    # another provider cannot refer to it: a Loss, not a silent drop
    losses = get_provider("anthropic").convert(turn).losses
    assert ("messages[1]", "audio answer from openai") in [(x.path, x.what) for x in losses]


def test_a_system_message_between_a_call_and_its_results_goes_after_them() -> None:
    # the API wants the tool messages right after the assistant message with the calls
    ms = [
        Message.user("q"),
        Message.assistant(None, [ToolCall("a", "f", {}), ToolCall("b", "f", {})]),
        Message.tool_result("a", "1"),
        Message.system("Be brief."),
        Message.tool_result("b", "2"),
        Message.assistant("done"),
    ]
    conversion = P.convert(ms)
    assert [(m["role"], m.get("tool_call_id")) for m in conversion.body["messages"]] == [
        ("user", None),
        ("assistant", None),
        ("tool", "a"),
        ("tool", "b"),
        ("system", None),
        ("assistant", None),
    ]
    assert [(loss.path, loss.what) for loss in conversion.losses] == [
        ("messages[3]", "system message between a tool call and its results")
    ]


def test_held_system_messages_keep_their_order_and_media_stay_after_the_results() -> None:
    image = ImagePart(url="https://x.test/a.png")
    ms = [
        Message.user("q"),
        Message.assistant(None, [ToolCall("a", "f", {}), ToolCall("b", "f", {})]),
        Message.tool_result("a", [image]),
        Message.system("S1"),
        Message.tool_result("b", "r"),
        Message.system("S2"),
        Message.user("go on"),
    ]
    sent = P.convert(ms).body["messages"]
    assert [
        (m["role"], m.get("tool_call_id"), m.get("content")) for m in sent if m["role"] != "user"
    ] == [
        ("assistant", None, None),
        ("tool", "a", sent[2]["content"]),
        ("tool", "b", "r"),
        ("system", None, "S1"),
        ("system", None, "S2"),
    ]
    roles = [m["role"] for m in sent]
    assert roles == ["user", "assistant", "tool", "tool", "user", "system", "system", "user"]
