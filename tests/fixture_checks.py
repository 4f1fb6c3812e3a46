"""Fixture-driven checks shared by the Anthropic and Gemini provider tests.

Each MANIFEST entry is run the way its kind says: requests are imported and
formatted again, responses and streams are parsed, adversarial inputs either fail
with a DecodeError naming the field or give the listed facts.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import warnings
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import strategies as st

from messages import DecodeError
from messages._cli.source import Document
from messages._cli.tools import body_tools
from messages.providers import ChatResponse, LossWarning, Provider
from tests.conftest import load_fixture
from tests.provider_facts import compare_messages, compare_response, unknown_blocks

JsonPath = tuple[str | int, ...]


def run_stream(provider: Provider, events: list[Any]) -> ChatResponse:
    """Feed every event to a fresh accumulator and finish it."""
    acc = provider.stream()
    for event in events:
        acc.feed(event)
    return acc.finish()


def parse_any(provider: Provider, data: Any) -> ChatResponse:
    """A response body or a stream (a list of events), parsed."""
    if isinstance(data, list):
        return run_stream(provider, data)
    return provider.parse_response(data)


def check_request(
    provider: Any, entry: dict[str, Any], data: Any, optional_keys: frozenset[str]
) -> None:
    """Import the body, compare the facts, format it again and compare the JSON.

    The body formatted is the input, or the fixture ``expected["formats_as"]`` names
    (Gemini reads both field spellings and writes one). A request whose tools no
    ``ToolDefinition`` holds as written (a built-in tool, an empty description) has
    them as ``expected["tools_as"]`` instead, each difference reported by the
    command line's ``convert``.
    """
    expected = entry["expected"]
    messages = provider.parse_messages(data)
    compare_messages(messages, expected["messages"], ids=False)
    tools = provider.parse_tools(data)
    assert [t.name for t in tools] == expected.get("tools", [t.name for t in tools])
    conversion = provider.convert(messages, tools)
    assert conversion.losses == ()
    body = conversion.body
    reference = data
    if "formats_as" in expected:
        reference = load_fixture({"file": expected["formats_as"]})
    skip: tuple[str, ...] = ()
    if "tools_as" in expected:
        skip = ("tools",)
        assert body.get("tools") == expected["tools_as"]
        _, reported = body_tools(Document(data), provider.name)
        assert reported, "a tool not carried as written is reported"
    for key, value in body.items():
        assert key in skip or value == reference.get(key), key
    for key in reference:
        assert key in body or key in optional_keys or key in skip, f"{key} was not formatted back"
    # Formatting is deterministic and the body is plain JSON.
    assert json.loads(json.dumps(body)) == body


def check_response_facts(r: ChatResponse, expected: dict[str, Any]) -> None:
    """Every fact the MANIFEST lists for a response, stream or tolerated input."""
    compare_response(r, expected)
    if "text_sha256" in expected:
        digest = hashlib.sha256(r.text.encode("utf-8", "surrogatepass")).hexdigest()
        assert digest == expected["text_sha256"]
    if "text_prefix" in expected:
        assert r.text.startswith(expected["text_prefix"])
    if expected.get("text_contains_lone_surrogate"):
        assert any(0xD800 <= ord(ch) <= 0xDFFF for ch in r.text)
    if "unknown_blocks" in expected:
        assert unknown_blocks(r.message) == expected["unknown_blocks"]
    for block, exp in zip(r.message.reasoning, expected.get("reasoning_blocks", ()), strict=False):
        assert block.text == exp["text"]
        assert block.signature == exp.get("signature")
        assert block.redacted == exp.get("redacted", False)
    if "reasoning_blocks" in expected:
        assert len(r.message.reasoning) == len(expected["reasoning_blocks"])
    for call, exp in zip(r.tool_calls, expected.get("tool_calls", ()), strict=False):
        if "signature" in exp:
            assert call.extras["gemini"]["thought_signature"] == exp["signature"]
        if exp.get("id") is None:
            assert call.id.startswith("call_derived_")
    if "stop_details" in expected:  # Anthropic: kept in the message's provider state
        [details] = [
            state["stop_details"]
            for state in r.message.extras.values()
            if isinstance(state, Mapping) and "stop_details" in state
        ]
        assert {k: details.get(k) for k in expected["stop_details"]} == expected["stop_details"]
    if "error" in expected and isinstance(expected["error"], Mapping):
        assert r.error is not None
        assert expected["error"]["type"] in r.error


def field_of(error_field: str) -> str:
    """The path part of a MANIFEST ``error_field`` ("content[0].input (note)" -> "content[0].input")."""
    return error_field.split(" (", 1)[0]


def check_adversarial(provider: Any, entry: dict[str, Any], data: Any) -> None:
    """Run one adversarial entry: an error naming the field, or the tolerated facts."""
    expected = entry["expected"]
    if "messages" in expected:
        compare_messages(provider.parse_messages(data), expected["messages"], ids=False)
        return
    if expected["behavior"] == "tolerate":
        r = parse_any(provider, data)
        check_response_facts(r, expected)
        if "event_count" in expected:
            assert len(data) == expected["event_count"]
        return
    where = field_of(expected["error_field"])
    if "raw_arguments" in expected:
        # Arguments that are not a JSON object: the lenient alternative the API
        # contract requires (an invalid tool call, the rest of the response kept).
        r = parse_any(provider, data)
        assert r.tool_calls == ()
        assert len(r.invalid_tool_calls) == 1
        bad = r.invalid_tool_calls[0]
        assert bad.raw_arguments == expected["raw_arguments"]
        assert bad.error.startswith(where)
        return
    with pytest.raises(DecodeError) as info:
        parse_any(provider, data)
    assert info.value.path == where


def check_entry(provider: Any, entry: dict[str, Any], data: Any, optional: frozenset[str]) -> None:
    """Dispatch one MANIFEST entry by its kind."""
    kind = entry["kind"]
    expected = entry["expected"]
    if kind == "request":
        check_request(provider, entry, data, optional)
    elif kind in ("response", "error_response"):
        check_response_facts(provider.parse_response(data), expected)
    elif kind == "stream":
        assert len(data) == expected.get("event_count", len(data))
        check_response_facts(run_stream(provider, data), expected)
    elif kind == "adversarial":
        check_adversarial(provider, entry, data)
    else:  # pragma: no cover - a new kind must get a check here
        raise AssertionError(f"no check for kind {kind}")


# -- fuzzing --------------------------------------------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**40), max_value=2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)

json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)


def paths(value: Any, prefix: JsonPath = ()) -> Iterator[JsonPath]:
    """Every path into a JSON value (the root included)."""
    yield prefix
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from paths(sub, (*prefix, key))
    elif isinstance(value, list):
        for index, sub in enumerate(value):
            yield from paths(sub, (*prefix, index))


def mutate(value: Any, path: JsonPath, replacement: Any, delete: bool) -> Any:
    """A copy of ``value`` with the node at ``path`` replaced (or deleted)."""
    if not path:
        return replacement
    out = copy.deepcopy(value)
    node = out
    for key in path[:-1]:
        node = node[key]
    last = path[-1]
    if delete:
        del node[last]
    else:
        node[last] = replacement
    return out


# Strings that wire fields are compared against, so mutations reach deep branches.
wire_words = st.sampled_from(
    [
        "text",
        "tool_use",
        "tool_result",
        "thinking",
        "redacted_thinking",
        "image",
        "document",
        "base64",
        "url",
        "file",
        "user",
        "assistant",
        "model",
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "text_delta",
        "input_json_delta",
        "thinking_delta",
        "signature_delta",
        "error",
        "STOP",
        "SAFETY",
        "functionCall",
        "functionResponse",
        "function_call",
        "function_response",
        "inline_data",
        "thought_signature",
        "$.a",
        "",
    ]
)

mutations = json_values | wire_words


def only_decode_error(provider: Any, value: Any) -> None:
    """Every parser and a stream fed ``value``: each succeeds or raises DecodeError."""
    for parse in (provider.parse_response, provider.parse_messages, provider.parse_tools):
        with contextlib.suppress(DecodeError):
            parse(value)
    acc = provider.stream()
    with contextlib.suppress(DecodeError):
        acc.feed(value)
        acc.finish()


def mutated_only_decode_error(provider: Any, entry: dict[str, Any], mutated: Any) -> None:
    """A mutated fixture run as its kind says (a request also formatted back to JSON):
    it succeeds or raises DecodeError."""
    try:
        if entry["kind"] == "request":
            messages = provider.parse_messages(mutated)
            provider.parse_tools(mutated)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", LossWarning)
                json.dumps(provider.format_request(messages))
        elif isinstance(mutated, list):
            run_stream(provider, mutated)
        else:
            provider.parse_response(mutated)
    except DecodeError:
        pass
