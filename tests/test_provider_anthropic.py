"""The Anthropic Messages API provider: fixtures, formatting rules, streaming, fuzzing."""

from __future__ import annotations

import base64
import itertools
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
    UserMessage,
    ValidationError,
)
from messages._repair import UNANSWERED_TEXT
from messages.providers import FinishReason, LossWarning, get_provider
from messages.providers.anthropic import PROVIDER, AnthropicProvider
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

ENTRIES = fixture_entries("anthropic")

#: Request keys that are not part of the conversation (model and sampling options).
OPTIONAL_KEYS = frozenset(
    (
        "model",
        "max_tokens",
        "thinking",
        "temperature",
        "top_p",
        "top_k",
        "stop_sequences",
        "stream",
        "metadata",
        "tool_choice",
        "service_tier",
        "container",
        "mcp_servers",
        "context_management",
    )
)


def test_registered() -> None:
    assert get_provider("anthropic") is PROVIDER
    assert isinstance(PROVIDER, AnthropicProvider)
    assert PROVIDER.name == "anthropic"


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"] for e in ENTRIES])
def test_fixture(entry: dict[str, Any]) -> None:
    check_entry(PROVIDER, entry, load_fixture(entry), OPTIONAL_KEYS)


def test_every_fixture_file_is_in_the_manifest() -> None:
    from tests.conftest import FIXTURES

    files = {str(p.relative_to(FIXTURES)) for p in (FIXTURES / "anthropic").rglob("*.json*")}
    assert files == {e["file"] for e in ENTRIES}


# -- formatting rules -----------------------------------------------------------------

SIG = "c2lnbmF0dXJl"


def call(i: int, name: str = "get_weather", **extras: Any) -> ToolCall:
    return ToolCall(f"toolu_{i}", name, {"city": f"c{i}"}, extras=extras or None)


def tool_use(i: int, name: str = "get_weather") -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": {"city": f"c{i}"}}


def calls_turn(*ids: int, content: Any = None) -> ToolCallMessage:
    return ToolCallMessage([call(i) for i in ids], content)


CASES: list[tuple[str, list[Message], dict[str, Any], list[str]]] = [
    (
        "one system message is a string",
        [Message.system("Be brief."), Message.user("Hi")],
        {"system": "Be brief.", "messages": [{"role": "user", "content": "Hi"}]},
        [],
    ),
    (
        "system and developer become text blocks",
        [Message.system("A"), Message.developer("B"), Message.user("Hi")],
        {
            "system": [{"type": "text", "text": "A"}, {"type": "text", "text": "B"}],
            "messages": [{"role": "user", "content": "Hi"}],
        },
        [],
    ),
    (
        "a late system message is moved to the top",
        [Message.user("Hi"), Message.system("Late")],
        {"system": "Late", "messages": [{"role": "user", "content": "Hi"}]},
        ["messages[1]"],
    ),
    (
        "consecutive user messages merge into blocks",
        [Message.user("a"), Message.user("b")],
        {
            "messages": [
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                }
            ]
        },
        [],
    ),
    (
        "parallel results share one user message, is_error kept",
        [
            Message.user("q"),
            calls_turn(1, 2),
            Message.tool_result("toolu_1", "ok"),
            Message.tool_result("toolu_2", "boom", is_error=True),
        ],
        {
            "messages": [
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": [tool_use(1), tool_use(2)]},
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"},
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_2",
                            "content": "boom",
                            "is_error": True,
                        },
                    ],
                },
            ]
        },
        [],
    ),
    (
        "user text after results joins them, results first",
        [
            Message.user("q"),
            calls_turn(1),
            Message.user("also"),
            Message.tool_result("toolu_1", ""),
        ],
        {
            "messages": [
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": [tool_use(1)]},
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_1"},
                        {"type": "text", "text": "also"},
                    ],
                },
            ]
        },
        [],
    ),
    (
        "consecutive assistant messages merge",
        [Message.user("q"), Message.assistant("Let me look."), calls_turn(1)],
        {
            "messages": [
                {"role": "user", "content": "q"},
                {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "Let me look."}, tool_use(1)],
                },
            ]
        },
        [],
    ),
    (
        "empty text blocks are never sent",
        [Message.user([TextPart(""), TextPart("x"), TextPart("")])],
        {"messages": [{"role": "user", "content": [{"type": "text", "text": "x"}]}]},
        [],
    ),
    (
        "an empty message is omitted",
        [Message.user("q"), Message.assistant(""), Message.user("again")],
        {
            "messages": [
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "q"}, {"type": "text", "text": "again"}],
                }
            ]
        },
        ["messages[1]"],
    ),
    (
        "whitespace-only text alone is never sent (the API rejects it; beside real text it is kept)",
        [
            Message.system(" \n"),
            Message.user([TextPart("\t"), TextPart("x")]),
            Message.assistant("\u3000"),
            Message.user("  "),
            Message.assistant([TextPart(" ")]),
            Message.assistant("ok"),
        ],
        {
            "messages": [
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "\t"}, {"type": "text", "text": "x"}],
                },
                {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
            ]
        },
        [
            "messages[0].content",
            "messages[2].content",
            "messages[3].content",
            "messages[2]",
            "messages[4].content[0]",
        ],
    ),
    (
        "a final assistant turn loses its trailing whitespace (the API rejects it)",
        [Message.user("q"), Message.assistant("The answer is \n")],
        {
            "messages": [
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": "The answer is"},
            ]
        },
        ["messages[1].content"],
    ),
    (
        "trailing whitespace is kept where the turn is not the last",
        [
            Message.user("q "),
            Message.assistant([TextPart("a"), TextPart("b\n")]),
            Message.user("more"),
        ],
        {
            "messages": [
                {"role": "user", "content": "q "},
                {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b\n"}],
                },
                {"role": "user", "content": "more"},
            ]
        },
        [],
    ),
    (
        "a final turn's last text block loses its trailing whitespace",
        [Message.user("q"), Message.assistant([TextPart("a "), TextPart("b ")])],
        {
            "messages": [
                {"role": "user", "content": "q"},
                {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "a "}, {"type": "text", "text": "b"}],
                },
            ]
        },
        ["messages[1].content"],
    ),
    (
        "images by base64, url and data: url; detail is lost",
        [
            Message.user(
                [
                    ImagePart(data="QUJD", media_type="image/png"),
                    ImagePart(url="https://x.test/a.jpg", detail="high"),
                    ImagePart(url="data:image/gif;base64,R0lG"),
                ]
            )
        ],
        {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/png", "data": "QUJD"},
                        },
                        {"type": "image", "source": {"type": "url", "url": "https://x.test/a.jpg"}},
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/gif", "data": "R0lG"},
                        },
                    ],
                }
            ]
        },
        ["messages[0].content[1].detail"],
    ),
    (
        "files become documents; audio cannot be sent",
        [
            Message.user(
                [
                    FilePart(data="JVBERg==", media_type="application/pdf", filename="a.pdf"),
                    FilePart(file_id="file_011"),
                    FilePart(data=base64.b64encode(b"plain").decode(), media_type="text/plain"),
                    AudioPart("UklGRg==", "wav"),
                ]
            )
        ],
        {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "document",
                            "source": {
                                "type": "base64",
                                "media_type": "application/pdf",
                                "data": "JVBERg==",
                            },
                            "title": "a.pdf",
                        },
                        {"type": "document", "source": {"type": "file", "file_id": "file_011"}},
                        {
                            "type": "document",
                            "source": {"type": "text", "media_type": "text/plain", "data": "plain"},
                        },
                    ],
                }
            ]
        },
        ["messages[0].content[3]"],
    ),
    (
        "an image in a tool result goes inside the tool_result block",
        [
            Message.user("q"),
            calls_turn(1),
            Message.tool_result(
                "toolu_1", [TextPart("see"), ImagePart(data="QQ==", media_type="image/png")]
            ),
        ],
        {
            "messages": [
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": [tool_use(1)]},
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_1",
                            "content": [
                                {"type": "text", "text": "see"},
                                {
                                    "type": "image",
                                    "source": {
                                        "type": "base64",
                                        "media_type": "image/png",
                                        "data": "QQ==",
                                    },
                                },
                            ],
                        }
                    ],
                },
            ]
        },
        [],
    ),
    (
        "signed and redacted thinking go back in place, before tool_use",
        [
            Message.user("q"),
            ToolCallMessage(
                [call(1)],
                [
                    ReasoningPart("hmm", SIG, provider="anthropic"),
                    ReasoningPart("opaque", redacted=True, provider="anthropic"),
                    TextPart("Checking."),
                ],
            ),
        ],
        {
            "messages": [
                {"role": "user", "content": "q"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "hmm", "signature": SIG},
                        {"type": "redacted_thinking", "data": "opaque"},
                        {"type": "text", "text": "Checking."},
                        tool_use(1),
                    ],
                },
            ]
        },
        [],
    ),
    (
        "another provider's reasoning is dropped, never made text",
        [
            Message.user("q"),
            AssistantMessage(
                [
                    ReasoningPart("g", "gsig", provider="gemini"),
                    ReasoningPart("plain"),
                    ReasoningPart("unsigned", provider="anthropic"),
                    TextPart("A"),
                ]
            ),
        ],
        {
            "messages": [
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": [{"type": "text", "text": "A"}]},
            ]
        },
        ["messages[1].content[0]", "messages[1].content[1]", "messages[1].content[2]"],
    ),
    (
        "a gemini thought signature on a call is dropped",
        [
            Message.user("q"),
            ToolCallMessage([call(1, gemini={"thought_signature": "x"})]),
        ],
        {
            "messages": [
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": [tool_use(1)]},
            ]
        },
        ["messages[1].tool_calls[0].extras.gemini"],
    ),
    (
        "orphan and duplicate results are dropped",
        [
            Message.user("q"),
            calls_turn(1),
            Message.tool_result("toolu_1", "a"),
            Message.tool_result("toolu_1", "again"),
            Message.tool_result("toolu_9", "who"),
        ],
        {
            "messages": [
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": [tool_use(1)]},
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a"}],
                },
            ]
        },
        ["messages[3]", "messages[4]"],
    ),
    (
        "names are not carried",
        [Message.user("q", name="alice")],
        {"messages": [{"role": "user", "content": "q"}]},
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
    messages = [Message.user([TextPart("hi"), AudioPart("AAAA", "mp3")])]
    with pytest.warns(LossWarning, match=r"anthropic: messages\[0\]\.content\[1\]: audio part"):
        body = PROVIDER.format_request(messages)
    assert body["messages"][0]["content"] == [{"type": "text", "text": "hi"}]
    with pytest.raises(ValidationError) as info:
        PROVIDER.format_request(messages, strict=True)
    assert info.value.path == "messages[0].content[1]"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        PROVIDER.format_request([Message.user("fine")], strict=True)


def test_tools_keep_strictness() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    strict = ToolDefinition("get_weather", "Weather.", schema)
    loose = ToolDefinition("get_weather", "Weather.", schema, strict=False)
    assert PROVIDER.format_tools([strict]) == [
        {
            "name": "get_weather",
            "description": "Weather.",
            "input_schema": {**schema, "additionalProperties": False},
        }
    ]
    assert PROVIDER.format_tools([loose])[0]["input_schema"] == schema
    body = PROVIDER.format_request([Message.user("q")], [loose])
    assert body["tools"] == PROVIDER.format_tools([loose])
    assert PROVIDER.parse_tools(body) == [loose]


def test_unknown_blocks_and_block_keys_survive_a_round_trip() -> None:
    search = {"type": "search_result", "source": "s", "title": "t", "content": []}
    server = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    body = {
        "system": [{"type": "text", "text": "S", "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}},
                    search,
                    {"type": "text", "text": "b"},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    server,
                    {"type": "text", "text": "found", "citations": []},
                    tool_use(1),
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": [{"type": "text", "text": "r"}, {"type": "future_block"}],
                        "cache_control": {"type": "ephemeral"},
                    },
                    {"type": "text", "text": "next"},
                ],
            },
        ],
    }
    messages = PROVIDER.parse_messages(body)
    assert [m.role.value for m in messages] == ["system", "user", "assistant", "tool", "user"]
    assert messages[1].text == "ab"
    assert messages[1].extras["anthropic"]["unknown"][0]["path"] == "messages[0].content[1]"
    assert messages[1].extras["anthropic"]["unknown"][0]["type"] == "search_result"
    conversion = PROVIDER.convert(messages)
    assert conversion.losses == ()
    assert conversion.body == body
    # Other providers cannot carry them and say so.
    gemini = get_provider("gemini").convert(messages)
    assert any("search_result" in loss.what for loss in gemini.losses)


def test_parse_messages_accepts_a_bare_list() -> None:
    messages = PROVIDER.parse_messages([{"role": "user", "content": "hi"}])
    assert messages == [UserMessage("hi")]


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"messages": "x"}, "messages"),
        ({"messages": [{"role": "tool", "content": "x"}]}, "messages[0].role"),
        ({"messages": [{"role": "user"}]}, "messages[0].content"),
        (
            {"messages": [{"role": "user", "content": [{"type": "tool_use"}]}]},
            "messages[0].content[0].type",
        ),
        (
            {"messages": [{"role": "user", "content": [{"text": "x"}]}]},
            "messages[0].content[0].type",
        ),
        (
            {
                "messages": [
                    {
                        "role": "assistant",
                        "content": [{"type": "tool_use", "name": "f", "input": {}}],
                    }
                ]
            },
            "messages[0].content[0].id",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": "t", "is_error": "no"}],
                    }
                ]
            },
            "messages[0].content[0].is_error",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [{"type": "image", "source": {"type": "base64", "data": "x"}}],
                    }
                ]
            },
            "messages[0].content[0].source.media_type",
        ),
        ({"system": [{"type": "image"}], "messages": []}, "system[0].type"),
        (17, "$"),
    ],
)
def test_malformed_requests_name_the_field(body: Any, path: str) -> None:
    with pytest.raises(DecodeError) as info:
        PROVIDER.parse_messages(body)
    assert info.value.path == path


# -- responses -------------------------------------------------------------------------


def response(content: list[Any], stop: str | None = "end_turn", **more: Any) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": content,
        "stop_reason": stop,
        "usage": {
            "input_tokens": 10,
            "output_tokens": 5,
            "cache_creation_input_tokens": 3,
            "cache_read_input_tokens": 2,
        },
        **more,
    }


@pytest.mark.parametrize(
    ("stop", "finish"),
    [
        ("end_turn", FinishReason.STOP),
        ("stop_sequence", FinishReason.STOP),
        ("pause_turn", FinishReason.STOP),
        ("max_tokens", FinishReason.LENGTH),
        ("model_context_window_exceeded", FinishReason.LENGTH),
        ("tool_use", FinishReason.TOOL_CALLS),
        ("refusal", FinishReason.CONTENT_FILTER),
        ("something_new", FinishReason.OTHER),
        (None, FinishReason.OTHER),
    ],
)
def test_stop_reasons(stop: str | None, finish: FinishReason) -> None:
    r = PROVIDER.parse_response(response([{"type": "text", "text": "x"}], stop))
    assert r.finish_reason is finish
    assert r.provider_finish_reason == stop


def test_usage_includes_cache_tokens() -> None:
    r = PROVIDER.parse_response(response([]))
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (15, 5, 20)
    assert (r.usage.cached_input_tokens, r.usage.cache_creation_input_tokens) == (2, 3)
    assert r.message.metadata["usage"] == r.usage.to_dict()
    assert r.id == "msg_1"
    assert r.model == "claude-x"


def test_response_keeps_unknown_blocks_and_invalid_calls() -> None:
    r = PROVIDER.parse_response(
        response(
            [
                {"type": "server_tool_use", "id": "srv", "name": "web_search", "input": {}},
                {"type": "text", "text": "hi"},
                {"type": "tool_use", "id": "t1", "name": "f", "input": [1]},
                {"type": "tool_use", "id": "t2", "name": "bad name", "input": {}},
                {"type": "tool_use", "id": "t3", "name": "g", "input": {"a": 1}},
            ],
            "tool_use",
        )
    )
    assert r.text == "hi"
    assert [c.id for c in r.tool_calls] == ["t3"]
    assert [(c.id, c.raw_arguments) for c in r.invalid_tool_calls] == [("t1", "[1]"), ("t2", "{}")]
    assert r.invalid_tool_calls[0].error.startswith("content[2].input")
    assert r.message.extras["anthropic"]["unknown"][0]["type"] == "server_tool_use"


def test_error_body_is_an_error_response() -> None:
    r = PROVIDER.parse_response(
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    )
    assert r.finish_reason is FinishReason.ERROR
    assert r.error == "overloaded_error: Overloaded"


# -- streaming -------------------------------------------------------------------------


def start(n_in: int = 7) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_s",
            "model": "claude-x",
            "content": [],
            "usage": {"input_tokens": n_in, "output_tokens": 1},
        },
    }


def thinking_stream() -> list[dict[str, Any]]:
    return [
        start(),
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "Let me "},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "think."},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": SIG},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "redacted_thinking", "data": "opaque"},
        },
        {"type": "content_block_stop", "index": 1},
        {
            "type": "content_block_start",
            "index": 2,
            "content_block": {"type": "tool_use", "id": "toolu_a", "name": "f", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 2,
            "delta": {"type": "input_json_delta", "partial_json": '{"x": '},
        },
        {"type": "ping"},
        {
            "type": "content_block_delta",
            "index": 2,
            "delta": {"type": "input_json_delta", "partial_json": "1}"},
        },
        {"type": "content_block_stop", "index": 2},
        {
            "type": "content_block_start",
            "index": 3,
            "content_block": {"type": "web_search_tool_result", "tool_use_id": "s"},
        },
        {"type": "content_block_stop", "index": 3},
        {"type": "brand_new_event", "what": 1},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 40},
        },
        {"type": "message_stop"},
    ]


def test_stream_thinking_signature_tools_and_unknown_blocks() -> None:
    acc = PROVIDER.stream()
    deltas = [d for event in thinking_stream() for d in acc.feed(event)]
    r = acc.finish()
    assert r.reasoning == "Let me think."
    assert r.message.reasoning == (
        ReasoningPart("Let me think.", SIG, False, "anthropic"),
        ReasoningPart("opaque", None, True, "anthropic"),
    )
    assert [(c.id, c.name, dict(c.arguments)) for c in r.tool_calls] == [("toolu_a", "f", {"x": 1})]
    assert r.finish_reason is FinishReason.TOOL_CALLS
    assert r.usage is not None
    assert (r.usage.input_tokens, r.usage.output_tokens) == (7, 40)
    assert r.message.extras["anthropic"]["unknown"][0]["path"] == "content[3]"
    assert "".join(d.text for d in deltas if d.kind == "reasoning") == "Let me think."
    tools = ToolCallAccumulator()
    for d in deltas:
        if d.tool_call is not None:
            tools.feed(d.tool_call)
    assert tools.tool_calls() == r.tool_calls
    # The streamed turn goes back to Anthropic unchanged.
    body = PROVIDER.convert([Message.user("q"), r.message]).body
    assert body["messages"][1]["content"][:2] == [
        {"type": "thinking", "thinking": "Let me think.", "signature": SIG},
        {"type": "redacted_thinking", "data": "opaque"},
    ]


def _server_tool_stream(*fragments: str) -> list[dict[str, Any]]:
    block = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    return [
        start(),
        {"type": "content_block_start", "index": 0, "content_block": block},
        *(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": f},
            }
            for f in fragments
        ),
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "pause_turn"}, "usage": {}},
        {"type": "message_stop"},
    ]


def test_streamed_server_tool_block_goes_back_as_the_response_has_it() -> None:
    # After pause_turn the turn is sent back as it came: the streamed input of a
    # server tool block is its ``input``, as in the non-streaming response.
    acc = PROVIDER.stream()
    for event in _server_tool_stream('{"query": ', '"paris"}'):
        acc.feed(event)
    streamed = acc.finish()
    whole = PROVIDER.parse_response(
        response(
            [
                {
                    "type": "server_tool_use",
                    "id": "srvtoolu_1",
                    "name": "web_search",
                    "input": {"query": "paris"},
                }
            ],
            "pause_turn",
        )
    )
    sent = PROVIDER.convert([Message.user("q"), streamed.message]).body["messages"][1]
    assert sent["content"] == [
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {"query": "paris"},
        }
    ]
    assert sent == PROVIDER.convert([Message.user("q"), whole.message]).body["messages"][1]


def test_streamed_server_tool_input_that_is_not_an_object_is_kept_raw() -> None:
    acc = PROVIDER.stream()
    for event in _server_tool_stream('{"query": "par'):
        acc.feed(event)
    unknown = acc.finish().message.extras["anthropic"]["unknown"][0]["value"]
    assert unknown["input"] == {}
    assert unknown["partial_json"] == '{"query": "par'


@pytest.mark.parametrize(
    ("events", "path"),
    [
        (
            [
                start(),
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": "x"},
                },
            ],
            "events[1].index",
        ),
        (
            [
                start(),
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": 5},
                },
            ],
            "events[2].delta.text",
        ),
        (
            [start(), {"type": "content_block_start", "index": -1, "content_block": {}}],
            "events[1].index",
        ),
        (
            [
                start(),
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "tool_use", "name": "f"},
                },
            ],
            "events[1].content_block.id",
        ),
        ([{"type": 3}], "events[0].type"),
        (["not an event"], "events[0]"),
        ([{"type": "message_start", "message": []}], "events[0].message"),
        (
            [start(), {"type": "message_delta", "usage": {"output_tokens": -1}}],
            "events[1].usage.output_tokens",
        ),
    ],
)
def test_malformed_stream_events_name_the_field(events: list[Any], path: str) -> None:
    acc = PROVIDER.stream()
    with pytest.raises(DecodeError) as info:
        for event in events:
            acc.feed(event)
    assert info.value.path == path


def test_stream_without_message_start_is_an_error() -> None:
    with pytest.raises(DecodeError) as info:
        run_stream(PROVIDER, [])
    assert info.value.path == "message_start"


# -- secrecy and fuzzing ---------------------------------------------------------------


def test_errors_and_reprs_never_show_content() -> None:
    bad = response(
        [
            {"type": "text", "text": SECRET},
            {"type": "tool_use", "id": "t1", "name": "f", "input": SECRET},
        ]
    )
    r = PROVIDER.parse_response(bad)
    assert SECRET not in repr(r)
    assert SECRET not in repr(r.invalid_tool_calls)
    for body in (
        {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "image",
                            "source": {"type": "base64", "data": SECRET, "media_type": 1},
                        }
                    ],
                }
            ]
        },
        {"messages": [{"role": SECRET, "content": SECRET}]},
    ):
        with pytest.raises(DecodeError) as info:
            PROVIDER.parse_messages(body)
        assert SECRET not in str(info.value)
    with pytest.warns(LossWarning) as record:
        PROVIDER.format_request([Message.user([AudioPart(SECRET, "wav")], name=SECRET)])
    assert all(SECRET not in str(w.message) for w in record)


@settings(max_examples=150)
@given(json_values)
def test_fuzz_arbitrary_json_only_raises_decode_error(value: Any) -> None:
    only_decode_error(PROVIDER, value)


MUTABLE = [e for e in ENTRIES if e["wire_format"] == "json" or e["file"].endswith(".jsonl")]


@settings(max_examples=400)
@given(st.data())
def test_fuzz_mutated_fixtures_only_raise_decode_error(data: st.DataObject) -> None:
    entry = data.draw(st.sampled_from(MUTABLE))
    original = load_fixture(entry)
    where = data.draw(st.sampled_from(list(paths(original))))
    delete = bool(where) and data.draw(st.booleans())
    mutated = mutate(original, where, data.draw(mutations), delete)
    mutated_only_decode_error(PROVIDER, entry, mutated)


@settings(max_examples=60)
@given(
    st.lists(
        st.sampled_from(["text", "thinking", "tool", "result", "user", "bad_result"]), max_size=8
    )
)
def test_formatted_requests_are_well_formed(kinds: list[str]) -> None:
    """Whatever the order of messages, the body pairs results with calls and alternates."""
    messages: list[Message] = [Message.user("start")]
    for n, kind in enumerate(kinds, 1):
        if kind == "text":
            messages.append(Message.assistant(f"a{n}"))
        elif kind == "thinking":
            messages.append(
                AssistantMessage([ReasoningPart("t", SIG, provider="anthropic"), TextPart("x")])
            )
        elif kind == "tool":
            messages.append(ToolCallMessage([call(n), call(n + 1000)]))
        elif kind == "result":
            last = next((m for m in reversed(messages) if isinstance(m, ToolCallMessage)), None)
            if last is not None:
                messages.append(ToolResultMessage(last.tool_calls[0].id, "r"))
        elif kind == "bad_result":
            messages.append(ToolResultMessage("toolu_nowhere", "r"))
        else:
            messages.append(Message.user(f"u{n}"))
    body = PROVIDER.convert(messages).body
    wire = body["messages"]
    roles = [m["role"] for m in wire]
    assert all(a != b for a, b in itertools.pairwise(roles))
    for i, m in enumerate(wire):
        content = m["content"]
        assert content
        if isinstance(content, list):
            assert all(b.get("text", "x") for b in content)
            results = [b["tool_use_id"] for b in content if b["type"] == "tool_result"]
            if results:
                prev = wire[i - 1]["content"]
                ids = {b["id"] for b in prev if b["type"] == "tool_use"}
                assert set(results) <= ids
                assert len(results) == len(set(results))
                kinds_in = [b["type"] for b in content]
                assert kinds_in[: len(results)] == ["tool_result"] * len(results)


def test_text_of_any_whitespace_str_isspace_accepts_is_dropped() -> None:
    every = [chr(c) for c in range(0x110000) if chr(c).isspace()]
    for space in every:
        conversion = PROVIDER.convert([UserMessage("q"), UserMessage(space * 2)])
        assert conversion.body["messages"] == [{"role": "user", "content": "q"}]
        [loss] = conversion.losses
        assert loss.what == "whitespace-only text"


def test_tool_input_json_cannot_hold_is_an_invalid_call() -> None:
    # json.loads lets NaN through; the stream makes the same input an invalid call,
    # and so do a response and an imported request
    blocks = [
        {"type": "text", "text": "hi"},
        {"type": "tool_use", "id": "t1", "name": "f", "input": {"x": float("nan")}},
        {"type": "tool_use", "id": "t2", "name": "f", "input": {"x": 1}},
    ]
    r = PROVIDER.parse_response(response(blocks, "tool_use"))
    assert r.text == "hi"
    assert [c.id for c in r.tool_calls] == ["t2"]
    [bad] = r.invalid_tool_calls
    assert (bad.id, bad.raw_arguments) == ("t1", '{"x":NaN}')
    assert bad.error.startswith("content[1].input.x:")
    [imported] = PROVIDER.parse_messages([{"role": "assistant", "content": blocks}])
    assert [c.id for c in imported.tool_calls] == ["t2"]
    [bad] = imported.invalid_tool_calls
    assert (bad.id, bad.raw_arguments) == ("t1", '{"x":NaN}')
    assert bad.error.startswith("[0].content[1].input.x:")


def _two_calls() -> Message:
    return Message.assistant(None, [ToolCall("c1", "f", {}), ToolCall("c2", "f", {})])


def _error_result(call_id: str) -> dict[str, Any]:
    return {
        "type": "tool_result",
        "tool_use_id": call_id,
        "content": UNANSWERED_TEXT,
        "is_error": True,
    }


@pytest.mark.parametrize(
    ("tail", "user_turn"),
    [
        # a partial answer, then the user speaks: the rest is answered, results first
        (
            [Message.tool_result("c1", "ok"), Message.user("next")],
            [
                {"type": "tool_result", "tool_use_id": "c1", "content": "ok"},
                _error_result("c2"),
                {"type": "text", "text": "next"},
            ],
        ),
        # the user speaks before any result
        (
            [Message.user("never mind")],
            [_error_result("c1"), _error_result("c2"), {"type": "text", "text": "never mind"}],
        ),
        # a partial answer ends the conversation
        (
            [Message.tool_result("c2", "ok")],
            [{"type": "tool_result", "tool_use_id": "c2", "content": "ok"}, _error_result("c1")],
        ),
    ],
)
def test_unanswered_calls_get_an_error_result_in_the_next_user_turn(
    tail: list[Message], user_turn: list[dict[str, Any]]
) -> None:
    conversion = PROVIDER.convert([Message.user("q"), _two_calls(), *tail])
    assert conversion.body["messages"][2] == {"role": "user", "content": user_turn}
    assert [loss.what for loss in conversion.losses] == ["unanswered tool call"] * (
        len(user_turn) - len(tail)
    )
    with pytest.raises(ValidationError):
        PROVIDER.format_request([Message.user("q"), _two_calls(), *tail], strict=True)


def test_an_assistant_turn_after_unanswered_calls_gets_a_user_turn_of_results() -> None:
    conversion = PROVIDER.convert([Message.user("q"), _two_calls(), Message.assistant("Hm.")])
    assert conversion.body["messages"][2:] == [
        {"role": "user", "content": [_error_result("c1"), _error_result("c2")]},
        {"role": "assistant", "content": "Hm."},
    ]
    assert [loss.path for loss in conversion.losses] == [
        "messages[1].tool_calls[0]",
        "messages[1].tool_calls[1]",
    ]


def test_a_last_turn_of_calls_with_nothing_after_it_is_left_pending() -> None:
    conversion = PROVIDER.convert([Message.user("q"), _two_calls()])
    assert conversion.losses == ()
    assert conversion.body["messages"][-1]["role"] == "assistant"


def test_another_providers_signature_on_the_text_is_a_loss() -> None:
    m = Message.assistant("hi", extras={"gemini": {"text_signature": "c2ln"}})
    conversion = PROVIDER.convert([Message.user("q"), m])
    assert [(loss.path, loss.what) for loss in conversion.losses] == [
        ("messages[1]", "thought signature from gemini on the text")
    ]
    assert "c2ln" not in str(conversion.body)


def test_file_references_anthropic_cannot_read_are_dropped_with_a_loss() -> None:
    gemini_file = "https://generativelanguage.googleapis.com/v1beta/files/abc"
    m = Message.user(
        [
            FilePart(file_id="gs://bucket/a.pdf"),
            FilePart(file_id=gemini_file, data="JVBERg==", media_type="application/pdf"),
            FilePart(file_id="file_011"),
            FilePart(file_id="https://x.test/a.pdf"),
        ]
    )
    conversion = PROVIDER.convert([m])
    assert [b["source"] for b in conversion.body["messages"][0]["content"]] == [
        {"type": "base64", "media_type": "application/pdf", "data": "JVBERg=="},
        {"type": "file", "file_id": "file_011"},
        {"type": "url", "url": "https://x.test/a.pdf"},
    ]
    assert [loss.path for loss in conversion.losses] == [
        "messages[0].content[0].file_id",
        "messages[0].content[1].file_id",
    ]


_CITATION = {
    "type": "web_search_result_location",
    "url": "https://x.test",
    "title": "t",
    "encrypted_index": "e",
    "cited_text": "c",
}
_SEARCH_TURN = [
    {"type": "text", "text": "Let me search. "},
    {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "q"}},
    {"type": "web_search_tool_result", "tool_use_id": "s1", "content": []},
    {"type": "text", "text": "Found it.", "citations": [_CITATION]},
]


def _search_events() -> list[dict[str, Any]]:
    def block(index: int, cb: dict[str, Any], *deltas: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {"type": "content_block_start", "index": index, "content_block": cb},
            *({"type": "content_block_delta", "index": index, "delta": d} for d in deltas),
            {"type": "content_block_stop", "index": index},
        ]

    server = {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {}}
    return [
        start(),
        *block(0, {"type": "text", "text": ""}, {"type": "text_delta", "text": "Let me search. "}),
        *block(1, server, {"type": "input_json_delta", "partial_json": '{"query": "q"}'}),
        *block(2, {"type": "web_search_tool_result", "tool_use_id": "s1", "content": []}),
        *block(
            3,
            {"type": "text", "text": "", "citations": []},
            {"type": "citations_delta", "citation": _CITATION},
            {"type": "text_delta", "text": "Found it."},
        ),
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
        {"type": "message_stop"},
    ]


def test_a_response_with_server_tools_and_citations_goes_back_as_it_came() -> None:
    # web search: the turn is sent back with its blocks in order and its citations
    whole = PROVIDER.parse_response(response(_SEARCH_TURN, "end_turn"))
    acc = PROVIDER.stream()
    for event in _search_events():
        acc.feed(event)
    streamed = acc.finish()
    for r in (whole, streamed):
        assert r.text == "Let me search. Found it."
        sent = PROVIDER.convert([Message.user("q"), r.message])
        assert sent.body["messages"][1]["content"] == _SEARCH_TURN
        assert sent.losses == ()
    assert streamed.message.content == whole.message.content
    assert streamed.message.extras == whole.message.extras


def test_a_repeated_tool_use_id_is_an_invalid_call_and_the_rest_parses() -> None:
    blocks = [
        {"type": "text", "text": "hi"},
        {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
        {"type": "tool_use", "id": "t1", "name": "g", "input": {"a": 1}},
    ]
    r = PROVIDER.parse_response(response(blocks, "tool_use"))
    assert r.text == "hi"
    assert [(c.id, c.name) for c in r.tool_calls] == [("t1", "f")]
    [again] = r.invalid_tool_calls
    # ids are unique within a message: the repeat gets an id derived from the turn
    assert again.id.startswith("call_derived_")
    assert (again.name, again.raw_arguments) == ("g", '{"a":1}')
    assert again.error == "content: a repeated tool_use id 't1'"
    assert PROVIDER.parse_response(response(blocks, "tool_use")).invalid_tool_calls == (again,)
    # the message round-trips through the canonical codec
    assert Message.from_dict(r.message.to_dict()) == r.message


@pytest.mark.parametrize(
    "content",
    [
        # a call between two texts, the second with citations
        [
            {"type": "text", "text": "A"},
            {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}},
            {"type": "text", "text": "B", "citations": [_CITATION]},
        ],
        # a whitespace-only text before a server tool (kept: beside real text the
        # API accepts it), citations on a middle text
        [
            {"type": "text", "text": "\n\n"},
            {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"q": 1}},
            {"type": "web_search_tool_result", "tool_use_id": "s1", "content": []},
            {"type": "text", "text": "B", "citations": [_CITATION]},
            {"type": "text", "text": " and C."},
        ],
    ],
)
def test_an_interleaved_turn_goes_back_in_wire_order(content: list[dict[str, Any]]) -> None:
    whole = PROVIDER.parse_response(response(content, "end_turn")).message
    imported = PROVIDER.parse_messages([{"role": "user", "content": "q"},
                                        {"role": "assistant", "content": content}])[1]  # fmt: skip
    for m in (whole, imported):
        tail = [Message.tool_result("toolu_1", "r")] if m.tool_calls else [Message.user("more")]
        sent = PROVIDER.convert([Message.user("q"), m, *tail])
        assert sent.body["messages"][1]["content"] == content
        assert sent.losses == ()


@pytest.mark.parametrize(
    "parts",
    [(TextPart("hi "), TextPart(" ")), (TextPart("hi"), TextPart(" "), TextPart("\n"))],
)
def test_a_final_turn_ends_without_whitespace_however_its_blocks_end(
    parts: tuple[TextPart, ...],
) -> None:
    conversion = PROVIDER.convert([Message.user("q"), AssistantMessage(parts)])
    assert conversion.body["messages"][-1]["content"] == [{"type": "text", "text": "hi"}]
    assert [loss.what for loss in conversion.losses] == [
        "trailing whitespace of the final assistant turn"
    ]


@pytest.mark.parametrize("order", ["pcx", "xcp", "cpp", "", 3])
def test_a_kept_order_that_does_not_fit_the_message_is_ignored(order: object) -> None:
    m = ToolCallMessage((ToolCall("a", "f", {}),), "hello", extras={"anthropic": {"order": order}})
    sent = PROVIDER.convert([Message.user("q"), m, Message.tool_result("a", "r")])
    assert [b["type"] for b in sent.body["messages"][1]["content"]] == ["text", "tool_use"]


def test_kept_keys_and_blocks_after_an_invalid_call_stay_on_their_block() -> None:
    # an invalid call goes back in its place (input {}): what came after it too
    cited = [{"type": "char_location", "cited_text": "b", "document_index": 0}]
    content: list[dict[str, Any]] = [
        {"type": "tool_use", "id": "t0", "name": "f", "input": [1]},
        {"type": "text", "text": "A"},
        {"type": "mystery", "x": 1},
        {"type": "text", "text": "B", "citations": cited},
    ]
    whole = PROVIDER.parse_response(response(content, "end_turn"))
    assert [c.id for c in whole.invalid_tool_calls] == ["t0"]
    tail = [Message.tool_result("t0", "bad arguments", is_error=True)]
    sent = PROVIDER.convert([Message.user("q"), whole.message, *tail])
    assert sent.body["messages"][1]["content"] == [{**content[0], "input": {}}, *content[1:]]
    assert [(loss.path, loss.what) for loss in sent.losses] == [
        ("messages[1].tool_calls[0].raw_arguments", "arguments of an invalid tool call")
    ]
    # one whose name the API refuses is not sent, and the rest keep their places
    content[0] = {"type": "tool_use", "id": "t0", "name": "bad name", "input": {}}
    whole = PROVIDER.parse_response(response(content, "end_turn"))
    sent = PROVIDER.convert([Message.user("q"), whole.message, *tail])
    assert sent.body["messages"][1]["content"] == content[1:]
    assert [loss.path for loss in sent.losses] == ["messages[1].tool_calls[0]", "messages[2]"]
