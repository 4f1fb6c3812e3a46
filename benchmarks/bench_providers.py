"""Provider wire formats (OpenAI, Groq, vLLM, Ollama): formatting, parsing, streaming.

Rows are (what, ns, baseline ns, baseline description), measured interleaved in
the same run:

* ``format_request`` per message of a 100-message conversation with parallel
  tool calls, beside the canonical codec's ``to_dict`` of the same messages
  (target: within 2x);
* ``parse_response`` per response message, beside ``to_dict`` of the message it
  produces;
* streaming: ns per chunk over 10,000 text and tool-argument chunks (feed every
  chunk, then finish), beside ``json.loads`` of the same chunk's SSE text, the
  decode every caller pays anyway (target: <= 2 us per chunk).

``python benchmarks/bench_providers.py --profile`` prints where streaming time goes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from _timing import compare

from messages import Message, ToolCall, from_dict, to_dict
from messages.providers import get_provider

Row = tuple[str, float, float, str]

FIXTURES = Path(__file__).resolve().parent.parent.parent / "shared" / "fixtures"


def conversation(turns: int = 20) -> list[Message]:
    """``5 * turns`` messages: user, assistant with two calls, two results, answer."""
    out: list[Message] = []
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
    return out


def _fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def _format_rows(ms: list[Message]) -> list[Row]:
    n = len(ms)
    names = ("openai", "groq", "vllm", "ollama")
    pairs: dict[str, Callable[[], object]] = {"to_dict": lambda: to_dict(ms)}
    for name in names:
        p = get_provider(name)
        pairs[name] = partial(p.format_request, ms)
    t = compare(pairs)
    base = t["to_dict"] / n
    return [
        (
            f"format_request per message, {name} ({n} msgs, tool calls)",
            t[name] / n,
            base,
            "to_dict per message",
        )
        for name in names
    ]


_RESPONSES = (
    ("openai", "openai/response_tool_calls_parallel.json", "2 tool calls"),
    ("openai", "openai/response_text.json", "text"),
    ("groq", "groq/response_tool_calls_parallel.json", "2 tool calls"),
    ("vllm", "vllm/response_tool_calls_parallel.json", "2 tool calls"),
    ("ollama", "ollama/response_tool_calls_parallel.json", "2 tool calls"),
    ("ollama", "ollama/response_text.json", "text"),
)


def _parse_rows() -> list[Row]:
    rows: list[Row] = []
    for name, file, what in _RESPONSES:
        p = get_provider(name)
        body = _fixture(file)
        message = p.parse_response(body).message
        canonical = to_dict(message)
        t = compare(
            {
                "parse": partial(p.parse_response, body),
                "to_dict": partial(to_dict, message),
                "from_dict": partial(from_dict, canonical),
            }
        )
        label = f"parse_response per message, {name} ({what})"
        rows.append((label, t["parse"], t["to_dict"], "to_dict of that message"))
        rows.append((f"{label} vs decode", t["parse"], t["from_dict"], "from_dict of its dict"))
    return rows


def chat_chunks(n: int = 10_000) -> list[dict[str, Any]]:
    """``n`` chat-completion chunks: half text deltas, half argument fragments of two calls."""
    base = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1, "model": "m"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            **base,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }

    out = [chunk({"role": "assistant", "content": ""})]
    text = n // 2 - 1
    out += [chunk({"content": f"w{i} "}) for i in range(text)]
    per_call = (n - len(out) - 1) // 2
    for k in range(2):
        first = {
            "index": k,
            "id": f"call_{k}",
            "type": "function",
            "function": {"name": "f", "arguments": '{"x":"'},
        }
        out.append(chunk({"tool_calls": [first]}))
        out += [
            chunk({"tool_calls": [{"index": k, "function": {"arguments": "ab"}}]})
            for _ in range(per_call - 2)
        ]
        out.append(chunk({"tool_calls": [{"index": k, "function": {"arguments": '"}'}}]}))
    out.append(chunk({}, "tool_calls"))
    return out


def ollama_lines(n: int = 10_000) -> list[dict[str, Any]]:
    """``n`` NDJSON lines of text, then the final ``done`` line."""
    out = [
        {
            "model": "m",
            "created_at": "2025-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": f"w{i} "},
            "done": False,
        }
        for i in range(n - 1)
    ]
    out.append(
        {
            "model": "m",
            "created_at": "t",
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
            "eval_count": n,
        }
    )
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
    chat = chat_chunks()
    lines = ollama_lines()
    chat_text = [json.dumps(e) for e in chat]
    line_text = [json.dumps(e) for e in lines]
    r = _stream("openai", chat)()
    assert len(r.tool_calls) == 2 and len(r.text) > 1000  # type: ignore[attr-defined]
    t = compare(
        {
            "openai": _stream("openai", chat),
            "vllm": _stream("vllm", chat),
            "groq": _stream("groq", chat),
            "ollama": _stream("ollama", lines),
            "loads_chat": lambda: [json.loads(s) for s in chat_text],
            "loads_ollama": lambda: [json.loads(s) for s in line_text],
        },
        repeat=5,
    )
    n, m = len(chat), len(lines)
    rows: list[Row] = [
        (
            f"stream per chunk, {name} ({n} text + tool-argument chunks)",
            t[name] / n,
            t["loads_chat"] / n,
            "json.loads of the chunk",
        )
        for name in ("openai", "vllm", "groq")
    ]
    rows.append(
        (
            f"stream per line, ollama ({m} NDJSON text lines)",
            t["ollama"] / m,
            t["loads_ollama"] / m,
            "json.loads of the line",
        )
    )
    return rows


def bench_providers() -> list[Row]:
    """Every provider row (see the module docstring)."""
    ms = conversation()
    return _format_rows(ms) + _parse_rows() + _stream_rows()


def profile() -> None:
    """Print where streaming time goes (cProfile, sorted by own time)."""
    import cProfile
    import pstats

    run = _stream("openai", chat_chunks())
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(5):
        run()
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(12)
    ms = conversation()
    p = get_provider("openai")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(2000):
        p.format_request(ms)
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    if "--profile" in sys.argv:
        profile()
    else:
        for row in bench_providers():
            print(
                f"{row[0]:<72} {row[1]:>9.1f} ns  (baseline {row[2]:.1f} ns: {row[3]}, x{row[1] / row[2]:.2f})"
            )
