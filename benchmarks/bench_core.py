"""Core value objects: construction, equality, memory and import time, beside a plain-class floor."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

from _timing import compare

from messages import (
    AssistantMessage,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)

Row = tuple[str, float, float, str]


class PlainMessage:
    """The floor: a plain class with the same fields and a hand-written __init__."""

    __slots__ = ("content", "created_at", "extras", "id", "metadata", "name")

    def __init__(
        self,
        content: Any,
        name: Any = None,
        metadata: Any = None,
        extras: Any = None,
        id: Any = None,
        created_at: Any = None,
    ) -> None:
        self.content = content
        self.name = name
        self.metadata = metadata
        self.extras = extras
        self.id = id
        self.created_at = created_at

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        o: PlainMessage = other  # type: ignore[assignment,unused-ignore]
        return bool(
            self.content == o.content
            and self.name == o.name
            and self.metadata == o.metadata
            and self.extras == o.extras
        )

    __hash__ = None  # type: ignore[assignment]


class PlainToolCall:
    """Floor for a tool call."""

    __slots__ = ("_json", "arguments", "id", "name")

    def __init__(self, id: str, name: str, arguments: Any) -> None:
        self.id = id
        self.name = name
        self.arguments = arguments
        self._json: str | None = None

    @property
    def arguments_json(self) -> str:
        """The arguments as JSON, made once (as messages.ToolCall does)."""
        if self._json is None:
            self._json = json.dumps(self.arguments)
        return self._json


class PlainToolCallMessage(PlainMessage):
    """Floor for an assistant message with tool calls."""

    __slots__ = ("tool_calls",)

    def __init__(self, tool_calls: Any, content: Any = None) -> None:
        super().__init__(content)
        self.tool_calls = tool_calls


class PlainToolResult(PlainMessage):
    """Floor for a tool result message."""

    __slots__ = ("is_error", "tool_call_id", "tool_name")

    def __init__(self, tool_call_id: str, content: Any, is_error: bool = False) -> None:
        super().__init__(content)
        self.tool_call_id = tool_call_id
        self.is_error = is_error
        self.tool_name = None


def construction() -> list[Row]:
    """ns per construction of each message kind, beside the plain-class floor."""
    a1 = {"city": "Paris"}
    a2 = {"city": "Tokyo"}
    t = compare(
        {
            "user": lambda: UserMessage("What's the weather in Paris?"),
            "user_floor": lambda: PlainMessage("What's the weather in Paris?"),
            "assistant": lambda: AssistantMessage("It is sunny."),
            "assistant_floor": lambda: PlainMessage("It is sunny."),
            "toolcalls": lambda: ToolCallMessage(
                (ToolCall("call_1", "get_weather", a1), ToolCall("call_2", "get_weather", a2))
            ),
            "toolcalls_floor": lambda: PlainToolCallMessage(
                (
                    PlainToolCall("call_1", "get_weather", a1),
                    PlainToolCall("call_2", "get_weather", a2),
                )
            ),
            "toolresult": lambda: ToolResultMessage("call_1", '{"temp": 21}'),
            "toolresult_floor": lambda: PlainToolResult("call_1", '{"temp": 21}'),
        }
    )
    rows: list[Row] = []
    for k, label in [
        ("user", "construct UserMessage(str)"),
        ("assistant", "construct AssistantMessage"),
        ("toolcalls", "construct ToolCallMessage, 2 calls"),
        ("toolresult", "construct ToolResultMessage"),
    ]:
        rows.append((label, t[k], t[k + "_floor"], "plain __slots__ class"))
    return rows


def equality() -> list[Row]:
    """ns per equality test of two equal messages, beside the floor."""
    text = "What's the weather in Paris? " * 3
    a, b = UserMessage(text), UserMessage(text)
    pa, pb = PlainMessage(text), PlainMessage(text)
    t = compare(
        {
            "eq": lambda: a == b,
            "floor": lambda: pa == pb,
            "hash": lambda: hash(a),
            "hash_floor": lambda: hash((pa.content, pa.name, pa.metadata, pa.extras)),
        }
    )
    return [
        ("equality of two equal UserMessages", t["eq"], t["floor"], "plain class __eq__"),
        ("hash of a UserMessage", t["hash"], t["hash_floor"], "hash of a tuple of its fields"),
    ]


def memory() -> list[Row]:
    """Bytes per message over 10,000 UserMessages sharing one content string."""
    text = "shared content " * 10

    def measure(make: Any) -> float:
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        keep = [make(text) for _ in range(10_000)]
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        per = (after - before) / len(keep)
        for m in keep[:10]:  # ids are formatted lazily; count them once read too
            _ = m
        return per

    ours = measure(UserMessage)

    def read_ids(t: str) -> UserMessage:
        m = UserMessage(t)
        _ = m.id
        return m

    with_ids = measure(read_ids)
    floor = measure(PlainMessage)
    return [
        ("bytes per UserMessage (10,000, shared content; id unread)", ours, floor, "plain class"),
        ("bytes per UserMessage (id and created_at read)", with_ids, floor, "plain class"),
    ]


def import_time() -> list[Row]:
    """Milliseconds `import messages` adds to a bare interpreter (median of 5)."""
    root = os.environ.get("MESSAGES_BENCH_ROOT") or str(Path(__file__).resolve().parent.parent)
    # Byte-code caches are what users have; without them the figure is compile time.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def run(code: str) -> float:
        out = subprocess.run(
            [
                sys.executable,
                "-c",
                f"import time,sys;sys.path.insert(0,{root!r});t=time.perf_counter();{code};print(time.perf_counter()-t)",
            ],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        return float(out.stdout.strip()) * 1000

    def whole(code: str) -> float:
        import time as _t

        t0 = _t.perf_counter()
        subprocess.run(
            [sys.executable, "-c", f"import sys;sys.path.insert(0,{root!r});{code}"], check=True
        )
        return (_t.perf_counter() - t0) * 1000

    whole("import messages, messages.providers, messages.storage")  # write the caches
    bare = statistics.median(whole("pass") for _ in range(5))
    full = statistics.median(whole("import messages") for _ in range(5))
    inner = statistics.median(run("import messages") for _ in range(5))
    return [
        (
            "import messages (ms added to interpreter start)",
            full - bare,
            bare,
            f"bare start; in-process {inner:.1f} ms",
        )
    ]


def bench_core() -> list[Row]:
    """All core rows."""
    return construction() + equality() + memory() + import_time()
