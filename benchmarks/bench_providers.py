"""Provider wire formats (OpenAI, Groq, vLLM, Ollama and the chat dialects DeepSeek,
OpenRouter, Mistral): formatting, parsing, streaming.

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
from dataclasses import replace
from pathlib import Path
from typing import Any

from _timing import compare
from _workloads import Row, conversation, format_rows, parse_times, stream_runner

from messages import Message, ToolCallMessage, ToolResultMessage
from messages.providers import PROVIDERS, get_provider

# Only the providers the package measured has (an older checkout, for versus.py).
NAMES = tuple(
    n
    for n in ("openai", "groq", "vllm", "ollama", "deepseek", "openrouter", "mistral")
    if n in PROVIDERS
)
#: The chat-completions dialects whose streams read the same chunks as OpenAI's.
CHAT = tuple(
    n for n in ("openai", "vllm", "groq", "deepseek", "openrouter", "mistral") if n in NAMES
)


_RESPONSES = (
    ("openai", "openai/response_tool_calls_parallel.json", "2 tool calls"),
    ("openai", "openai/response_text.json", "text"),
    ("groq", "groq/response_tool_calls_parallel.json", "2 tool calls"),
    ("vllm", "vllm/response_tool_calls_parallel.json", "2 tool calls"),
    ("ollama", "ollama/response_tool_calls_parallel.json", "2 tool calls"),
    ("ollama", "ollama/response_text.json", "text"),
    ("deepseek", "deepseek/response_tool_calls_parallel.json", "reasoning + 2 tool calls"),
    ("deepseek", "deepseek/response_text.json", "text"),
    (
        "openrouter",
        "openrouter/response_tool_calls_parallel.json",
        "reasoning blocks + 2 tool calls",
    ),
    ("openrouter", "openrouter/response_text.json", "text, cost"),
    ("mistral", "mistral/response_tool_calls_parallel.json", "2 tool calls"),
    ("mistral", "mistral/response_text.json", "text"),
)


def _parse_rows() -> list[Row]:
    rows: list[Row] = []
    for name, file, what in _RESPONSES:
        if name not in NAMES:
            continue
        t = parse_times(name, file, decode=True)
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


def _stream_rows() -> list[Row]:
    chat = chat_chunks()
    lines = ollama_lines()
    chat_text = [json.dumps(e) for e in chat]
    line_text = [json.dumps(e) for e in lines]
    r = stream_runner("openai", chat)()
    assert len(r.tool_calls) == 2 and len(r.text) > 1000  # type: ignore[attr-defined]
    t = compare(
        {
            **{name: stream_runner(name, chat) for name in CHAT},
            "ollama": stream_runner("ollama", lines),
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
        for name in CHAT
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


def mistral_conversation() -> list[Message]:
    """``conversation()`` with Mistral's own nine-character tool-call ids (sent as they are)."""
    out: list[Message] = []
    for m in conversation():
        if isinstance(m, ToolCallMessage):
            calls = [replace(c, id=f"{c.id.replace('_', ''):0>9}"[-9:]) for c in m.tool_calls]
            out.append(replace(m, tool_calls=tuple(calls)))
        elif isinstance(m, ToolResultMessage):
            out.append(replace(m, tool_call_id=f"{m.tool_call_id.replace('_', ''):0>9}"[-9:]))
        else:
            out.append(m)
    return out


def bench_providers() -> list[Row]:
    """Every provider row (see the module docstring)."""
    native: list[Row] = []
    if "mistral" in NAMES:
        native = format_rows(mistral_conversation(), ("groq", "mistral"))
        native = [(f"{row[0]}, Mistral ids", *row[1:]) for row in native]
    return format_rows(conversation(), NAMES) + native + _parse_rows() + _stream_rows()


def profile() -> None:
    """Print where streaming time goes (cProfile, sorted by own time)."""
    import cProfile
    import pstats

    run = stream_runner("openai", chat_chunks())
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
