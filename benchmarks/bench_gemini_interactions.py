"""Gemini Interactions API: formatting, parsing, streaming.

Rows are (what, ns per operation), each timed interleaved with its baseline beside it:

* ``format_request`` per message of a 100-message conversation with parallel tool
  calls, beside the canonical codec's ``to_dict`` of the same messages; and of a
  conversation of the API's own replies (a signed thought and two calls, a thought
  and a cited answer after Google Search steps), the state an Interactions
  conversation carries from turn to turn when it is replayed (``store: false``);
* ``parse_response`` per Interaction object (fixtures), beside ``to_dict`` of the
  message it produces;
* ``parse_messages`` of a stateless request body (thoughts, calls, results), beside
  ``to_dict`` of its messages;
* streaming: ns per event over 10,000 step events (text deltas, then two calls whose
  arguments come as ``arguments_delta`` fragments), beside ``json.loads`` of the
  event's JSON text.
"""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path
from typing import Any

from _timing import compare
from _workloads import Row, conversation, fixture, format_rows, parse_times, stream_runner

from messages import Message, to_dict
from messages.providers import ChatResponse, get_provider

NAME = "gemini_interactions"
SYSTEM = "You are a travel assistant."

_RESPONSES = (
    ("gemini_interactions/response_tool_calls_parallel.json", "thought + 2 calls"),
    ("gemini_interactions/response_thinking.json", "thought summary + text"),
    ("gemini_interactions/response_builtin_search.json", "search steps + cited text"),
    ("gemini_interactions/response_text.json", "echoed input + text"),
)


def _parse_rows() -> list[Row]:
    rows: list[Row] = []
    for file, what in _RESPONSES:
        t = parse_times(NAME, file)
        rows.append(
            (
                f"parse_response, {NAME} ({what})",
                t["parse"],
                t["to_dict"],
                "to_dict of that message",
            )
        )
    body = fixture("gemini_interactions/request_tool_roundtrip.json")
    p = get_provider(NAME)
    ms = p.parse_messages(body)
    t = compare({"parse": partial(p.parse_messages, body), "to_dict": partial(to_dict, ms)})
    n = len(ms)
    rows.append(
        (
            f"parse_messages per message, {NAME} ({n} msgs, thoughts and calls)",
            t["parse"] / n,
            t["to_dict"] / n,
            "to_dict per message",
        )
    )
    return rows


def own_replies(n: int = 100) -> list[Message]:
    """``n`` messages whose assistant turns are the API's own replies (see the docstring)."""
    p = get_provider(NAME)
    calls = p.parse_response(fixture("gemini_interactions/response_tool_calls_parallel.json"))
    answer = p.parse_response(fixture("gemini_interactions/response_builtin_search.json"))
    out: list[Message] = [Message.system(SYSTEM)]
    t = 0
    while len(out) < n:
        out += [Message.user(f"What's the weather in Paris and Tokyo? (turn {t})"), calls.message]
        out += [Message.tool_result(c.id, "18C, light rain") for c in calls.tool_calls]
        out.append(answer.message)
        t += 1
    return out[:n]


def step_events(n: int = 10_000) -> list[dict[str, Any]]:
    """``n`` step events: a model_output of text deltas, then two function_call steps."""
    out: list[dict[str, Any]] = [
        {
            "event_type": "interaction.created",
            "interaction": {"id": "v1_b", "status": "in_progress"},
        },
        {"event_type": "step.start", "index": 0, "step": {"type": "model_output"}},
    ]
    out += [
        {"event_type": "step.delta", "index": 0, "delta": {"type": "text", "text": f"w{i} "}}
        for i in range(n // 2)
    ]
    out.append({"event_type": "step.stop", "index": 0})
    per_call = (n - len(out) - 1) // 2
    for k in (1, 2):
        step = {"type": "function_call", "id": f"c{k}", "name": "f", "arguments": {}}
        out.append({"event_type": "step.start", "index": k, "step": step})
        out.append(_fragment(k, '{"x":"'))
        out += [_fragment(k, "ab") for _ in range(per_call - 4)]
        out += [_fragment(k, '"}'), {"event_type": "step.stop", "index": k}]
    usage = {"total_input_tokens": 9, "total_output_tokens": n, "total_tokens": n + 9}
    done = {"id": "v1_b", "status": "requires_action", "usage": usage}
    out.append({"event_type": "interaction.completed", "interaction": done})
    return out


def _fragment(k: int, text: str) -> dict[str, Any]:
    delta = {"type": "arguments_delta", "arguments": text}
    return {"event_type": "step.delta", "index": k, "delta": delta}


def _stream_rows() -> list[Row]:
    events = step_events()
    texts = [json.dumps(e) for e in events]
    run = stream_runner(NAME, events)
    r = run()
    assert isinstance(r, ChatResponse) and len(r.tool_calls) == 2 and len(r.text) > 1000
    t = compare({"stream": run, "loads": lambda: [json.loads(s) for s in texts]}, repeat=5)
    n = len(events)
    return [
        (
            f"stream per event, {NAME} ({n} text + arguments_delta events)",
            t["stream"] / n,
            t["loads"] / n,
            "json.loads of the event",
        )
    ]


def _own_format_row() -> Row:
    ms = own_replies()
    n = len(ms)
    p = get_provider(NAME)
    t = compare({"format": partial(p.format_request, ms), "to_dict": partial(to_dict, ms)})
    return (
        f"format_request per message, {NAME} ({n} msgs, its own replies)",
        t["format"] / n,
        t["to_dict"] / n,
        "to_dict per message",
    )


def bench_gemini_interactions() -> list[Row]:
    """Every Gemini Interactions row (see the module docstring)."""
    return [
        *format_rows(conversation(system=SYSTEM), (NAME,)),
        _own_format_row(),
        *_parse_rows(),
        *_stream_rows(),
    ]


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    for what, ns, base, desc in bench_gemini_interactions():
        print(f"{what:<80} {ns:>10.1f} ns  {ns / base:>6.2f}x {desc}")
