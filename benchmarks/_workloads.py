"""Workloads and row builders shared by the provider benchmark scripts."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from _timing import compare

from messages import Message, ToolCall, from_dict, to_dict
from messages.providers import get_provider

Row = tuple[str, float, float, str]

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"


def conversation(turns: int = 20, system: str | None = None) -> list[Message]:
    """``5 * turns`` messages: user, assistant with two calls, two results, answer.

    With ``system``, a system message comes first and the last answer is cut, so
    the count stays ``5 * turns``.
    """
    out: list[Message] = [] if system is None else [Message.system(system)]
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
    return out[: 5 * turns]


def fixture(name: str) -> Any:
    """A provider fixture file, parsed."""
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


def format_rows(ms: list[Message], names: Sequence[str]) -> list[Row]:
    """``format_request`` per message of each provider, beside ``to_dict`` per message."""
    n = len(ms)
    pairs: dict[str, Callable[[], object]] = {"to_dict": lambda: to_dict(ms)}
    for name in names:
        pairs[name] = partial(get_provider(name).format_request, ms)
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


def parse_times(name: str, file: str, decode: bool = False) -> dict[str, float]:
    """ns of ``parse_response`` of a fixture and ``to_dict`` of its message (and
    ``from_dict`` of that dict when ``decode``), timed interleaved."""
    p = get_provider(name)
    body = fixture(file)
    message = p.parse_response(body).message
    pairs: dict[str, Callable[[], object]] = {
        "parse": partial(p.parse_response, body),
        "to_dict": partial(to_dict, message),
    }
    if decode:
        pairs["from_dict"] = partial(from_dict, to_dict(message))
    return compare(pairs)


def stream_runner(name: str, events: list[dict[str, Any]]) -> Callable[[], object]:
    """A function feeding every event to a fresh accumulator of ``name``, then finishing."""
    p = get_provider(name)

    def run() -> object:
        acc = p.stream()
        feed = acc.feed
        for e in events:
            feed(e)
        return acc.finish()

    return run
