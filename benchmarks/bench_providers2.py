"""Provider wire formats II (Anthropic, Gemini): formatting, parsing, streaming.

Rows are (what, ns per operation). Each group is timed interleaved in one run, with
its baseline beside it:

* ``format_request`` per message of a 100-message conversation with parallel
  tool calls, beside the canonical codec's ``to_dict`` of the same messages
  (target: within 2x); for Anthropic also a conversation whose messages merge into
  wire turns (the assistant's text and its call are two messages, the user speaks
  again right after the results), which one formatting path serves alike; for Gemini
  also a conversation of its own replies (a call's thought signature, a signed
  thought), the state every Gemini conversation carries;
* ``parse_response`` per response message, beside ``to_dict`` of the message it
  produces;
* streaming: ns per event over 10,000 text and tool-argument events (feed every
  event, then finish), beside ``json.loads`` of the same event's SSE text, the
  decode every caller pays anyway (target: <= 2 us per event).

``python benchmarks/bench_providers2.py --profile`` prints where the time goes.
"""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path
from typing import Any

from _timing import compare
from _workloads import Row, conversation, fixture, format_rows, parse_times, stream_runner

from messages import Message, ToolCall, to_dict
from messages.providers import get_provider

NAMES = ("anthropic", "gemini")
SYSTEM = "You are a travel assistant."


_RESPONSES = (
    ("anthropic", "anthropic/response_tool_calls_parallel.json", "text + 2 tool calls"),
    ("anthropic", "anthropic/response_thinking.json", "thinking + text"),
    ("anthropic", "anthropic/response_text.json", "text"),
    ("gemini", "gemini/response_tool_calls_parallel.json", "2 tool calls"),
    ("gemini", "gemini/response_thinking.json", "thought + text"),
    ("gemini", "gemini/response_text.json", "text"),
)


def _parse_rows() -> list[Row]:
    rows: list[Row] = []
    for name, file, what in _RESPONSES:
        t = parse_times(name, file)
        rows.append(
            (
                f"parse_response, {name} ({what})",
                t["parse"],
                t["to_dict"],
                "to_dict of that message",
            )
        )
    return rows


def anthropic_events(n: int = 10_000) -> list[dict[str, Any]]:
    """``n`` Messages API events: a text block of deltas, then two tool_use blocks."""
    out: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {"id": "msg_b", "model": "m", "content": [], "usage": {"input_tokens": 9}},
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ]
    text = n // 2 - 2
    out += [
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": f"w{i} "},
        }
        for i in range(text)
    ]
    out.append({"type": "content_block_stop", "index": 0})
    per_call = (n - len(out) - 3) // 2
    for k in (1, 2):
        out.append(
            {
                "type": "content_block_start",
                "index": k,
                "content_block": {"type": "tool_use", "id": f"toolu_{k}", "name": "f", "input": {}},
            }
        )
        delta = {"type": "input_json_delta", "partial_json": '{"x":"'}
        out.append({"type": "content_block_delta", "index": k, "delta": delta})
        out += [
            {
                "type": "content_block_delta",
                "index": k,
                "delta": {"type": "input_json_delta", "partial_json": "ab"},
            }
            for _ in range(per_call - 4)
        ]
        out.append(
            {
                "type": "content_block_delta",
                "index": k,
                "delta": {"type": "input_json_delta", "partial_json": '"}'},
            }
        )
        out.append({"type": "content_block_stop", "index": k})
    out.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": n},
        }
    )
    out.append({"type": "message_stop"})
    return out


def gemini_chunks(n: int = 10_000) -> list[dict[str, Any]]:
    """``n`` streamGenerateContent chunks: text parts, two whole calls, the finish."""
    usage = {"promptTokenCount": 9, "totalTokenCount": 9}

    def chunk(parts: list[Any], finish: str | None = None) -> dict[str, Any]:
        cand: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if finish:
            cand["finishReason"] = finish
        return {
            "candidates": [cand],
            "usageMetadata": usage,
            "modelVersion": "m",
            "responseId": "r",
        }

    out = [chunk([{"text": f"w{i} "}]) for i in range(n - 3)]
    out += [chunk([{"functionCall": {"name": "f", "args": {"x": k}}}]) for k in range(2)]
    out.append(chunk([{"text": ""}], "STOP"))
    return out


def _stream_rows() -> list[Row]:
    a_events, g_events = anthropic_events(), gemini_chunks()
    a_text = [json.dumps(e) for e in a_events]
    g_text = [json.dumps(e) for e in g_events]
    r = stream_runner("anthropic", a_events)()
    assert len(r.tool_calls) == 2 and len(r.text) > 1000  # type: ignore[attr-defined]
    t = compare(
        {
            "anthropic": stream_runner("anthropic", a_events),
            "gemini": stream_runner("gemini", g_events),
            "loads_a": lambda: [json.loads(s) for s in a_text],
            "loads_g": lambda: [json.loads(s) for s in g_text],
        },
        repeat=5,
    )
    n, m = len(a_events), len(g_events)
    return [
        (
            f"stream per event, anthropic ({n} text + input_json deltas)",
            t["anthropic"] / n,
            t["loads_a"] / n,
            "json.loads of the event",
        ),
        (
            f"stream per chunk, gemini ({m} text chunks + 2 calls)",
            t["gemini"] / m,
            t["loads_g"] / m,
            "json.loads of the chunk",
        ),
    ]


def merging_conversation(n: int = 100) -> list[Message]:
    """``n`` messages whose turns merge on the Anthropic wire (see the module docstring)."""
    out: list[Message] = [Message.system(SYSTEM)]
    t = 0
    while len(out) < n:
        call = ToolCall(f"toolu_{t}", "get_weather", {"city": "Paris", "unit": "celsius"})
        out += [
            Message.user(f"What's the weather in Paris? (turn {t})"),
            Message.assistant("Let me check."),
            Message.assistant(None, [call]),
            Message.tool_result(call.id, "18C, light rain"),
            Message.user("And is it windy?"),
            Message.assistant("Paris is 18C with light rain and a light breeze."),
        ]
        t += 1
    return out[:n]


def _one_format_row(name: str, ms: list[Message], what: str) -> Row:
    """``format_request`` per message of one provider on ``ms``, beside ``to_dict``."""
    n = len(ms)
    t = compare(
        {"format": partial(get_provider(name).format_request, ms), "to_dict": partial(to_dict, ms)}
    )
    return (
        f"format_request per message, {name} ({n} msgs, {what})",
        t["format"] / n,
        t["to_dict"] / n,
        "to_dict per message",
    )


def gemini_replies(n: int = 100) -> list[Message]:
    """``n`` messages whose model turns are Gemini's own replies, parsed from the
    fixtures: a call with its thought signature and a thought with a signed text, the
    state a Gemini conversation carries from turn to turn."""
    p = get_provider("gemini")
    calls = p.parse_response(fixture("gemini/response_tool_calls_parallel.json")).message
    thought = p.parse_response(fixture("gemini/response_thinking.json")).message
    out: list[Message] = [Message.system(SYSTEM)]
    t = 0
    while len(out) < n:
        out += [Message.user(f"What's the weather in Paris and Tokyo? (turn {t})"), calls]
        out += [Message.tool_result(c.id, "18C, light rain") for c in calls.tool_calls]
        out.append(thought)
        t += 1
    return out[:n]


def bench_providers2() -> list[Row]:
    """Every Anthropic and Gemini row (see the module docstring)."""
    return [
        *format_rows(conversation(system=SYSTEM), NAMES),
        _one_format_row("anthropic", merging_conversation(), "merged turns"),
        _one_format_row("gemini", gemini_replies(), "its signed replies"),
        *_parse_rows(),
        *_stream_rows(),
    ]


def profile() -> None:
    """Print where formatting and streaming time goes (cProfile, by own time)."""
    import cProfile
    import pstats

    ms = conversation(system=SYSTEM)
    for name, events in (("anthropic", anthropic_events()), ("gemini", gemini_chunks())):
        prof = cProfile.Profile()
        run = stream_runner(name, events)
        prof.enable()
        for _ in range(5):
            run()
        prof.disable()
        print(f"== stream, {name}")
        pstats.Stats(prof).sort_stats("tottime").print_stats(10)
        p = get_provider(name)
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(2000):
            p.format_request(ms)
        prof.disable()
        print(f"== format_request, {name}")
        pstats.Stats(prof).sort_stats("tottime").print_stats(10)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    if "--profile" in sys.argv:
        profile()
    else:
        for what, ns, base, desc in bench_providers2():
            print(f"{what:<64} {ns:>10.1f} ns  {ns / base:>6.2f}x {desc}")
