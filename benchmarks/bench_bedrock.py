"""Amazon Bedrock Converse: formatting, parsing, streaming.

Rows are (what, ns per operation), each timed interleaved with its baseline beside it:

* ``format_request`` per message of a 100-message conversation with parallel tool
  calls, beside the canonical codec's ``to_dict`` of the same messages; and of a
  conversation of Bedrock's own replies (signed reasoning, a call), the state a
  Claude-on-Bedrock conversation carries from turn to turn;
* ``parse_response`` per response (recorded and hand-authored fixtures), beside
  ``to_dict`` of the message it produces;
* ``parse_messages`` of a recorded request body, beside ``to_dict`` of its messages;
* streaming: ns per event over 10,000 ConverseStream events (text deltas, then two
  toolUse blocks in fragments), beside ``json.loads`` of the event's JSON text.
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

NAME = "bedrock"
SYSTEM = "You are a travel assistant."

_RESPONSES = (
    ("bedrock/response_tool_calls_parallel.json", "text + 2 tool calls"),
    (
        "bedrock/response_recorded_thinking_tool_use.json",
        "recorded: signed reasoning + text + call",
    ),
    ("bedrock/response_text.json", "text"),
)


def _parse_rows() -> list[Row]:
    rows: list[Row] = []
    for file, what in _RESPONSES:
        t = parse_times(NAME, file)
        rows.append(
            (
                f"parse_response, bedrock ({what})",
                t["parse"],
                t["to_dict"],
                "to_dict of that message",
            )
        )
    body = fixture("bedrock/request_tool_roundtrip.json")
    p = get_provider(NAME)
    ms = p.parse_messages(body)
    t = compare({"parse": partial(p.parse_messages, body), "to_dict": partial(to_dict, ms)})
    n = len(ms)
    rows.append(
        (
            f"parse_messages per message, bedrock (request, {n} msgs)",
            t["parse"] / n,
            t["to_dict"] / n,
            "to_dict per message",
        )
    )
    return rows


def own_replies(n: int = 100) -> list[Message]:
    """``n`` messages whose assistant turns are Bedrock's own recorded reply (signed
    reasoning, text and a call) and its answer."""
    p = get_provider(NAME)
    reply = p.parse_response(fixture("bedrock/response_recorded_thinking_tool_use.json")).message
    answer = p.parse_response(fixture("bedrock/response_text.json")).message
    out: list[Message] = [Message.system(SYSTEM)]
    t = 0
    while len(out) < n:
        out += [Message.user(f"What is the largest city in my country? (turn {t})"), reply]
        out += [Message.tool_result(c.id, "Mexico") for c in reply.tool_calls]
        out.append(answer)
        t += 1
    return out[:n]


def converse_events(n: int = 10_000) -> list[dict[str, Any]]:
    """``n`` ConverseStream events: text deltas, then two toolUse blocks in fragments."""
    out: list[dict[str, Any]] = [{"messageStart": {"role": "assistant"}}]
    text = n // 2
    out += [
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": f"w{i} "}}}
        for i in range(text)
    ]
    out.append({"contentBlockStop": {"contentBlockIndex": 0}})
    per_call = (n - len(out) - 2) // 2
    for k in (1, 2):
        start = {"toolUse": {"toolUseId": f"tooluse_{k}", "name": "f"}}
        out.append({"contentBlockStart": {"contentBlockIndex": k, "start": start}})
        out.append(
            {
                "contentBlockDelta": {
                    "contentBlockIndex": k,
                    "delta": {"toolUse": {"input": '{"x":"'}},
                }
            }
        )
        fragment = {
            "contentBlockDelta": {"contentBlockIndex": k, "delta": {"toolUse": {"input": "ab"}}}
        }
        out += [fragment for _ in range(per_call - 4)]
        out.append(
            {"contentBlockDelta": {"contentBlockIndex": k, "delta": {"toolUse": {"input": '"}'}}}}
        )
        out.append({"contentBlockStop": {"contentBlockIndex": k}})
    out.append({"messageStop": {"stopReason": "tool_use"}})
    out.append({"metadata": {"usage": {"inputTokens": 9, "outputTokens": n, "totalTokens": n + 9}}})
    return out


def _stream_rows() -> list[Row]:
    events = converse_events()
    texts = [json.dumps(e) for e in events]
    run = stream_runner(NAME, events)
    r = run()
    assert isinstance(r, ChatResponse) and len(r.tool_calls) == 2 and len(r.text) > 1000
    t = compare({"stream": run, "loads": lambda: [json.loads(s) for s in texts]}, repeat=5)
    n = len(events)
    return [
        (
            f"stream per event, bedrock ({n} text + toolUse deltas)",
            t["stream"] / n,
            t["loads"] / n,
            "json.loads of the event",
        )
    ]


def _own_format_row() -> Row:
    ms = own_replies()
    n = len(ms)
    t = compare(
        {"format": partial(get_provider(NAME).format_request, ms), "to_dict": partial(to_dict, ms)}
    )
    return (
        f"format_request per message, bedrock ({n} msgs, its signed replies)",
        t["format"] / n,
        t["to_dict"] / n,
        "to_dict per message",
    )


def bench_bedrock() -> list[Row]:
    """Every Bedrock row (see the module docstring)."""
    return [
        *format_rows(conversation(system=SYSTEM), (NAME,)),
        _own_format_row(),
        *_parse_rows(),
        *_stream_rows(),
    ]


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    for what, ns, base, desc in bench_bedrock():
        print(f"{what:<72} {ns:>10.1f} ns  {ns / base:>6.2f}x {desc}")
