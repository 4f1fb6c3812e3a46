"""Anthropic parsers raise only DecodeError, whatever they are fed.

A hostile ``Mapping`` (whose every read raises RuntimeError) anywhere in the input,
input nested deeper than the interpreter allows, and another format's stream all
give DecodeError; the events the Anthropic docs say may come (``ping``, ``error``,
event types added later) keep working.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import DecodeError
from messages.providers import FinishReason
from messages.providers.anthropic import PROVIDER
from tests.conftest import FIXTURES, SECRET


class Hostile(Mapping[str, Any]):
    """A mapping whose every read raises (a buggy or malicious caller's object)."""

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError(SECRET)

    def get(self, key: str, default: Any = None) -> Any:
        raise RuntimeError(SECRET)

    def items(self) -> Any:
        raise RuntimeError(SECRET)

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError(SECRET)

    def __len__(self) -> int:
        return 1


H = Hostile()


def _response(content: Any) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "content": content, "stop_reason": "end_turn"}


def _stream(*events: Any) -> list[Any]:
    return [
        {"type": "message_start", "message": {"id": "m", "model": "x", "usage": {}}},
        *events,
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}},
        {"type": "message_stop"},
    ]


def _run_stream(events: list[Any]) -> Any:
    acc = PROVIDER.stream()
    for event in events:
        acc.feed(event)
    return acc.finish()


HOSTILE_INPUTS: list[tuple[str, Any]] = [
    ("parse_response", lambda: PROVIDER.parse_response(H)),
    ("response block", lambda: PROVIDER.parse_response(_response([H]))),
    ("response usage", lambda: PROVIDER.parse_response({**_response([]), "usage": H})),
    ("parse_messages body", lambda: PROVIDER.parse_messages(H)),
    ("parse_messages item", lambda: PROVIDER.parse_messages([H])),
    ("request block", lambda: PROVIDER.parse_messages([{"role": "user", "content": [H]}])),
    (
        "request tool input",
        lambda: PROVIDER.parse_messages(
            [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": H}]}]
        ),
    ),
    ("parse_tools body", lambda: PROVIDER.parse_tools(H)),
    ("parse_tools item", lambda: PROVIDER.parse_tools([H])),
    (
        "parse_tools schema",
        lambda: PROVIDER.parse_tools([{"name": "f", "description": "d", "input_schema": H}]),
    ),
    ("feed", lambda: PROVIDER.stream().feed(H)),
    (
        "stream delta",
        lambda: _run_stream(
            _stream(
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
                {"type": "content_block_delta", "index": 0, "delta": H},
            )
        ),
    ),
    ("stream message", lambda: _run_stream([{"type": "message_start", "message": H}])),
]  # fmt: skip


@pytest.mark.parametrize(
    "parse", [p for _, p in HOSTILE_INPUTS], ids=[n for n, _ in HOSTILE_INPUTS]
)
def test_a_hostile_mapping_gives_decode_error(parse: Any) -> None:
    with pytest.raises(DecodeError) as info:
        parse()
    assert SECRET not in str(info.value)
    assert "RuntimeError" in str(info.value)


def _nested_schema(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def _nested_list(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


def test_a_schema_nested_a_thousand_deep_gives_decode_error() -> None:
    with pytest.raises(DecodeError) as info:
        PROVIDER.parse_tools(
            [{"name": "f", "description": "d", "input_schema": _nested_schema(1000)}]
        )
    assert info.value.path.startswith("[0].input_schema.properties.a")


@pytest.mark.parametrize("depth", [1000, 100_000])
def test_deep_tool_input_is_an_invalid_call_never_a_crash(depth: int) -> None:
    block = {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": _nested_list(depth)}}
    r = PROVIDER.parse_response(_response([block]))
    [bad] = r.invalid_tool_calls
    assert "nested deeper than" in bad.error
    [m] = PROVIDER.parse_messages([{"role": "assistant", "content": [block]}])
    assert [c.id for c in m.invalid_tool_calls] == ["t1"]


def test_deep_streamed_tool_input_is_an_invalid_call() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    r = _run_stream(
        _stream(
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": '{"a": ' + deep + "}"},
            },
            {"type": "content_block_stop", "index": 0},
        )
    )
    [bad] = r.invalid_tool_calls
    assert bad.error.startswith("content[0].input")


def test_a_deep_unknown_block_gives_decode_error() -> None:
    block = {"type": "future_block", "value": _nested_list(100_000)}
    with pytest.raises(DecodeError):
        PROVIDER.parse_response(_response([block]))


# -- another format's stream ------------------------------------------------------------


def _lines(provider: str, name: str) -> list[Any]:
    text = (FIXTURES / provider / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


_RESPONSES_EVENTS = [
    {"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1"}},
    {"type": "response.output_text.delta", "sequence_number": 1, "delta": "Hi"},
    {"type": "response.completed", "sequence_number": 2, "response": {"id": "resp_1"}},
]


@pytest.mark.parametrize(
    ("events", "looks_like"),
    [
        (_lines("openai", "stream_text.jsonl"), "an OpenAI chat completion chunk"),
        (_lines("gemini", "stream_text.jsonl"), "a Gemini response chunk"),
        (_RESPONSES_EVENTS, "an OpenAI Responses event 'response.created'"),
    ],
    ids=["openai-chat", "gemini", "openai-responses"],
)
def test_another_formats_stream_is_refused_at_its_first_event(
    events: list[Any], looks_like: str
) -> None:
    acc = PROVIDER.stream()
    with pytest.raises(DecodeError) as info:
        acc.feed(events[0])
    assert info.value.path == "events[0].type"
    assert info.value.message.startswith(looks_like)
    assert "not an Anthropic Messages stream event" in info.value.message


def test_a_responses_event_mid_stream_is_refused() -> None:
    acc = PROVIDER.stream()
    acc.feed(_stream()[0])
    with pytest.raises(DecodeError) as info:
        acc.feed(_RESPONSES_EVENTS[1])
    assert info.value.path == "events[1].type"


def test_ping_error_and_later_event_types_keep_working() -> None:
    # Anthropic's versioning policy: new event types may be added; they are ignored
    events = _stream(
        {"type": "ping"},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "some_future_event", "detail": {"x": 1}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "future_delta", "x": 1}},
        {"type": "content_block_stop", "index": 0},
        {"type": "ping"},
    )
    r = _run_stream([{"type": "future_preamble"}, *events])
    assert (r.text, r.finish_reason) == ("Hi", FinishReason.STOP)
    acc = PROVIDER.stream()
    acc.feed(events[0])
    acc.feed({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    r = acc.finish()
    assert (r.finish_reason, r.error) == (FinishReason.ERROR, "overloaded_error: Overloaded")


@settings(max_examples=200)
@given(
    st.dictionaries(
        st.sampled_from(["choices", "candidates", "object", "id", "delta", "usageMetadata"]),
        st.none() | st.integers() | st.text(max_size=5) | st.lists(st.integers(), max_size=2),
        min_size=1,
    )
)
def test_any_event_without_a_type_is_refused(event: dict[str, Any]) -> None:
    acc = PROVIDER.stream()
    with pytest.raises(DecodeError) as info:
        acc.feed(event)
    assert "Anthropic" in info.value.message


# -- identifiers in errors ----------------------------------------------------------------


def test_errors_name_identifiers_escaped_and_cut() -> None:
    long_name = "n\x1b" + "a" * 100
    r = PROVIDER.parse_response(
        _response([{"type": "tool_use", "id": "t1", "name": long_name, "input": {}}])
    )
    [bad] = r.invalid_tool_calls
    assert bad.error == "content[0].name: invalid tool name " + repr("n\x1b" + "a" * 62) + "..."
    assert "\x1b" not in bad.error
