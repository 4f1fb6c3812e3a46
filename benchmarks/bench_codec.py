"""Codec: to_dict / from_dict / to_json / from_json beside a dict literal and json of the plain dict.

Baselines, measured in the same run and interleaved:

* ``to_dict``: a dict literal of the same shape built from the message's values
  (the values already at hand, the timestamp already formatted);
* ``from_dict``: the same dict literal (what the decoder has to produce at least),
  the public validating constructor given the same values, and the floor of
  ``peers.py`` (``Floor.from_dict``: plain ``__slots__`` classes built from the
  same dict, arguments parsed with ``json.loads``; target: within 3x);
* ``to_json``: ``json.dumps`` of the equivalent plain dict;
* ``from_json``: ``json.loads`` of the same text.

Run: ``make bench`` / ``python benchmarks/run.py --only codec``, or
``python benchmarks/bench_codec.py`` from the repository root.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from _timing import compare
from peers import Floor

from messages import (
    Message,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
    from_dict,
    from_json,
    to_dict,
    to_json,
)

Row = tuple[str, float, float, str]

T = datetime(2025, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
TEXT = "What's the weather in Paris today, and should I take an umbrella?"


def _user() -> UserMessage:
    return UserMessage(TEXT, id="0196a1b2c3d4e5f60718293a4b5c6d7e", created_at=T)


def _tool_calls() -> ToolCallMessage:
    return ToolCallMessage(
        [
            ToolCall("call_0a1b2c", "get_weather", '{"city":"Paris","unit":"celsius"}'),
            ToolCall("call_3d4e5f", "get_forecast", '{"city":"Paris","days":2}'),
        ],
        id="0196a1b2c3d4e5f60718293a4b5c6d7f",
        created_at=T,
    )


def _tool_result() -> ToolResultMessage:
    return ToolResultMessage(
        "call_0a1b2c",
        '{"temperature": 18, "sky": "light rain"}',
        tool_name="get_weather",
        id="0196a1b2c3d4e5f60718293a4b5c6d80",
        created_at=T,
    )


def _conversation() -> list[Message]:
    out: list[Message] = []
    for i in range(25):
        out.append(UserMessage(f"{TEXT} ({i})", id=f"u{i:031d}", created_at=T))
        calls = _tool_calls().tool_calls
        out.append(ToolCallMessage(calls, id=f"a{i:031d}", created_at=T))
        out.append(
            ToolResultMessage(calls[0].id, "18 degrees, light rain", id=f"t{i:031d}", created_at=T)
        )
        out.append(ToolResultMessage(calls[1].id, "rain tomorrow", id=f"r{i:031d}", created_at=T))
    return out


def _literal_of(d: Any) -> Callable[[], Any]:
    """A function that builds ``d`` as nested dict/list literals from values at hand."""
    src = repr(d)
    code = compile(f"lambda: {src}", "<literal>", "eval")
    fn: Callable[[], Any] = eval(code)  # our own repr of plain JSON data
    return fn


def _rows(what: str, value: Message | list[Message]) -> list[Row]:
    plain = json.loads(to_json(value))
    text = json.dumps(plain)
    mine = to_json(value)
    literal = _literal_of(plain)
    if isinstance(plain, list):
        floor: Callable[[], object] = lambda: [Floor.from_dict(x) for x in plain]  # noqa: E731
    else:
        floor = lambda: Floor.from_dict(plain)  # noqa: E731
    ctor: Callable[[], object] | None = None
    if isinstance(value, UserMessage):
        ctor = lambda: UserMessage(TEXT, id="0196a1b2c3d4e5f60718293a4b5c6d7e", created_at=T)  # noqa: E731
    timings = compare(
        {
            "to_dict": lambda: to_dict(value),
            "from_dict": lambda: from_dict(plain),
            "to_json": lambda: to_json(value),
            "from_json": lambda: from_json(mine),
            "literal": literal,
            "floor": floor,
            "json.dumps": lambda: json.dumps(plain),
            "json.loads": lambda: json.loads(text),
            **({"ctor": ctor} if ctor is not None else {}),
        }
    )
    rows: list[Row] = [
        (f"to_dict {what}", timings["to_dict"], timings["literal"], "dict literal, same shape"),
        (f"from_dict {what}", timings["from_dict"], timings["literal"], "dict literal, same shape"),
        (
            f"from_dict {what}",
            timings["from_dict"],
            timings["floor"],
            "floor: slots class from dict",
        ),
        (f"to_json {what}", timings["to_json"], timings["json.dumps"], "json.dumps(plain dict)"),
        (f"from_json {what}", timings["from_json"], timings["json.loads"], "json.loads(same text)"),
    ]
    if ctor is not None:
        rows.append(
            (
                f"from_dict {what}",
                timings["from_dict"],
                timings["ctor"],
                "UserMessage(...) validated",
            )
        )
    return rows


def _cold() -> list[Row]:
    # A message encoded for the first time: its id and created_at text are made then
    # (the timestamp text is cached per datetime afterwards).
    timings = compare(
        {
            "build+to_dict": lambda: to_dict(UserMessage(TEXT)),
            "build": lambda: UserMessage(TEXT),
        }
    )
    return [
        (
            "build + to_dict of a fresh UserMessage (cold)",
            timings["build+to_dict"],
            timings["build"],
            "UserMessage(text) alone",
        )
    ]


def _reencode() -> list[Row]:
    # A stored message read back and written again (load, append, save): the
    # decoded created_at text is written back as it is.
    plain = to_dict(_user())
    timings = compare(
        {
            "decode+encode": lambda: to_dict(from_dict(plain)),
            "decode": lambda: from_dict(plain),
        }
    )
    return [
        (
            "from_dict + to_dict of a UserMessage (re-encode)",
            timings["decode+encode"],
            timings["decode"],
            "from_dict alone",
        )
    ]


def bench_codec() -> list[Row]:
    """All codec rows (ns per operation)."""
    return (
        _cold()
        + _reencode()
        + _rows("UserMessage", _user())
        + _rows("ToolCallMessage (2 calls)", _tool_calls())
        + _rows("ToolResultMessage", _tool_result())
        + _rows("100-message conversation", _conversation())
    )


if __name__ == "__main__":
    for what, value, base, desc in bench_codec():
        print(f"{what:<44} {value:>10.0f} ns {base:>10.0f} ns {value / base:>6.2f}x  {desc}")
