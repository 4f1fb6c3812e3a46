"""Tools on the agent loop: ``validate_arguments``, ``arguments_as``, ``Toolbox.run``, schema generation.

``validate_arguments``, ``arguments_as`` and ``Toolbox.run`` run once per tool call
the model makes; each row sits beside the hand-written floor a user would otherwise
write (a ``dict`` lookup per field, ``cls(**arguments)`` or ``fn(**arguments)``
with no checks at all, ``json.dumps`` of what the tool returned).
``from_function`` / ``from_type`` run once per tool at start-up; they are timed
beside ``inspect.signature`` of the same function.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import inspect
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import compare

from messages import ToolCall, ToolDefinition

try:  # a checkout before the Toolbox (benchmarks/versus.py) has no Toolbox rows
    from messages import Toolbox
except ImportError:
    Toolbox = None  # type: ignore[assignment,misc]

Row = tuple[str, float, float, str]


def get_weather(city: str, unit: str = "celsius", *, days: int | None = None) -> str:
    """Get the weather for a city.

    Args:
        city: The city.
        unit: celsius or fahrenheit.
        days: How many days ahead.
    """
    return f"{city} {unit} {days}"


@dataclasses.dataclass
class Item:
    """A line item.

    Attributes:
        sku: Stock keeping unit.
        qty: How many.
    """

    sku: str
    qty: int = 1


@dataclasses.dataclass
class Order:
    """An order."""

    customer: str
    items: list[Item]
    note: str | None = None
    express: bool = False
    tags: dict[str, str] = dataclasses.field(default_factory=dict)


WEATHER = ToolDefinition.from_function(get_weather)
ORDER = ToolDefinition.from_type(Order)
WEATHER_CALL = ToolCall("c1", "get_weather", {"city": "Paris", "unit": "celsius"})
# What OpenAI strict mode sends for the parameters the model leaves out.
WEATHER_NULLS = ToolCall("c2", "get_weather", {"city": "Paris", "unit": None, "days": None})
ORDER_CALL = ToolCall(
    "c3",
    "Order",
    {
        "customer": "ada",
        "items": [{"sku": "a", "qty": 2}, {"sku": "b", "qty": 1}],
        "note": "ring twice",
        "express": True,
    },
)


def _floor_weather(args: Any) -> Any:
    return get_weather(**args)


def lookup(city: str, limit: int = 3) -> dict[str, Any]:
    """Search hits for a city.

    Args:
        city: The city.
        limit: How many hits.
    """
    return {"city": city, "hits": [{"id": i, "score": 0.5} for i in range(limit)]}


async def aget_weather(city: str, unit: str = "celsius", *, days: int | None = None) -> str:
    """Get the weather for a city, in async code.

    Args:
        city: The city.
        unit: celsius or fahrenheit.
        days: How many days ahead.
    """
    return f"{city} {unit} {days}"


LOOKUP_CALL = ToolCall("c4", "lookup", {"city": "Paris"})
_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _async_ns(make: Any, number: int = 2000, repeat: int = 5) -> float:
    """Best-of-``repeat`` ns per ``await make()`` in one running loop."""

    async def batch() -> float:
        t0 = time.perf_counter_ns()
        for _ in range(number):
            await make()
        return (time.perf_counter_ns() - t0) / number

    async def main() -> float:
        return min([await batch() for _ in range(repeat)])

    gc.disable()  # as _timing.compare does
    try:
        return asyncio.run(main())
    finally:
        gc.enable()


def bench_toolbox() -> list[Row]:
    """Rows for ``Toolbox.run`` / ``arun`` beside calling the function directly."""
    if Toolbox is None:
        return []
    box = Toolbox([get_weather, lookup, aget_weather])
    args = WEATHER_CALL.arguments
    lookup_args = LOOKUP_CALL.arguments
    t = compare(
        {
            "run": lambda: box.run(WEATHER_CALL),
            "nulls": lambda: box.run(WEATHER_NULLS),
            "lookup": lambda: box.run(LOOKUP_CALL),
            "floor": lambda: get_weather(**args),
            "lookup floor": lambda: _dumps(lookup(**lookup_args)),
        }
    )
    rows: list[Row] = [
        ("Toolbox.run(get_weather) (2 args, str result)", t["run"], t["floor"], "fn(**arguments)"),
        ("Toolbox.run(get_weather) with 2 nulls", t["nulls"], t["floor"], "fn(**arguments)"),
        (
            "Toolbox.run(lookup) (dict result as JSON)",
            t["lookup"],
            t["lookup floor"],
            "json.dumps(fn(**arguments))",
        ),
    ]
    acall = ToolCall("c5", "aget_weather", dict(args))
    coro = _async_ns(lambda: box.arun(acall))
    coro_floor = _async_ns(lambda: aget_weather(**args))
    rows.append(("Toolbox.arun(coroutine tool)", coro, coro_floor, "await fn(**arguments)"))
    thread = _async_ns(lambda: box.arun(WEATHER_CALL), number=300)
    thread_floor = _async_ns(lambda: asyncio.to_thread(get_weather, **args), number=300)
    rows.append(
        ("Toolbox.arun(plain tool, worker thread)", thread, thread_floor, "asyncio.to_thread(fn)")
    )
    return rows


def bench_tools() -> list[Row]:
    """Rows: (what, ns, floor ns, what the floor is)."""
    rows: list[Row] = []
    try:
        WEATHER.validate_arguments(WEATHER_NULLS)
        nulls_ok = True
    except ValueError:  # the code before nulls counted as absent
        nulls_ok = False
    t = compare(
        {
            "validate weather": lambda: WEATHER.validate_arguments(WEATHER_CALL),
            "validate order": lambda: ORDER.validate_arguments(ORDER_CALL),
            "floor": lambda: WEATHER_CALL.arguments.get("city"),
        }
    )
    rows.append(
        ("validate_arguments get_weather (2 args)", t["validate weather"], t["floor"], "one get")
    )
    rows.append(("validate_arguments Order (nested)", t["validate order"], t["floor"], "one get"))
    if nulls_ok:
        t = compare(
            {
                "nulls": lambda: WEATHER.validate_arguments(WEATHER_NULLS),
                "floor": lambda: WEATHER_CALL.arguments.get("city"),
            }
        )
        rows.append(("validate_arguments with 2 nulls", t["nulls"], t["floor"], "one get"))
    args = WEATHER_CALL.arguments
    t = compare(
        {
            "fn": lambda: WEATHER_CALL.arguments_as(get_weather),
            "item": lambda: ToolCall("c", "Item", {"sku": "a"}).arguments_as(Item),
            "order": lambda: ORDER_CALL.arguments_as(Order),
            "floor": lambda: _floor_weather(args),
        }
    )
    rows.append(("arguments_as(get_weather)", t["fn"], t["floor"], "get_weather(**arguments)"))
    rows.append(
        ("ToolCall + arguments_as(Item)", t["item"], t["floor"], "get_weather(**arguments)")
    )
    rows.append(
        ("arguments_as(Order) (nested)", t["order"], t["floor"], "get_weather(**arguments)")
    )
    if nulls_ok:
        t = compare(
            {
                "nulls": lambda: WEATHER_NULLS.arguments_as(get_weather),
                "floor": lambda: _floor_weather(args),
            }
        )
        rows.append(
            ("arguments_as(get_weather) with 2 nulls", t["nulls"], t["floor"], "fn(**arguments)")
        )
    t = compare(
        {
            "from_function": lambda: ToolDefinition.from_function(get_weather),
            "from_type": lambda: ToolDefinition.from_type(Order),
            "signature": lambda: inspect.signature(get_weather),
        },
        repeat=5,
    )
    rows.append(
        ("from_function(get_weather)", t["from_function"], t["signature"], "inspect.signature")
    )
    rows.append(("from_type(Order)", t["from_type"], t["signature"], "inspect.signature"))
    rows.extend(bench_toolbox())
    return rows


if __name__ == "__main__":
    for what, value, base, desc in bench_toolbox() if "--toolbox" in sys.argv else bench_tools():
        print(f"{what:<44} {value:>10.1f} ns  {base:>8.1f} ns  {value / base:>6.2f}x {desc}")
