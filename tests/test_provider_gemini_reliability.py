"""Gemini parsers raise only DecodeError: deep nesting, hostile mappings, other providers' streams."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from messages import DecodeError, Message, ToolDefinition, ToolResultMessage
from messages.providers import FinishReason
from messages.providers.gemini import PROVIDER
from tests.conftest import SECRET, fixture_entries, load_fixture
from tests.fixture_checks import run_stream


def nested(depth: int, leaf: Any = None) -> Any:
    """``depth`` objects, each holding the next under ``"a"``."""
    node = leaf
    for _ in range(depth):
        node = {"a": node}
    return node


def nested_schema(levels: int) -> dict[str, Any]:
    """An object schema whose property is an object schema, ``levels`` deep."""
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def tools_body(params: Any, key: str = "parameters") -> dict[str, Any]:
    return {"tools": [{"functionDeclarations": [{"name": "f", "description": "d", key: params}]}]}


# -- deep nesting -------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["parameters", "parametersJsonSchema", "parameters_json_schema"])
def test_parse_tools_refuses_schemas_deeper_than_200_levels(key: str) -> None:
    # 99 levels of properties are 198 levels of objects: fine; 100 are over 200
    (tool,) = PROVIDER.parse_tools(tools_body(nested_schema(99), key))
    assert tool.parameters["properties"]["a"]["type"] == "object"
    for levels in (100, 1000, 5000):
        with pytest.raises(DecodeError) as info:
            PROVIDER.parse_tools(tools_body(nested_schema(levels), key))
        assert info.value.message == "nested deeper than 200 levels"
        assert info.value.path.startswith(f"tools[0].functionDeclarations[0].{key}.properties.a")


def test_a_deep_schema_is_cut_when_formatted() -> None:
    tool = ToolDefinition("f", "A tool.", nested_schema(99), strict=False)
    conversion = PROVIDER.convert([Message.user("q")], [tool])
    [loss] = conversion.losses
    assert (loss.what, loss.rule) == ("schema nested too deeply", "replaced by an object schema")


def test_deep_arguments_make_an_invalid_call_in_responses_and_streams() -> None:
    part = {"functionCall": {"id": "c1", "name": "f", "args": nested(5000, 1)}}
    body = {"candidates": [{"content": {"parts": [{"text": "hi"}, part]}, "finishReason": "STOP"}]}
    for r in (PROVIDER.parse_response(body), run_stream(PROVIDER, [body])):
        assert r.text == "hi"
        [bad] = r.invalid_tool_calls
        assert bad.id == "c1"
        assert "nested deeper than 200 levels" in bad.error


@pytest.mark.parametrize(
    ("body", "path"),
    [
        (
            {"contents": [{"parts": [{"xFuture": nested(5000)}]}]},
            "contents[0].parts[0]",
        ),
        (
            {
                "contents": [
                    {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
                    {
                        "parts": [
                            {
                                "functionResponse": {
                                    "name": "f",
                                    "response": {"output": nested(5000)},
                                }
                            }
                        ]
                    },
                ]
            },
            "contents[1].parts[0].functionResponse.response.output",
        ),
        (
            {"systemInstruction": {"parts": [{"text": "x", "a": nested(5000)}]}, "contents": []},
            "systemInstruction.parts",
        ),
    ],
    ids=["unknown-part", "function-response", "system"],
)
def test_deep_requests_give_a_decode_error(body: dict[str, Any], path: str) -> None:
    with pytest.raises(DecodeError) as info:
        PROVIDER.parse_messages(body)
    assert info.value.path.startswith(path)


def test_a_function_response_is_refused_past_the_depth_limit_on_every_python() -> None:
    # the limit is counted (200 levels, as freeze counts them), not wherever the C JSON
    # encoder of the running Python stops
    def body(levels: int) -> dict[str, Any]:
        call = {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]}
        response = {"functionResponse": {"name": "f", "response": {"output": nested(levels)}}}
        return {"contents": [call, {"parts": [response]}]}

    *_, result = PROVIDER.parse_messages(body(200))
    assert isinstance(result, ToolResultMessage)
    for levels in (201, 1500, 5000):
        with pytest.raises(DecodeError) as info:
            PROVIDER.parse_messages(body(levels))
        assert info.value.message == "nested deeper than 200 levels"
        path = "contents[1].parts[0].functionResponse.response.output"
        assert info.value.path == path + ".a" * 200


# -- hostile mappings -----------------------------------------------------------------------------


class Hostile(Mapping[str, Any]):
    """A Mapping whose every read raises (the error text holds the secret)."""

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError(SECRET)

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError(SECRET)

    def __len__(self) -> int:
        raise RuntimeError(SECRET)

    def get(self, key: str, default: Any = None) -> Any:
        raise RuntimeError(SECRET)

    def items(self) -> Any:
        raise RuntimeError(SECRET)


H = Hostile()
PARTS = {"candidates": [{"content": {"parts": [H]}, "finishReason": "STOP"}]}


@pytest.mark.parametrize(
    ("parse", "value"),
    [
        ("parse_response", H),
        ("parse_response", PARTS),
        ("parse_response", {"candidates": [{"content": {"parts": [{"functionCall": H}]}}]}),
        (
            "parse_response",
            {"candidates": [{"content": {"parts": [{"text": "x"}]}}], "usageMetadata": H},
        ),
        ("parse_messages", H),
        ("parse_messages", {"contents": [H]}),
        ("parse_messages", {"contents": [{"role": "model", "parts": [H]}]}),
        (
            "parse_messages",
            {"contents": [{"parts": [{"functionResponse": {"name": "f", "response": H}}]}]},
        ),
        ("parse_messages", [{"parts": [{"inlineData": H}]}]),
        ("parse_tools", H),
        ("parse_tools", {"tools": [H]}),
        ("parse_tools", {"tools": [{"functionDeclarations": [H]}]}),
        ("parse_tools", tools_body(H)),
        ("feed", H),
        ("feed", PARTS),
        ("feed", {"usageMetadata": {"promptTokenCount": 1}, "promptFeedback": H}),
    ],
)
def test_a_hostile_mapping_gives_a_decode_error(parse: str, value: Any) -> None:
    with pytest.raises(DecodeError) as info:
        if parse == "feed":
            PROVIDER.stream().feed(value)
        else:
            getattr(PROVIDER, parse)(value)
    assert SECRET not in str(info.value)
    assert "RuntimeError" in info.value.message


def test_a_hostile_usage_snapshot_fails_at_finish_with_a_decode_error() -> None:
    stream = PROVIDER.stream()
    stream.feed(
        {
            "candidates": [{"content": {"parts": [{"text": "x"}]}, "finishReason": "STOP"}],
            "usageMetadata": H,
        }
    )
    with pytest.raises(DecodeError) as info:
        stream.finish()
    assert SECRET not in str(info.value)


# -- other providers' streams --------------------------------------------------------------------

FOREIGN = {
    "openai chat": {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4o",
        "choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": None}],
    },
    "openai chat usage": {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": []},
    "anthropic": {
        "type": "message_start",
        "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": []},
    },
    "anthropic ping": {"type": "ping"},
    "anthropic error": {"type": "error", "error": {"type": "overloaded_error", "message": "x"}},
    "openai responses": {"type": "response.output_text.delta", "delta": "Hi", "sequence_number": 3},
    "ollama": {
        "model": "llama3",
        "created_at": "2025-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": "Hi"},
        "done": False,
    },
}


@pytest.mark.parametrize("event", FOREIGN.values(), ids=FOREIGN.keys())
def test_another_providers_stream_is_refused(event: dict[str, Any]) -> None:
    stream = PROVIDER.stream()
    with pytest.raises(DecodeError) as info:
        stream.feed(event)
    assert info.value.path == "events[0]"
    assert "not a Gemini streamGenerateContent chunk" in info.value.message


def test_chunks_without_candidates_still_work() -> None:
    usage = {"usageMetadata": {"promptTokenCount": 3, "totalTokenCount": 3}}
    r = run_stream(
        PROVIDER,
        [
            {"responseId": "r1", "modelVersion": "gemini-x"},
            {"candidates": [{"content": {"parts": [{"text": "Hi"}]}}]},
            {"candidates": [{"finishReason": "STOP"}]},
            usage,
        ],
    )
    assert (r.text, r.finish_reason, r.id, r.model) == ("Hi", FinishReason.STOP, "r1", "gemini-x")
    assert r.usage is not None and r.usage.total_tokens == 3
    blocked = run_stream(PROVIDER, [{"promptFeedback": {"blockReason": "SAFETY"}}])
    assert blocked.finish_reason is FinishReason.CONTENT_FILTER
    failed = run_stream(PROVIDER, [{"error": {"code": 503, "status": "UNAVAILABLE"}}])
    assert failed.error == "UNAVAILABLE"


@pytest.mark.parametrize(
    "entry",
    [e for e in fixture_entries("gemini") if e["kind"] == "stream"],
    ids=lambda e: e["file"],
)
def test_every_gemini_stream_fixture_is_accepted(entry: dict[str, Any]) -> None:
    assert run_stream(PROVIDER, load_fixture(entry)).finish_reason is not FinishReason.OTHER


# -- identifiers in errors ---------------------------------------------------------------------


def test_errors_name_identifiers_quoted_and_cut() -> None:
    long = "n" * 100
    r = PROVIDER.parse_response(
        {
            "candidates": [
                {
                    "content": {"parts": [{"functionCall": {"name": long, "args": {}}}]},
                    "finishReason": "STOP",
                }
            ]
        }
    )
    assert r.invalid_tool_calls[0].error == (
        f"candidates[0].content.parts[0].functionCall.name: invalid tool name {'n' * 64!r}..."
    )
    twice = {"functionCall": {"id": "dup", "name": "f", "args": {}}}
    with pytest.raises(DecodeError, match="duplicate functionCall id 'dup'"):
        PROVIDER.parse_response(
            {"candidates": [{"content": {"parts": [twice, twice]}, "finishReason": "STOP"}]}
        )
    with pytest.raises(DecodeError, match="got 'assistant'"):
        PROVIDER.parse_messages({"contents": [{"role": "assistant", "parts": []}]})


def test_a_foreign_stream_error_names_the_field_not_the_content() -> None:
    event = {"type": SECRET, "choices": [{"delta": {"content": SECRET}}]}
    with pytest.raises(DecodeError) as info:
        PROVIDER.stream().feed(event)
    assert SECRET not in str(info.value)
    assert "'choices'" in info.value.message


# -- call ids -------------------------------------------------------------------------------


def _turn(*ids: str | None, partial: bool = False) -> dict[str, Any]:
    """A response whose calls have these wire ids (None: no id, one is derived), their
    arguments whole or (``partial``) as Vertex streams them."""
    args: Any = (
        (lambda k: {"partialArgs": [{"jsonPath": "$.n", "numberValue": k}]})
        if partial
        else (lambda k: {"args": {"n": k}})
    )
    parts = [
        {"functionCall": {"name": "f", **args(k), **({"id": i} if i else {})}}
        for k, i in enumerate(ids)
    ]
    content = {"role": "model", "parts": parts}
    return {"candidates": [{"content": content, "finishReason": "STOP"}], "responseId": "r1"}


def _parts(body: dict[str, Any]) -> list[Any]:
    return body["candidates"][0]["content"]["parts"]  # type: ignore[no-any-return]


def _read(reader: str, body: dict[str, Any]) -> list[str]:
    """The call ids ``reader`` makes of ``body``."""
    message: Message
    if reader == "partial":
        stream = PROVIDER.stream()
        stream.feed(_turn(*(c["functionCall"].get("id") for c in _parts(body)), partial=True))
        message = stream.finish().message
    elif reader == "parse":
        message = PROVIDER.parse_response(body).message
    elif reader == "stream":
        stream = PROVIDER.stream()
        stream.feed(body)
        message = stream.finish().message
    else:
        (message,) = PROVIDER.parse_messages([body["candidates"][0]["content"]])
    return [c.id for c in message.tool_calls]


@pytest.mark.parametrize("reader", ["parse", "stream", "partial", "import"])
def test_two_calls_of_one_turn_with_one_id_are_a_decode_error(reader: str) -> None:
    # two wire ids alike, and a wire id alike the id derived for a call without one
    derived = _read(reader, _turn(None))[0]
    assert len(set(_read(reader, _turn(None, None, "c1")))) == 3  # derived ids differ
    for body in (_turn("c1", "c1"), _turn(None, derived)):
        with pytest.raises(DecodeError, match="duplicate functionCall id"):
            _read(reader, body)
