"""Lower bounds for the speed targets this package misses, measured in the same run.

Three targets are missed: ``parse_response`` within 2x ``to_dict`` (issues 5 and
6), constructing an assistant message with two tool calls within 2.5x a plain
class, and ``from_json`` of that message within 1.6x ``json.loads`` (issue 10).
Each row here times only the work whose *result* API.md requires, done with the
package's own trusted builders from values already in hand: no reading of the
input, no checks, no error paths, shared content parts reused. No implementation
that returns the same objects can do less, so a bound above its target shows the
target cannot be met by tuning; a bound below it shows what the checks cost.

* ``parse_response``: the Usage, ``metadata["usage"]`` as a frozen dict, the
  message (its tool calls with their arguments parsed from the wire's JSON text,
  or copied from the wire's object, and an id derived where the wire has none)
  and the ChatResponse; beside ``to_dict`` of
  the same message, as the issues' target is written.
* construct assistant with two tool calls: three class calls, the two argument
  copies (deep immutability), the clock read for ``created_at`` and the objects;
  beside the plain ``__slots__`` classes of ``make bench-peers``.
* ``from_json``: the scan of the text, the scans of the two argument strings, the
  copies and the objects; beside ``json.loads`` of the same text.

Each bound is checked equal to the real result before it is timed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from _timing import compare
from _workloads import Row, fixture
from bench_core import PlainToolCall, PlainToolCallMessage

from messages import Message, ToolCall, ToolCallMessage, _build, from_json, to_dict, to_json
from messages._frozen import EMPTY, FrozenDict, thaw
from messages._ids import DERIVED_ID_PREFIX, derive_call_id
from messages._part_codec import scan_once
from messages.providers import ChatResponse, get_provider
from messages.providers._base import make_response, make_usage

# Providers whose wire carries tool arguments as JSON text (parsed), not as an object.
_TEXT_ARGUMENTS = frozenset(("openai", "groq", "vllm"))

_RESPONSES = (
    ("openai", "openai/response_text.json", "text"),
    ("openai", "openai/response_tool_calls_parallel.json", "2 tool calls"),
    ("ollama", "ollama/response_tool_calls_parallel.json", "2 tool calls"),
    ("anthropic", "anthropic/response_text.json", "text"),
    ("anthropic", "anthropic/response_tool_calls_parallel.json", "text + 2 tool calls"),
    ("gemini", "gemini/response_text.json", "text"),
    ("gemini", "gemini/response_tool_calls_parallel.json", "2 tool calls"),
)

ARGS_1 = {"city": "Paris", "unit": "celsius"}
ARGS_2 = {"city": "Tokyo", "unit": "celsius"}


def _call(
    cid: str, name: str, arguments: FrozenDict, raw: str | None, extras: FrozenDict = EMPTY
) -> ToolCall:
    return _build.tool_call(ToolCall, cid, name, arguments, extras, raw)


def response_builder(name: str, r: ChatResponse) -> Callable[[], ChatResponse]:
    """A function building ``r`` again from the values a parser has read off the wire."""
    m = r.message
    text_args = name in _TEXT_ARGUMENTS
    wire_calls: list[tuple[str, str, Any, Any, bool]] = [
        (
            c.id,
            c.name,
            c.arguments_json if text_args else thaw(c.arguments),
            c.extras,
            c.id.startswith(DERIVED_ID_PREFIX),
        )
        for c in m.tool_calls
    ]
    seed = r.id or r.model or ""
    u = r.usage
    assert u is not None
    counts = (
        u.input_tokens,
        u.output_tokens,
        u.total_tokens,
        u.cached_input_tokens,
        u.cache_creation_input_tokens,
        u.reasoning_tokens,
    )
    cls, content = type(m), m.content
    extras: Any = m.extras
    finish, model, invalid = r.finish_reason, r.model, r.invalid_tool_calls
    tail = (r.provider_finish_reason, r.refusal, r.id, r.error)

    def build() -> ChatResponse:
        calls = []
        for j, (cid, cname, args, ex, derived) in enumerate(wire_calls):
            if derived:  # the wire had no id: one is derived (its cost; the same id is kept)
                derive_call_id(DERIVED_ID_PREFIX, name, seed, j, cname)
            if text_args:
                calls.append(_call(cid, cname, FrozenDict(scan_once(args, 0)[0]), args, ex))
            else:
                calls.append(_call(cid, cname, FrozenDict(args), None, ex))
        usage = make_usage(*counts)
        meta = FrozenDict({"usage": FrozenDict(usage.to_dict())})
        if calls:
            out: Message = _build.tool_call_message(
                cls, tuple(calls), content, (), None, meta, extras
            )
        else:
            out = _build.message(cls, content, None, meta, extras)
        return make_response(out, finish, usage, model, invalid, *tail)  # type: ignore[arg-type]

    return build


def parse_rows() -> list[Row]:
    """``parse_response`` and its bound, each beside ``to_dict`` of the message."""
    rows: list[Row] = []
    for name, file, what in _RESPONSES:
        p = get_provider(name)
        body = fixture(file)
        r = p.parse_response(body)
        build = response_builder(name, r)
        assert build() == r, f"the bound of {file} does not rebuild its response"
        t = compare(
            {
                "parse": partial(p.parse_response, body),
                "bound": build,
                "to_dict": partial(to_dict, r.message),
            }
        )
        label = f"parse_response, {name} ({what})"
        rows.append((label, t["parse"], t["to_dict"], "to_dict of that message"))
        rows.append(
            (f"{label}: result objects alone", t["bound"], t["to_dict"], "to_dict of that message")
        )
    return rows


def _assistant() -> ToolCallMessage:
    return ToolCallMessage(
        (ToolCall("call_1", "get_weather", ARGS_1), ToolCall("call_2", "get_weather", ARGS_2))
    )


class _CallBound:
    """``ToolCall(...)`` as a user writes it, doing only the mandated work: a class call
    that copies the arguments and builds the call (the builder, no checks)."""

    def __new__(cls, cid: str, name: str, arguments: dict[str, Any]) -> ToolCall:  # type: ignore[misc]
        return _build.tool_call(ToolCall, cid, name, FrozenDict(arguments))


class _MessageBound:
    """``ToolCallMessage(calls)`` doing only the mandated work: the clock read and the object."""

    def __new__(cls, tool_calls: tuple[ToolCall, ...]) -> ToolCallMessage:  # type: ignore[misc]
        return _build.tool_call_message(ToolCallMessage, tool_calls)


def _assistant_bound() -> ToolCallMessage:
    return _MessageBound(
        (_CallBound("call_1", "get_weather", ARGS_1), _CallBound("call_2", "get_weather", ARGS_2))
    )


def _floor() -> PlainToolCallMessage:
    return PlainToolCallMessage(
        (
            PlainToolCall("call_1", "get_weather", ARGS_1),
            PlainToolCall("call_2", "get_weather", ARGS_2),
        )
    )


def _from_json_bound(text: str) -> ToolCallMessage:
    # the mandated work: the scan, the argument scans, their copies, the objects
    d = scan_once(text, 0)[0]
    calls = []
    for c in d["tool_calls"]:
        fn = c["function"]
        raw = fn["arguments"]
        calls.append(_call(c["id"], fn["name"], FrozenDict(scan_once(raw, 0)[0]), raw))
    return _build.tool_call_message(
        ToolCallMessage, tuple(calls), id=d["id"], created_at=d["created_at"]
    )


def assistant_rows() -> list[Row]:
    """Construction and ``from_json`` of the assistant message, with their bounds."""
    assert _assistant_bound() == _assistant()
    text = to_json(_assistant())
    assert _from_json_bound(text) == from_json(text)
    t = compare(
        {
            "construct": _assistant,
            "construct_bound": _assistant_bound,
            "floor": _floor,
            "from_json": partial(from_json, text),
            "from_json_bound": partial(_from_json_bound, text),
            "json.loads": partial(json.loads, text),
        }
    )
    floor, loads = "plain __slots__ classes", "json.loads(same text)"
    label = "construct assistant with 2 tool calls"
    return [
        (label, t["construct"], t["floor"], floor),
        (f"{label}: class calls, copies, clock alone", t["construct_bound"], t["floor"], floor),
        ("from_json of that message", t["from_json"], t["json.loads"], loads),
        (
            "from_json: scans, copies and objects alone",
            t["from_json_bound"],
            t["json.loads"],
            loads,
        ),
    ]


def bench_bounds() -> list[Row]:
    """Every row of this suite."""
    return assistant_rows() + parse_rows()


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    for row in bench_bounds():
        print(f"{row[0]:<62} {row[1]:>10.1f} {row[2]:>10.1f} {row[1] / row[2]:>6.2f}  {row[3]}")
