"""Provider wire formats II (Anthropic, Gemini): formatting, parsing, streaming.

Rows are (what, ns per operation). Each group is timed interleaved in one run, with
its baseline beside it:

* ``format_request`` per message of a 100-message conversation with parallel
  tool calls, beside the canonical codec's ``to_dict`` of the same messages
  (target: within 2x);
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _timing import compare

from messages import Message, ToolCall, to_dict
from messages.providers import get_provider

Row = tuple[str, float, float, str]

FIXTURES = Path(__file__).resolve().parent.parent.parent / "shared" / "fixtures"
NAMES = ("anthropic", "gemini")


def conversation(turns: int = 20) -> list[Message]:
    """``5 * turns`` messages: user, assistant with two calls, two results, answer."""
    out: list[Message] = [Message.system("You are a travel assistant.")]
    for t in range(turns):
        a = ToolCall(f"call_{t}_a", "get_weather", {"city": "Paris", "unit": "celsius"})
        b = ToolCall(f"call_{t}_b", "get_weather", {"city": "Tokyo", "unit": "celsius"})
        out += [
            Message.user(f"What's the weather in Paris and Tokyo? (turn {t})"),
            Message.assistant(None, [a, b]),
            Message.tool_result(a.id, "18C, light rain"),
            Message.tool_result(b.id, "24C, clear skies"),
            Message.assistant("Paris is 18C with light rain; Tokyo is 24C and clear."),
        ]
    return out[:100]


def _fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def _format_rows(ms: list[Message]) -> list[Row]:
    n = len(ms)
    pairs: dict[str, Callable[[], object]] = {"to_dict": lambda: to_dict(ms)}
    for name in NAMES:
        p = get_provider(name)
        pairs[name] = lambda p=p: p.format_request(ms)  # type: ignore[misc]
    t = compare(pairs)
    return [
        (
            f"format_request per message, {name} ({n} msgs, tool calls)",
            t[name] / n,
            t["to_dict"] / n,
            "to_dict per message",
        )
        for name in NAMES
    ]


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
        p = get_provider(name)
        body = _fixture(file)
        message = p.parse_response(body).message
        pairs: dict[str, Callable[[], object]] = {
            "parse": lambda p=p, b=body: p.parse_response(b),  # type: ignore[misc]
            "to_dict": lambda m=message: to_dict(m),  # type: ignore[misc]
        }
        t = compare(pairs)
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


def _stream(name: str, events: list[dict[str, Any]]) -> Callable[[], object]:
    p = get_provider(name)

    def run() -> object:
        acc = p.stream()
        feed = acc.feed
        for e in events:
            feed(e)
        return acc.finish()

    return run


def _stream_rows() -> list[Row]:
    a_events, g_events = anthropic_events(), gemini_chunks()
    a_text = [json.dumps(e) for e in a_events]
    g_text = [json.dumps(e) for e in g_events]
    r = _stream("anthropic", a_events)()
    assert len(r.tool_calls) == 2 and len(r.text) > 1000  # type: ignore[attr-defined]
    t = compare(
        {
            "anthropic": _stream("anthropic", a_events),
            "gemini": _stream("gemini", g_events),
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


def bench_providers2() -> list[Row]:
    """Every Anthropic and Gemini row (see the module docstring)."""
    return _format_rows(conversation()) + _parse_rows() + _stream_rows()


def profile() -> None:
    """Print where formatting and streaming time goes (cProfile, by own time)."""
    import cProfile
    import pstats

    ms = conversation()
    for name, events in (("anthropic", anthropic_events()), ("gemini", gemini_chunks())):
        prof = cProfile.Profile()
        run = _stream(name, events)
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
