"""Gemini provider: regressions from the audit (ids, schemas, signatures, order, files, pairing)."""

from __future__ import annotations

import copy
import warnings
from typing import Any

import pytest

from messages import (
    FilePart,
    Message,
    TextPart,
    ToolCall,
    ToolCallAccumulator,
    ToolCallMessage,
    ToolDefinition,
    ValidationError,
)
from messages._ids import DERIVED_ID_PREFIX, derive_call_id
from messages._repair import UNANSWERED_TEXT
from messages.providers import LossWarning, get_provider
from messages.providers.gemini import DUMMY_SIGNATURE, PROVIDER

ANTHROPIC = get_provider("anthropic")
SIG = "c2lnbmF0dXJl"


def _response(parts: list[Any], response_id: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]
    }
    if response_id is not None:
        body["responseId"] = response_id
    return body


def _fc(args: Any, name: str = "get_weather") -> dict[str, Any]:
    return {"functionCall": {"name": name, "args": args}}


def _chunk(parts: list[Any], finish: str | None = None) -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"role": "model", "parts": parts}}
    if finish is not None:
        cand["finishReason"] = finish
    return {"candidates": [cand]}


def _convert(ms: list[Message]) -> Any:
    conversion = PROVIDER.convert(ms)
    # format_request gives the same body (it warns once per loss instead)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LossWarning)
        assert PROVIDER.format_request(ms) == conversion.body
    return conversion


# -- 1. derived ids: stable, and different for different calls ---------------------------


def test_calls_without_ids_of_two_responses_without_response_id_get_different_ids() -> None:
    paris = PROVIDER.parse_response(_response([_fc({"city": "Paris"})])).message
    tokyo = PROVIDER.parse_response(_response([_fc({"city": "Tokyo"})])).message
    assert paris.tool_calls[0].id != tokyo.tool_calls[0].id
    # a conversation holding both goes to Anthropic with distinct tool_use ids
    ms = [
        Message.user("Paris?"),
        paris,
        Message.tool_result(paris.tool_calls[0].id, "18C"),
        Message.assistant("18C."),
        Message.user("Tokyo?"),
        tokyo,
        Message.tool_result(tokyo.tool_calls[0].id, "24C"),
    ]
    body = ANTHROPIC.convert(ms).body
    ids = [
        block["id"]
        for m in body["messages"]
        if isinstance(m["content"], list)
        for block in m["content"]
        if block.get("type") == "tool_use"
    ]
    assert len(ids) == len(set(ids)) == 2


def test_derived_ids_are_stable_whatever_the_key_order() -> None:
    one = PROVIDER.parse_response(_response([_fc({"a": 1, "b": {"y": 2, "x": [1]}})]))
    two = PROVIDER.parse_response(_response([_fc({"b": {"x": [1], "y": 2}, "a": 1})]))
    again = PROVIDER.parse_response(_response([_fc({"a": 1, "b": {"y": 2, "x": [1]}})]))
    assert one.message.tool_calls[0].id == two.message.tool_calls[0].id
    assert one.message.tool_calls[0].id == again.message.tool_calls[0].id


def test_with_a_response_id_derived_ids_are_unchanged() -> None:
    # keyed by the responseId, position and name, as before: stored ids stay valid
    message = PROVIDER.parse_response(_response([_fc({"city": "Paris"})], "RID")).message
    expected = derive_call_id(DERIVED_ID_PREFIX, "gemini", "RID", 0, "get_weather")
    assert message.tool_calls[0].id == expected


@pytest.mark.parametrize("response_id", [None, "RID"])
def test_stream_and_parse_response_give_the_same_ids(response_id: str | None) -> None:
    parts = [_fc({"city": "Paris"}), _fc({"city": "Tokyo", "unit": "c"}), _fc(None, "now")]
    whole = PROVIDER.parse_response(_response(parts, response_id)).message
    stream = PROVIDER.stream()
    for part in parts:
        chunk = _chunk([part])
        if response_id is not None:
            chunk["responseId"] = response_id
        stream.feed(chunk)
    stream.feed(_chunk([], "STOP"))
    streamed = stream.finish().message
    assert [c.id for c in streamed.tool_calls] == [c.id for c in whole.tool_calls]
    assert len({c.id for c in whole.tool_calls}) == 3


@pytest.mark.parametrize("response_id", [None, "RID"])
def test_streamed_partial_args_give_the_id_of_the_whole_call(response_id: str | None) -> None:
    whole = PROVIDER.parse_response(_response([_fc({"city": "Paris", "unit": "c"})], response_id))
    events = [
        _chunk([{"functionCall": {"name": "get_weather", "willContinue": True}}]),
        _chunk(
            [
                {
                    "functionCall": {
                        "partialArgs": [
                            {"jsonPath": "$.unit", "stringValue": "c"},
                            {"jsonPath": "$.city", "stringValue": "Par", "willContinue": True},
                        ],
                        "willContinue": True,
                    }
                }
            ]
        ),
        _chunk([{"functionCall": {"partialArgs": [{"jsonPath": "$.city", "stringValue": "is"}]}}]),
        _chunk([], "STOP"),
    ]
    stream = PROVIDER.stream()
    acc = ToolCallAccumulator()
    for event in events:
        if response_id is not None:
            event["responseId"] = response_id
        for delta in stream.feed(event):
            if delta.tool_call is not None:
                acc.feed(delta.tool_call)
    want = whole.message.tool_calls[0].id
    assert stream.finish().message.tool_calls[0].id == want
    assert [c.id for c in acc.tool_calls()] == [want]


def test_imported_requests_key_calls_by_their_arguments() -> None:
    def request(city: str) -> dict[str, Any]:
        return {
            "contents": [
                {"role": "user", "parts": [{"text": "q"}]},
                {"role": "model", "parts": [_fc({"city": city})]},
            ]
        }

    paris = PROVIDER.parse_messages(request("Paris"))[1].tool_calls[0].id
    tokyo = PROVIDER.parse_messages(request("Tokyo"))[1].tool_calls[0].id
    assert paris != tokyo
    assert PROVIDER.parse_messages(request("Paris"))[1].tool_calls[0].id == paris
    # the results pair by name and order with the same derived id
    body = request("Paris")
    body["contents"].append(
        {
            "role": "user",
            "parts": [{"functionResponse": {"name": "get_weather", "response": {"output": "x"}}}],
        }
    )
    ms = PROVIDER.parse_messages(body)
    assert ms[2].tool_call_id == paris  # type: ignore[attr-defined]
    assert PROVIDER.convert(ms).body == body


# -- 2. tool schemas ---------------------------------------------------------------------


def _declaration(tool: ToolDefinition) -> tuple[dict[str, Any], tuple[Any, ...]]:
    conversion = PROVIDER.convert([Message.user("q")], [tool])
    return conversion.body["tools"][0]["functionDeclarations"][0], conversion.losses


def test_a_free_form_map_argument_goes_as_parameters_json_schema() -> None:
    def save(fields: dict[str, str], note: str = "") -> None:
        """Save the fields."""

    tool = ToolDefinition.from_function(save)
    decl, losses = _declaration(tool)
    assert "parameters" not in decl  # Gemini rejects {"type": "object"} with no properties
    assert decl["parametersJsonSchema"]["properties"]["fields"] == {
        "type": "object",
        "additionalProperties": {"type": "string"},
    }
    assert decl["parametersJsonSchema"]["required"] == ["fields"]
    assert losses == ()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert PROVIDER.format_tools([tool]) == [{"functionDeclarations": [decl]}]


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "additionalProperties": {"type": "string"}},
        {"type": "object", "additionalProperties": True},
        {"type": "object", "properties": {"m": {"type": "object"}}},
        {"type": "object", "properties": {"m": {"type": ["object", "null"]}}},
        {
            "type": "object",
            "properties": {"xs": {"type": "array", "items": {"type": "object"}}},
        },
    ],
)
def test_objects_without_properties_are_never_sent_as_parameters(schema: dict[str, Any]) -> None:
    decl, losses = _declaration(ToolDefinition("t", "A tool.", schema, strict=False))
    assert decl["parametersJsonSchema"] == schema
    assert "parameters" not in decl
    assert losses == ()


def test_a_tool_without_arguments_still_has_no_parameters() -> None:
    for schema in (
        {"type": "object", "properties": {}},
        {"type": "object", "additionalProperties": False},
    ):
        decl, losses = _declaration(ToolDefinition("t", "A tool.", schema))
        assert decl == {"name": "t", "description": "A tool."}
        assert losses == ()


def test_an_enum_with_null_becomes_a_nullable_string_enum() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": ["string", "null"], "enum": ["a", "b", None]}},
    }
    decl, losses = _declaration(ToolDefinition("t", "A tool.", schema, strict=False))
    assert decl["parameters"]["properties"]["a"] == {
        "type": "string",
        "enum": ["a", "b"],
        "nullable": True,
    }
    assert losses == ()


# -- 3. the dummy thought signature for calls Gemini did not make --------------------------


def _calls_turn(*calls: ToolCall) -> list[Message]:
    return [
        Message.user("q"),
        ToolCallMessage(calls),
        *(Message.tool_result(c.id, "r") for c in calls),
    ]


def test_other_providers_calls_in_the_current_turn_get_the_dummy_signature() -> None:
    a = ToolCall("toolu_01", "get_weather", {"city": "Paris"})
    b = ToolCall("toolu_02", "get_weather", {"city": "Tokyo"})
    c = ToolCall("toolu_03", "get_time", {})
    ms = [*_calls_turn(a, b), Message.assistant(None, [c]), Message.tool_result(c.id, "12:00")]
    conversion = _convert(ms)
    contents = conversion.body["contents"]
    # each step of the turn: the first functionCall part only (as Gemini signs parallel calls)
    assert contents[1]["parts"][0]["thoughtSignature"] == DUMMY_SIGNATURE
    assert "thoughtSignature" not in contents[1]["parts"][1]
    assert contents[3]["parts"][0]["thoughtSignature"] == DUMMY_SIGNATURE
    assert conversion.losses == ()  # nothing is lost


def test_earlier_turns_are_not_given_a_signature() -> None:
    a = ToolCall("call_a", "f", {})
    b = ToolCall("call_b", "f", {})
    ms = [*_calls_turn(a), Message.assistant("done"), *_calls_turn(b)]
    contents = _convert(ms).body["contents"]
    assert "thoughtSignature" not in contents[1]["parts"][0]  # not validated: left alone
    assert contents[5]["parts"][0]["thoughtSignature"] == DUMMY_SIGNATURE
    # a new user text starts a new turn: nothing of the conversation is current
    contents = _convert([*ms, Message.assistant("ok"), Message.user("hi")]).body["contents"]
    assert not any("thoughtSignature" in p for c in contents for p in c["parts"])


def test_geminis_own_calls_are_sent_back_as_they_came() -> None:
    signed = ToolCall("2j16dcfx", "f", {}, extras={"gemini": {"thought_signature": SIG}})
    derived = ToolCall("call_derived_" + "0" * 24, "f", {})  # a call Gemini sent without an id
    for call, expected in ((signed, {"thoughtSignature": SIG}), (derived, {})):
        contents = _convert(_calls_turn(call)).body["contents"]
        assert {k: v for k, v in contents[1]["parts"][0].items() if k != "functionCall"} == (
            expected
        )


def test_imported_calls_with_ids_and_no_signature_round_trip_unchanged() -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "q"}]},
            {
                "role": "model",
                "parts": [
                    {"functionCall": {"id": "a1", "name": "f", "args": {}}},
                    {"functionCall": {"id": "a2", "name": "f", "args": {"x": 1}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"id": "a1", "name": "f", "response": {"output": "1"}}},
                    {"functionResponse": {"id": "a2", "name": "f", "response": {"output": "2"}}},
                ],
            },
        ]
    }
    ms = PROVIDER.parse_messages(copy.deepcopy(body))
    assert PROVIDER.convert(ms).body == body


# -- 4. a signature on a text part stays in the message's Gemini extras ----------------------


def test_a_text_signature_is_kept_for_gemini_in_the_message_extras() -> None:
    message = PROVIDER.parse_response(_response([{"text": "hi", "thoughtSignature": SIG}])).message
    assert message.extras["gemini"]["text_signature"] == SIG
    body = PROVIDER.convert([Message.user("q"), message]).body
    assert body["contents"][1]["parts"] == [{"text": "hi", "thoughtSignature": SIG}]


# -- 5. unknown parts keep their place between text parts ----------------------------------

CODE = {"executableCode": {"language": "PYTHON", "code": "print(sum(range(10)))"}}
RESULT = {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "45\n"}}
INTERLEAVED = [{"text": "Let me compute."}, CODE, RESULT, {"text": " The sum is 45."}]


def test_response_parts_keep_their_order_around_unknown_parts() -> None:
    message = PROVIDER.parse_response(_response(copy.deepcopy(INTERLEAVED))).message
    assert message.text == "Let me compute. The sum is 45."
    body = PROVIDER.convert([Message.user("q"), message]).body
    assert body["contents"][1]["parts"] == INTERLEAVED


def test_thoughts_and_calls_keep_their_place_too() -> None:
    parts = [
        {"text": "plan", "thought": True},
        {"text": "a"},
        CODE,
        {"text": "b"},
        {"functionCall": {"id": "c1", "name": "f", "args": {}}, "thoughtSignature": SIG},
    ]
    message = PROVIDER.parse_response(_response(copy.deepcopy(parts))).message
    assert message.text == "ab"
    body = PROVIDER.convert([Message.user("q"), message]).body
    assert body["contents"][1]["parts"] == parts


def test_a_streamed_turn_keeps_its_order_around_unknown_parts() -> None:
    stream = PROVIDER.stream()
    for parts in (
        [{"text": "Let me"}],
        [{"text": " compute."}],
        [CODE],
        [RESULT, {"text": " The sum"}],
        [{"text": " is 45."}],
    ):
        stream.feed(_chunk(parts))
    stream.feed(_chunk([{"text": ""}], "STOP"))
    message = stream.finish().message
    assert message.text == "Let me compute. The sum is 45."
    body = PROVIDER.convert([Message.user("q"), message]).body
    assert body["contents"][1]["parts"] == INTERLEAVED


def test_imported_requests_keep_their_order_around_unknown_parts() -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "q"}]},
            {"role": "model", "parts": copy.deepcopy(INTERLEAVED)},
        ]
    }
    ms = PROVIDER.parse_messages(copy.deepcopy(body))
    assert ms[1].text == "Let me compute. The sum is 45."
    assert PROVIDER.convert(ms).body == body


# -- 6. another provider's file ids -----------------------------------------------------------


def test_another_providers_file_id_is_dropped_with_a_loss() -> None:
    ms = [Message.user([TextPart("Summarize."), FilePart(file_id="file_011CNha8iCJcU1wXNR6q4V8w")])]
    conversion = PROVIDER.convert(ms)
    assert conversion.body["contents"] == [{"role": "user", "parts": [{"text": "Summarize."}]}]
    assert [(x.path, x.what) for x in conversion.losses] == [
        ("messages[0].content[1]", "file id of another provider")
    ]
    with pytest.raises(ValidationError):
        PROVIDER.format_request(ms, strict=True)


def test_a_file_id_with_inline_data_sends_the_data() -> None:
    part = FilePart(data="JVBERg==", file_id="file-abc123", media_type="application/pdf")
    conversion = PROVIDER.convert([Message.user([part])])
    assert conversion.body["contents"][0]["parts"] == [
        {"inlineData": {"mimeType": "application/pdf", "data": "JVBERg=="}}
    ]
    assert [x.path for x in conversion.losses] == ["messages[0].content[0].file_id"]


@pytest.mark.parametrize(
    "uri",
    [
        "https://generativelanguage.googleapis.com/v1beta/files/abc-123",
        "gs://bucket/doc.pdf",
        "https://example.com/report.pdf",
    ],
)
def test_file_uris_go_as_file_data(uri: str) -> None:
    conversion = PROVIDER.convert([Message.user([FilePart(file_id=uri)])])
    assert conversion.body["contents"][0]["parts"][0]["fileData"]["fileUri"] == uri
    assert conversion.losses == ()


# -- 7. unanswered tool calls --------------------------------------------------------------

LOSS = (
    "unanswered tool call",
    "answered with an error result: Gemini requires a response for every call",
)


def _two_calls() -> list[Message]:
    return [
        Message.user("q"),
        Message.assistant(None, [ToolCall("a1", "f", {}), ToolCall("a2", "g", {"x": 1})]),
        Message.tool_result("a1", "ok"),
    ]


@pytest.mark.parametrize(
    "after", [[], [Message.user("next")], [Message.assistant("done")]], ids=["end", "user", "model"]
)
def test_an_unanswered_call_is_answered_with_an_error(after: list[Message]) -> None:
    ms = [*_two_calls(), *after]
    conversion = PROVIDER.convert(ms)
    responses = [p for p in conversion.body["contents"][2]["parts"] if "functionResponse" in p]
    assert responses == [
        {"functionResponse": {"id": "a1", "name": "f", "response": {"output": "ok"}}},
        {"functionResponse": {"id": "a2", "name": "g", "response": {"error": UNANSWERED_TEXT}}},
    ]
    assert [(x.path, x.what, x.rule) for x in conversion.losses] == [
        ("messages[1].tool_calls[1]", *LOSS)
    ]
    with pytest.warns(LossWarning, match=r"messages\[1\]\.tool_calls\[1\]: unanswered tool call"):
        PROVIDER.format_request(ms)
    with pytest.raises(ValidationError, match="unanswered tool call"):
        PROVIDER.format_request(ms, strict=True)


def test_calls_without_any_result_before_the_next_user_message() -> None:
    derived = "call_derived_" + "1" * 24
    ms = [
        Message.user("q"),
        Message.assistant(None, [ToolCall("a1", "f", {}), ToolCall(derived, "g", {})]),
        Message.user("never mind"),
    ]
    conversion = PROVIDER.convert(ms)
    assert conversion.body["contents"][2]["parts"] == [
        {"functionResponse": {"id": "a1", "name": "f", "response": {"error": UNANSWERED_TEXT}}},
        {"functionResponse": {"name": "g", "response": {"error": UNANSWERED_TEXT}}},
        {"text": "never mind"},
    ]
    assert [x.path for x in conversion.losses] == [
        "messages[1].tool_calls[0]",
        "messages[1].tool_calls[1]",
    ]


def test_a_conversation_may_end_while_its_tools_run() -> None:
    ms = _two_calls()[:2]
    conversion = _convert(ms)
    assert conversion.losses == ()
    assert len(conversion.body["contents"]) == 2
