"""OpenAI Responses streams: the corpus, and ``finish()`` equal to ``parse_response`` of the
completed response on every stream: the fixture streams, and streams made from every
response fixture (with and without the output on the terminal event, items whole or in
deltas, parallel items interleaved in any order)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import DecodeError
from messages.providers import FinishReason, StreamDelta, get_provider
from tests.conftest import FIXTURES, fixture_entries, load_fixture
from tests.provider_facts import compare_response
from tests.provider_fidelity import check_stream

P = get_provider("openai_responses")
NAME = "openai_responses"
ENTRIES = fixture_entries(NAME)
STREAMS = [e for e in ENTRIES if e["kind"] == "stream"]
RESPONSES = [e for e in ENTRIES if e["kind"] == "response"]
ADVERSARIAL_STREAMS = [
    e for e in ENTRIES if e["kind"] == "adversarial" and e["file"].endswith(".jsonl")
]
_TERMINAL = {
    "completed": "response.completed",
    "incomplete": "response.incomplete",
    "failed": "response.failed",
}


def run(events: list[Any]) -> tuple[Any, list[StreamDelta]]:
    acc = P.stream()
    deltas: list[StreamDelta] = []
    for event in events:
        deltas.extend(acc.feed(event))
    assert acc.event_count == len([e for e in events if e != "[DONE]"])  # type: ignore[attr-defined]
    return acc.finish(), deltas


def terminal_response(events: list[Any]) -> dict[str, Any] | None:
    found = [e["response"] for e in events if e.get("type") in _TERMINAL.values()]
    return found[-1] if found else None


# -- the corpus ---------------------------------------------------------------------------


@pytest.mark.parametrize("entry", STREAMS, ids=[e["file"] for e in STREAMS])
def test_stream_fixture_facts_and_the_completed_response(entry: dict[str, Any]) -> None:
    events = load_fixture(entry)
    r = check_stream(P, entry, events)
    final = terminal_response(events)
    if final is not None:
        assert r == P.parse_response(final)
    for block, exp in zip(
        r.message.reasoning, entry["expected"].get("reasoning_blocks", ()), strict=True
    ):
        assert (block.text, block.signature) == (exp["text"], exp["signature"])


def test_interleaved_calls_are_routed_by_item_and_assembled_without_a_terminal_output() -> None:
    (entry,) = [e for e in ADVERSARIAL_STREAMS if "interleaved" in e["file"]]
    events = load_fixture(entry)
    r, deltas = run(events)
    compare_response(r, entry["expected"])
    args: dict[int, str] = {}
    for d in deltas:
        assert d.tool_call is not None
        args[d.tool_call.index] = args.get(d.tool_call.index, "") + (
            d.tool_call.arguments_delta or ""
        )
    assert [json.loads(args[k]) for k in sorted(args)] == [c.arguments for c in r.tool_calls]
    # the same as the response whose items the stream carried
    full = copy.deepcopy(terminal_response(events))
    assert full is not None
    full["output"] = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    assert r == P.parse_response(full)


def test_a_truncated_stream_keeps_what_came_and_the_open_call_is_invalid() -> None:
    (entry,) = [e for e in ADVERSARIAL_STREAMS if "truncated" in e["file"]]
    r, deltas = run(load_fixture(entry))
    compare_response(r, entry["expected"])
    assert r.finish_reason is FinishReason.ERROR
    assert r.error == "stream ended before response.completed (truncated)"
    assert r.provider_finish_reason is None
    (bad,) = r.invalid_tool_calls
    (want,) = entry["expected"]["invalid_tool_calls"]
    assert (bad.id, bad.name, bad.raw_arguments) == (
        want["id"],
        want["name"],
        want["raw_arguments"],
    )
    assert "".join(d.text for d in deltas if d.kind == "text") == r.text


@pytest.mark.parametrize(
    "entry", [e for e in ADVERSARIAL_STREAMS if "reader" in e["expected"]], ids=lambda e: e["file"]
)
def test_another_wire_format_is_refused_naming_its_reader(entry: dict[str, Any]) -> None:
    events = load_fixture(entry)
    acc = P.stream()
    with pytest.raises(DecodeError) as info:
        acc.feed(events[0])
    assert info.value.path == entry["expected"]["error_field"]
    assert f"'{entry['expected']['reader']}' provider" in info.value.message


FOREIGN = [
    (e["file"], e["provider"])
    for e in fixture_entries("openai", "groq", "vllm", "ollama", "anthropic", "gemini")
    if e["kind"] == "stream" or e["file"].endswith(".jsonl")
]
READERS = {
    "openai": "openai",
    "groq": "openai",
    "vllm": "openai",
    "ollama": "ollama",
    "anthropic": "anthropic",
    "gemini": "gemini",
}


@pytest.mark.parametrize(("file", "provider"), FOREIGN, ids=[f for f, _ in FOREIGN])
def test_no_stream_of_another_provider_finishes_as_an_empty_response(
    file: str, provider: str
) -> None:
    events = [
        json.loads(line)
        for line in (FIXTURES / file).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    acc = P.stream()
    with pytest.raises(DecodeError) as info:
        for event in events:
            acc.feed(event)
    assert f"'{READERS[provider]}' provider" in info.value.message


# -- every response, streamed -----------------------------------------------------------


def chunks(text: str, n: int) -> list[str]:
    if not text:
        return []
    size = max(1, -(-len(text) // n))
    return [text[i : i + size] for i in range(0, len(text), size)]


def item_events(k: int, item: dict[str, Any], n: int, whole: bool) -> list[dict[str, Any]]:
    """The events of output item ``k``: added, its parts in ``n`` deltas each, done."""
    kind = item.get("type")
    iid = item.get("id")
    if whole or kind not in ("message", "reasoning", "function_call"):
        added = {k_: v for k_, v in item.items() if k_ not in ("content", "summary", "arguments")}
        return [
            {"type": "response.output_item.added", "output_index": k, "item": added},
            {"type": "response.output_item.done", "output_index": k, "item": item},
        ]
    ref = {"item_id": iid, "output_index": k}
    out: list[dict[str, Any]] = []
    if kind == "message":
        out.append(
            {
                "type": "response.output_item.added",
                "output_index": k,
                "item": {**item, "status": "in_progress", "content": []},
            }
        )
        for ci, part in enumerate(item["content"]):
            is_refusal = part["type"] == "refusal"
            key = "refusal" if is_refusal else "text"
            empty = {**part, key: ""}
            out.append(
                {"type": "response.content_part.added", **ref, "content_index": ci, "part": empty}
            )
            delta_type = "response.refusal.delta" if is_refusal else "response.output_text.delta"
            out.extend(
                {"type": delta_type, **ref, "content_index": ci, "delta": c}
                for c in chunks(part[key], n)
            )
            done_type = "response.refusal.done" if is_refusal else "response.output_text.done"
            out.append({"type": done_type, **ref, "content_index": ci, key: part[key]})
            out.append(
                {"type": "response.content_part.done", **ref, "content_index": ci, "part": part}
            )
    elif kind == "reasoning":
        out.append(
            {
                "type": "response.output_item.added",
                "output_index": k,
                "item": {"id": iid, "type": "reasoning", "summary": []},
            }
        )
        for si, part in enumerate(item["summary"]):
            out.append(
                {
                    "type": "response.reasoning_summary_part.added",
                    **ref,
                    "summary_index": si,
                    "part": {**part, "text": ""},
                }
            )
            out.extend(
                {
                    "type": "response.reasoning_summary_text.delta",
                    **ref,
                    "summary_index": si,
                    "delta": c,
                }
                for c in chunks(part["text"], n)
            )
            out.append(
                {
                    "type": "response.reasoning_summary_text.done",
                    **ref,
                    "summary_index": si,
                    "text": part["text"],
                }
            )
            out.append(
                {
                    "type": "response.reasoning_summary_part.done",
                    **ref,
                    "summary_index": si,
                    "part": part,
                }
            )
        for ci, part in enumerate(item.get("content") or ()):
            out.append(
                {
                    "type": "response.content_part.added",
                    **ref,
                    "content_index": ci,
                    "part": {**part, "text": ""},
                }
            )
            out.extend(
                {"type": "response.reasoning_text.delta", **ref, "content_index": ci, "delta": c}
                for c in chunks(part["text"], n)
            )
            out.append(
                {
                    "type": "response.reasoning_text.done",
                    **ref,
                    "content_index": ci,
                    "text": part["text"],
                }
            )
    else:
        out.append(
            {
                "type": "response.output_item.added",
                "output_index": k,
                "item": {**item, "arguments": "", "status": "in_progress"},
            }
        )
        out.extend(
            {"type": "response.function_call_arguments.delta", **ref, "delta": c}
            for c in chunks(item["arguments"], n)
        )
        out.append(
            {"type": "response.function_call_arguments.done", **ref, "arguments": item["arguments"]}
        )
    out.append({"type": "response.output_item.done", "output_index": k, "item": item})
    return out


def events_of(
    response: dict[str, Any],
    n: int = 3,
    *,
    whole: bool = False,
    with_output: bool = True,
    order: list[int] | None = None,
) -> list[dict[str, Any]]:
    """The SSE events of a Response: snapshots, each item's events (interleaved by
    ``order``, a list of item positions, one entry per event taken), the terminal event."""
    snapshot = {**response, "status": "in_progress", "output": [], "usage": None}
    head = [
        {"type": "response.created", "response": snapshot},
        {"type": "response.in_progress", "response": snapshot},
    ]
    per_item = [item_events(k, item, n, whole) for k, item in enumerate(response["output"])]
    body: list[dict[str, Any]] = []
    if order is None:
        for events in per_item:
            body += events
    else:
        queues = [list(events) for events in per_item]
        for k in order:
            if queues[k % len(queues)]:
                body.append(queues[k % len(queues)].pop(0))
        for queue in queues:
            body += queue
    final = response if with_output else {**response, "output": []}
    tail = [{"type": _TERMINAL[response["status"]], "response": final}]
    return [{**e, "sequence_number": s} for s, e in enumerate(head + body + tail)]


@pytest.mark.parametrize("entry", RESPONSES, ids=[e["file"] for e in RESPONSES])
@pytest.mark.parametrize("with_output", [True, False], ids=["terminal-output", "assembled"])
@pytest.mark.parametrize("whole", [False, True], ids=["deltas", "whole-items"])
def test_every_response_streamed_finishes_as_parse_response(
    entry: dict[str, Any], with_output: bool, whole: bool
) -> None:
    data = load_fixture(entry)
    expected = P.parse_response(data)
    r, deltas = run(events_of(data, whole=whole, with_output=with_output))
    assert r == expected
    assert "".join(d.text for d in deltas if d.kind == "text") == r.text
    assert ("".join(d.text for d in deltas if d.kind == "reasoning") or None) == r.reasoning
    args: dict[int, str] = {}
    firsts: dict[int, tuple[str | None, str | None]] = {}
    for d in deltas:
        if d.tool_call is not None:
            tc = d.tool_call
            args[tc.index] = args.get(tc.index, "") + (tc.arguments_delta or "")
            firsts.setdefault(tc.index, (tc.id, tc.name))
    calls = [*r.message.tool_calls, *r.message.invalid_tool_calls]
    assert sorted(firsts.values()) == sorted((c.id, c.name) for c in calls)


@settings(max_examples=80)
@given(
    st.sampled_from([e for e in RESPONSES if len(load_fixture(e)["output"]) > 1]),
    st.lists(st.integers(min_value=0, max_value=3), max_size=80),
    st.integers(min_value=1, max_value=6),
    st.booleans(),
)
def test_items_interleaved_in_any_order_finish_the_same(
    entry: dict[str, Any], order: list[int], n: int, with_output: bool
) -> None:
    data = load_fixture(entry)
    r, _ = run(events_of(data, n, with_output=with_output, order=order))
    assert r == P.parse_response(data)


# -- events ---------------------------------------------------------------------------------


def test_deltas_before_their_item_are_routed_by_output_index() -> None:
    events = [
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "content_index": 0,
            "delta": "Hel",
        },
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "delta": "lo",
        },
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_1",
            "output_index": 1,
            "delta": "{}",
        },
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f"},
        },
        {
            "type": "response.completed",
            "response": {"id": "resp_1", "status": "completed", "output": []},
        },
    ]
    r, _ = run(events)
    assert r.text == "Hello"
    assert [(c.id, c.name, dict(c.arguments)) for c in r.tool_calls] == [("c1", "f", {})]
    assert r.finish_reason is FinishReason.TOOL_CALLS


def test_an_error_event_ends_with_error_and_keeps_what_came() -> None:
    for error in (
        {"type": "error", "code": "server_error", "message": "boom", "param": None},
        {
            "type": "error",
            "error": {"type": "server_error", "code": "server_error", "message": "boom"},
        },
    ):
        r, _ = run(
            [
                {
                    "type": "response.output_text.delta",
                    "item_id": "m",
                    "output_index": 0,
                    "content_index": 0,
                    "delta": "so far",
                },
                error,
            ]
        )
        assert (r.finish_reason, r.error, r.text) == (FinishReason.ERROR, "boom", "so far")
        assert r.message.metadata["error"]["code"] == "server_error"


def test_done_sentinel_unknown_events_and_an_empty_stream() -> None:
    r, _ = run(
        [
            "[DONE]",
            {"type": "response.web_search_call.searching", "item_id": "ws_1", "output_index": 0},
            {"type": "keepalive"},
        ]
    )
    assert r.finish_reason is FinishReason.ERROR and r.text == ""
    assert P.stream().finish().error == "stream ended before response.completed (truncated)"


@pytest.mark.parametrize(
    ("event", "where"),
    [
        ({"type": "response.output_text.delta", "delta": "x", "content_index": 0}, "item_id"),
        ({"type": "response.output_text.delta", "item_id": 3, "delta": "x"}, "item_id"),
        (
            {
                "type": "response.output_text.delta",
                "item_id": "m",
                "output_index": -1,
                "delta": "x",
            },
            "output_index",
        ),
        (
            {"type": "response.output_text.delta", "item_id": "m", "output_index": 0, "delta": 5},
            "delta",
        ),
        (
            {"type": "response.output_text.delta", "item_id": "m", "output_index": 0, "delta": "x"},
            "content_index",
        ),
        ({"type": "response.output_item.added", "output_index": 0, "item": []}, "item"),
        ({"type": "response.output_item.added", "output_index": "0", "item": {}}, "output_index"),
        ({"type": "response.completed", "response": None}, "response"),
        ({"type": 5}, "type"),
        ({"choices": []}, "type"),
        ({"message": {"role": "assistant", "content": "x"}, "done": False, "model": "m"}, "type"),
        ({"candidates": []}, "type"),
        ({"type": "content_block_delta", "index": 0}, "type"),
        ({"no": "type"}, "type"),
    ],
)
def test_malformed_events_name_the_field(event: dict[str, Any], where: str) -> None:
    with pytest.raises(DecodeError) as info:
        P.stream().feed(event)
    assert info.value.path == where


def test_a_new_item_id_at_a_known_output_index_renames_that_item() -> None:
    """The GitHub Copilot proxy gives every event a new item id (the recorded stream is in
    test_sse.py): the item is the one at output_index, and it keeps the last id."""
    acc = P.stream()
    acc.feed(
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "message", "id": "msg_a", "role": "assistant", "content": []},
        }
    )
    for n, iid in enumerate(("msg_b", "msg_c")):
        acc.feed(
            {
                "type": "response.output_text.delta",
                "item_id": iid,
                "output_index": 0,
                "content_index": 0,
                "delta": "xy"[n],
            }
        )
    r = acc.finish()
    assert r.text == "xy"
    [item] = r.message.extras["openai_responses"]["items"]
    assert item["message"]["id"] == "msg_c"


def test_origin_tags_the_streamed_state() -> None:
    (entry,) = [e for e in STREAMS if e["file"].endswith("stream_reasoning.jsonl")]
    acc = P.at("vllm").stream()
    for event in load_fixture(entry):
        acc.feed(event)
    r = acc.finish()
    assert {p.provider for p in r.message.reasoning} == {f"{NAME}@vllm"}
    assert set(r.message.extras) == {f"{NAME}@vllm"}
