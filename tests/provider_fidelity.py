"""Fixture-driven fidelity checks shared by the OpenAI, Groq, vLLM and Ollama tests.

Each check takes a provider and a MANIFEST entry and asserts the entry's facts.
Request fixtures also go back out: formatting the parsed messages must give the
fixture's ``messages`` again, equal as JSON values once the documented
equivalences below are applied to both sides (``normalize_wire``):

* chat completions: system, developer and assistant content given as text
  parts equals the joined string; on an assistant turn with tool calls, empty
  content (``null``, ``""`` or absent) is one value; legacy
  ``reasoning_content`` equals ``reasoning``; tool-call arguments compare as
  parsed JSON (separator style differs between servers); ``name`` is never sent.
* Ollama: the ``type`` and ``function.index`` keys of a tool call are optional
  (the server ignores ``type`` and numbers calls itself).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import strategies as st

from messages import DecodeError, ImagePart, Message, ToolDefinition
from messages._cli.source import Document
from messages._cli.tools import body_tools
from messages.providers import ChatResponse, FinishReason, Provider, StreamDelta
from messages.providers._base import is_derived_id
from tests.provider_facts import compare_messages, compare_response

Entry = dict[str, Any]


# -- what to call for an entry --------------------------------------------------------


def entries_of(entries: Sequence[Entry], kind: str) -> list[Entry]:
    """The entries of one MANIFEST ``kind`` (for a parametrized test)."""
    return [e for e in entries if e["kind"] == kind]


def entry_id(entry: Entry) -> str:
    """A parametrization id for an entry: its fixture file."""
    return str(entry["file"])


def parser_kind(entry: Entry) -> str:
    """``request``, ``stream`` or ``response``: which parser a fixture is for."""
    base = entry["file"].rsplit("/", 1)[-1]
    if entry["kind"] == "request" or base.startswith("request_"):
        return "request"
    if entry.get("wire_format") == "jsonl" or base.endswith(".jsonl"):
        return "stream"
    return "response"


def run_stream(provider: Provider, events: Sequence[Any]) -> tuple[ChatResponse, list[StreamDelta]]:
    """Feed every event; the finished response and every delta returned on the way."""
    acc = provider.stream()
    deltas: list[StreamDelta] = []
    for event in events:
        deltas.extend(acc.feed(event))
    return acc.finish(), deltas


def parse_any(provider: Provider, entry: Entry, data: Any) -> Any:
    """Run the parser the entry is for (messages, stream response or response)."""
    kind = parser_kind(entry)
    if kind == "request":
        return provider.parse_messages(data)
    if kind == "stream":
        return run_stream(provider, data)[0]
    return provider.parse_response(data)


# -- wire equivalence -------------------------------------------------------------------


def _joined(content: Any) -> Any:
    if isinstance(content, list) and all(
        isinstance(p, dict) and p.get("type") == "text" for p in content
    ):
        return "".join(p["text"] for p in content)
    return content


def normalize_wire(provider: str, messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The documented equivalences (module docstring) applied to wire messages."""
    out: list[dict[str, Any]] = []
    for raw in messages:
        m = json.loads(json.dumps(raw))
        m.pop("name", None)
        role = m.get("role")
        if provider == "ollama":
            for call in m.get("tool_calls") or ():
                call.pop("type", None)
                call.get("function", {}).pop("index", None)
        else:
            if role in ("system", "developer", "assistant") and "content" in m:
                m["content"] = _joined(m["content"])
            if role == "assistant":
                if "reasoning_content" in m and "reasoning" not in m:
                    m["reasoning"] = m.pop("reasoning_content")
                if m.get("tool_calls") and m.get("content") in (None, ""):
                    m.pop("content", None)
                for position, call in enumerate(m.get("tool_calls") or ()):
                    if call.get("index") == position:
                        del call["index"]  # the call's place in the list, which says it
                    fn = call.get("function", {})
                    if isinstance(fn.get("arguments"), str):
                        fn["arguments"] = json.loads(fn["arguments"])
        out.append(m)
    return out


def tool_definitions(wire_tools: Sequence[dict[str, Any]]) -> list[ToolDefinition]:
    """ToolDefinitions equal to a fixture's function tools (not strict, as written)."""
    return [
        ToolDefinition(
            t["function"]["name"],
            t["function"]["description"],
            t["function"]["parameters"],
            strict=bool(t["function"].get("strict", False)),
        )
        for t in wire_tools
    ]


# -- the checks ------------------------------------------------------------------------


def check_request(provider: Provider, entry: Entry, data: Any) -> list[Message]:
    """Parse to the listed canonical messages; format back to the fixture's messages."""
    expected = entry["expected"]
    ms = provider.parse_messages(data)
    compare_messages(ms, expected["messages"], ids=provider.name != "ollama")
    for m, e in zip(ms, expected["messages"], strict=True):
        if e.get("images"):
            # Ollama images have no media type; a sniffed one must still be present.
            inline = [p for p in m.parts if isinstance(p, ImagePart) and p.data is not None]
            assert all(p.media_type for p in inline)
    wire_tools = data.get("tools", []) if isinstance(data, dict) else []
    assert [t["function"]["name"] for t in wire_tools] == expected.get("tools", [])
    if "tools_as" in expected:
        # tools no ToolDefinition holds as written (an empty description): read as the
        # provider reads them, written back as tools_as, each difference reported
        tools = provider.parse_tools(data)
        _, reported = body_tools(Document(data), provider.name)
        assert reported
        assert provider.format_request(ms, tools)["tools"] == expected["tools_as"]
        wire_tools = expected["tools_as"]
    else:
        tools = tool_definitions(wire_tools)
    conversion = provider.convert(ms, tools)
    assert conversion.losses == (), [str(loss) for loss in conversion.losses]
    assert normalize_wire(provider.name, conversion.body["messages"]) == normalize_wire(
        provider.name, data["messages"]
    )
    if tools:
        assert conversion.body["tools"] == wire_tools
    else:
        assert "tools" not in conversion.body
    # The body is plain JSON data (no frozen containers, no tuples).
    assert json.loads(json.dumps(conversion.body)) == conversion.body
    return ms


def check_response(provider: Provider, entry: Entry, data: Any) -> ChatResponse:
    """The response facts of the MANIFEST entry."""
    r = provider.parse_response(data)
    compare_response(r, entry["expected"])
    _check_message_consistency(r)
    return r


def check_stream(provider: Provider, entry: Entry, events: Sequence[Any]) -> ChatResponse:
    """The stream facts, the event count, and deltas that add up to the response."""
    expected = entry["expected"]
    r, deltas = run_stream(provider, events)
    compare_response(r, expected)
    if "event_count" in expected:
        assert len(events) == expected["event_count"]
    assert "".join(d.text for d in deltas if d.kind == "text") == r.text
    reasoning = "".join(d.text for d in deltas if d.kind == "reasoning")
    assert (reasoning or None) == r.reasoning
    streamed_ids = {d.tool_call.id for d in deltas if d.tool_call is not None and d.tool_call.id}
    assert {c.id for c in r.tool_calls if not is_derived_id(c.id)} <= streamed_ids
    if "error" in expected:
        assert r.finish_reason is FinishReason.ERROR
        assert r.error
        details = r.message.metadata["error"]
        for key, value in expected["error"].items():
            assert details[key] == value, key
    else:
        assert r.error is None
    _check_message_consistency(r)
    return r


def check_error_response(provider: Provider, entry: Entry, data: Any) -> ChatResponse:
    """An error body: finish_reason ERROR, the error object kept in metadata."""
    expected = entry["expected"]
    r = provider.parse_response(data)
    assert r.finish_reason.value == expected["finish_reason"]
    details = r.message.metadata["error"]
    for key, value in expected["error"].items():
        assert details[key] == value, key
    assert r.error == expected["error"]["message"]
    assert r.tool_calls == ()
    assert r.usage is None
    return r


def check_adversarial(provider: Provider, entry: Entry, data: Any) -> None:
    """``error``: DecodeError naming error_field (or, for bad arguments, an invalid call
    whose error names it); ``tolerate``: the listed facts."""
    expected = entry["expected"]
    kind = parser_kind(entry)
    if expected["behavior"] == "error":
        if "raw_arguments" in expected:
            # API contract: bad arguments never raise; the call is kept, raw text intact.
            r = parse_any(provider, entry, data)
            assert r.tool_calls == ()
            (bad,) = r.invalid_tool_calls
            assert bad.raw_arguments == expected["raw_arguments"]
            assert expected["error_field"] in bad.error
            assert bad.name and bad.id
            return
        with pytest.raises(DecodeError) as info:
            parse_any(provider, entry, data)
        assert expected["error_field"] in str(info.value)
        assert info.value.path.startswith(expected["error_field"].split(" ")[0])
        return
    assert expected["behavior"] == "tolerate"
    if kind == "request":
        ms = provider.parse_messages(data)
        compare_messages(ms, expected["messages"], ids=provider.name != "ollama")
        provider.convert(ms)  # formats without error
        return
    r = parse_any(provider, entry, data)
    compare_response(r, expected)
    if "text_sha256" in expected:
        digest = hashlib.sha256(r.text.encode("utf-8", "surrogatepass")).hexdigest()
        assert digest == expected["text_sha256"]
        assert r.text.startswith(expected["text_prefix"])
    if expected.get("text_contains_lone_surrogate"):
        assert "\ud800" in r.text
    if "warning_field" in expected:
        # A call the wire left without an id gets a clearly marked, stable id.
        assert all(is_derived_id(c.id) for c in r.tool_calls)
        assert parse_any(provider, entry, data).tool_calls[0].id == r.tool_calls[0].id
    _check_message_consistency(r)


def _check_message_consistency(r: ChatResponse) -> None:
    m = r.message
    assert m.role.value == "assistant"
    if r.usage is not None:
        assert m.metadata["usage"] == r.usage.to_dict()
    else:
        assert "usage" not in m.metadata
    assert len({c.id for c in r.tool_calls}) == len(r.tool_calls)


# -- fuzzing ---------------------------------------------------------------------------

WIRE_KEYS = [
    "id", "model", "object", "choices", "index", "message", "delta", "role", "content",
    "refusal", "reasoning", "reasoning_content", "thinking", "tool_calls", "type", "function",
    "name", "arguments", "finish_reason", "usage", "prompt_tokens", "completion_tokens",
    "total_tokens", "prompt_tokens_details", "cached_tokens", "completion_tokens_details",
    "reasoning_tokens", "error", "code", "x_groq", "messages", "tool_call_id", "tool_name",
    "images", "image_url", "url", "detail", "input_audio", "file", "file_data", "text",
    "data", "format", "done", "done_reason", "prompt_eval_count", "eval_count", "created_at",
]  # fmt: skip

_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**40), max_value=2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.sampled_from(["", "{}", "{\"a\":1}", "[1]", "stop", "length", "tool_calls",
                       "user", "assistant", "tool", "system", "developer", "function",
                       "text", "image_url", "data:image/png;base64,AA==", "iVBORw0KGgo=",
                       "get_weather", "bad name!", "call_1"])
)  # fmt: skip

json_values = st.recursive(
    _scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(WIRE_KEYS) | st.text(max_size=4), children, max_size=6)
    ),
    max_leaves=40,
)
"""Arbitrary JSON-like values whose object keys are mostly real wire keys."""


def accepts_or_decode_error(fn: Callable[..., Any], *args: Any) -> None:
    """Call ``fn``; anything but success or DecodeError fails the test."""
    try:
        fn(*args)
    except DecodeError as exc:
        assert isinstance(exc.path, str)


def feed_all_or_decode_error(provider: Provider, events: Sequence[Any]) -> None:
    """Feed a stream event by event, then finish; only DecodeError may escape."""
    acc = provider.stream()
    for event in events:
        accepts_or_decode_error(acc.feed, event)
    accepts_or_decode_error(acc.finish)


def mutated_only_decode_error(provider: Provider, entry: Entry, broken: Any) -> None:
    """Parse a mutated fixture as its kind allows; only DecodeError may escape."""
    if isinstance(broken, list) and entry.get("wire_format") == "jsonl":
        feed_all_or_decode_error(provider, broken)
    else:
        accepts_or_decode_error(provider.parse_response, broken)
        accepts_or_decode_error(provider.parse_messages, broken)


def mutate(value: Any, path: Sequence[int], replacement: Any) -> Any:
    """``value`` with one node (chosen by ``path`` indices) replaced or removed."""
    if not path:
        return None if replacement is _DELETE else replacement
    if isinstance(value, dict) and value:
        keys = list(value)
        key = keys[path[0] % len(keys)]
        out = dict(value)
        if len(path) == 1 and replacement is _DELETE:
            del out[key]
        else:
            out[key] = mutate(value[key], path[1:], replacement)
        return out
    if isinstance(value, list) and value:
        i = path[0] % len(value)
        out_list = list(value)
        if len(path) == 1 and replacement is _DELETE:
            del out_list[i]
        else:
            out_list[i] = mutate(value[i], path[1:], replacement)
        return out_list
    return replacement


class _Delete:
    def __repr__(self) -> str:
        return "<delete>"


_DELETE: Any = _Delete()
mutations = st.tuples(
    st.lists(st.integers(min_value=0, max_value=50), min_size=1, max_size=7),
    json_values | st.just(_DELETE),
)
"""(path, replacement) pairs for ``mutate``; ``_DELETE`` removes the node."""
