"""Tools on the agent loop: ``validate_arguments`` and ``arguments_as``, and schema generation.

``validate_arguments`` and ``arguments_as`` run once per tool call the model makes;
each row sits beside the hand-written floor a user would otherwise write (a
``dict`` lookup per field, or ``cls(**arguments)`` with no checks at all).
``from_function`` / ``from_type`` run once per tool at start-up; they are timed
beside ``inspect.signature`` of the same function.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import compare

from messages import ToolCall, ToolDefinition

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
    return rows


if __name__ == "__main__":
    for what, value, base, desc in bench_tools():
        print(f"{what:<44} {value:>10.1f} ns  {base:>8.1f} ns  {value / base:>6.2f}x {desc}")
