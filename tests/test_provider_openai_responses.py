"""OpenAI Responses: the fixture corpus, formatting rules and losses, responses, request
import, the state kept for the round trip, origins, server-side continuation, fuzzing.

Streams are in ``test_provider_openai_responses_stream.py``; request shapes checked
with the official SDK's types in ``test_provider_openai_responses_sdk.py``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    AssistantMessage,
    AudioPart,
    ConversationHistory,
    DecodeError,
    DeveloperMessage,
    FilePart,
    ImagePart,
    InvalidToolCall,
    Message,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolCallMessage,
    ToolDefinition,
    ToolResultMessage,
    UserMessage,
    ValidationError,
    from_json,
    to_json,
)
from messages._cli import main
from messages.providers import (
    ChatResponse,
    FinishReason,
    LossWarning,
    Usage,
    get_provider,
)
from messages.providers.openai_responses import PROVIDER, OpenAIResponsesProvider
from tests.conftest import FIXTURES, SECRET, fixture_entries, load_fixture
from tests.fixture_checks import mutate, mutations, paths
from tests.provider_facts import compare_messages, compare_response, unknown_blocks
from tests.provider_fidelity import accepts_or_decode_error, json_values
from tests.strategies import message_lists

P: OpenAIResponsesProvider = PROVIDER
ENTRIES = fixture_entries("openai_responses")
NAME = "openai_responses"

#: Request keys that are options, not conversation (never formatted back).
OPTIONS = frozenset(
    (
        "model",
        "store",
        "include",
        "reasoning",
        "tool_choice",
        "parallel_tool_calls",
        "stream",
        "prompt_cache_options",
        "previous_response_id",  # server-side state the request continues from
    )
)


def of_kind(*kinds: str) -> list[dict[str, Any]]:
    return [e for e in ENTRIES if e["kind"] in kinds and not e["file"].endswith(".jsonl")]


def ids(entries: list[dict[str, Any]]) -> list[str]:
    return [e["file"] for e in entries]


def messages_of(text: str) -> list[Message]:
    """A list of messages read back from canonical JSON."""
    value = from_json(text)
    assert isinstance(value, list)
    return value


def fixture(name: str) -> Any:
    return copy.deepcopy(json.loads((FIXTURES / NAME / name).read_text(encoding="utf-8")))


def test_registered_under_its_name() -> None:
    assert get_provider(NAME) is P
    assert isinstance(P, OpenAIResponsesProvider)
    assert P.name == P.tag == NAME
    assert get_provider("OpenAI_Responses ") is P


def test_every_fixture_file_is_in_the_manifest() -> None:
    files = {str(p.relative_to(FIXTURES)) for p in (FIXTURES / NAME).rglob("*.json*")}
    assert files == {e["file"] for e in ENTRIES}
    assert {e["kind"] for e in ENTRIES} == {
        "request",
        "response",
        "stream",
        "error_response",
        "adversarial",
    }


# -- the corpus ---------------------------------------------------------------------------


def images_with_detail(value: Any) -> Any:
    """``value`` with ``detail: "auto"`` on each ``input_image`` that has none, as the
    formatter sends it (the SDK's ResponseInputImageParam requires a detail)."""
    if isinstance(value, list):
        return [images_with_detail(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: images_with_detail(v) for k, v in value.items()}
    if out.get("type") == "input_image":
        out.setdefault("detail", "auto")
    return out


@pytest.mark.parametrize("entry", of_kind("request"), ids=ids(of_kind("request")))
def test_request_fixture_imports_and_formats_back_the_same_body(entry: dict[str, Any]) -> None:
    data = load_fixture(entry)
    expected = entry["expected"]
    ms = P.parse_messages(data)
    compare_messages(ms, expected["messages"])
    for m, e in zip(ms, expected["messages"], strict=True):
        for got, want in zip(m.reasoning, e.get("reasoning", ()), strict=True):
            layout = m.extras[NAME]["items"]
            assert {"id": want["id"]}.items() <= dict(
                next(
                    x["reasoning"]
                    for x in layout
                    if "reasoning" in x and x["reasoning"]["id"] == want["id"]
                )
            ).items()
            assert got.provider == NAME
    if "unknown_blocks" in expected:
        assert [b for m in ms for b in unknown_blocks(m)] == expected["unknown_blocks"]
    tools = P.parse_tools(data)
    assert [t.name for t in tools] == expected["tools"]
    conversion = P.convert(ms, tools)
    assert conversion.losses == ()
    body = conversion.body
    sent = images_with_detail(data)
    for key, value in body.items():
        assert value == sent[key], key
    function_tools = [t for t in data.get("tools", ()) if t["type"] == "function"]
    for key in data:
        assert key in body or key in OPTIONS or (key == "tools" and not function_tools), key
    assert json.loads(json.dumps(body)) == body
    # The canonical JSON of the conversation keeps everything the wire needs back.
    again = from_json(to_json(ms))
    assert again == ms
    assert P.convert(again, tools).body == body


@pytest.mark.parametrize("entry", of_kind("response"), ids=ids(of_kind("response")))
def test_response_fixture_facts(entry: dict[str, Any]) -> None:
    data = load_fixture(entry)
    expected = entry["expected"]
    r = P.parse_response(data)
    compare_response(r, expected)
    check_consistent(r)
    assert r.id == data["id"]
    assert r.model == data["model"]
    blocks = expected.get("reasoning_blocks")
    if blocks is not None:
        assert [(p.text, p.signature, p.redacted) for p in r.message.reasoning] == [
            (b["text"], b["signature"], b["redacted"]) for b in blocks
        ]
    assert all(p.provider == NAME for p in r.message.reasoning)
    assert unknown_blocks(r.message) == expected.get("unknown_blocks", [])
    if "error" in expected:
        assert r.error == expected["error"]["message"]
        for key, value in expected["error"].items():
            assert r.message.metadata["error"][key] == value


def check_consistent(r: ChatResponse) -> None:
    m = r.message
    assert isinstance(m, AssistantMessage)
    assert m.invalid_tool_calls == r.invalid_tool_calls
    if r.usage is None:
        assert "usage" not in m.metadata
    else:
        assert m.metadata["usage"] == r.usage.to_dict()
    if r.finish_reason is FinishReason.ERROR:
        assert r.error
    else:
        assert r.error is None


WITH_OUTPUT = [e for e in of_kind("response") if load_fixture(e)["output"]]


@pytest.mark.parametrize("entry", WITH_OUTPUT, ids=ids(WITH_OUTPUT))
def test_a_parsed_response_goes_back_as_its_output_items(entry: dict[str, Any]) -> None:
    """The documented loop: the response's output items are sent back as input, unchanged,
    also after the conversation went through canonical JSON."""
    data = load_fixture(entry)
    r = P.parse_response(data)
    ms: list[Message] = [UserMessage("q"), r.message]
    for conversation in (ms, messages_of(to_json(ms))):
        conversion = P.convert(conversation)
        assert conversion.losses == ()
        assert conversion.body["input"][1:] == data["output"]


@pytest.mark.parametrize("entry", of_kind("error_response"), ids=ids(of_kind("error_response")))
def test_error_body_is_an_error_response(entry: dict[str, Any]) -> None:
    data = load_fixture(entry)
    r = P.parse_response(data)
    assert r.finish_reason is FinishReason.ERROR
    assert r.error == data["error"]["message"]
    assert r.message.metadata["error"] == data["error"]
    assert r.usage is None and r.text == "" and r.tool_calls == ()


@pytest.mark.parametrize("entry", of_kind("adversarial"), ids=ids(of_kind("adversarial")))
def test_adversarial_response_fixture(entry: dict[str, Any]) -> None:
    data = load_fixture(entry)
    expected = entry["expected"]
    r = P.parse_response(data)
    check_consistent(r)
    if "raw_arguments" in expected:
        assert r.tool_calls == ()
        (bad,) = r.invalid_tool_calls
        assert bad.raw_arguments == expected["raw_arguments"]
        assert bad.error.startswith(expected["error_field"])
        assert bad.id == data["output"][0]["call_id"]
        assert r.finish_reason is FinishReason.TOOL_CALLS  # the model did call a function
        # sent back as the model wrote it
        body = P.convert([UserMessage("q"), r.message]).body
        assert body["input"][1] == data["output"][0]
        return
    compare_response(r, expected)
    if "unknown_blocks" in expected:
        assert unknown_blocks(r.message) == expected["unknown_blocks"]
    if expected.get("text_contains_lone_surrogate"):
        assert "\ud800" in r.text


# -- formatting ---------------------------------------------------------------------------

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
CALL_A = ToolCall("call_a", "get_weather", {"city": "Paris"})
CALL_B = ToolCall("call_b", "get_time", {})


def fc(call: ToolCall) -> dict[str, Any]:
    return {
        "type": "function_call",
        "call_id": call.id,
        "name": call.name,
        "arguments": call.arguments_json,
    }


def output(call_id: str, value: Any) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": value}


def losses_of(messages: list[Any], tools: Any = ()) -> list[tuple[str, str]]:
    return [(loss.path, loss.what) for loss in P.convert(messages, tools).losses]


def test_a_full_conversation_wire_shape() -> None:
    ms = [
        Message.system("Be brief."),
        Message.user(
            [
                TextPart("Look: "),
                ImagePart(url="https://example.com/a.png", detail="high"),
                ImagePart(data=PNG, media_type="image/png"),
                FilePart(data="JVBERi0=", filename="a.pdf", media_type="application/pdf"),
                FilePart(file_id="file-123"),
                FilePart(file_id="file-img", media_type="image/png"),
            ]
        ),
        Message.assistant("Checking.", [CALL_A, CALL_B]),
        Message.tool_result("call_a", "18C"),
        Message.tool_result(
            "call_b", [TextPart("noon"), ImagePart(data=PNG, media_type="image/png")]
        ),
        Message.developer("Now answer in French."),
        Message.assistant("Fini."),
    ]
    conversion = P.convert(ms)
    assert conversion.losses == ()
    assert conversion.body == {
        "instructions": "Be brief.",
        "input": [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Look: "},
                    {
                        "type": "input_image",
                        "image_url": "https://example.com/a.png",
                        "detail": "high",
                    },
                    {
                        "type": "input_image",
                        "image_url": f"data:image/png;base64,{PNG}",
                        "detail": "auto",
                    },
                    {
                        "type": "input_file",
                        "file_data": "data:application/pdf;base64,JVBERi0=",
                        "filename": "a.pdf",
                    },
                    {"type": "input_file", "file_id": "file-123"},
                    {"type": "input_image", "file_id": "file-img", "detail": "auto"},
                ],
            },
            {"role": "assistant", "content": "Checking."},
            fc(CALL_A),
            fc(CALL_B),
            output("call_a", "18C"),
            output(
                "call_b",
                [
                    {"type": "input_text", "text": "noon"},
                    {
                        "type": "input_image",
                        "image_url": f"data:image/png;base64,{PNG}",
                        "detail": "auto",
                    },
                ],
            ),
            {"role": "developer", "content": "Now answer in French."},
            {"role": "assistant", "content": "Fini."},
        ],
    }
    back = P.parse_messages(conversion.body)
    assert [type(m) for m in back] == [type(m) for m in ms]
    assert back[2].tool_calls == ms[2].tool_calls
    assert [m.text for m in back] == [m.text for m in ms]
    assert back[4].parts == ms[4].parts


def test_leading_developer_message_is_the_instructions_and_later_system_stays_in_place() -> None:
    body = P.convert([Message.developer("Dev."), Message.user("hi"), Message.system("Sys.")]).body
    assert body == {
        "instructions": "Dev.",
        "input": [{"role": "user", "content": "hi"}, {"role": "system", "content": "Sys."}],
    }


def test_name_metadata_and_extras_are_never_sent() -> None:
    m = Message.user("hi", name="alice", metadata={"k": SECRET}, extras={"x": SECRET})
    conversion = P.convert([m])
    assert conversion.body == {"input": [{"role": "user", "content": "hi"}]}
    assert [(x.path, x.what) for x in conversion.losses] == [("messages[0].name", "message name")]
    assert SECRET not in json.dumps(conversion.body)


CASES: list[tuple[str, list[Any], list[dict[str, Any]], list[tuple[str, str]]]] = [
    (
        "an error result is prefixed",
        [Message.assistant(None, [CALL_A]), ToolResultMessage("call_a", "boom", is_error=True)],
        [fc(CALL_A), output("call_a", "Error: boom")],
        [("messages[1].is_error", "is_error flag")],
    ),
    (
        "an error result that already says so is sent as it is",
        [
            Message.assistant(None, [CALL_A]),
            ToolResultMessage("call_a", "error: boom", is_error=True),
        ],
        [fc(CALL_A), output("call_a", "error: boom")],
        [("messages[1].is_error", "is_error flag")],
    ),
    (
        "an error result with parts gets an Error: text part first",
        [
            Message.assistant(None, [CALL_A]),
            ToolResultMessage("call_a", [ImagePart(url="https://x/y.png")], is_error=True),
        ],
        [
            fc(CALL_A),
            output(
                "call_a",
                [
                    {"type": "input_text", "text": "Error: "},
                    {"type": "input_image", "image_url": "https://x/y.png", "detail": "auto"},
                ],
            ),
        ],
        [("messages[1].is_error", "is_error flag")],
    ),
    (
        "a result that answers no call is dropped",
        [Message.user("hi"), Message.tool_result("nope", "x")],
        [{"role": "user", "content": "hi"}],
        [("messages[1]", "tool result that answers no open call")],
    ),
    (
        "a call left without a result before the next user turn gets an error result",
        [
            Message.assistant(None, [CALL_A, CALL_B]),
            Message.tool_result("call_b", "noon"),
            Message.user("?"),
        ],
        [
            fc(CALL_A),
            fc(CALL_B),
            output("call_b", "noon"),
            output("call_a", "Error: no result was recorded for this tool call"),
            {"role": "user", "content": "?"},
        ],
        [("messages[0].tool_calls[0]", "unanswered tool call")],
    ),
    (
        "a last turn without any result is left pending",
        [Message.user("hi"), Message.assistant(None, [CALL_A])],
        [{"role": "user", "content": "hi"}, fc(CALL_A)],
        [],
    ),
    (
        "an invalid call goes back as the model wrote it",
        [
            ToolCallMessage(
                (), None, (InvalidToolCall("call_x", "get_weather", '{"city": ', "bad"),)
            ),
            Message.tool_result("call_x", "Error: invalid arguments"),
        ],
        [
            {
                "type": "function_call",
                "call_id": "call_x",
                "name": "get_weather",
                "arguments": '{"city": ',
            },
            output("call_x", "Error: invalid arguments"),
        ],
        [],
    ),
    (
        "an invalid call without a name cannot be sent; its result neither",
        [
            ToolCallMessage((), "Hm.", (InvalidToolCall("call_x", None, "{}", "no name"),)),
            Message.tool_result("call_x", "Error: no name"),
        ],
        [{"role": "assistant", "content": "Hm."}],
        [
            ("messages[0].tool_calls[0]", "invalid tool call without a name"),
            ("messages[1]", "tool result that answers no open call"),
        ],
    ),
    (
        "audio cannot be sent",
        [Message.user([TextPart("listen"), AudioPart("UklGRg==", "wav")])],
        [{"role": "user", "content": [{"type": "input_text", "text": "listen"}]}],
        [("messages[0].content[1]", "audio part")],
    ),
    (
        "an empty parts list is an empty string",
        [UserMessage(())],
        [{"role": "user", "content": ""}],
        [],
    ),
    (
        "reasoning of another provider is dropped, never made text",
        [
            Message.user("q"),
            AssistantMessage(
                (ReasoningPart(SECRET, signature="sig", provider="anthropic"), TextPart("A."))
            ),
        ],
        [{"role": "user", "content": "q"}, {"role": "assistant", "content": "A."}],
        [("messages[1].content[0]", "reasoning from anthropic")],
    ),
    (
        "reasoning of this provider without its item id cannot be sent",
        [
            Message.user("q"),
            AssistantMessage((ReasoningPart("r", "enc", provider=NAME), TextPart("A."))),
        ],
        [{"role": "user", "content": "q"}, {"role": "assistant", "content": "A."}],
        [("messages[1].content[0]", "reasoning without its item id")],
    ),
    (
        "reasoning from the chat openai provider is not Responses reasoning",
        [
            Message.user("q"),
            AssistantMessage((ReasoningPart("r", provider="openai"), TextPart("A."))),
        ],
        [{"role": "user", "content": "q"}, {"role": "assistant", "content": "A."}],
        [("messages[1].content[0]", "reasoning from openai")],
    ),
    (
        "opaque call state of another provider is dropped",
        [
            Message.assistant(
                None,
                [ToolCall("call_g", "get_time", {}, extras={"gemini": {"thought_signature": "s"}})],
            ),
            Message.tool_result("call_g", "noon"),
        ],
        [fc(ToolCall("call_g", "get_time", {})), output("call_g", "noon")],
        [("messages[0].tool_calls[0]", "opaque state from gemini on a tool call")],
    ),
    (
        "another provider's kept blocks and refusal are losses",
        [
            Message.user("q"),
            AssistantMessage(
                "A.",
                extras={
                    "anthropic": {
                        "unknown": [
                            {
                                "index": 0,
                                "path": "content[0]",
                                "type": "server_tool_use",
                                "value": {},
                            }
                        ]
                    },
                    "openai": {"refusal": "no"},
                    "my_app": {"anything": 1},
                },
            ),
        ],
        [{"role": "user", "content": "q"}, {"role": "assistant", "content": "A."}],
        [
            ("messages[1]", "anthropic server_tool_use block"),
            ("messages[1]", "refusal from openai"),
        ],
    ),
]


@pytest.mark.parametrize(("name", "messages", "items", "losses"), CASES, ids=[c[0] for c in CASES])
def test_formatting_rule(
    name: str, messages: list[Any], items: list[dict[str, Any]], losses: list[tuple[str, str]]
) -> None:
    conversion = P.convert(messages)
    assert conversion.body["input"] == items
    assert [(x.path, x.what) for x in conversion.losses] == losses
    assert SECRET not in json.dumps(conversion.body)
    assert all(SECRET not in str(x) for x in conversion.losses)
    if losses:
        with pytest.warns(LossWarning):
            P.format_request(messages)
        with pytest.raises(ValidationError) as info:
            P.format_request(messages, strict=True)
        assert info.value.path == losses[0][0]
    else:
        assert P.format_request(messages, strict=True)["input"] == items


def test_a_message_of_another_type_is_refused() -> None:
    with pytest.raises(ValidationError) as info:
        P.convert([Message.user("hi"), {"role": "user"}])  # type: ignore[list-item]
    assert info.value.path == "messages[1]"


def test_corrupt_kept_state_gives_a_validation_error_or_is_ignored() -> None:
    bad = [
        {"items": "x"},
        {"items": [1, {"call": 3}]},
        {"items": [{"reasoning": 1}]},
        {"items": [{"message": {"role": "assistant"}, "parts": 5}]},
        {"unknown": [{"index": "x"}], "keys": 3, "item": [1]},
        {"split": [True, -1]},
    ]
    for state in bad:
        for m in (
            AssistantMessage("A.", extras={NAME: state}),
            UserMessage([TextPart("u")], extras={NAME: state}),
            SystemMessage("s", extras={NAME: state}),
        ):
            try:
                body = P.convert([Message.user("q"), m]).body
            except ValidationError:
                continue
            assert json.loads(json.dumps(body)) == body


# -- tools ----------------------------------------------------------------------------------

WEATHER = ToolDefinition(
    "get_weather",
    "Weather for a city.",
    {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}},
        "required": ["city"],
    },
)


def test_strict_tools_are_flat_with_strict_mode_schemas() -> None:
    (tool,) = P.format_tools([WEATHER])
    assert tool == {
        "type": "function",
        "name": "get_weather",
        "description": "Weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": ["string", "null"], "enum": ["c", "f", None]},
            },
            "required": ["city", "unit"],
            "additionalProperties": False,
        },
        "strict": True,
    }


def test_a_non_strict_tool_says_strict_false_because_the_default_is_strict() -> None:
    loose = ToolDefinition(
        "f", "F.", {"type": "object", "properties": {"a": {"type": "string"}}}, strict=False
    )
    (tool,) = P.format_tools([loose])
    assert tool["strict"] is False
    assert tool["parameters"] == {"type": "object", "properties": {"a": {"type": "string"}}}


def test_a_schema_strict_mode_cannot_express_goes_non_strict_with_a_loss() -> None:
    mapping = ToolDefinition(
        "tag",
        "Tags.",
        {
            "type": "object",
            "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}}},
        },
    )
    conversion = P.convert([Message.user("hi")], [mapping])
    assert conversion.body["tools"][0]["strict"] is False
    assert [(x.path, x.what) for x in conversion.losses] == [
        ("tools[0]", "strict mode for a schema with open objects or untyped values")
    ]
    with pytest.warns(LossWarning):
        P.format_tools([mapping])


def test_built_in_tools_pass_through_and_only_functions_are_read_back() -> None:
    web = {"type": "web_search", "user_location": {"type": "approximate", "country": "FR"}}
    tools = P.format_tools([web, WEATHER])
    assert tools[0] == web and tools[0] is not web
    assert [t.name for t in P.parse_tools({"tools": tools})] == ["get_weather"]
    assert P.parse_tools(tools) == P.parse_tools({"tools": tools})
    with pytest.raises(ValidationError):
        P.format_tools([{"name": "no type"}])
    with pytest.raises(ValidationError):
        P.format_tools(["get_weather"])  # type: ignore[list-item]


def test_parse_tools_reads_strict_as_the_api_does() -> None:
    params = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    read = P.parse_tools(
        [
            {"type": "function", "name": "s", "parameters": params},
            {"type": "function", "name": "t", "parameters": params, "strict": False},
            {"type": "function", "name": "u"},
        ]
    )
    assert [(t.name, t.strict, t.description) for t in read] == [
        ("s", True, "s"),
        ("t", False, "t"),
        ("u", True, "u"),
    ]
    assert P.parse_tools({}) == []
    for bad, where in [
        ({"tools": 1}, "tools"),
        ({"tools": [{"type": "function"}]}, "tools[0].name"),
        ({"tools": [{"type": "function", "name": "a b"}]}, "tools[0].name"),
        ({"tools": [{"type": "function", "name": "a", "strict": "yes"}]}, "tools[0].strict"),
    ]:
        with pytest.raises(DecodeError) as info:
            P.parse_tools(bad)  # type: ignore[arg-type]
        assert info.value.path == where


# -- responses ----------------------------------------------------------------------------


def response(output: list[Any], **fields: Any) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "model": "m",
        "status": "completed",
        "output": output,
        **fields,
    }


def message_item(text: str, **fields: Any) -> dict[str, Any]:
    return {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
        **fields,
    }


FC = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_1",
    "name": "f",
    "arguments": "{}",
    "status": "completed",
}


@pytest.mark.parametrize(
    ("fields", "output", "finish", "raw"),
    [
        ({}, [message_item("a")], FinishReason.STOP, "completed"),
        ({}, [FC], FinishReason.TOOL_CALLS, "completed"),
        (
            {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}},
            [],
            FinishReason.LENGTH,
            "max_output_tokens",
        ),
        (
            {"status": "incomplete", "incomplete_details": {"reason": "content_filter"}},
            [],
            FinishReason.CONTENT_FILTER,
            "content_filter",
        ),
        (
            {"status": "incomplete", "incomplete_details": {"reason": "max_messages"}},
            [],
            FinishReason.OTHER,
            "max_messages",
        ),
        (
            {"status": "incomplete", "incomplete_details": None},
            [],
            FinishReason.OTHER,
            "incomplete",
        ),
        (
            {"status": "failed", "error": {"code": "server_error", "message": "boom"}},
            [],
            FinishReason.ERROR,
            "failed",
        ),
        ({"status": "failed"}, [], FinishReason.ERROR, "failed"),
        ({"status": "cancelled"}, [], FinishReason.OTHER, "cancelled"),
        ({"status": "in_progress"}, [], FinishReason.OTHER, "in_progress"),
        ({"status": None}, [message_item("a")], FinishReason.STOP, None),
    ],
)
def test_finish_reasons(
    fields: dict[str, Any], output: list[Any], finish: FinishReason, raw: str | None
) -> None:
    r = P.parse_response(response(output, **fields))
    assert r.finish_reason is finish
    assert r.provider_finish_reason == raw
    check_consistent(r)


def test_usage_reads_cached_cache_write_and_reasoning_tokens() -> None:
    r = P.parse_response(
        response(
            [message_item("a")],
            usage={
                "input_tokens": 100,
                "input_tokens_details": {"cached_tokens": 60, "cache_write_tokens": 30},
                "output_tokens": 20,
                "output_tokens_details": {"reasoning_tokens": 12},
                "total_tokens": 120,
            },
        )
    )
    assert r.usage == Usage(100, 20, 120, 60, 30, 12)
    assert P.parse_response(
        response([], usage={"input_tokens": 3, "output_tokens": 4})
    ).usage == Usage(3, 4, 7)


def test_several_message_items_keep_their_order_and_phases() -> None:
    r = P.parse_response(
        response(
            [
                message_item("Checking. ", id="msg_a", phase="commentary"),
                FC,
                message_item("Done.", id="msg_b", phase="final_answer"),
            ]
        )
    )
    assert r.text == "Checking. Done."
    assert r.message.content == (TextPart("Checking. "), TextPart("Done."))
    items = P.convert([Message.user("q"), r.message]).body["input"][1:]
    assert [(i.get("id"), i.get("phase")) for i in items] == [
        ("msg_a", "commentary"),
        ("fc_1", None),
        ("msg_b", "final_answer"),
    ]


def test_function_calls_keep_their_item_id_in_the_call_extras() -> None:
    r = P.parse_response(response([FC]))
    (call,) = r.tool_calls
    assert call.id == "call_1"
    assert call.extras == {NAME: {"id": "fc_1", "status": "completed"}}


@pytest.mark.parametrize(
    ("item", "where"),
    [
        ({**FC, "arguments": "[1, 2]"}, "output[0].arguments: arguments are not a JSON object"),
        ({**FC, "name": "bad name"}, "output[0].name: invalid tool name"),
        ({**FC, "name": None}, "output[0].name: missing"),
    ],
)
def test_invalid_calls_travel_in_the_message(item: dict[str, Any], where: str) -> None:
    r = P.parse_response(response([item]))
    assert r.tool_calls == ()
    (bad,) = r.invalid_tool_calls
    assert bad.error == where
    assert bad.id == "call_1"
    assert r.finish_reason is FinishReason.TOOL_CALLS


def test_a_repeated_call_id_gets_an_id_of_its_own_and_a_missing_one_is_derived() -> None:
    second = {**FC, "id": "fc_2", "arguments": '{"a":1}'}
    r = P.parse_response(response([FC, second, {**FC, "id": "fc_3", "call_id": None}]))
    assert r.tool_calls[0].id == "call_1"
    ids_ = [c.id for c in r.message.tool_calls] + [c.id for c in r.message.invalid_tool_calls]
    assert len(set(ids_)) == 3
    (repeat,) = r.invalid_tool_calls
    assert repeat.error == "output[1].call_id: a repeated tool call id"
    assert r.tool_calls[1].id.startswith("call_derived_")
    again = P.parse_response(response([FC, second, {**FC, "id": "fc_3", "call_id": None}]))
    assert again.message == r.message  # derived from the input: the same input, the same ids


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ([], "$"),
        ({"id": "resp_1"}, "output"),
        (response("x"), "output"),  # type: ignore[arg-type]
        (response([1]), "output[0]"),
        (response([{"type": "message", "role": "user", "content": []}]), "output[0].role"),
        (response([{**FC, "arguments": 5}]), "output[0].arguments"),
        (response([{**FC, "call_id": 5}]), "output[0].call_id"),
        (response([message_item("a")], usage={"input_tokens": -1}), "usage.input_tokens"),
        (
            response([message_item("a")], usage={"input_tokens_details": {"cached_tokens": "1"}}),
            "usage.input_tokens_details.cached_tokens",
        ),
        (
            response([{"type": "reasoning", "id": "rs", "summary": [{"text": 1}]}]),
            "output[0].summary[0].text",
        ),
        (response([{"type": 7}]), "output[0].type"),
        (response([], status=5), "status"),
        (response([], model=[]), "model"),
    ],
)
def test_malformed_responses_name_the_field(body: Any, where: str) -> None:
    with pytest.raises(DecodeError) as info:
        P.parse_response(body)
    assert info.value.path == where


class Hostile(Mapping[str, Any]):
    """A mapping whose every access raises something that is not a DecodeError."""

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError(SECRET)

    def __iter__(self) -> Any:
        raise RuntimeError(SECRET)

    def __len__(self) -> int:
        return 3

    def get(self, key: str, default: Any = None) -> Any:
        raise RuntimeError(SECRET)


def test_hostile_mappings_and_deep_nesting_give_decode_errors_only() -> None:
    deep: Any = {}
    for _ in range(100_000):
        deep = {"a": deep}
    nested = response([{**FC, "arguments": json.dumps({"x": [[[[1]]]]})}])
    for value in (
        Hostile(),
        response([Hostile()]),
        {"input": [Hostile()]},
        deep,
        response([deep]),
        [deep],
        nested,
    ):
        for parse in (P.parse_response, P.parse_messages, P.parse_tools):
            quiet(parse, value)
        acc = P.stream()
        quiet(acc.feed, value)
        quiet(acc.feed, {"type": "response.output_item.added", "output_index": 0, "item": value})
        quiet(acc.finish)


def quiet(fn: Any, *args: Any) -> None:
    """Call ``fn``: it succeeds, or raises a DecodeError that shows no content."""
    try:
        fn(*args)
    except DecodeError as exc:
        assert SECRET not in str(exc)


def test_errors_and_reprs_never_show_content() -> None:
    body = response([{**FC, "name": SECRET[:10], "arguments": SECRET}, message_item(SECRET)])
    r = P.parse_response(body)
    assert SECRET not in repr(r)
    assert all(SECRET not in c.error for c in r.invalid_tool_calls)
    bad_bodies: list[tuple[Any, Any]] = [
        (P.parse_response, response([{"type": "message", "role": "critic", "content": SECRET}])),
        (P.parse_response, response([{**FC, "arguments": 7, "name": SECRET}])),
        (
            P.parse_messages,
            {
                "input": [
                    {"role": "system", "content": [{"type": "input_image", "image_url": SECRET}]}
                ]
            },
        ),
        (
            P.parse_messages,
            {
                "input": [
                    {
                        "role": "user",
                        "content": [{"type": "input_image", "image_url": "", "detail": SECRET}],
                    }
                ]
            },
        ),
    ]
    for parse, bad in bad_bodies:
        with pytest.raises(DecodeError) as info:
            parse(bad)
        assert SECRET not in str(info.value)


# -- request import -----------------------------------------------------------------------


def test_import_of_both_message_forms_and_instructions() -> None:
    body = {
        "instructions": "Be brief.",
        "input": [
            {"role": "user", "content": "hi"},
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "there"}],
                "id": "msg_u",
            },
            {"role": "assistant", "content": "Hello.", "phase": "final_answer"},
            {"type": "message", "role": "system", "content": "Later."},
        ],
    }
    ms = P.parse_messages(body)
    assert [type(m) for m in ms] == [
        SystemMessage,
        UserMessage,
        UserMessage,
        AssistantMessage,
        SystemMessage,
    ]
    assert [m.text for m in ms] == ["Be brief.", "hi", "there", "Hello.", "Later."]
    assert P.convert(ms).body == body
    assert P.parse_messages(body["input"])[0] == ms[1]


def test_an_output_without_call_id_answers_the_first_open_call() -> None:
    ms = P.parse_messages(
        [
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "function_call", "call_id": "c2", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c2", "output": "2"},
            {"type": "function_call_output", "output": "1"},
            {"type": "function_call_output", "output": "orphan"},
        ]
    )
    assert [m.tool_call_id for m in ms[1:]] == ["c2", "c1", ms[3].tool_call_id]  # type: ignore[attr-defined]
    assert ms[3].tool_call_id.startswith("call_derived_")  # type: ignore[attr-defined]
    ConversationHistory(ms[:3], policy=__import__("messages").OrderingPolicy.lenient()).validate()


def test_a_leading_system_item_goes_back_into_input_and_a_lone_string_input_stays_a_string() -> (
    None
):
    for body in (
        {"input": [{"role": "developer", "content": "Dev."}, {"role": "user", "content": "hi"}]},
        {"input": "hi"},
        {"instructions": "x", "input": "hi"},
    ):
        assert P.convert(P.parse_messages(body)).body == body
    ms = [*P.parse_messages({"input": "hi"}), Message.assistant("Hello.")]
    assert P.convert(ms).body["input"] == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Hello."},
    ]


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ("input", "$"),
        ({"input": 5}, "input"),
        ({"instructions": 5}, "instructions"),
        ({"input": [5]}, "input[0]"),
        ({"input": [{"role": "tool", "content": "x"}]}, "input[0].role"),
        ({"input": [{"role": "user"}]}, "input[0].content"),
        (
            {"input": [{"role": "user", "content": [{"type": "input_text"}]}]},
            "input[0].content[0].text",
        ),
        ({"input": [{"role": "user", "content": [{"text": "x"}]}]}, "input[0].content[0].type"),
        (
            {"input": [{"role": "user", "content": [{"type": "input_image", "image_url": ""}]}]},
            "input[0].content[0].image_url",
        ),
        (
            {"input": [{"role": "system", "content": [{"type": "input_image", "image_url": "u"}]}]},
            "input[0].content[0]",
        ),
        ({"input": [{"type": "function_call_output", "call_id": "c"}]}, "input[0].output"),
        (
            {"input": [{"type": "function_call_output", "call_id": 3, "output": ""}]},
            "input[0].call_id",
        ),
    ],
)
def test_malformed_requests_name_the_field(body: Any, where: str) -> None:
    with pytest.raises(DecodeError) as info:
        P.parse_messages(body)
    assert info.value.path == where


def test_unknown_content_parts_and_part_keys_are_kept_for_the_round_trip() -> None:
    body = {
        "input": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "input_text",
                        "text": "a",
                        "prompt_cache_breakpoint": {"mode": "explicit"},
                    },
                    {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
                    {"type": "input_file", "file_url": "https://example.com/a.pdf"},
                    {"type": "input_image", "file_id": "file-1", "detail": "low"},
                ],
            }
        ]
    }
    (m,) = P.parse_messages(body)
    assert m.parts == (TextPart("a"), FilePart(file_id="file-1"))
    assert [b["type"] for b in unknown_blocks(m)] == ["input_audio", "input_file"]
    assert P.convert([m]).body == body
    # elsewhere they are losses, never silently gone
    chat = get_provider("openai").convert([m])
    assert ("messages[0]", f"{NAME} input_audio block") in [(x.path, x.what) for x in chat.losses]


# -- state, origins, switching back ---------------------------------------------------------


def test_state_is_tagged_with_the_origin_and_replayed_only_to_it() -> None:
    xai = P.at("xai")
    assert xai.tag == f"{NAME}@xai" and xai.name == NAME
    assert get_provider(NAME, origin="xai").tag == xai.tag
    data = fixture("response_reasoning_tool_call.json")
    r = xai.parse_response(data)
    assert {p.provider for p in r.message.reasoning} == {xai.tag}
    assert set(r.message.extras) == {xai.tag}
    assert set(r.tool_calls[0].extras) == {xai.tag}
    ms = [Message.user("q"), r.message]
    assert xai.convert(ms).body["input"][1:] == data["output"]
    other = P.convert(ms)
    sent = json.dumps(other.body)
    assert data["output"][0]["encrypted_content"] not in sent
    assert data["output"][0]["id"] not in sent and data["output"][1]["id"] not in sent
    assert {x.what for x in other.losses} == {
        f"reasoning from {xai.tag}",
        f"output item ids and layout from {xai.tag}",
        f"opaque state from {xai.tag} on a tool call",
    }


def test_an_edited_turn_falls_back_to_one_message_and_its_calls_with_a_loss() -> None:
    data = fixture("response_phases_web_search.json")
    r = P.parse_response(data)
    edited = (
        r.message.with_content("Just the answer.") if hasattr(r.message, "with_content") else None
    )
    if edited is None:
        import dataclasses

        edited = dataclasses.replace(r.message, content="Just the answer.")
    conversion = P.convert([Message.user("q"), edited])
    assert ("messages[1]", "output item ids and layout") in [
        (x.path, x.what) for x in conversion.losses
    ]
    items = conversion.body["input"][1:]
    assert {"role": "assistant", "content": "Just the answer."} in items
    assert any(i.get("type") == "web_search_call" for i in items)  # kept items still go back


# -- server-side continuation ----------------------------------------------------------------


def test_previous_response_id_sends_only_what_follows_the_stored_response() -> None:
    r = P.parse_response(fixture("response_reasoning_tool_call.json"))
    ms: list[Message] = [Message.system("Be brief."), Message.user("Umbrella?"), r.message]
    ms.append(Message.tool_result(r.tool_calls[0].id, "18C, rain"))
    full = P.convert(ms).body
    assert full["input"][0] == {"role": "user", "content": "Umbrella?"}
    for wanted in (True, r.id):
        body = P.convert(ms, previous_response_id=wanted).body
        assert body == {
            "previous_response_id": r.id,
            "instructions": "Be brief.",
            "input": [output(r.tool_calls[0].id, "18C, rain")],
        }
    # a later answer and question: only what follows the newest stored response
    answer = P.parse_response(fixture("response_text.json"))
    later = [*ms, answer.message, Message.user("And tomorrow?")]
    assert P.format_request(later, previous_response_id=True)["input"] == [
        {"role": "user", "content": "And tomorrow?"}
    ]
    assert P.format_request(later, previous_response_id=r.id)["input"][0] == output(
        r.tool_calls[0].id, "18C, rain"
    )
    # nothing stored yet: everything is sent
    first = [Message.user("hi")]
    assert P.convert(first, previous_response_id=True).body == {
        "input": [{"role": "user", "content": "hi"}]
    }
    with pytest.raises(ValidationError) as info:
        P.convert(first, previous_response_id="resp_unknown")
    assert info.value.path == "previous_response_id"
    with pytest.raises(ValidationError):
        P.convert(first, previous_response_id=3)  # type: ignore[arg-type]
    # another origin's response is not this endpoint's to continue from
    azure = P.at("azure")
    assert "previous_response_id" not in azure.convert(ms, previous_response_id=True).body


# -- command line ---------------------------------------------------------------------------


def test_command_line_converts_to_and_from_responses(capsys: pytest.CaptureFixture[str]) -> None:
    src = str(FIXTURES / "openai" / "request_tool_roundtrip.json")
    assert main(["convert", src, "--from", "openai", "--to", NAME]) == 0
    out, err = capsys.readouterr()
    body = json.loads(out)
    assert err == ""
    chat = get_provider("openai")
    data = json.loads(
        (FIXTURES / "openai" / "request_tool_roundtrip.json").read_text(encoding="utf-8")
    )
    assert body == P.convert(chat.parse_messages(data), chat.parse_tools(data)).body
    assert [m.text for m in P.parse_messages(body)] == [m.text for m in chat.parse_messages(data)]
    path = FIXTURES / NAME / "request_reasoning_roundtrip.json"
    assert main(["convert", str(path), "--from", NAME, "--to", NAME]) == 0
    out, _ = capsys.readouterr()
    data = json.loads(path.read_text(encoding="utf-8"))
    assert json.loads(out) == {"input": data["input"], "tools": data["tools"]}
    assert main(["validate", str(path), "--format", NAME, "--policy", "lenient"]) == 0
    capsys.readouterr()


# -- fuzzing --------------------------------------------------------------------------------

FUZZED = [e for e in ENTRIES if e["kind"] != "error_response"]


@settings(max_examples=60)
@given(st.sampled_from(FUZZED), st.data())
def test_mutated_fixtures_parse_or_raise_decode_error(
    entry: dict[str, Any], data: st.DataObject
) -> None:
    value = load_fixture(entry)
    where = data.draw(st.sampled_from(list(paths(value))))
    replacement = data.draw(mutations)
    broken = mutate(value, where, replacement, delete=data.draw(st.booleans()) and bool(where))
    if entry["kind"] == "request":
        try:
            ms = P.parse_messages(broken)
            P.parse_tools(broken)
        except DecodeError:
            return
        conversion = P.convert(ms)
        body = conversion.body
        assert json.loads(json.dumps(body)) == body
        if not conversion.losses:  # what was read goes back and reads the same
            assert [m.text for m in P.parse_messages(body)] == [m.text for m in ms]
    elif isinstance(broken, list) and entry["wire_format"] == "jsonl":
        acc = P.stream()
        for event in broken:
            accepts_or_decode_error(acc.feed, event)
        accepts_or_decode_error(acc.finish)
    else:
        accepts_or_decode_error(P.parse_response, broken)


@settings(max_examples=200)
@given(json_values)
def test_any_json_value_parses_or_raises_decode_error(value: Any) -> None:
    for parse in (P.parse_response, P.parse_messages, P.parse_tools):
        accepts_or_decode_error(parse, value)
    acc = P.stream()
    accepts_or_decode_error(acc.feed, value)
    accepts_or_decode_error(acc.finish)


@settings(max_examples=100)
@given(
    st.lists(
        st.sampled_from([e for e in ENTRIES if e["kind"] == "response"]), min_size=1, max_size=4
    )
)
def test_parsed_turns_build_a_valid_history_and_go_back_unchanged(
    entries: list[dict[str, Any]],
) -> None:
    """Any sequence of parsed turns, each answered, formats to the turns' own items."""
    ms: list[Message] = [Message.user("q")]
    expected: list[Any] = [{"role": "user", "content": "q"}]
    for entry in entries:
        data = load_fixture(entry)
        r = P.parse_response(data)
        ms.append(r.message)
        expected += data["output"] or [{"role": "assistant", "content": ""}]
        calls: list[ToolCall | InvalidToolCall] = [*r.tool_calls, *r.invalid_tool_calls]
        for call in calls:
            ms.append(Message.tool_result(call.id, "ok"))
            expected.append(output(call.id, "ok"))
        ms.append(Message.user("next"))
        expected.append({"role": "user", "content": "next"})
    conversion = P.convert(ms)
    assert conversion.losses == ()
    assert conversion.body["input"] == expected
    assert P.convert(messages_of(to_json(ms))).body == conversion.body
    ConversationHistory(ms, policy=__import__("messages").OrderingPolicy.lenient()).validate()


def test_a_developer_message_built_from_parts_keeps_its_parts() -> None:
    body = {
        "input": [
            {
                "role": "developer",
                "content": [
                    {"type": "input_text", "text": "a"},
                    {"type": "input_text", "text": "b"},
                ],
            }
        ]
    }
    (m,) = P.parse_messages(body)
    assert isinstance(m, DeveloperMessage) and m.text == "ab"
    assert P.convert([m]).body == body
    import dataclasses

    edited = dataclasses.replace(m, content="abc")
    assert P.convert([edited]).body["input"][0]["content"] == [
        {"type": "input_text", "text": "abc"}
    ]


@settings(max_examples=150)
@given(message_lists)
def test_any_conversation_formats_to_json_that_reads_back(ms: list[Message]) -> None:
    conversion = P.convert(ms)
    body = conversion.body
    assert json.loads(json.dumps(body)) == body
    for loss in conversion.losses:
        assert loss.path.startswith("messages[")
        index = int(loss.path[len("messages[") :].split("]", 1)[0])
        assert 0 <= index < len(ms)
    back = P.parse_messages(body)
    sent_text = [m.text for m in back]
    for m in ms:  # every user text goes out whole (user messages are never dropped)
        if isinstance(m, UserMessage) and m.text:
            assert m.text in sent_text
