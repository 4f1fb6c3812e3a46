"""Hand-written wire cases for the Anthropic and Gemini providers beyond the fixtures.

Each case is a small, realistic wire example written from the providers' documentation
(Anthropic Messages API, streaming, tool use, extended thinking, stop reasons; Gemini
generateContent / streamGenerateContent, function calling, thought signatures, finish
reasons, usageMetadata) with the MANIFEST-convention facts a parser must extract.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import DecodeError, ToolResultMessage
from messages.providers.anthropic import PROVIDER as ANTHROPIC
from messages.providers.gemini import PROVIDER as GEMINI
from tests.fixture_checks import (
    check_request,
    check_response_facts,
    mutate,
    mutated_only_decode_error,
    mutations,
    parse_any,
    paths,
    run_stream,
)
from tests.provider_facts import unknown_blocks

Case = tuple[str, Any, dict[str, Any]]

SIG = "EqQBCkgIAhABGAIiQL2m8PRxJk3kc7bKp0N0fZ4xCqYv1d7GQ9ZsZkQkfD2rGs4cYTq9lW1vXh0mC2yqz0="
SIG2 = "CiQB0e2Kb8xJ7mQpW4n9ZgS2vVtU6kRyLzH3aT1oE5dFqB7cN8wXsY0r"


def _msg(content: Any, stop: Any, usage: dict[str, Any], **more: Any) -> Any:
    body = {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }
    body.update(more)
    return body


def _u(inp: int, out: int) -> dict[str, int]:
    return {"input_tokens": inp, "output_tokens": out}


def _usage(inp: int, out: int) -> dict[str, int]:
    return {"input_tokens": inp, "output_tokens": out, "total_tokens": inp + out}


# -- Anthropic responses ----------------------------------------------------------------

A_RESPONSES: list[Case] = [
    (
        "several_text_blocks_with_citations",
        _msg(
            [
                {"type": "text", "text": "According to the report, "},
                {
                    "type": "text",
                    "text": "revenue grew 12%",
                    "citations": [
                        {
                            "type": "char_location",
                            "cited_text": "Revenue grew 12% year over year.",
                            "document_index": 0,
                            "document_title": "Q3 report",
                            "start_char_index": 0,
                            "end_char_index": 32,
                        }
                    ],
                },
                {"type": "text", "text": " in Q3."},
            ],
            "end_turn",
            _u(610, 31),
        ),
        {
            "text": "According to the report, revenue grew 12% in Q3.",
            "reasoning": None,
            "tool_calls": [],
            "finish_reason": "stop",
            "provider_finish_reason": "end_turn",
            "usage": _usage(610, 31),
        },
    ),
    (
        "server_tool_use_and_web_search_result_kept",
        _msg(
            [
                {"type": "text", "text": "Let me search for that."},
                {
                    "type": "server_tool_use",
                    "id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
                    "name": "web_search",
                    "input": {"query": "paris weather today"},
                },
                {
                    "type": "web_search_tool_result",
                    "tool_use_id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
                    "content": [
                        {
                            "type": "web_search_result",
                            "url": "https://example.com/paris",
                            "title": "Paris weather",
                            "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y",
                            "page_age": "November 22, 2026",
                        }
                    ],
                },
                {
                    "type": "text",
                    "text": "It is sunny in Paris.",
                    "citations": [
                        {
                            "type": "web_search_result_location",
                            "url": "https://example.com/paris",
                            "title": "Paris weather",
                            "encrypted_index": "Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm",
                            "cited_text": "Sunny, 21 degrees.",
                        }
                    ],
                },
            ],
            "end_turn",
            {**_u(2100, 90), "server_tool_use": {"web_search_requests": 1}},
        ),
        {
            "text": "Let me search for that.It is sunny in Paris.",
            "tool_calls": [],
            "finish_reason": "stop",
            "usage": _usage(2100, 90),
            "unknown_blocks": [
                {"path": "content[1]", "type": "server_tool_use"},
                {"path": "content[2]", "type": "web_search_tool_result"},
            ],
        },
    ),
    (
        "future_block_type_kept",
        _msg(
            [
                {"type": "container_upload", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"},
                {"type": "text", "text": "Done."},
            ],
            "end_turn",
            _u(10, 2),
        ),
        {
            "text": "Done.",
            "finish_reason": "stop",
            "unknown_blocks": [{"path": "content[0]", "type": "container_upload"}],
        },
    ),
    (
        "tool_use_with_empty_input",
        _msg(
            [
                {
                    "type": "tool_use",
                    "id": "toolu_01A09q90qw90lq917835lq9",
                    "name": "get_time",
                    "input": {},
                }
            ],
            "tool_use",
            _u(300, 18),
        ),
        {
            "text": "",
            "tool_calls": [
                {"id": "toolu_01A09q90qw90lq917835lq9", "name": "get_time", "arguments": {}}
            ],
            "finish_reason": "tool_calls",
            "provider_finish_reason": "tool_use",
            "usage": _usage(300, 18),
        },
    ),
    (
        "thinking_redacted_text_tool_use",
        _msg(
            [
                {"type": "thinking", "thinking": "I need the weather first.", "signature": SIG},
                {
                    "type": "redacted_thinking",
                    "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw",
                },
                {"type": "text", "text": "Checking the weather."},
                {
                    "type": "tool_use",
                    "id": "toolu_01NRLabsLyVHZPKxbKvkfSMn",
                    "name": "get_weather",
                    "input": {"city": "Paris", "unit": "celsius", "days": [1, 2]},
                    "caller": {"type": "direct"},
                },
            ],
            "tool_use",
            _u(512, 240),
        ),
        {
            "text": "Checking the weather.",
            "reasoning": "I need the weather first.",
            "reasoning_blocks": [
                {"text": "I need the weather first.", "signature": SIG},
                {
                    "text": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw",
                    "signature": None,
                    "redacted": True,
                },
            ],
            "tool_calls": [
                {
                    "id": "toolu_01NRLabsLyVHZPKxbKvkfSMn",
                    "name": "get_weather",
                    "arguments": {"city": "Paris", "unit": "celsius", "days": [1, 2]},
                }
            ],
            "finish_reason": "tool_calls",
            "usage": _usage(512, 240),
        },
    ),
    (
        "pause_turn",
        _msg(
            [
                {
                    "type": "server_tool_use",
                    "id": "srvtoolu_01AbCdEfGhIjKlMnOpQrStUv",
                    "name": "web_search",
                    "input": {"query": "long research"},
                }
            ],
            "pause_turn",
            _u(900, 40),
        ),
        {
            "text": "",
            "tool_calls": [],
            "finish_reason": "stop",
            "provider_finish_reason": "pause_turn",
            "unknown_blocks": [{"path": "content[0]", "type": "server_tool_use"}],
        },
    ),
    (
        "model_context_window_exceeded",
        _msg(
            [{"type": "text", "text": "The list continues"}],
            "model_context_window_exceeded",
            _u(199000, 1000),
        ),
        {
            "text": "The list continues",
            "finish_reason": "length",
            "provider_finish_reason": "model_context_window_exceeded",
            "usage": _usage(199000, 1000),
        },
    ),
    (
        "stop_sequence_with_value",
        {
            **_msg([{"type": "text", "text": "1, 2, 3"}], "stop_sequence", _u(14, 7)),
            "stop_sequence": "4",
        },
        {"text": "1, 2, 3", "finish_reason": "stop", "provider_finish_reason": "stop_sequence"},
    ),
    (
        "refusal_with_stop_details",
        _msg(
            [{"type": "text", "text": "I can't help with that."}],
            "refusal",
            _u(35, 9),
            stop_details={"type": "refusal", "category": "cyber", "explanation": None},
        ),
        {
            "text": "I can't help with that.",
            "finish_reason": "content_filter",
            "provider_finish_reason": "refusal",
            "refusal": None,
            "usage": _usage(35, 9),
        },
    ),
    (
        "usage_with_cache_tokens_and_service_tier",
        _msg(
            [{"type": "text", "text": "Cached answer."}],
            "end_turn",
            {
                "input_tokens": 50,
                "cache_creation_input_tokens": 1000,
                "cache_read_input_tokens": 2000,
                "cache_creation": {
                    "ephemeral_5m_input_tokens": 1000,
                    "ephemeral_1h_input_tokens": 0,
                },
                "output_tokens": 30,
                "server_tool_use": None,
                "service_tier": "standard",
            },
            container=None,
            context_management=None,
        ),
        {"text": "Cached answer.", "finish_reason": "stop", "usage": _usage(3050, 30)},
    ),
    (
        "usage_with_null_cache_counts",
        _msg(
            [{"type": "text", "text": "Hi."}],
            "end_turn",
            {
                "input_tokens": 12,
                "cache_creation_input_tokens": None,
                "cache_read_input_tokens": None,
                "output_tokens": 3,
                "service_tier": "priority",
            },
        ),
        {"text": "Hi.", "usage": _usage(12, 3)},
    ),
]


def _events(*evs: dict[str, Any]) -> list[dict[str, Any]]:
    return list(evs)


def _start(usage: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_01PqRsTuVwXyZaBcDeFgHiJk",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage,
        },
    }


def _bstart(i: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": i, "content_block": block}


def _bdelta(i: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": i, "delta": delta}


def _text(i: int, text: str) -> dict[str, Any]:
    return _bdelta(i, {"type": "text_delta", "text": text})


def _json(i: int, part: str) -> dict[str, Any]:
    return _bdelta(i, {"type": "input_json_delta", "partial_json": part})


def _bstop(i: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": i}


def _mdelta(stop: str | None, usage: dict[str, Any], seq: str | None = None) -> dict[str, Any]:
    return {
        "type": "message_delta",
        "delta": {"stop_reason": stop, "stop_sequence": seq},
        "usage": usage,
    }


PING = {"type": "ping"}
MSTOP = {"type": "message_stop"}

A_STREAMS: list[Case] = [
    (
        "thinking_signature_delta_then_text",
        _events(
            _start({"input_tokens": 48, "output_tokens": 1}),
            PING,
            _bstart(0, {"type": "thinking", "thinking": "", "signature": ""}),
            _bdelta(0, {"type": "thinking_delta", "thinking": "France's capital "}),
            _bdelta(0, {"type": "thinking_delta", "thinking": "is Paris."}),
            _bdelta(0, {"type": "signature_delta", "signature": SIG}),
            _bstop(0),
            _bstart(1, {"type": "text", "text": ""}),
            _text(1, "Paris"),
            PING,
            _text(1, "."),
            _bstop(1),
            _mdelta("end_turn", {"output_tokens": 40}),
            _mdelta(None, {"output_tokens": 96}),
            MSTOP,
        ),
        {
            "text": "Paris.",
            "reasoning": "France's capital is Paris.",
            "reasoning_blocks": [{"text": "France's capital is Paris.", "signature": SIG}],
            "finish_reason": "stop",
            "provider_finish_reason": "end_turn",
            "usage": _usage(48, 96),
        },
    ),
    (
        "input_json_split_mid_string_and_mid_escape",
        _events(
            _start({"input_tokens": 300, "output_tokens": 2}),
            _bstart(
                0,
                {
                    "type": "tool_use",
                    "id": "toolu_01Kx9hQW6Xn2cV4bR7tY3mPz",
                    "name": "get_weather",
                    "input": {},
                },
            ),
            _json(0, ""),
            _json(0, '{"city": "S'),
            _json(0, "\\u00"),
            _json(0, "e3o Pau"),
            _json(0, 'lo \\"SP\\"'),
            _json(0, '", "note": "line\\'),
            _json(0, "nbreak \\ud83c"),
            _json(0, '\\udde7\\ud83c\\uddf7"}'),
            _bstop(0),
            _mdelta("tool_use", {"output_tokens": 61}),
            MSTOP,
        ),
        {
            "text": "",
            "tool_calls": [
                {
                    "id": "toolu_01Kx9hQW6Xn2cV4bR7tY3mPz",
                    "name": "get_weather",
                    "arguments": {
                        "city": 'São Paulo "SP"',
                        "note": "line\nbreak \U0001f1e7\U0001f1f7",
                    },
                }
            ],
            "finish_reason": "tool_calls",
            "usage": _usage(300, 61),
        },
    ),
    (
        "text_then_two_tool_use_blocks_cache_usage",
        _events(
            _start(
                {
                    "input_tokens": 12,
                    "cache_creation_input_tokens": 400,
                    "cache_read_input_tokens": 0,
                    "output_tokens": 1,
                    "service_tier": "standard",
                }
            ),
            _bstart(0, {"type": "text", "text": ""}),
            _text(0, "Both."),
            _bstop(0),
            _bstart(
                1,
                {
                    "type": "tool_use",
                    "id": "toolu_01AaAaAaAaAaAaAaAaAaAaAa",
                    "name": "add",
                    "input": {},
                },
            ),
            _json(1, ""),
            _json(1, '{"a": 1,'),
            _json(1, ' "b": 2}'),
            _bstop(1),
            _bstart(
                2,
                {
                    "type": "tool_use",
                    "id": "toolu_01BbBbBbBbBbBbBbBbBbBbBb",
                    "name": "list_files",
                    "input": {},
                },
            ),
            _json(2, ""),
            _bstop(2),
            _mdelta(
                "tool_use",
                {
                    "input_tokens": 12,
                    "cache_creation_input_tokens": 400,
                    "cache_read_input_tokens": 0,
                    "output_tokens": 70,
                },
            ),
            MSTOP,
        ),
        {
            "text": "Both.",
            "tool_calls": [
                {
                    "id": "toolu_01AaAaAaAaAaAaAaAaAaAaAa",
                    "name": "add",
                    "arguments": {"a": 1, "b": 2},
                },
                {"id": "toolu_01BbBbBbBbBbBbBbBbBbBbBb", "name": "list_files", "arguments": {}},
            ],
            "finish_reason": "tool_calls",
            "provider_finish_reason": "tool_use",
            "usage": _usage(412, 70),
        },
    ),
    (
        "error_event_mid_stream",
        _events(
            _start({"input_tokens": 21, "output_tokens": 1}),
            _bstart(0, {"type": "text", "text": ""}),
            _text(0, "Partial"),
            _text(0, " answer"),
            {"type": "error", "error": {"type": "api_error", "message": "Internal server error"}},
        ),
        {
            "text": "Partial answer",
            "tool_calls": [],
            "finish_reason": "error",
            "error": {"type": "api_error"},
        },
    ),
    (
        "unknown_event_and_delta_types_ignored",
        _events(
            _start({"input_tokens": 30, "output_tokens": 1}),
            {"type": "message_annotation", "annotation": {"kind": "future"}},
            _bstart(0, {"type": "text", "text": "", "citations": []}),
            _text(0, "Grass is green."),
            _bdelta(
                0,
                {
                    "type": "citations_delta",
                    "citation": {
                        "type": "char_location",
                        "cited_text": "Grass is green.",
                        "document_index": 0,
                        "document_title": None,
                        "start_char_index": 0,
                        "end_char_index": 15,
                    },
                },
            ),
            _bstop(0),
            _mdelta("end_turn", {"output_tokens": 8}),
            MSTOP,
        ),
        {"text": "Grass is green.", "finish_reason": "stop", "usage": _usage(30, 8)},
    ),
    (
        "server_tool_use_blocks_kept_in_stream",
        _events(
            _start({"input_tokens": 2000, "output_tokens": 3}),
            _bstart(0, {"type": "text", "text": ""}),
            _text(0, "Searching."),
            _bstop(0),
            _bstart(
                1,
                {
                    "type": "server_tool_use",
                    "id": "srvtoolu_014hJH82Qum7Td6UV8gDXThB",
                    "name": "web_search",
                    "input": {},
                },
            ),
            _json(1, ""),
            _json(1, '{"query": "paris"}'),
            _bstop(1),
            _bstart(
                2,
                {
                    "type": "web_search_tool_result",
                    "tool_use_id": "srvtoolu_014hJH82Qum7Td6UV8gDXThB",
                    "content": [
                        {
                            "type": "web_search_result",
                            "url": "https://example.com",
                            "title": "x",
                            "encrypted_content": "Eq",
                            "page_age": None,
                        }
                    ],
                },
            ),
            _bstop(2),
            _bstart(3, {"type": "text", "text": ""}),
            _text(3, " Sunny."),
            _bstop(3),
            _mdelta(
                "end_turn", {"output_tokens": 50, "server_tool_use": {"web_search_requests": 1}}
            ),
            MSTOP,
        ),
        {
            "text": "Searching. Sunny.",
            "tool_calls": [],
            "finish_reason": "stop",
            "usage": _usage(2000, 50),
            "unknown_blocks": [
                {"path": "content[1]", "type": "server_tool_use"},
                {"path": "content[2]", "type": "web_search_tool_result"},
            ],
        },
    ),
    (
        "stop_sequence_stream",
        _events(
            _start({"input_tokens": 9, "output_tokens": 1}),
            _bstart(0, {"type": "text", "text": ""}),
            _text(0, "a b"),
            _bstop(0),
            _mdelta("stop_sequence", {"output_tokens": 4}, seq="c"),
            MSTOP,
        ),
        {
            "text": "a b",
            "finish_reason": "stop",
            "provider_finish_reason": "stop_sequence",
            "usage": _usage(9, 4),
        },
    ),
]

A_STREAMS += [
    (
        "redacted_thinking_then_refusal_stop_details",
        _events(
            _start({"input_tokens": 5, "output_tokens": 1}),
            _bstart(0, {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"}),
            _bstop(0),
            _bstart(1, {"type": "text", "text": ""}),
            _text(1, "I can't help with that."),
            _bstop(1),
            {
                "type": "message_delta",
                "delta": {
                    "stop_reason": "refusal",
                    "stop_sequence": None,
                    "stop_details": {"type": "refusal", "category": "cyber"},
                },
                "usage": {"output_tokens": 7},
            },
            MSTOP,
        ),
        {
            "text": "I can't help with that.",
            "reasoning": None,
            "reasoning_blocks": [
                {"text": "EmwKAhgBEgy3va3pzix", "signature": None, "redacted": True}
            ],
            "finish_reason": "content_filter",
            "provider_finish_reason": "refusal",
            "usage": _usage(5, 7),
        },
    ),
]
A_RESPONSES += [
    (
        "error_body",
        {
            "type": "error",
            "error": {"type": "rate_limit_error", "message": "Slow down"},
            "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy",
        },
        {
            "text": "",
            "tool_calls": [],
            "finish_reason": "error",
            "usage": None,
            "error": {"type": "rate_limit_error"},
        },
    ),
]

# -- Anthropic requests (parse, compare facts, format back) --------------------------------

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

A_REQUESTS: list[Case] = [
    (
        "system_blocks_cache_control_images_documents",
        {
            "model": "claude-sonnet-4-5-20250929",
            "max_tokens": 1024,
            "system": [
                {
                    "type": "text",
                    "text": "You analyse documents.",
                    "cache_control": {"type": "ephemeral", "ttl": "1h"},
                },
                {
                    "type": "text",
                    "text": " Be brief.",
                    "cache_control": {"type": "ephemeral"},
                },
            ],
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/png", "data": PNG},
                        },
                        {
                            "type": "image",
                            "source": {"type": "url", "url": "https://upload.wikimedia.org/a.jpg"},
                        },
                        {
                            "type": "document",
                            "source": {
                                "type": "base64",
                                "media_type": "application/pdf",
                                "data": "JVBERi0xLjQK",
                            },
                            "title": "report.pdf",
                            "context": "Quarterly report",
                            "citations": {"enabled": True},
                            "cache_control": {"type": "ephemeral"},
                        },
                        {
                            "type": "document",
                            "source": {
                                "type": "text",
                                "media_type": "text/plain",
                                "data": "Grass is green.",
                            },
                        },
                        {
                            "type": "document",
                            "source": {"type": "url", "url": "https://example.com/a.pdf"},
                        },
                        {
                            "type": "text",
                            "text": "Summarise these.",
                            "cache_control": {"type": "ephemeral"},
                        },
                    ],
                },
            ],
        },
        {
            "messages": [
                {
                    "role": "system",
                    "text": "You analyse documents. Be brief.",
                    "tool_calls": [],
                    "tool_call_id": None,
                    "is_error": False,
                },
                {
                    "role": "user",
                    "text": "Summarise these.",
                    "tool_calls": [],
                    "tool_call_id": None,
                    "is_error": False,
                    "images": [
                        {"kind": "base64", "media_type": "image/png", "data": PNG},
                        {
                            "kind": "url",
                            "url": "https://upload.wikimedia.org/a.jpg",
                            "media_type": None,
                        },
                    ],
                },
            ]
        },
    ),
    (
        "tool_result_array_with_image_and_is_error_then_consecutive_user_text",
        {
            "model": "claude-sonnet-4-5-20250929",
            "max_tokens": 1024,
            "tools": [
                {
                    "name": "screenshot",
                    "description": "Take a screenshot",
                    "input_schema": {"type": "object", "properties": {}},
                },
                {
                    "name": "run",
                    "description": "Run a command",
                    "input_schema": {
                        "type": "object",
                        "properties": {"cmd": {"type": "string"}},
                        "required": ["cmd"],
                    },
                },
            ],
            "messages": [
                {"role": "user", "content": "Take a screenshot and run ls."},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "Sure."},
                        {
                            "type": "tool_use",
                            "id": "toolu_01Sc7eEnShOtAaAaAaAaAaAa",
                            "name": "screenshot",
                            "input": {},
                        },
                        {
                            "type": "tool_use",
                            "id": "toolu_01RuNnInGcMdAaAaAaAaAaAa",
                            "name": "run",
                            "input": {"cmd": "ls"},
                        },
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_01Sc7eEnShOtAaAaAaAaAaAa",
                            "content": [
                                {"type": "text", "text": "Screen:"},
                                {
                                    "type": "image",
                                    "source": {
                                        "type": "base64",
                                        "media_type": "image/png",
                                        "data": PNG,
                                    },
                                },
                            ],
                        },
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_01RuNnInGcMdAaAaAaAaAaAa",
                            "content": [{"type": "text", "text": "permission denied"}],
                            "is_error": True,
                        },
                        {"type": "text", "text": "What went wrong?"},
                    ],
                },
            ],
        },
        {
            "tools": ["screenshot", "run"],
            "messages": [
                {
                    "role": "user",
                    "text": "Take a screenshot and run ls.",
                    "tool_calls": [],
                    "tool_call_id": None,
                    "is_error": False,
                },
                {
                    "role": "assistant",
                    "text": "Sure.",
                    "tool_calls": [
                        {
                            "id": "toolu_01Sc7eEnShOtAaAaAaAaAaAa",
                            "name": "screenshot",
                            "arguments": {},
                        },
                        {
                            "id": "toolu_01RuNnInGcMdAaAaAaAaAaAa",
                            "name": "run",
                            "arguments": {"cmd": "ls"},
                        },
                    ],
                    "tool_call_id": None,
                    "is_error": False,
                },
                {
                    "role": "tool",
                    "text": "Screen:",
                    "tool_calls": [],
                    "tool_call_id": "toolu_01Sc7eEnShOtAaAaAaAaAaAa",
                    "is_error": False,
                    "tool_name": None,
                    "images": [{"kind": "base64", "media_type": "image/png", "data": PNG}],
                },
                {
                    "role": "tool",
                    "text": "permission denied",
                    "tool_calls": [],
                    "tool_call_id": "toolu_01RuNnInGcMdAaAaAaAaAaAa",
                    "is_error": True,
                    "tool_name": None,
                },
                {
                    "role": "user",
                    "text": "What went wrong?",
                    "tool_calls": [],
                    "tool_call_id": None,
                    "is_error": False,
                },
            ],
        },
    ),
    (
        "thinking_redacted_replayed_with_unknown_server_blocks",
        {
            "model": "claude-sonnet-4-5-20250929",
            "max_tokens": 2048,
            "thinking": {"type": "enabled", "budget_tokens": 1024},
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "Use the tool.", "signature": SIG},
                        {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
                        {
                            "type": "server_tool_use",
                            "id": "srvtoolu_01X",
                            "name": "web_search",
                            "input": {"query": "paris"},
                        },
                        {
                            "type": "web_search_tool_result",
                            "tool_use_id": "srvtoolu_01X",
                            "content": [],
                        },
                        {
                            "type": "tool_use",
                            "id": "toolu_01WeAtHeRaAaAaAaAaAaAaAa",
                            "name": "get_weather",
                            "input": {"city": "Paris"},
                        },
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_01WeAtHeRaAaAaAaAaAaAaAa",
                            "content": "18C",
                        },
                    ],
                },
            ],
        },
        {
            "messages": [
                {
                    "role": "user",
                    "text": "Weather in Paris?",
                    "tool_calls": [],
                    "tool_call_id": None,
                    "is_error": False,
                },
                {
                    "role": "assistant",
                    "text": "",
                    "tool_calls": [
                        {
                            "id": "toolu_01WeAtHeRaAaAaAaAaAaAaAa",
                            "name": "get_weather",
                            "arguments": {"city": "Paris"},
                        }
                    ],
                    "tool_call_id": None,
                    "is_error": False,
                    "reasoning": [
                        {"text": "Use the tool.", "signature": SIG, "redacted": False},
                        {"data": "EmwKAhgBEgy3va3pzix", "signature": None, "redacted": True},
                    ],
                },
                {
                    "role": "tool",
                    "text": "18C",
                    "tool_calls": [],
                    "tool_call_id": "toolu_01WeAtHeRaAaAaAaAaAaAaAa",
                    "is_error": False,
                    "tool_name": None,
                },
            ]
        },
    ),
]

A_REQUESTS += [
    (
        "tool_results_spelling_out_defaults",
        {
            "model": "claude-sonnet-4-5-20250929",
            "max_tokens": 256,
            "messages": [
                {"role": "user", "content": "Run all three."},
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_01OnEaAaAaAaAaAaAaAaAaAa",
                            "name": "a",
                            "input": {},
                        },
                        {
                            "type": "tool_use",
                            "id": "toolu_01TwOaAaAaAaAaAaAaAaAaAa",
                            "name": "b",
                            "input": {},
                        },
                        {
                            "type": "tool_use",
                            "id": "toolu_01ThReEaAaAaAaAaAaAaAaAa",
                            "name": "c",
                            "input": {},
                        },
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_01OnEaAaAaAaAaAaAaAaAaAa",
                            "content": "ok",
                            "is_error": False,
                        },
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_01TwOaAaAaAaAaAaAaAaAaAa",
                            "content": "",
                        },
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_01ThReEaAaAaAaAaAaAaAaAa",
                            "content": [],
                            "is_error": False,
                        },
                    ],
                },
            ],
        },
        {
            "messages": [
                {
                    "role": "user",
                    "text": "Run all three.",
                    "tool_calls": [],
                    "tool_call_id": None,
                    "is_error": False,
                },
                {
                    "role": "assistant",
                    "text": "",
                    "tool_calls": [
                        {"id": "toolu_01OnEaAaAaAaAaAaAaAaAaAa", "name": "a", "arguments": {}},
                        {"id": "toolu_01TwOaAaAaAaAaAaAaAaAaAa", "name": "b", "arguments": {}},
                        {"id": "toolu_01ThReEaAaAaAaAaAaAaAaAa", "name": "c", "arguments": {}},
                    ],
                    "tool_call_id": None,
                    "is_error": False,
                },
                {
                    "role": "tool",
                    "text": "ok",
                    "tool_calls": [],
                    "tool_call_id": "toolu_01OnEaAaAaAaAaAaAaAaAaAa",
                    "is_error": False,
                    "tool_name": None,
                },
                {
                    "role": "tool",
                    "text": "",
                    "tool_calls": [],
                    "tool_call_id": "toolu_01TwOaAaAaAaAaAaAaAaAaAa",
                    "is_error": False,
                    "tool_name": None,
                },
                {
                    "role": "tool",
                    "text": "",
                    "tool_calls": [],
                    "tool_call_id": "toolu_01ThReEaAaAaAaAaAaAaAaAa",
                    "is_error": False,
                    "tool_name": None,
                },
            ]
        },
    ),
    (
        "file_image_search_result_and_caller_kept",
        {
            "model": "claude-sonnet-4-5-20250929",
            "max_tokens": 256,
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "image",
                            "source": {"type": "file", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"},
                        },
                        {
                            "type": "search_result",
                            "source": "https://example.com/kb/1",
                            "title": "KB 1",
                            "content": [{"type": "text", "text": "Reset with the red button."}],
                            "citations": {"enabled": True},
                        },
                        {"type": "text", "text": "Use these."},
                    ],
                },
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "toolu_01CaLlErAaAaAaAaAaAaAaAa",
                            "name": "kb_search",
                            "input": {"q": "reset", "limit": None},
                            "caller": {"type": "direct"},
                        }
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_01CaLlErAaAaAaAaAaAaAaAa",
                            "content": [
                                {
                                    "type": "search_result",
                                    "source": "kb/2",
                                    "title": "KB 2",
                                    "content": [{"type": "text", "text": "x"}],
                                },
                                {"type": "text", "text": "1 hit"},
                            ],
                            "cache_control": {"type": "ephemeral"},
                        }
                    ],
                },
                {"role": "assistant", "content": "Press the red button."},
            ],
        },
        {
            "messages": [
                {
                    "role": "user",
                    "text": "Use these.",
                    "tool_calls": [],
                    "tool_call_id": None,
                    "is_error": False,
                },
                {
                    "role": "assistant",
                    "text": "",
                    "tool_calls": [
                        {
                            "id": "toolu_01CaLlErAaAaAaAaAaAaAaAa",
                            "name": "kb_search",
                            "arguments": {"q": "reset", "limit": None},
                        }
                    ],
                    "tool_call_id": None,
                    "is_error": False,
                },
                {
                    "role": "tool",
                    "text": "1 hit",
                    "tool_calls": [],
                    "tool_call_id": "toolu_01CaLlErAaAaAaAaAaAaAaAa",
                    "is_error": False,
                    "tool_name": None,
                },
                {
                    "role": "assistant",
                    "text": "Press the red button.",
                    "tool_calls": [],
                    "tool_call_id": None,
                    "is_error": False,
                },
            ]
        },
    ),
]

A_OPTIONAL = frozenset(("model", "max_tokens", "thinking"))

#: Consecutive user turns: the API combines them, so the facts are two user messages.
A_CONSECUTIVE_USERS = {
    "model": "claude-sonnet-4-5-20250929",
    "max_tokens": 64,
    "messages": [
        {"role": "user", "content": "First question."},
        {"role": "user", "content": [{"type": "text", "text": "Second question."}]},
    ],
}

A_MALFORMED: list[tuple[str, Any, str]] = [
    (
        "tool_use_input_array",
        _msg(
            [{"type": "tool_use", "id": "toolu_01", "name": "x", "input": []}], "tool_use", _u(1, 1)
        ),
        "",
    ),
    (
        "text_not_string",
        _msg([{"type": "text", "text": 5}], "end_turn", _u(1, 1)),
        "content[0].text",
    ),
    (
        "thinking_missing_text",
        _msg([{"type": "thinking", "signature": SIG}], "end_turn", _u(1, 1)),
        "content[0].thinking",
    ),
    (
        "usage_negative",
        _msg([], "end_turn", {"input_tokens": -1, "output_tokens": 1}),
        "usage.input_tokens",
    ),
    (
        "usage_string",
        _msg([], "end_turn", {"input_tokens": 1, "output_tokens": "2"}),
        "usage.output_tokens",
    ),
    ("stop_reason_number", _msg([], 3, _u(1, 1)), "stop_reason"),
    ("content_not_list", _msg("hello", "end_turn", _u(1, 1)), "content"),
    ("block_type_missing", _msg([{"text": "x"}], "end_turn", _u(1, 1)), "content[0].type"),
]

A_STREAM_MALFORMED: list[tuple[str, list[Any], str]] = [
    (
        "delta_before_block_start",
        [_start(_u(1, 1)), _text(0, "x")],
        "events[1].index",
    ),
    (
        "text_delta_not_string",
        [
            _start(_u(1, 1)),
            _bstart(0, {"type": "text", "text": ""}),
            _bdelta(0, {"type": "text_delta", "text": None}),
        ],
        "events[2].delta.text",
    ),
    (
        "signature_delta_on_text_block",
        [
            _start(_u(1, 1)),
            _bstart(0, {"type": "text", "text": ""}),
            _bdelta(0, {"type": "signature_delta", "signature": SIG}),
        ],
        "events[2].delta.type",
    ),
    (
        "message_delta_usage_negative",
        [_start(_u(1, 1)), _mdelta("end_turn", {"output_tokens": -3})],
        "events[1].usage.output_tokens",
    ),
    ("event_not_object", [_start(_u(1, 1)), "ping"], "events[1]"),
    (
        "truncated_after_delta",
        [_start(_u(1, 1)), _bstart(0, {"type": "text", "text": ""}), _text(0, "x")],
        "message_stop",
    ),
]


# -- Gemini responses -----------------------------------------------------------------------


def _g(
    parts: list[Any] | None,
    finish: str | None,
    usage: dict[str, Any] | None,
    **cand_more: Any,
) -> dict[str, Any]:
    cand: dict[str, Any] = {}
    if parts is not None:
        cand["content"] = {"parts": parts, "role": "model"}
    if finish is not None:
        cand["finishReason"] = finish
    cand["index"] = 0
    cand.update(cand_more)
    body: dict[str, Any] = {"candidates": [cand]}
    if usage is not None:
        body["usageMetadata"] = usage
    body["modelVersion"] = "gemini-2.5-flash"
    body["responseId"] = "mJghaNy0Lp7xz7IPvZjW-Ac"
    return body


def _gu(prompt: int, cands: int | None, total: int, **more: Any) -> dict[str, Any]:
    u: dict[str, Any] = {"promptTokenCount": prompt}
    if cands is not None:
        u["candidatesTokenCount"] = cands
    u["totalTokenCount"] = total
    u["promptTokensDetails"] = [{"modality": "TEXT", "tokenCount": prompt}]
    u.update(more)
    return u


SAFETY_RATINGS = [
    {"category": "HARM_CATEGORY_HATE_SPEECH", "probability": "NEGLIGIBLE"},
    {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": True},
    {"category": "HARM_CATEGORY_HARASSMENT", "probability": "NEGLIGIBLE"},
    {"category": "HARM_CATEGORY_SEXUALLY_EXPLICIT", "probability": "NEGLIGIBLE"},
]

G_RESPONSES: list[Case] = [
    (
        "several_text_parts",
        _g(
            [{"text": "The capital "}, {"text": "of France "}, {"text": "is Paris."}],
            "STOP",
            _gu(15, 8, 23),
        ),
        {
            "text": "The capital of France is Paris.",
            "reasoning": None,
            "tool_calls": [],
            "finish_reason": "stop",
            "provider_finish_reason": "STOP",
            "usage": _usage(15, 8),
        },
    ),
    (
        "thought_parts_and_text_signature_with_thoughts_and_cache_usage",
        _g(
            [
                {"text": "**Planning**\nLook up the capital.", "thought": True},
                {"text": " Then answer.", "thought": True},
                {"text": "Paris.", "thoughtSignature": SIG},
            ],
            "STOP",
            _gu(4000, 3, 4203, thoughtsTokenCount=200, cachedContentTokenCount=3500),
        ),
        {
            "text": "Paris.",
            "reasoning": "**Planning**\nLook up the capital. Then answer.",
            "tool_calls": [],
            "finish_reason": "stop",
            "usage": {"input_tokens": 4000, "output_tokens": 203, "total_tokens": 4203},
        },
    ),
    (
        "parallel_calls_with_ids_signature_on_first_and_text",
        _g(
            [
                {"text": "Checking both."},
                {
                    "functionCall": {
                        "id": "a1b2c3d4",
                        "name": "get_weather",
                        "args": {"city": "Paris"},
                    },
                    "thoughtSignature": SIG,
                },
                {
                    "functionCall": {
                        "id": "e5f6g7h8",
                        "name": "get_weather",
                        "args": {"city": "Tokyo"},
                    }
                },
                {"functionCall": {"id": "i9j0k1l2", "name": "get_time", "args": {}}},
            ],
            "STOP",
            _gu(98, 40, 250, thoughtsTokenCount=100, toolUsePromptTokenCount=12),
        ),
        {
            "text": "Checking both.",
            "tool_calls": [
                {
                    "id": "a1b2c3d4",
                    "name": "get_weather",
                    "arguments": {"city": "Paris"},
                    "signature": SIG,
                },
                {"id": "e5f6g7h8", "name": "get_weather", "arguments": {"city": "Tokyo"}},
                {"id": "i9j0k1l2", "name": "get_time", "arguments": {}},
            ],
            "finish_reason": "tool_calls",
            "provider_finish_reason": "STOP",
            "usage": {"input_tokens": 98, "output_tokens": 140, "total_tokens": 250},
        },
    ),
    (
        "parallel_calls_without_ids_no_args",
        _g(
            [
                {"functionCall": {"name": "list_files"}, "thoughtSignature": SIG2},
                {"functionCall": {"name": "get_time", "args": {"tz": "UTC", "fmt": {"iso": True}}}},
            ],
            "STOP",
            _gu(50, 10, 60),
        ),
        {
            "text": "",
            "tool_calls": [
                {"id": None, "name": "list_files", "arguments": {}, "signature": SIG2},
                {"id": None, "name": "get_time", "arguments": {"tz": "UTC", "fmt": {"iso": True}}},
            ],
            "finish_reason": "tool_calls",
            "usage": _usage(50, 10),
        },
    ),
    (
        "code_execution_parts_kept",
        _g(
            [
                {"text": "Let me compute."},
                {"executableCode": {"language": "PYTHON", "code": "print(sum(range(10)))"}},
                {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "45\n"}},
                {"text": " The sum is 45."},
            ],
            "STOP",
            _gu(30, 40, 70, toolUsePromptTokenCount=0),
        ),
        {
            "text": "Let me compute. The sum is 45.",
            "tool_calls": [],
            "finish_reason": "stop",
            "usage": _usage(30, 40),
            "unknown_blocks": [
                {"path": "candidates[0].content.parts[1]", "type": "executableCode"},
                {"path": "candidates[0].content.parts[2]", "type": "codeExecutionResult"},
            ],
        },
    ),
    (
        "max_tokens",
        _g(
            [{"text": "Paris is the capital and"}],
            "MAX_TOKENS",
            _gu(10, 5, 215, thoughtsTokenCount=200),
        ),
        {
            "text": "Paris is the capital and",
            "finish_reason": "length",
            "provider_finish_reason": "MAX_TOKENS",
            "usage": {"input_tokens": 10, "output_tokens": 205, "total_tokens": 215},
        },
    ),
    (
        "safety_with_ratings_no_content",
        _g(None, "SAFETY", _gu(12, None, 12), safetyRatings=SAFETY_RATINGS),
        {
            "text": "",
            "tool_calls": [],
            "finish_reason": "content_filter",
            "provider_finish_reason": "SAFETY",
            "usage": _usage(12, 0),
        },
    ),
    (
        "recitation_with_partial_text",
        _g(
            [{"text": "It was the best of times,"}],
            "RECITATION",
            _gu(20, 7, 27),
            citationMetadata={
                "citationSources": [{"startIndex": 0, "endIndex": 25, "uri": "https://example.com"}]
            },
        ),
        {
            "text": "It was the best of times,",
            "finish_reason": "content_filter",
            "provider_finish_reason": "RECITATION",
        },
    ),
    (
        "candidate_content_without_parts",
        {
            "candidates": [{"content": {"role": "model"}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": _gu(40, None, 40),
        },
        {"text": "", "tool_calls": [], "finish_reason": "stop", "usage": _usage(40, 0)},
    ),
    (
        "prompt_blocked_prohibited_content",
        {
            "promptFeedback": {
                "blockReason": "PROHIBITED_CONTENT",
                "safetyRatings": SAFETY_RATINGS,
            },
            "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9},
            "modelVersion": "gemini-2.5-flash",
        },
        {
            "text": "",
            "tool_calls": [],
            "finish_reason": "content_filter",
            "provider_finish_reason": None,
            "usage": _usage(9, 0),
        },
    ),
    (
        "prompt_blocked_with_empty_candidates",
        {
            "candidates": [],
            "promptFeedback": {"blockReason": "OTHER"},
            "usageMetadata": {"promptTokenCount": 5, "totalTokenCount": 5},
        },
        {"text": "", "finish_reason": "content_filter", "usage": _usage(5, 0)},
    ),
    (
        "malformed_function_call_with_finish_message",
        _g(
            None,
            "MALFORMED_FUNCTION_CALL",
            _gu(80, None, 80),
            finishMessage="Malformed function call: print(default_api.x(...))",
        ),
        {
            "text": "",
            "tool_calls": [],
            "finish_reason": "error",
            "provider_finish_reason": "MALFORMED_FUNCTION_CALL",
        },
    ),
    (
        "usage_without_total",
        _g(
            [{"text": "ok"}],
            "STOP",
            {"promptTokenCount": 3, "candidatesTokenCount": 1, "thoughtsTokenCount": 4},
        ),
        {"text": "ok", "usage": {"input_tokens": 3, "output_tokens": 5, "total_tokens": 8}},
    ),
]

G_FINISH = [
    ("STOP", "stop"),
    ("MAX_TOKENS", "length"),
    ("SAFETY", "content_filter"),
    ("RECITATION", "content_filter"),
    ("BLOCKLIST", "content_filter"),
    ("PROHIBITED_CONTENT", "content_filter"),
    ("SPII", "content_filter"),
    ("IMAGE_SAFETY", "content_filter"),
    ("IMAGE_PROHIBITED_CONTENT", "content_filter"),
    ("IMAGE_RECITATION", "content_filter"),
    ("IMAGE_OTHER", "content_filter"),
    ("MALFORMED_FUNCTION_CALL", "error"),
    ("UNEXPECTED_TOOL_CALL", "error"),
    ("TOO_MANY_TOOL_CALLS", "error"),
    ("OTHER", "error"),
    ("LANGUAGE", "error"),
    ("NO_IMAGE", "error"),
    ("FINISH_REASON_UNSPECIFIED", "error"),
]


def _chunk(
    parts: list[Any] | None, finish: str | None = None, usage: dict[str, Any] | None = None
) -> dict[str, Any]:
    body = _g(parts, finish, usage)
    if parts is None and finish is None:
        del body["candidates"]
    return body


G_STREAMS: list[Case] = [
    (
        "text_over_many_chunks_running_usage_final_finish_only",
        [
            _chunk([{"text": "The"}], usage=_gu(15, 1, 16)),
            _chunk([{"text": " capital"}], usage=_gu(15, 2, 17)),
            _chunk([{"text": " of France"}], usage=_gu(15, 5, 20)),
            _chunk([{"text": " is Paris."}], usage=_gu(15, 8, 23)),
            _chunk(None, "STOP", _gu(15, 8, 23)),
        ],
        {
            "text": "The capital of France is Paris.",
            "reasoning": None,
            "tool_calls": [],
            "finish_reason": "stop",
            "provider_finish_reason": "STOP",
            "usage": _usage(15, 8),
        },
    ),
    (
        "thoughts_then_text_then_calls_whole",
        [
            _chunk(
                [{"text": "**Thinking** about", "thought": True}],
                usage=_gu(98, None, 130, thoughtsTokenCount=32),
            ),
            _chunk(
                [{"text": " the cities.", "thought": True}],
                usage=_gu(98, None, 160, thoughtsTokenCount=62),
            ),
            _chunk([{"text": "Checking."}], usage=_gu(98, 3, 163, thoughtsTokenCount=62)),
            _chunk(
                [
                    {
                        "functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
                        "thoughtSignature": SIG,
                    }
                ],
                usage=_gu(98, 20, 180, thoughtsTokenCount=62),
            ),
            _chunk(
                [{"functionCall": {"name": "get_weather", "args": {"city": "Tokyo"}}}],
                usage=_gu(98, 37, 197, thoughtsTokenCount=62),
            ),
            _chunk([{"text": ""}], "STOP", _gu(98, 37, 197, thoughtsTokenCount=62)),
        ],
        {
            "text": "Checking.",
            "reasoning": "**Thinking** about the cities.",
            "tool_calls": [
                {
                    "id": None,
                    "name": "get_weather",
                    "arguments": {"city": "Paris"},
                    "signature": SIG,
                },
                {"id": None, "name": "get_weather", "arguments": {"city": "Tokyo"}},
            ],
            "finish_reason": "tool_calls",
            "provider_finish_reason": "STOP",
            "usage": {"input_tokens": 98, "output_tokens": 99, "total_tokens": 197},
        },
    ),
    (
        "calls_with_ids_in_one_chunk",
        [
            _chunk(
                [
                    {
                        "functionCall": {"id": "p1", "name": "add", "args": {"a": 1, "b": 2}},
                        "thoughtSignature": SIG2,
                    },
                    {"functionCall": {"id": "p2", "name": "add", "args": {"a": 3, "b": 4}}},
                ],
                "STOP",
                _gu(40, 12, 52),
            ),
        ],
        {
            "tool_calls": [
                {"id": "p1", "name": "add", "arguments": {"a": 1, "b": 2}, "signature": SIG2},
                {"id": "p2", "name": "add", "arguments": {"a": 3, "b": 4}},
            ],
            "finish_reason": "tool_calls",
            "usage": _usage(40, 12),
        },
    ),
    (
        "max_tokens_stream",
        [
            _chunk([{"text": "Once upon"}], usage=_gu(5, 2, 7)),
            _chunk([{"text": " a"}], "MAX_TOKENS", _gu(5, 3, 8)),
        ],
        {"text": "Once upon a", "finish_reason": "length", "usage": _usage(5, 3)},
    ),
    (
        "safety_stop_mid_stream",
        [
            _chunk([{"text": "Here is how"}], usage=_gu(12, 3, 15)),
            {
                "candidates": [
                    {"finishReason": "SAFETY", "index": 0, "safetyRatings": SAFETY_RATINGS}
                ],
                "usageMetadata": _gu(12, 3, 15),
            },
        ],
        {
            "text": "Here is how",
            "finish_reason": "content_filter",
            "provider_finish_reason": "SAFETY",
        },
    ),
    (
        "prompt_blocked_stream",
        [
            {
                "promptFeedback": {"blockReason": "SAFETY", "safetyRatings": SAFETY_RATINGS},
                "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9},
            }
        ],
        {"text": "", "finish_reason": "content_filter", "usage": _usage(9, 0)},
    ),
    (
        "usage_only_final_chunk",
        [
            _chunk([{"text": "Hi"}], "STOP", _gu(4, 1, 5)),
            {"usageMetadata": _gu(4, 2, 6), "modelVersion": "gemini-2.5-flash"},
        ],
        {"text": "Hi", "finish_reason": "stop", "usage": _usage(4, 2)},
    ),
]

G_STREAMS += [
    (
        "error_chunk_mid_stream_keeps_text",
        [
            _chunk([{"text": "Hel"}], usage=_gu(3, 1, 4)),
            {
                "error": {
                    "code": 503,
                    "message": "The model is overloaded.",
                    "status": "UNAVAILABLE",
                }
            },
        ],
        {
            "text": "Hel",
            "tool_calls": [],
            "finish_reason": "error",
            "usage": None,
            "error": {"type": "UNAVAILABLE"},
        },
    ),
    (
        "signatures_on_empty_parts",
        [
            _chunk([{"text": "", "thought": True, "thoughtSignature": SIG}]),
            _chunk([{"text": "A"}]),
            _chunk(
                [{"text": "", "thoughtSignature": SIG2}], "STOP", _gu(3, 1, 6, thoughtsTokenCount=2)
            ),
        ],
        {
            "text": "A",
            "reasoning": None,
            "reasoning_blocks": [{"text": "", "signature": SIG}],
            "finish_reason": "stop",
            "usage": {"input_tokens": 3, "output_tokens": 3, "total_tokens": 6},
        },
    ),
]
G_RESPONSES += [
    (
        "error_body",
        {
            "error": {
                "code": 429,
                "message": "Resource has been exhausted.",
                "status": "RESOURCE_EXHAUSTED",
            }
        },
        {
            "text": "",
            "finish_reason": "error",
            "usage": None,
            "error": {"type": "RESOURCE_EXHAUSTED"},
        },
    ),
    (
        "generated_image_part_kept",
        _g(
            [{"text": "Here:"}, {"inlineData": {"mimeType": "image/png", "data": PNG}}],
            "STOP",
            _gu(8, 1290, 1298),
        ),
        {
            "text": "Here:",
            "finish_reason": "stop",
            "unknown_blocks": [{"path": "candidates[0].content.parts[1]", "type": "inlineData"}],
        },
    ),
]

# -- Gemini requests -------------------------------------------------------------------------

G_REQUESTS: list[Case] = [
    (
        "system_parts_inline_and_file_data_thought_turn",
        {
            "systemInstruction": {
                "parts": [{"text": "You are terse."}, {"text": " Answer in French."}]
            },
            "contents": [
                {
                    "role": "user",
                    "parts": [
                        {"text": "Describe these."},
                        {"inlineData": {"mimeType": "image/png", "data": PNG}},
                        {
                            "fileData": {
                                "mimeType": "image/jpeg",
                                "fileUri": "https://generativelanguage.googleapis.com/v1beta/files/abc123",
                            }
                        },
                        {
                            "fileData": {
                                "mimeType": "application/pdf",
                                "fileUri": "gs://bucket/report.pdf",
                            }
                        },
                    ],
                },
                {
                    "role": "model",
                    "parts": [
                        {
                            "text": "Two images, one report.",
                            "thought": True,
                            "thoughtSignature": SIG,
                        },
                        {"text": "Deux images et un rapport."},
                    ],
                },
                {"role": "user", "parts": [{"text": "Merci."}]},
            ],
            "generationConfig": {"thinkingConfig": {"includeThoughts": True}},
        },
        {
            "messages": [
                {
                    "role": "system",
                    "text": "You are terse. Answer in French.",
                    "tool_calls": [],
                    "tool_call_id": None,
                    "is_error": False,
                },
                {
                    "role": "user",
                    "text": "Describe these.",
                    "tool_calls": [],
                    "tool_call_id": None,
                    "is_error": False,
                    "images": [
                        {"kind": "base64", "media_type": "image/png", "data": PNG},
                        {
                            "kind": "url",
                            "url": "https://generativelanguage.googleapis.com/v1beta/files/abc123",
                            "media_type": "image/jpeg",
                        },
                    ],
                },
                {
                    "role": "assistant",
                    "text": "Deux images et un rapport.",
                    "tool_calls": [],
                    "tool_call_id": None,
                    "is_error": False,
                    "reasoning": [
                        {"text": "Two images, one report.", "signature": SIG, "redacted": False}
                    ],
                },
                {
                    "role": "user",
                    "text": "Merci.",
                    "tool_calls": [],
                    "tool_call_id": None,
                    "is_error": False,
                },
            ]
        },
    ),
    (
        "function_responses_with_and_without_ids_and_shapes",
        {
            "contents": [
                {"role": "user", "parts": [{"text": "Do three things."}]},
                {
                    "role": "model",
                    "parts": [
                        {
                            "functionCall": {"id": "fc_1", "name": "lookup", "args": {"q": "a"}},
                            "thoughtSignature": SIG,
                        },
                        {"functionCall": {"id": "fc_2", "name": "lookup", "args": {"q": "b"}}},
                        {"functionCall": {"name": "stats", "args": {}}},
                    ],
                },
                {
                    "role": "user",
                    "parts": [
                        {
                            "functionResponse": {
                                "id": "fc_1",
                                "name": "lookup",
                                "response": {"output": {"hits": [1, 2]}},
                            }
                        },
                        {
                            "functionResponse": {
                                "id": "fc_2",
                                "name": "lookup",
                                "response": {"error": "not found"},
                            }
                        },
                        {
                            "functionResponse": {
                                "name": "stats",
                                "response": {"count": 3, "mean": 1.5},
                            }
                        },
                    ],
                },
                {"role": "model", "parts": [{"text": "Done."}]},
            ],
            "tools": [
                {
                    "functionDeclarations": [
                        {
                            "name": "lookup",
                            "description": "Look up",
                            "parameters": {
                                "type": "object",
                                "properties": {"q": {"type": "string"}},
                            },
                        },
                        {"name": "stats", "description": "Stats"},
                    ]
                }
            ],
        },
        {
            "tools": ["lookup", "stats"],
            "messages": [
                {
                    "role": "user",
                    "text": "Do three things.",
                    "tool_calls": [],
                    "tool_call_id": None,
                    "is_error": False,
                },
                {
                    "role": "assistant",
                    "text": "",
                    "tool_calls": [
                        {"id": "fc_1", "name": "lookup", "arguments": {"q": "a"}},
                        {"id": "fc_2", "name": "lookup", "arguments": {"q": "b"}},
                        {"id": None, "name": "stats", "arguments": {}},
                    ],
                    "tool_call_id": None,
                    "is_error": False,
                },
                {
                    "role": "tool",
                    "text": "",
                    "tool_calls": [],
                    "tool_call_id": "fc_1",
                    "is_error": False,
                    "tool_name": "lookup",
                    "result_json": {"hits": [1, 2]},
                },
                {
                    "role": "tool",
                    "text": "not found",
                    "tool_calls": [],
                    "tool_call_id": "fc_2",
                    "is_error": True,
                    "tool_name": "lookup",
                },
                {
                    "role": "tool",
                    "text": "",
                    "tool_calls": [],
                    "tool_call_id": None,
                    "is_error": False,
                    "tool_name": "stats",
                    "result_json": {"count": 3, "mean": 1.5},
                },
                {
                    "role": "assistant",
                    "text": "Done.",
                    "tool_calls": [],
                    "tool_call_id": None,
                    "is_error": False,
                },
            ],
        },
    ),
]

G_REQUESTS += [
    (
        "calls_without_args_and_error_object_result",
        {
            "contents": [
                {"role": "user", "parts": [{"text": "What time is it, and list files."}]},
                {
                    "role": "model",
                    "parts": [
                        {"text": "Checking.", "thoughtSignature": SIG2},
                        {"functionCall": {"name": "get_time"}},
                        {"functionCall": {"id": "ls_1", "name": "list_files"}},
                        {"functionCall": {"name": "get_date", "args": {}}},
                    ],
                },
                {
                    "role": "user",
                    "parts": [
                        {"functionResponse": {"name": "get_time", "response": {"output": "12:00"}}},
                        {
                            "functionResponse": {
                                "id": "ls_1",
                                "name": "list_files",
                                "response": {"error": {"code": 403, "message": "denied"}},
                            }
                        },
                        {
                            "functionResponse": {
                                "name": "get_date",
                                "response": {"output": "2026-11-22"},
                            }
                        },
                    ],
                },
            ]
        },
        {
            "messages": [
                {
                    "role": "user",
                    "text": "What time is it, and list files.",
                    "tool_calls": [],
                    "tool_call_id": None,
                    "is_error": False,
                },
                {
                    "role": "assistant",
                    "text": "Checking.",
                    "tool_calls": [
                        {"id": None, "name": "get_time", "arguments": {}},
                        {"id": "ls_1", "name": "list_files", "arguments": {}},
                        {"id": None, "name": "get_date", "arguments": {}},
                    ],
                    "tool_call_id": None,
                    "is_error": False,
                },
                {
                    "role": "tool",
                    "text": "12:00",
                    "tool_calls": [],
                    "tool_call_id": None,
                    "is_error": False,
                    "tool_name": "get_time",
                },
                {
                    "role": "tool",
                    "text": "",
                    "tool_calls": [],
                    "tool_call_id": "ls_1",
                    "is_error": True,
                    "tool_name": "list_files",
                    "result_json": {"code": 403, "message": "denied"},
                },
                {
                    "role": "tool",
                    "text": "2026-11-22",
                    "tool_calls": [],
                    "tool_call_id": None,
                    "is_error": False,
                    "tool_name": "get_date",
                },
            ]
        },
    ),
]

G_REQUESTS += [
    (
        "sdk_system_role_and_function_response_extras",
        {
            "systemInstruction": {"role": "user", "parts": [{"text": "Describe tool output."}]},
            "contents": [
                {"role": "user", "parts": [{"text": "Show me the chart."}]},
                {
                    "role": "model",
                    "parts": [
                        {
                            "functionCall": {
                                "id": "chart_1",
                                "name": "render_chart",
                                "args": {"kind": "bar"},
                            }
                        }
                    ],
                },
                {
                    "role": "user",
                    "parts": [
                        {
                            "functionResponse": {
                                "id": "chart_1",
                                "name": "render_chart",
                                "response": {"output": "rendered"},
                                "parts": [{"inlineData": {"mimeType": "image/png", "data": PNG}}],
                                "willContinue": False,
                                "scheduling": "WHEN_IDLE",
                            }
                        }
                    ],
                },
            ],
        },
        {
            "messages": [
                {
                    "role": "system",
                    "text": "Describe tool output.",
                    "tool_calls": [],
                    "tool_call_id": None,
                    "is_error": False,
                },
                {
                    "role": "user",
                    "text": "Show me the chart.",
                    "tool_calls": [],
                    "tool_call_id": None,
                    "is_error": False,
                },
                {
                    "role": "assistant",
                    "text": "",
                    "tool_calls": [
                        {"id": "chart_1", "name": "render_chart", "arguments": {"kind": "bar"}}
                    ],
                    "tool_call_id": None,
                    "is_error": False,
                },
                {
                    "role": "tool",
                    "text": "rendered",
                    "tool_calls": [],
                    "tool_call_id": "chart_1",
                    "is_error": False,
                    "tool_name": "render_chart",
                },
            ]
        },
    ),
]

G_OPTIONAL = frozenset(("generationConfig",))

G_MALFORMED: list[tuple[str, Any, str]] = [
    ("text_not_string", _g([{"text": 1}], "STOP", None), "candidates[0].content.parts[0].text"),
    ("finish_reason_number", _g([{"text": "x"}], 1, None), "candidates[0].finishReason"),  # type: ignore[arg-type]
    (
        "signature_not_string",
        _g([{"text": "x", "thoughtSignature": 5}], "STOP", None),
        "candidates[0].content.parts[0].thoughtSignature",
    ),
    (
        "usage_negative",
        _g([{"text": "x"}], "STOP", {"promptTokenCount": -2}),
        "usageMetadata.promptTokenCount",
    ),
    (
        "thoughts_string",
        _g([{"text": "x"}], "STOP", {"promptTokenCount": 2, "thoughtsTokenCount": "3"}),
        "usageMetadata.thoughtsTokenCount",
    ),
    (
        "parts_not_list",
        _g(None, "STOP", None, content={"parts": {"text": "x"}}),
        "candidates[0].content.parts",
    ),
    ("candidate_not_object", {"candidates": ["x"]}, "candidates[0]"),
    (
        "function_call_id_number",
        _g([{"functionCall": {"id": 7, "name": "f", "args": {}}}], "STOP", None),
        "candidates[0].content.parts[0].functionCall.id",
    ),
    ("no_candidates_no_feedback", {"usageMetadata": {"promptTokenCount": 1}}, "candidates"),
]

G_STREAM_MALFORMED: list[tuple[str, list[Any], str]] = [
    (
        "truncated_no_finish",
        [_chunk([{"text": "Hel"}]), _chunk([{"text": "lo"}])],
        "candidates[0].finishReason",
    ),
    (
        "second_chunk_text_number",
        [_chunk([{"text": "a"}]), _chunk([{"text": 3}], "STOP")],
        "events[1].candidates[0].content.parts[0].text",
    ),
    (
        "last_usage_bad",
        [_chunk([{"text": "a"}], "STOP", {"promptTokenCount": "x"})],
        "events[0].usageMetadata.promptTokenCount",
    ),
    ("chunk_not_object", [_chunk([{"text": "a"}]), []], "events[1]"),
]


# -- tests --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "body", "expected"), A_RESPONSES, ids=[c[0] for c in A_RESPONSES])
def test_anthropic_response(name: str, body: Any, expected: dict[str, Any]) -> None:
    check_response_facts(ANTHROPIC.parse_response(body), expected)


@pytest.mark.parametrize(("name", "events", "expected"), A_STREAMS, ids=[c[0] for c in A_STREAMS])
def test_anthropic_stream(name: str, events: Any, expected: dict[str, Any]) -> None:
    check_response_facts(run_stream(ANTHROPIC, events), expected)


@pytest.mark.parametrize(("name", "body", "expected"), A_REQUESTS, ids=[c[0] for c in A_REQUESTS])
def test_anthropic_request(name: str, body: Any, expected: dict[str, Any]) -> None:
    check_request(ANTHROPIC, {"expected": expected}, body, A_OPTIONAL)


def test_anthropic_consecutive_user_turns_are_two_messages() -> None:
    ms = ANTHROPIC.parse_messages(A_CONSECUTIVE_USERS)
    assert [(m.role.value, m.text) for m in ms] == [
        ("user", "First question."),
        ("user", "Second question."),
    ]
    body = ANTHROPIC.convert(ms).body
    # The API combines consecutive user turns; one wire turn with both texts is equivalent.
    again = ANTHROPIC.parse_messages(body)
    assert "".join(m.text for m in again) == "First question.Second question."


def test_anthropic_tool_result_keeps_text_and_image_parts() -> None:
    ms = ANTHROPIC.parse_messages(A_REQUESTS[1][1])
    tool = ms[2]
    assert isinstance(tool, ToolResultMessage)
    assert [type(p).__name__ for p in tool.parts] == ["TextPart", "ImagePart"]
    assert tool.is_error is False
    assert ms[3].is_error is True  # type: ignore[attr-defined]


@pytest.mark.parametrize(("name", "body", "where"), A_MALFORMED, ids=[c[0] for c in A_MALFORMED])
def test_anthropic_malformed_response(name: str, body: Any, where: str) -> None:
    if name == "tool_use_input_array":
        # Arguments that are not an object: an invalid call, the rest kept.
        r = ANTHROPIC.parse_response(body)
        assert r.tool_calls == ()
        assert r.invalid_tool_calls[0].error.startswith("content[0].input")
        return
    with pytest.raises(DecodeError) as info:
        ANTHROPIC.parse_response(body)
    assert info.value.path == where


@pytest.mark.parametrize(
    ("name", "events", "where"), A_STREAM_MALFORMED, ids=[c[0] for c in A_STREAM_MALFORMED]
)
def test_anthropic_malformed_stream(name: str, events: list[Any], where: str) -> None:
    with pytest.raises(DecodeError) as info:
        run_stream(ANTHROPIC, events)
    assert info.value.path == where


@pytest.mark.parametrize(("name", "body", "expected"), G_RESPONSES, ids=[c[0] for c in G_RESPONSES])
def test_gemini_response(name: str, body: Any, expected: dict[str, Any]) -> None:
    check_response_facts(GEMINI.parse_response(body), expected)


@pytest.mark.parametrize(("raw", "normalised"), G_FINISH)
def test_gemini_finish_reasons(raw: str, normalised: str) -> None:
    r = GEMINI.parse_response(_g([{"text": "x"}], raw, _gu(1, 1, 2)))
    assert (r.finish_reason.value, r.provider_finish_reason) == (normalised, raw)
    calls = GEMINI.parse_response(_g([{"functionCall": {"name": "f", "args": {}}}], raw, None))
    expected = "tool_calls" if raw == "STOP" else normalised
    assert calls.finish_reason.value == expected


@pytest.mark.parametrize(("name", "events", "expected"), G_STREAMS, ids=[c[0] for c in G_STREAMS])
def test_gemini_stream(name: str, events: Any, expected: dict[str, Any]) -> None:
    check_response_facts(run_stream(GEMINI, events), expected)


@pytest.mark.parametrize(("name", "body", "expected"), G_REQUESTS, ids=[c[0] for c in G_REQUESTS])
def test_gemini_request(name: str, body: Any, expected: dict[str, Any]) -> None:
    check_request(GEMINI, {"expected": expected}, body, G_OPTIONAL)


def test_gemini_request_signature_on_first_call_only() -> None:
    ms = GEMINI.parse_messages(G_REQUESTS[1][1])
    calls = ms[1].tool_calls
    assert calls[0].extras["gemini"]["thought_signature"] == SIG
    assert "gemini" not in calls[1].extras
    stats = ms[4]
    assert isinstance(stats, ToolResultMessage)
    assert stats.tool_call_id == calls[2].id  # paired by name and order when the wire has no id


@pytest.mark.parametrize(("name", "body", "where"), G_MALFORMED, ids=[c[0] for c in G_MALFORMED])
def test_gemini_malformed_response(name: str, body: Any, where: str) -> None:
    with pytest.raises(DecodeError) as info:
        GEMINI.parse_response(body)
    assert info.value.path == where


@pytest.mark.parametrize(
    ("name", "events", "where"), G_STREAM_MALFORMED, ids=[c[0] for c in G_STREAM_MALFORMED]
)
def test_gemini_malformed_stream(name: str, events: list[Any], where: str) -> None:
    with pytest.raises(DecodeError) as info:
        run_stream(GEMINI, events)
    assert info.value.path == where


def test_unknown_blocks_survive_a_request_round_trip() -> None:
    body = A_REQUESTS[2][1]
    ms = ANTHROPIC.parse_messages(body)
    kept = unknown_blocks(ms[1])
    assert kept == [
        {"path": "messages[1].content[2]", "type": "server_tool_use"},
        {"path": "messages[1].content[3]", "type": "web_search_tool_result"},
    ]


# -- every case, mutated: only DecodeError ------------------------------------------------------

_ALL: list[tuple[Any, Any, str]] = (
    [(ANTHROPIC, c[1], "request") for c in A_REQUESTS]
    + [(ANTHROPIC, c[1], "response") for c in A_RESPONSES + A_STREAMS]
    + [(GEMINI, c[1], "request") for c in G_REQUESTS]
    + [(GEMINI, c[1], "response") for c in G_RESPONSES + G_STREAMS]
)


@settings(max_examples=150)
@given(data=st.data())
def test_mutated_cases_raise_only_decode_error(data: st.DataObject) -> None:
    provider, value, kind = data.draw(st.sampled_from(_ALL))
    where = data.draw(st.sampled_from(list(paths(value))))
    delete = bool(where) and data.draw(st.booleans())
    mutated = mutate(copy.deepcopy(value), where, data.draw(mutations), delete)
    mutated_only_decode_error(provider, {"kind": kind}, mutated)


def test_parse_any_accepts_streams() -> None:
    assert parse_any(GEMINI, G_STREAMS[0][1]).text == "The capital of France is Paris."
