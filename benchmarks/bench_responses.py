"""Provider wire formats III (OpenAI Responses): formatting, parsing, streaming.

Rows are (what, ns per operation, baseline ns, baseline description), each group
timed interleaved in one run with its baseline beside it:

* ``format_request`` per message of a 100-message conversation with parallel
  tool calls, beside the canonical codec's ``to_dict`` of the same messages
  (target: within 2x); the same conversation parsed from Responses items (ids,
  statuses and reasoning kept as state), beside its ``to_dict``;
* ``parse_response`` per response, beside ``to_dict`` and ``from_dict`` of the
  message it produces (target: beside ``from_dict``);
* streaming: ns per event over 10,000 text and argument delta events (feed every
  event, then finish), beside ``json.loads`` of the same event's SSE text, the
  decode every caller pays anyway (target: <= 2 us per event).

``python benchmarks/bench_responses.py --profile`` prints where the time goes.
"""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path
from typing import Any

from _timing import compare
from _workloads import Row, conversation, fixture, format_rows, parse_times, stream_runner

from messages import to_dict
from messages.providers import get_provider

NAME = "openai_responses"

_RESPONSES = (
    ("openai_responses/response_text.json", "text"),
    ("openai_responses/response_tool_calls_parallel.json", "2 tool calls"),
    ("openai_responses/response_reasoning_tool_call.json", "reasoning + call"),
    ("openai_responses/response_phases_web_search.json", "4 items, phases"),
)


def _parse_rows() -> list[Row]:
    rows: list[Row] = []
    for file, what in _RESPONSES:
        t = parse_times(NAME, file, decode=True)
        label = f"parse_response, {NAME} ({what})"
        rows.append((label, t["parse"], t["to_dict"], "to_dict of that message"))
        rows.append((f"{label} vs decode", t["parse"], t["from_dict"], "from_dict of its dict"))
    return rows


def parsed_conversation(turns: int = 20) -> list[Any]:
    """``5 * turns`` messages read from a Responses request: each turn a user message,
    reasoning and two calls (with item ids), two outputs and an answer message item."""
    items: list[dict[str, Any]] = []
    for t in range(turns):
        items += [
            {"role": "user", "content": f"What's the weather in Paris and Tokyo? (turn {t})"},
            {
                "type": "reasoning",
                "id": f"rs_{t:048x}",
                "summary": [{"type": "summary_text", "text": "Both cities: two calls."}],
                "encrypted_content": "gAAAAABo" + "x" * 120,
            },
        ]
        for city in ("Paris", "Tokyo"):
            items.append(
                {
                    "type": "function_call",
                    "id": f"fc_{t}_{city}",
                    "call_id": f"call_{t}_{city}",
                    "name": "get_weather",
                    "arguments": json.dumps({"city": city, "unit": "celsius"}),
                    "status": "completed",
                }
            )
        items += [
            {"type": "function_call_output", "call_id": f"call_{t}_Paris", "output": "18C"},
            {"type": "function_call_output", "call_id": f"call_{t}_Tokyo", "output": "24C"},
            {
                "type": "message",
                "id": f"msg_{t:048x}",
                "role": "assistant",
                "status": "completed",
                "content": [
                    {"type": "output_text", "text": "Paris 18C, Tokyo 24C.", "annotations": []}
                ],
            },
        ]
    ms = get_provider(NAME).parse_messages({"input": items})
    assert len(ms) == 5 * turns
    return ms


def _format_rows() -> list[Row]:
    rows = format_rows(conversation(), (NAME, "openai"))
    ms = parsed_conversation()
    n = len(ms)
    p = get_provider(NAME)
    t = compare({"format": partial(p.format_request, ms), "to_dict": partial(to_dict, ms)})
    rows.append(
        (
            f"format_request per message, {NAME} ({n} msgs parsed from items: ids, reasoning)",
            t["format"] / n,
            t["to_dict"] / n,
            "to_dict per message",
        )
    )
    return rows


def response_events(n: int = 10_000) -> list[dict[str, Any]]:
    """``n`` Responses events: a message of text deltas, then two calls of argument deltas."""
    head = {
        "id": "resp_b",
        "object": "response",
        "model": "m",
        "status": "in_progress",
        "output": [],
    }
    out: list[dict[str, Any]] = [
        {"type": "response.created", "sequence_number": 0, "response": head},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"id": "msg_b", "type": "message", "role": "assistant", "content": []},
        },
    ]
    text = n // 2 - 2
    out += [
        {
            "type": "response.output_text.delta",
            "item_id": "msg_b",
            "output_index": 0,
            "content_index": 0,
            "delta": f"w{i} ",
            "logprobs": [],
        }
        for i in range(text)
    ]
    per_call = (n - len(out) - 1) // 2
    for k in (1, 2):
        item = {"id": f"fc_{k}", "type": "function_call", "call_id": f"call_{k}", "name": "f"}
        out.append({"type": "response.output_item.added", "output_index": k, "item": item})
        out.append(
            {
                "type": "response.function_call_arguments.delta",
                "item_id": f"fc_{k}",
                "output_index": k,
                "delta": '{"x":"',
            }
        )
        out += [
            {
                "type": "response.function_call_arguments.delta",
                "item_id": f"fc_{k}",
                "output_index": k,
                "delta": "ab",
            }
            for _ in range(per_call - 3)
        ]
        out.append(
            {
                "type": "response.function_call_arguments.delta",
                "item_id": f"fc_{k}",
                "output_index": k,
                "delta": '"}',
            }
        )
    out.append(
        {
            "type": "response.completed",
            "response": {
                **head,
                "status": "completed",
                "usage": {"input_tokens": 9, "output_tokens": n, "total_tokens": n + 9},
            },
        }
    )
    return out


def _stream_rows() -> list[Row]:
    events = response_events()
    texts = [json.dumps(e) for e in events]
    r = stream_runner(NAME, events)()
    assert len(r.tool_calls) == 2 and len(r.text) > 1000  # type: ignore[attr-defined]
    t = compare(
        {"stream": stream_runner(NAME, events), "loads": lambda: [json.loads(s) for s in texts]},
        repeat=5,
    )
    n = len(events)
    return [
        (
            f"stream per event, {NAME} ({n} text + argument deltas)",
            t["stream"] / n,
            t["loads"] / n,
            "json.loads of the event",
        )
    ]


def bench_responses() -> list[Row]:
    """Every row (see the module docstring)."""
    return _format_rows() + _parse_rows() + _stream_rows()


def _profile() -> None:
    import cProfile
    import pstats

    run = stream_runner(NAME, response_events())
    cProfile.runctx("for _ in range(20): run()", globals(), {"run": run}, "/tmp/responses.prof")
    pstats.Stats("/tmp/responses.prof").sort_stats("tottime").print_stats(12)
    ms = parsed_conversation()
    p = get_provider(NAME)
    cProfile.runctx(
        "for _ in range(200): p.format_request(ms)", globals(), {"p": p, "ms": ms}, "/tmp/f.prof"
    )
    pstats.Stats("/tmp/f.prof").sort_stats("tottime").print_stats(12)
    body = fixture("openai_responses/response_phases_web_search.json")
    cProfile.runctx(
        "for _ in range(20000): p.parse_response(body)",
        globals(),
        {"p": p, "body": body},
        "/tmp/p.prof",
    )
    pstats.Stats("/tmp/p.prof").sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    if "--profile" in sys.argv:
        _profile()
    else:
        for row in bench_responses():
            what, value, base, desc = row
            print(f"{what:<78} {value:>9.1f} {base:>9.1f} {value / base:>6.2f}  {desc}")
