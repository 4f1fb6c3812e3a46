"""Cohere v2 chat: formatting, parsing, streaming.

Rows are (what, ns per operation), each timed interleaved with its baseline beside it:

* ``format_request`` per message of a 100-message conversation with parallel tool
  calls, beside the canonical codec's ``to_dict`` of the same messages; and of a
  conversation of Cohere's own replies (a thinking block and a call, a cited answer),
  the state a Cohere conversation carries from turn to turn;
* ``parse_response`` per response (recorded fixtures), beside ``to_dict`` of the
  message it produces;
* ``parse_messages`` of a request body with thinking, documents and citations,
  beside ``to_dict`` of its messages;
* streaming: ns per event over 10,000 v2 stream events (text deltas, then two calls
  in fragments), beside ``json.loads`` of the event's JSON text.
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

NAME = "cohere"
SYSTEM = "You are a travel assistant."

_RESPONSES = (
    ("cohere/response_tool_calls_parallel.json", "tool plan + 2 tool calls"),
    ("cohere/response_recorded_thinking_tool_call.json", "recorded: thinking + call"),
    ("cohere/response_citations.json", "text + 3 citations"),
    ("cohere/response_text.json", "text"),
)


def _parse_rows() -> list[Row]:
    rows: list[Row] = []
    for file, what in _RESPONSES:
        t = parse_times(NAME, file)
        rows.append(
            (
                f"parse_response, cohere ({what})",
                t["parse"],
                t["to_dict"],
                "to_dict of that message",
            )
        )
    body = fixture("cohere/request_thinking_tool_roundtrip.json")
    p = get_provider(NAME)
    ms = p.parse_messages(body)
    t = compare({"parse": partial(p.parse_messages, body), "to_dict": partial(to_dict, ms)})
    n = len(ms)
    rows.append(
        (
            f"parse_messages per message, cohere (request, {n} msgs)",
            t["parse"] / n,
            t["to_dict"] / n,
            "to_dict per message",
        )
    )
    return rows


def own_replies(n: int = 100) -> list[Message]:
    """``n`` messages whose assistant turns are Cohere's own recorded replies: a thinking
    block and a call, then an answer with citations."""
    p = get_provider(NAME)
    reply = p.parse_response(fixture("cohere/response_recorded_thinking_tool_call.json")).message
    answer = p.parse_response(fixture("cohere/response_citations.json")).message
    out: list[Message] = [Message.system(SYSTEM)]
    t = 0
    while len(out) < n:
        out += [Message.user(f"Weather in the second city of Japan? (turn {t})"), reply]
        out += [Message.tool_result(c.id, "24C, sunny") for c in reply.tool_calls]
        out.append(answer)
        t += 1
    return out[:n]


def v2_events(n: int = 10_000) -> list[dict[str, Any]]:
    """``n`` v2 stream events: text deltas, then two calls whose arguments come in fragments."""
    start = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}
    out: list[dict[str, Any]] = [
        {"id": "b1", "type": "message-start", "delta": {"message": start}},
        {
            "type": "content-start",
            "index": 0,
            "delta": {"message": {"content": {"type": "text", "text": ""}}},
        },
    ]
    out += [
        {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": f"w{i} "}}}}
        for i in range(n // 2)
    ]
    out.append({"type": "content-end", "index": 0})
    per_call = (n - len(out) - 1) // 2
    for k in (0, 1):
        call = {"id": f"f_{k}", "type": "function", "function": {"name": "f", "arguments": ""}}
        out.append(
            {"type": "tool-call-start", "index": k, "delta": {"message": {"tool_calls": call}}}
        )
        out += [_fragment(k, '{"x":"')]
        out += [_fragment(k, "ab") for _ in range(per_call - 4)]
        out += [_fragment(k, '"}'), {"type": "tool-call-end", "index": k}]
    usage = {"billed_units": {"input_tokens": 9, "output_tokens": n}}
    out.append({"type": "message-end", "delta": {"finish_reason": "TOOL_CALL", "usage": usage}})
    return out


def _fragment(k: int, text: str) -> dict[str, Any]:
    fn = {"function": {"arguments": text}}
    return {"type": "tool-call-delta", "index": k, "delta": {"message": {"tool_calls": fn}}}


def _stream_rows() -> list[Row]:
    events = v2_events()
    texts = [json.dumps(e) for e in events]
    run = stream_runner(NAME, events)
    r = run()
    assert isinstance(r, ChatResponse) and len(r.tool_calls) == 2 and len(r.text) > 1000
    t = compare({"stream": run, "loads": lambda: [json.loads(s) for s in texts]}, repeat=5)
    n = len(events)
    return [
        (
            f"stream per event, cohere ({n} text + tool-call deltas)",
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
        f"format_request per message, cohere ({n} msgs, its own replies)",
        t["format"] / n,
        t["to_dict"] / n,
        "to_dict per message",
    )


def bench_cohere() -> list[Row]:
    """Every Cohere row (see the module docstring)."""
    return [
        *format_rows(conversation(system=SYSTEM), (NAME,)),
        _own_format_row(),
        *_parse_rows(),
        *_stream_rows(),
    ]


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    for what, ns, base, desc in bench_cohere():
        print(f"{what:<72} {ns:>10.1f} ns  {ns / base:>6.2f}x {desc}")
