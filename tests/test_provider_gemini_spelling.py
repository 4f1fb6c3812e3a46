"""Gemini reads the proto field names (``function_call``, ``mime_type``...) like the REST ones.

The REST API is proto3 JSON, which accepts both spellings; Google's REST samples send
``inline_data`` / ``system_instruction``, Vertex AI clients send the proto names, and a
google-genai object dumped with ``model_dump()`` has them. Formatting writes lowerCamelCase.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from messages import DecodeError, FilePart, ImagePart, Message, ToolCallMessage
from messages.providers.gemini import PROVIDER
from tests.fixture_checks import run_stream

SIG = "c2lnbmF0dXJl"


def snake(value: Any) -> Any:
    """``value`` with every object key in the proto spelling (data values left alone)."""
    if isinstance(value, dict):
        out = {}
        for key, sub in value.items():
            new = re.sub(r"[A-Z]", lambda m: "_" + m.group(0).lower(), key)
            # arguments, responses and schema properties are data: kept as they are
            out[new] = sub if key in ("args", "response", "properties") else snake(sub)
        return out
    if isinstance(value, list):
        return [snake(v) for v in value]
    return value


REQUEST = {
    "systemInstruction": {"parts": [{"text": "Be brief."}]},
    "contents": [
        {
            "role": "user",
            "parts": [
                {"text": "Look:"},
                {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
                {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://bucket/a.pdf"}},
                {"text": "clip", "videoMetadata": {"startOffset": "1s"}},
            ],
        },
        {
            "role": "model",
            "parts": [
                {"text": "plan", "thought": True, "thoughtSignature": SIG},
                {
                    "functionCall": {"name": "get_weather", "args": {"city_name": "Paris"}},
                    "thoughtSignature": SIG,
                },
                {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "name": "get_weather",
                        "response": {"output": "18C"},
                        "willContinue": False,
                    }
                }
            ],
        },
    ],
}


def test_a_request_in_proto_names_imports_as_the_rest_one() -> None:
    rest = PROVIDER.parse_messages(copy.deepcopy(REQUEST))
    proto = PROVIDER.parse_messages(snake(REQUEST))

    def plain(m: Message) -> dict[str, Any]:  # kept parts keep their own spelling
        return {k: v for k, v in m.to_dict().items() if k not in ("id", "created_at", "gemini")}

    assert [plain(m) for m in proto] == [plain(m) for m in rest]
    assert isinstance(proto[2], ToolCallMessage)
    assert proto[2].tool_calls[0].extras == {"gemini": {"thought_signature": SIG}}
    assert proto[2].reasoning[0].signature == SIG
    assert [type(p) for p in proto[1].parts][1:3] == [ImagePart, FilePart]
    # formatting writes the REST spelling; kept parts and fields keep the spelling they came in
    body = PROVIDER.convert(proto).body
    rest_body = PROVIDER.convert(rest).body
    assert body["systemInstruction"] == rest_body["systemInstruction"]
    assert body["contents"][1]["parts"][:2] == rest_body["contents"][1]["parts"][:2]
    assert body["contents"][0]["parts"][:3] == rest_body["contents"][0]["parts"][:3]
    assert body["contents"][0]["parts"][3] == {
        "text": "clip",
        "video_metadata": {"start_offset": "1s"},
    }
    assert body["contents"][1]["parts"][2] == {
        "executable_code": {"language": "PYTHON", "code": "print(1)"}
    }
    assert body["contents"][2]["parts"][0]["functionResponse"]["will_continue"] is False


def test_file_data_with_proto_names_is_accepted() -> None:
    # refused before: "fileData.mimeType: missing"
    body = {
        "contents": [
            {"parts": [{"fileData": {"file_uri": "gs://b/x.png", "mime_type": "image/png"}}]}
        ]
    }
    [m] = PROVIDER.parse_messages(body)
    assert m.parts == (ImagePart(url="gs://b/x.png", media_type="image/png"),)
    with pytest.raises(DecodeError) as info:
        PROVIDER.parse_messages(
            {"contents": [{"parts": [{"file_data": {"file_uri": "gs://b/x"}}]}]}
        )
    assert info.value.path == "contents[0].parts[0].file_data.mimeType"


def test_a_blob_field_the_model_has_no_place_for_is_kept() -> None:
    body = {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {
                        "inlineData": {
                            "mimeType": "image/png",
                            "data": "iVBORw0KGgo=",
                            "displayName": "cat.png",
                        }
                    }
                ],
            }
        ]
    }
    ms = PROVIDER.parse_messages(copy.deepcopy(body))
    assert PROVIDER.convert(ms).body == body


RESPONSE = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [
                    {"text": "plan", "thought": True},
                    {"text": "Sure.", "thoughtSignature": SIG},
                    {
                        "functionCall": {"name": "get_weather", "args": {"city_name": "Paris"}},
                        "thoughtSignature": SIG,
                    },
                ],
            },
            "finishReason": "STOP",
        }
    ],
    "usageMetadata": {
        "promptTokenCount": 5,
        "candidatesTokenCount": 3,
        "thoughtsTokenCount": 2,
        "totalTokenCount": 10,
        "cachedContentTokenCount": 1,
    },
    "modelVersion": "gemini-x",
    "responseId": "r1",
    "promptFeedback": {"safetyRatings": []},
}


def _facts(r: Any) -> Any:
    return (
        r.message.content,
        r.message.tool_calls,
        r.message.extras,
        r.usage,
        r.finish_reason,
        r.provider_finish_reason,
        r.model,
        r.id,
    )


def test_a_response_in_proto_names_parses_as_the_rest_one() -> None:
    rest = PROVIDER.parse_response(copy.deepcopy(RESPONSE))
    proto = PROVIDER.parse_response(snake(RESPONSE))
    assert _facts(proto) == _facts(rest)
    assert rest.usage is not None and rest.usage.reasoning_tokens == 2
    # a google-genai object dumped without exclude_none: unset fields are null
    dumped = snake(RESPONSE)
    for part in dumped["candidates"][0]["content"]["parts"]:
        for key in (
            "text",
            "function_call",
            "inline_data",
            "thought",
            "thought_signature",
            "video_metadata",
        ):
            part.setdefault(key, None)
    dumped["usage_metadata"]["tool_use_prompt_token_count"] = None
    assert _facts(PROVIDER.parse_response(dumped)) == _facts(rest)


def test_a_stream_in_proto_names_gives_the_rest_ones_response() -> None:
    rest = run_stream(PROVIDER, [copy.deepcopy(RESPONSE)])
    assert _facts(run_stream(PROVIDER, [snake(RESPONSE)])) == _facts(rest)
    partial = [
        {
            "candidates": [
                {"content": {"parts": [{"function_call": {"name": "plan", "will_continue": True}}]}}
            ]
        },
        {
            "candidates": [
                {
                    "content": {
                        "parts": [
                            {
                                "function_call": {
                                    "partial_args": [
                                        {
                                            "json_path": "$.city",
                                            "string_value": "Pa",
                                            "will_continue": True,
                                        },
                                        {"json_path": "$.days", "number_value": 3},
                                        {"json_path": "$.ok", "bool_value": True},
                                        {"json_path": "$.note", "null_value": None},
                                    ],
                                    "will_continue": True,
                                }
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
                                "function_call": {
                                    "partial_args": [{"json_path": "$.city", "string_value": "ris"}]
                                }
                            }
                        ]
                    }
                }
            ]
        },
        {
            "candidates": [{"finish_reason": "STOP"}],
            "usage_metadata": {"prompt_token_count": 4, "total_token_count": 9},
        },
    ]
    r = run_stream(PROVIDER, partial)
    assert [(c.name, dict(c.arguments)) for c in r.tool_calls] == [
        ("plan", {"city": "Paris", "days": 3, "ok": True, "note": None})
    ]
    assert r.usage is not None and r.usage.total_tokens == 9


def test_tools_in_proto_names() -> None:
    body = {
        "tools": [
            {
                "function_declarations": [
                    {
                        "name": "search",
                        "description": "Search.",
                        "parameters": {
                            "type": "OBJECT",
                            "properties": {
                                "max_items": {"type": "INTEGER"},
                                "tags": {
                                    "type": "ARRAY",
                                    "items": {"type": "STRING"},
                                    "max_items": 3,
                                },
                                "when": {"any_of": [{"type": "STRING"}, {"type": "NULL"}]},
                            },
                            "property_ordering": ["max_items", "tags", "when"],
                        },
                    },
                    {
                        "name": "raw",
                        "description": "JSON Schema.",
                        "parameters_json_schema": {
                            "type": "object",
                            "properties": {"max_items": {"type": "integer"}},
                        },
                    },
                ]
            }
        ]
    }
    search, raw = PROVIDER.parse_tools(body)
    assert search.parameters == {
        "type": "object",
        "properties": {
            "max_items": {"type": "integer"},  # a property name is data, never renamed
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
            "when": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "propertyOrdering": ["max_items", "tags", "when"],
    }
    assert raw.parameters == {"type": "object", "properties": {"max_items": {"type": "integer"}}}


def test_an_empty_user_text_turn_is_kept() -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "Write a haiku."}]},
            {"role": "model", "parts": [{"text": "Soft rain"}]},
            {"role": "user", "parts": [{"text": ""}]},
        ]
    }
    ms = PROVIDER.parse_messages(copy.deepcopy(body))
    conversion = PROVIDER.convert(ms)
    assert conversion.body == body
    assert conversion.losses == ()
    # a user turn with nothing Gemini can carry keeps its place the same way
    conversion = PROVIDER.convert(
        [Message.user("q"), Message.assistant("a"), Message.user([FilePart(file_id="file-abc")])]
    )
    assert conversion.body["contents"][2] == {"role": "user", "parts": [{"text": ""}]}
    assert [x.what for x in conversion.losses] == ["file id of another provider"]
