"""The Gemini API provider: fixtures, formatting rules, schema subset, streaming, fuzzing."""

from __future__ import annotations

import itertools
import json
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    AssistantMessage,
    AudioPart,
    DecodeError,
    FilePart,
    ImagePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolCallAccumulator,
    ToolCallMessage,
    ToolDefinition,
    ToolResultMessage,
    ValidationError,
)
from messages.providers import FinishReason, LossWarning, get_provider
from messages.providers.gemini import PROVIDER, GeminiProvider
from tests.conftest import SECRET, fixture_entries, load_fixture
from tests.fixture_checks import (
    check_entry,
    json_values,
    mutate,
    mutated_only_decode_error,
    mutations,
    only_decode_error,
    paths,
    run_stream,
)

ENTRIES = fixture_entries("gemini")

#: Request keys that are not part of the conversation (generation options, tool config).
OPTIONAL_KEYS = frozenset(
    ("generationConfig", "safetySettings", "toolConfig", "cachedContent", "labels", "model")
)


def test_registered() -> None:
    assert get_provider("gemini") is PROVIDER
    assert isinstance(PROVIDER, GeminiProvider)
    assert PROVIDER.name == "gemini"


@pytest.mark.parametrize("entry", [pytest.param(e, id=e["file"]) for e in ENTRIES])
def test_fixture(entry: dict[str, Any]) -> None:
    check_entry(PROVIDER, entry, load_fixture(entry), OPTIONAL_KEYS)


def test_every_fixture_file_is_in_the_manifest() -> None:
    from tests.conftest import FIXTURES

    files = {str(p.relative_to(FIXTURES)) for p in (FIXTURES / "gemini").rglob("*.json*")}
    assert files == {e["file"] for e in ENTRIES}


# -- formatting rules -----------------------------------------------------------------

SIG = "c2lnbmF0dXJl"
DUMMY = "skip_thought_signature_validator"


def call(i: int, name: str = "get_weather", **extras: Any) -> ToolCall:
    return ToolCall(f"id{i}", name, {"city": f"c{i}"}, extras=extras or None)


def derived(i: int, **extras: Any) -> ToolCall:
    """A call whose id was derived (the wire had none)."""
    return ToolCall(
        f"call_derived_{i:024d}", "get_weather", {"city": f"c{i}"}, extras=extras or None
    )


def fcall(i: int, name: str = "get_weather", with_id: bool = True) -> dict[str, Any]:
    fc: dict[str, Any] = {"name": name, "args": {"city": f"c{i}"}}
    if with_id:
        fc["id"] = f"id{i}"
    return {"functionCall": fc}


def fresp(i: int, response: Any, name: str = "get_weather", with_id: bool = True) -> dict[str, Any]:
    fr: dict[str, Any] = {"name": name, "response": response}
    if with_id:
        fr["id"] = f"id{i}"
    return {"functionResponse": fr}


def user(*parts: Any) -> dict[str, Any]:
    return {"role": "user", "parts": list(parts)}


def model(*parts: Any) -> dict[str, Any]:
    return {"role": "model", "parts": list(parts)}


Q = {"text": "q"}

CASES: list[tuple[str, list[Message], dict[str, Any], list[str]]] = [
    (
        "system and developer become systemInstruction parts",
        [Message.system("A"), Message.developer("B"), Message.user("q")],
        {"systemInstruction": {"parts": [{"text": "A"}, {"text": "B"}]}, "contents": [user(Q)]},
        [],
    ),
    (
        "a late system message is moved to systemInstruction",
        [Message.user("q"), Message.system("late")],
        {"systemInstruction": {"parts": [{"text": "late"}]}, "contents": [user(Q)]},
        ["messages[1]"],
    ),
    (
        "media parts: inlineData and fileData",
        [
            Message.user(
                [
                    ImagePart(data="QUJD", media_type="image/png"),
                    ImagePart(url="gs://b/cat.webp"),
                    ImagePart(url="https://x.test/files/abc", media_type="image/png", detail="low"),
                    ImagePart(url="data:image/gif;base64,R0lG"),
                    AudioPart("UklGRg==", "wav"),
                    FilePart(data="JVBERg==", media_type="application/pdf", filename="a.pdf"),
                    FilePart(file_id="https://x.test/files/doc", media_type="text/plain"),
                ]
            )
        ],
        {
            "contents": [
                user(
                    {"inlineData": {"mimeType": "image/png", "data": "QUJD"}},
                    {"fileData": {"mimeType": "image/webp", "fileUri": "gs://b/cat.webp"}},
                    {"fileData": {"mimeType": "image/png", "fileUri": "https://x.test/files/abc"}},
                    {"inlineData": {"mimeType": "image/gif", "data": "R0lG"}},
                    {"inlineData": {"mimeType": "audio/wav", "data": "UklGRg=="}},
                    {"inlineData": {"mimeType": "application/pdf", "data": "JVBERg=="}},
                    {"fileData": {"mimeType": "text/plain", "fileUri": "https://x.test/files/doc"}},
                )
            ]
        },
        ["messages[0].content[2].detail", "messages[0].content[5].filename"],
    ),
    (
        "consecutive same-role messages merge; empty text is never sent",
        [Message.user("q"), Message.user([TextPart(""), TextPart("r")]), Message.assistant("a")],
        {"contents": [user(Q, {"text": "r"}), model({"text": "a"})]},
        [],
    ),
    (
        "an empty content is omitted",
        [Message.user("q"), Message.assistant(""), Message.user("again")],
        {"contents": [user(Q, {"text": "again"})]},
        ["messages[1]"],
    ),
    (
        "results follow the call order, ids echoed, error convention",
        [
            Message.user("q"),
            ToolCallMessage([call(1), call(2)]),
            Message.tool_result("id2", "boom", is_error=True),
            Message.tool_result("id1", "ok"),
        ],
        {
            "contents": [
                user(Q),
                # calls Gemini did not make: the first of the turn gets the dummy signature
                model({**fcall(1), "thoughtSignature": DUMMY}, fcall(2)),
                user(fresp(1, {"output": "ok"}), fresp(2, {"error": "boom"})),
            ]
        },
        [],
    ),
    (
        "generated ids are never sent; the signature stays on its part",
        [
            Message.user("q"),
            ToolCallMessage(
                [
                    derived(1, gemini={"thought_signature": SIG}),
                    derived(2),
                ]
            ),
            Message.tool_result(f"call_derived_{1:024d}", "a"),
            Message.tool_result(f"call_derived_{2:024d}", "b"),
        ],
        {
            "contents": [
                user(Q),
                model(
                    {**fcall(1, with_id=False), "thoughtSignature": SIG},
                    fcall(2, with_id=False),
                ),
                user(
                    fresp(1, {"output": "a"}, with_id=False),
                    fresp(2, {"output": "b"}, with_id=False),
                ),
            ]
        },
        [],
    ),
    (
        "thought parts for gemini reasoning; other reasoning dropped",
        [
            Message.user("q"),
            AssistantMessage(
                [
                    ReasoningPart("plan", SIG, provider="gemini"),
                    ReasoningPart("claude", "asig", provider="anthropic"),
                    ReasoningPart("unnamed"),
                    TextPart("A"),
                ]
            ),
        ],
        {
            "contents": [
                user(Q),
                model({"text": "plan", "thought": True, "thoughtSignature": SIG}, {"text": "A"}),
            ]
        },
        ["messages[1].content[1]", "messages[1].content[2]"],
    ),
    (
        "a text signature goes back on the last text part",
        [
            Message.user("q"),
            AssistantMessage(
                [TextPart("a"), TextPart("b")], extras={"gemini": {"text_signature": SIG}}
            ),
        ],
        {"contents": [user(Q), model({"text": "a"}, {"text": "b", "thoughtSignature": SIG})]},
        [],
    ),
    (
        "media in a tool result move after the responses",
        [
            Message.user("q"),
            ToolCallMessage([call(1)]),
            Message.tool_result(
                "id1", [TextPart("see"), ImagePart(data="QQ==", media_type="image/png")]
            ),
            Message.user("and?"),
        ],
        {
            "contents": [
                user(Q),
                model(fcall(1)),
                user(
                    fresp(1, {"output": "see"}),
                    {"inlineData": {"mimeType": "image/png", "data": "QQ=="}},
                    {"text": "and?"},
                ),
            ]
        },
        ["messages[2].content[1]"],
    ),
    (
        "orphan and duplicate results are dropped; foreign call state too",
        [
            Message.user("q"),
            ToolCallMessage([call(1, openai={"x": 1})]),
            Message.tool_result("id1", "a"),
            Message.tool_result("id1", "again"),
            Message.tool_result("nowhere", "who"),
        ],
        {
            "contents": [
                user(Q),
                model({**fcall(1), "thoughtSignature": DUMMY}),
                user(fresp(1, {"output": "a"})),
            ]
        },
        ["messages[1].tool_calls[0].extras.openai", "messages[3]", "messages[4]"],
    ),
    (
        "names are not carried",
        [Message.user("q", name="bob")],
        {"contents": [user(Q)]},
        ["messages[0].name"],
    ),
]


@pytest.mark.parametrize(
    ("messages", "body", "loss_paths"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_format_rules(messages: list[Message], body: dict[str, Any], loss_paths: list[str]) -> None:
    conversion = PROVIDER.convert(messages)
    assert conversion.body == body
    assert [loss.path for loss in conversion.losses] == loss_paths


def test_losses_warn_or_raise() -> None:
    messages = [
        Message.user("q"),
        Message.assistant([ReasoningPart("r", "s", provider="anthropic"), TextPart("a")]),
    ]
    with pytest.warns(
        LossWarning, match=r"gemini: messages\[1\]\.content\[0\]: reasoning from anthropic"
    ):
        body = PROVIDER.format_request(messages)
    assert body["contents"][1] == model({"text": "a"})
    with pytest.raises(ValidationError) as info:
        PROVIDER.format_request(messages, strict=True)
    assert info.value.path == "messages[1].content[0]"


# -- the schema subset ----------------------------------------------------------------

SCHEMA_CASES: list[tuple[str, dict[str, Any], dict[str, Any], list[str]]] = [
    (
        "plain schemas pass unchanged",
        {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City", "enum": ["a", "b"]},
                "n": {"type": "integer", "format": "int32", "minimum": 0, "maximum": 9},
                "when": {"type": "string", "format": "date-time"},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
            },
            "required": ["city"],
        },
        {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City", "enum": ["a", "b"]},
                "n": {"type": "integer", "format": "int32", "minimum": 0, "maximum": 9},
                "when": {"type": "string", "format": "date-time"},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
            },
            "required": ["city"],
        },
        [],
    ),
    (
        "nullable from type lists and null branches",
        {
            "type": "object",
            "properties": {
                "a": {"type": ["string", "null"]},
                "b": {"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "B"},
                "c": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
                "d": {"type": ["integer", "string"]},
            },
        },
        {
            "type": "object",
            "properties": {
                "a": {"type": "string", "nullable": True},
                "b": {"type": "integer", "description": "B", "nullable": True},
                "c": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
                "d": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            },
        },
        [],
    ),
    (
        "refs are inlined; recursion is cut",
        {
            "type": "object",
            "properties": {
                "home": {"$ref": "#/$defs/Address"},
                "tree": {"$ref": "#/$defs/Node"},
            },
            "$defs": {
                "Address": {"type": "object", "properties": {"city": {"type": "string"}}},
                "Node": {
                    "type": "object",
                    "properties": {"child": {"$ref": "#/$defs/Node"}},
                },
            },
            "$schema": "https://json-schema.org/draft/2020-12/schema",
        },
        {
            "type": "object",
            "properties": {
                "home": {"type": "object", "properties": {"city": {"type": "string"}}},
                "tree": {"type": "object", "properties": {"child": {"type": "object"}}},
            },
        },
        ["parameters.properties.tree.properties.child"],
    ),
    (
        "const, oneOf and rejected keywords",
        {
            "type": "object",
            "properties": {
                "kind": {"const": "fixed"},
                "num": {"const": 3},
                "x": {"oneOf": [{"type": "integer"}, {"type": "boolean"}]},
                "email": {"type": "string", "format": "email"},
                "ratio": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5},
                "level": {"type": "integer", "enum": [1, 2]},
                "pair": {"type": "array", "items": [{"type": "string"}]},
                "tags": {"type": "object", "properties": {"a": {"type": "string"}}, "x-y": 1},
            },
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {
                "kind": {"enum": ["fixed"], "type": "string"},
                "num": {},
                "x": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]},
                "email": {"type": "string"},
                "ratio": {"type": "number"},
                "level": {"type": "integer"},
                "pair": {"type": "array"},
                "tags": {"type": "object", "properties": {"a": {"type": "string"}}},
            },
        },
        [
            "parameters.properties.num.const",
            "parameters.properties.x.oneOf",
            "parameters.properties.email.format",
            "parameters.properties.ratio.exclusiveMinimum",
            "parameters.properties.ratio.multipleOf",
            "parameters.properties.level.enum",
            "parameters.properties.pair.items",
            "parameters.properties.tags.x-y",
        ],
    ),
]


@pytest.mark.parametrize(
    ("schema", "expected", "loss_paths"),
    [c[1:] for c in SCHEMA_CASES],
    ids=[c[0] for c in SCHEMA_CASES],
)
def test_schema_subset(
    schema: dict[str, Any], expected: dict[str, Any], loss_paths: list[str]
) -> None:
    tool = ToolDefinition("t", "A tool.", schema, strict=False)
    conversion = PROVIDER.convert([Message.user("q")], [tool])
    decl = conversion.body["tools"][0]["functionDeclarations"][0]
    assert decl["parameters"] == expected
    prefix = "tools[0].functionDeclarations[0]."
    assert [loss.path.removeprefix(prefix) for loss in conversion.losses] == loss_paths


def test_strict_definitions_are_sent_open_without_a_loss() -> None:
    # Gemini has no strict mode (like Groq and vLLM's missing `strict` flag): the
    # additionalProperties: false that strict adds is omitted, not a Loss.
    schema = {
        "type": "object",
        "properties": {"a": {"type": "object", "properties": {"b": {"type": "string"}}}},
    }
    tools = [ToolDefinition("t", "A tool.", schema), ToolDefinition("u", "Another.", schema)]
    conversion = PROVIDER.convert([Message.user("q")], tools)
    assert conversion.losses == ()
    assert conversion.body["tools"][0]["functionDeclarations"][0]["parameters"] == schema
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert PROVIDER.format_tools(tools) == conversion.body["tools"]


def test_a_tool_without_arguments_has_no_parameters() -> None:
    tool = ToolDefinition("now", "The time.", {"type": "object", "properties": {}}, strict=False)
    body = PROVIDER.format_request([Message.user("q")], [tool])
    assert body["tools"] == [
        {"functionDeclarations": [{"name": "now", "description": "The time."}]}
    ]
    assert PROVIDER.parse_tools(body) == [tool]


def test_parse_tools_lowercases_type_names() -> None:
    body = {
        "tools": [
            {"googleSearch": {}},
            {
                "functionDeclarations": [
                    {
                        "name": "f",
                        "parameters": {"type": "OBJECT", "properties": {"a": {"type": "STRING"}}},
                    }
                ]
            },
        ]
    }
    (tool,) = PROVIDER.parse_tools(body)
    assert tool.description == "f"
    assert tool.parameters == {"type": "object", "properties": {"a": {"type": "string"}}}


# -- importing conversations ----------------------------------------------------------


def test_pairing_by_name_and_order_gives_matching_generated_ids() -> None:
    body = {
        "contents": [
            user(Q),
            model(
                fcall(1, with_id=False), fcall(2, "other", with_id=False), fcall(3, with_id=False)
            ),
            user(
                fresp(0, {"output": "o"}, "other", with_id=False),
                fresp(0, {"output": "first"}, with_id=False),
                fresp(0, {"output": "second"}, with_id=False),
            ),
        ]
    }
    messages = PROVIDER.parse_messages(body)
    calls = messages[1].tool_calls
    assert all(c.id.startswith("call_derived_") for c in calls)
    results = messages[2:]
    assert [(r.tool_call_id, r.text) for r in results] == [  # type: ignore[attr-defined]
        (calls[1].id, "o"),
        (calls[0].id, "first"),
        (calls[2].id, "second"),
    ]
    assert PROVIDER.parse_messages(body)[1].tool_calls == calls  # stable
    # Formatting orders the responses like the calls, with no ids.
    again = PROVIDER.convert(messages).body["contents"][2]["parts"]
    assert [p["functionResponse"]["response"]["output"] for p in again] == ["first", "o", "second"]
    assert all("id" not in p["functionResponse"] for p in again)


def test_structured_results_round_trip() -> None:
    body = {
        "contents": [
            user(Q),
            model(fcall(1), fcall(2), fcall(3)),
            user(
                fresp(1, {"temp_c": 18, "sky": "rain"}),
                fresp(2, {"output": {"rows": [1, 2]}}),
                fresp(3, {"error": {"code": 7}}),
            ),
        ]
    }
    messages = PROVIDER.parse_messages(body)
    assert [m.text for m in messages[2:]] == [
        '{"temp_c":18,"sky":"rain"}',
        '{"rows":[1,2]}',
        '{"code":7}',
    ]
    assert [m.is_error for m in messages[2:]] == [False, False, True]  # type: ignore[attr-defined]
    assert PROVIDER.convert(messages).body == body
    # Other providers see the JSON text.
    openai_like = get_provider("anthropic").convert(messages).body["messages"][2]["content"]
    assert openai_like[0]["content"] == '{"temp_c":18,"sky":"rain"}'


def test_unknown_parts_and_part_keys_survive_a_round_trip() -> None:
    body = {
        "systemInstruction": {"parts": [{"text": "a"}, {"text": "b"}]},
        "contents": [
            user(
                Q,
                {"executableCode": {"language": "PYTHON", "code": "1"}},
                {"text": "v", "videoMetadata": {"fps": 1}},
            ),
            model(
                {"text": "x"},
                {"codeExecutionResult": {"outcome": "OUTCOME_OK"}},
                {**fcall(1), "partMetadata": {"k": 1}},
            ),
            user(fresp(1, {"output": "r"}), {"xFuture": 1}),
        ],
    }
    messages = PROVIDER.parse_messages(body)
    assert [m.role.value for m in messages] == ["system", "user", "assistant", "tool"]
    assert messages[0].text == "ab"
    assert messages[1].extras["gemini"]["unknown"][0]["type"] == "executableCode"
    conversion = PROVIDER.convert(messages)
    assert conversion.losses == ()
    assert conversion.body == body
    anthropic = get_provider("anthropic").convert(messages)
    assert sorted(loss.what for loss in anthropic.losses) == sorted(
        [
            "gemini executableCode block",
            "gemini codeExecutionResult block",
            "gemini xFuture block",
            "gemini part keys 'videoMetadata'",  # kept keys no other provider carries
            "gemini part keys 'partMetadata'",
        ]
    )


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"contents": {}}, "contents"),
        ({"contents": [{"role": "system", "parts": []}]}, "contents[0].role"),
        (
            {"contents": [{"parts": [{"functionCall": {"name": "f"}}]}]},
            "contents[0].parts[0].functionCall",
        ),
        (
            {"contents": [model({"functionCall": {"args": {}}})]},
            "contents[0].parts[0].functionCall.name",
        ),
        (
            {"contents": [user({"functionResponse": {"name": "f", "response": "x"}})]},
            "contents[0].parts[0].functionResponse.response",
        ),
        (
            {"contents": [user({"inlineData": {"data": "x"}})]},
            "contents[0].parts[0].inlineData.mimeType",
        ),
        ({"contents": [user({"text": 1})]}, "contents[0].parts[0].text"),
        (
            {"contents": [], "systemInstruction": {"parts": [{"inlineData": {}}]}},
            "systemInstruction.parts[0].text",
        ),
        ("x", "$"),
    ],
)
def test_malformed_requests_name_the_field(body: Any, path: str) -> None:
    with pytest.raises(DecodeError) as info:
        PROVIDER.parse_messages(body)
    assert info.value.path == path


# -- responses -------------------------------------------------------------------------


def candidate(parts: list[Any], finish: str | None = "STOP") -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish is not None:
        cand["finishReason"] = finish
    return {
        "candidates": [cand],
        "usageMetadata": {
            "promptTokenCount": 5,
            "candidatesTokenCount": 3,
            "thoughtsTokenCount": 2,
            "totalTokenCount": 10,
            "cachedContentTokenCount": 1,
        },
        "modelVersion": "gemini-x",
        "responseId": "resp-1",
    }


@pytest.mark.parametrize(
    ("raw", "calls", "finish"),
    [
        ("STOP", False, FinishReason.STOP),
        ("STOP", True, FinishReason.TOOL_CALLS),
        ("MAX_TOKENS", False, FinishReason.LENGTH),
        ("SAFETY", False, FinishReason.CONTENT_FILTER),
        ("RECITATION", False, FinishReason.CONTENT_FILTER),
        ("BLOCKLIST", False, FinishReason.CONTENT_FILTER),
        ("PROHIBITED_CONTENT", False, FinishReason.CONTENT_FILTER),
        ("SPII", False, FinishReason.CONTENT_FILTER),
        ("IMAGE_SAFETY", False, FinishReason.CONTENT_FILTER),
        ("MALFORMED_FUNCTION_CALL", False, FinishReason.ERROR),
        ("OTHER", False, FinishReason.ERROR),
        ("LANGUAGE", False, FinishReason.ERROR),
        (None, False, FinishReason.OTHER),
    ],
)
def test_finish_reasons(raw: str | None, calls: bool, finish: FinishReason) -> None:
    parts: list[Any] = [fcall(1)] if calls else [{"text": "x"}]
    r = PROVIDER.parse_response(candidate(parts, raw))
    assert r.finish_reason is finish
    assert r.provider_finish_reason == raw


def test_usage_counts_thoughts_as_output() -> None:
    r = PROVIDER.parse_response(candidate([{"text": "x"}]))
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (5, 5, 10)
    assert (r.usage.cached_input_tokens, r.usage.reasoning_tokens) == (1, 2)
    assert r.message.metadata["usage"] == r.usage.to_dict()
    assert (r.id, r.model) == ("resp-1", "gemini-x")


def test_blocked_prompt_and_error_bodies() -> None:
    r = PROVIDER.parse_response({"promptFeedback": {"blockReason": "OTHER"}})
    assert r.finish_reason is FinishReason.CONTENT_FILTER
    assert r.usage is None
    assert r.message.metadata["prompt_block_reason"] == "OTHER"
    e = PROVIDER.parse_response(
        {"error": {"code": 429, "message": "Quota", "status": "RESOURCE_EXHAUSTED"}}
    )
    assert e.finish_reason is FinishReason.ERROR
    assert e.error == "RESOURCE_EXHAUSTED: Quota"
    with pytest.raises(DecodeError) as info:
        PROVIDER.parse_response({"candidates": [], "promptFeedback": {}})
    assert info.value.path == "candidates"


def test_response_calls_get_stable_ids_and_keep_signatures() -> None:
    body = candidate(
        [
            {"text": "t", "thought": True},
            {**fcall(1, with_id=False), "thoughtSignature": SIG},
            fcall(2, with_id=False),
        ]
    )
    r1, r2 = PROVIDER.parse_response(body), PROVIDER.parse_response(body)
    assert [c.id for c in r1.tool_calls] == [c.id for c in r2.tool_calls]
    assert len({c.id for c in r1.tool_calls}) == 2
    first, second = r1.tool_calls
    assert first.extras == {"gemini": {"thought_signature": SIG}}
    assert second.extras == {}
    assert r1.reasoning == "t"
    other = PROVIDER.parse_response({**body, "responseId": "resp-2"})
    assert other.tool_calls[0].id != first.id
    # Streaming the same content gives the same ids.
    assert run_stream(PROVIDER, [body]).tool_calls == r1.tool_calls


# -- streaming -------------------------------------------------------------------------


def chunk(parts: list[Any], finish: str | None = None, total: int = 9) -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        cand["finishReason"] = finish
    return {
        "candidates": [cand],
        "usageMetadata": {
            "promptTokenCount": 4,
            "candidatesTokenCount": total - 4,
            "totalTokenCount": total,
        },
        "responseId": "r",
    }


def test_stream_thoughts_text_and_signatures() -> None:
    events = [
        chunk([{"text": "Let me ", "thought": True}]),
        chunk([{"text": "think.", "thought": True, "thoughtSignature": SIG}]),
        chunk([{"text": "Hello"}]),
        chunk([{"text": " world", "thoughtSignature": "tsig"}], "STOP", total=20),
    ]
    acc = PROVIDER.stream()
    deltas = [d for e in events for d in acc.feed(e)]
    r = acc.finish()
    assert [(d.kind, d.text) for d in deltas] == [
        ("reasoning", "Let me "),
        ("reasoning", "think."),
        ("text", "Hello"),
        ("text", " world"),
    ]
    assert r.message.reasoning == (ReasoningPart("Let me think.", SIG, False, "gemini"),)
    assert r.text == "Hello world"
    assert r.message.extras["gemini"]["text_signature"] == "tsig"
    assert r.usage is not None
    assert r.usage.total_tokens == 20
    body = PROVIDER.convert([Message.user("q"), r.message]).body
    assert body["contents"][1] == model(
        {"text": "Let me think.", "thought": True, "thoughtSignature": SIG},
        {"text": "Hello world", "thoughtSignature": "tsig"},
    )


def test_vertex_partial_args_by_json_path() -> None:
    events = [
        chunk([{"functionCall": {"name": "plan", "willContinue": True}, "thoughtSignature": SIG}]),
        chunk(
            [
                {
                    "functionCall": {
                        "partialArgs": [
                            {"jsonPath": "$.trip.city", "stringValue": "Pa", "willContinue": True},
                            {"jsonPath": "$.trip.days", "numberValue": 3},
                            {"jsonPath": "$.stops[0]", "stringValue": "A"},
                            {"jsonPath": "$.stops[1]", "stringValue": "B"},
                            {"jsonPath": '$["odd key"]', "boolValue": True},
                        ],
                        "willContinue": True,
                    }
                }
            ]
        ),
        chunk(
            [
                {
                    "functionCall": {
                        "partialArgs": [
                            {"jsonPath": "$.trip.city", "stringValue": "ris"},
                            {"jsonPath": "$.note", "nullValue": None},
                        ],
                        "willContinue": True,
                    }
                }
            ]
        ),
        chunk([{"functionCall": {}}]),
        chunk([fcall(9, "whole")], "STOP"),
    ]
    acc = PROVIDER.stream()
    tools = ToolCallAccumulator()
    for e in events:
        for d in acc.feed(e):
            if d.tool_call is not None:
                tools.feed(d.tool_call)
    r = acc.finish()
    assert r.finish_reason is FinishReason.TOOL_CALLS
    first, second = r.tool_calls
    assert first.name == "plan"
    assert first.arguments == {
        "trip": {"city": "Paris", "days": 3},
        "stops": ("A", "B"),
        "odd key": True,
        "note": None,
    }
    assert first.extras["gemini"] == {"thought_signature": SIG}
    assert (second.id, second.name) == ("id9", "whole")
    assert [(c.name, dict(c.arguments)) for c in tools.tool_calls()] == [
        (c.name, dict(c.arguments)) for c in r.tool_calls
    ]


@pytest.mark.parametrize(
    ("events", "path"),
    [
        ([chunk([{"functionCall": {}}])], "events[0].candidates[0].content.parts[0].functionCall"),
        (
            [chunk([{"functionCall": {"partialArgs": [], "willContinue": True}}])],
            "events[0].candidates[0].content.parts[0].functionCall.partialArgs",
        ),
        (
            [
                chunk(
                    [
                        {
                            "functionCall": {
                                "name": "f",
                                "willContinue": True,
                                "partialArgs": [{"jsonPath": "city", "stringValue": "x"}],
                            }
                        }
                    ]
                )
            ],
            "events[0].candidates[0].content.parts[0].functionCall.partialArgs[0].jsonPath",
        ),
        (
            [
                chunk(
                    [
                        {
                            "functionCall": {
                                "name": "f",
                                "willContinue": True,
                                "partialArgs": [{"jsonPath": "$.a[2]", "numberValue": 1}],
                            }
                        }
                    ]
                )
            ],
            "events[0].candidates[0].content.parts[0].functionCall.partialArgs[0].jsonPath",
        ),
        ([chunk([{"text": 3}])], "events[0].candidates[0].content.parts[0].text"),
        ([{"candidates": "x"}], "events[0].candidates"),
        (
            [{"usageMetadata": {"promptTokenCount": "9"}}],
            "events[0].usageMetadata.promptTokenCount",
        ),
        ([5], "events[0]"),
    ],
)
def test_malformed_chunks_name_the_field(events: list[Any], path: str) -> None:
    acc = PROVIDER.stream()
    with pytest.raises(DecodeError) as info:
        for e in events:
            acc.feed(e)
        acc.finish()  # the usage snapshot is checked once, at the end
    assert info.value.path == path


def test_stream_endings() -> None:
    with pytest.raises(DecodeError) as info:
        run_stream(PROVIDER, [chunk([{"text": "cut"}])])
    assert info.value.path == "candidates[0].finishReason"
    with pytest.raises(DecodeError):
        run_stream(PROVIDER, [])
    blocked = run_stream(
        PROVIDER,
        [{"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 3}}],
    )
    assert blocked.finish_reason is FinishReason.CONTENT_FILTER
    failed = run_stream(
        PROVIDER,
        [chunk([{"text": "part"}]), {"error": {"code": 500, "status": "INTERNAL", "message": "x"}}],
    )
    assert (failed.finish_reason, failed.text, failed.error) == (
        FinishReason.ERROR,
        "part",
        "INTERNAL: x",
    )


# -- secrecy and fuzzing ---------------------------------------------------------------


def test_errors_and_reprs_never_show_content() -> None:
    r = PROVIDER.parse_response(
        candidate([{"text": SECRET}, {"functionCall": {"name": "f", "args": SECRET}}])
    )
    assert SECRET not in repr(r)
    assert SECRET not in repr(r.invalid_tool_calls)
    assert r.invalid_tool_calls[0].raw_arguments == SECRET
    for body in (
        {"contents": [user({"inlineData": {"mimeType": 1, "data": SECRET}})]},
        {"contents": [{"role": "system", "parts": [{"text": SECRET}]}]},
    ):
        with pytest.raises(DecodeError) as info:
            PROVIDER.parse_messages(body)
        assert SECRET not in str(info.value)
    # a role is an identifier: shown quoted and cut to 64 characters, as errors.ident does
    with pytest.raises(DecodeError) as info:
        PROVIDER.parse_messages({"contents": [{"role": "x" * 100, "parts": []}]})
    assert (
        str(info.value) == f"contents[0].role: expected role 'user' or 'model', got {'x' * 64!r}..."
    )


@settings(max_examples=150)
@given(json_values)
def test_fuzz_arbitrary_json_only_raises_decode_error(value: Any) -> None:
    only_decode_error(PROVIDER, value)


@settings(max_examples=400)
@given(st.data())
def test_fuzz_mutated_fixtures_only_raise_decode_error(data: st.DataObject) -> None:
    entry = data.draw(st.sampled_from(ENTRIES))
    original = load_fixture(entry)
    where = data.draw(st.sampled_from(list(paths(original))))
    delete = bool(where) and data.draw(st.booleans())
    mutated = mutate(original, where, data.draw(mutations), delete)
    mutated_only_decode_error(PROVIDER, entry, mutated)


@settings(max_examples=60)
@given(
    st.lists(
        st.sampled_from(["text", "thought", "tool", "results", "partial", "user", "bad"]),
        max_size=8,
    )
)
def test_formatted_requests_are_well_formed(kinds: list[str]) -> None:
    """Every answering turn holds one functionResponse per call, in call order."""
    messages: list[Message] = [Message.user("start")]
    for n, kind in enumerate(kinds, 1):
        last = next((m for m in reversed(messages) if isinstance(m, ToolCallMessage)), None)
        if kind == "text":
            messages.append(Message.assistant(f"a{n}"))
        elif kind == "thought":
            messages.append(
                AssistantMessage([ReasoningPart("t", SIG, provider="gemini"), TextPart("x")])
            )
        elif kind == "tool":
            messages.append(ToolCallMessage([call(n), derived(n + 100)]))
        elif kind == "results" and last is not None:
            messages.extend(ToolResultMessage(c.id, "r") for c in reversed(last.tool_calls))
        elif kind == "partial" and last is not None:
            messages.append(ToolResultMessage(last.tool_calls[-1].id, "r"))
        elif kind == "bad":
            messages.append(ToolResultMessage("nowhere", "r"))
        else:
            messages.append(Message.user(f"u{n}"))
    contents = PROVIDER.convert(messages).body["contents"]
    roles = [c["role"] for c in contents]
    assert all(a != b for a, b in itertools.pairwise(roles))
    for i, c in enumerate(contents):
        assert c["parts"]
        assert all(p.get("text", "x") for p in c["parts"])
        responses = [p["functionResponse"] for p in c["parts"] if "functionResponse" in p]
        if responses:
            calls = [p["functionCall"] for p in contents[i - 1]["parts"] if "functionCall" in p]
            order = [(fc["name"], fc.get("id")) for fc in calls]
            got = [(fr["name"], fr.get("id")) for fr in responses]
            remaining = iter(order)
            assert all(x in remaining for x in got)  # a subsequence of the calls, in order
            kinds_in = ["functionResponse" in p for p in c["parts"]]
            assert kinds_in[: len(responses)] == [True] * len(responses)


def test_args_json_cannot_hold_make_an_invalid_call_and_the_rest_parses() -> None:
    # json.loads lets NaN through; the other providers make such a call invalid too
    parts = [
        {"text": "hi"},
        {"functionCall": {"name": "f", "args": {"a": float("nan")}}},
        {"functionCall": {"name": "g", "args": {"a": 1}}},
    ]
    body = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}]}
    provider = get_provider("gemini")
    acc = provider.stream()
    acc.feed(body)
    for r in (provider.parse_response(body), acc.finish()):
        assert r.text == "hi"
        assert [c.name for c in r.tool_calls] == ["g"]
        [bad] = r.invalid_tool_calls
        assert (bad.name, bad.raw_arguments) == ("f", '{"a":NaN}')


def test_a_user_content_right_after_another_stays_apart() -> None:
    # the API takes consecutive user contents (function responses, then the next
    # question; or two questions): each goes back as it came, not merged into one
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "A"}]},
            {"role": "user", "parts": [{"text": "B"}]},
            {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "f", "args": {}}}]},
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"id": "c1", "name": "f", "response": {"output": "r"}}}
                ],
            },
            {"role": "user", "parts": [{"text": "C"}]},
        ]
    }
    ms = PROVIDER.parse_messages(body)
    assert PROVIDER.format_request(ms)["contents"] == body["contents"]
    # a conversation made here still merges a user message into the open content ...
    plain = [Message.user("A"), Message.user("B")]
    assert PROVIDER.format_request(plain)["contents"] == [
        {"role": "user", "parts": [{"text": "A"}, {"text": "B"}]}
    ]
    # ... and the mark is Gemini's own: no other provider reports or sends it
    for name in ("openai", "anthropic", "ollama"):
        conversion = get_provider(name).convert(ms)
        assert conversion.losses == ()
        assert "new_content" not in json.dumps(conversion.body)
