"""`make bench-peers`: messages beside LangChain, Haystack and pydantic-ai, and a floor.

Every system does the same work on the same conversation; systems are interleaved
within each repeat (the machine is noisy) and each figure is the best of the
repeats, in ns per operation. Before anything is timed, each system's round trip
is checked to be exact, so nothing fast-but-wrong is measured. The floor is what
plain Python does: a ``__slots__`` class with a hand-written ``__init__``, a dict
literal, ``json.dumps`` / ``json.loads`` of the equivalent plain dict.

Run it with ``make bench-peers``: it creates ``.venv-bench`` with the ``bench`` extra
(the peers are benchmark-only, never dependencies of the package).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# MESSAGES_BENCH_ROOT: the package of another checkout (versus.py), as run.py has it
sys.path.insert(0, os.environ.get("MESSAGES_BENCH_ROOT") or str(HERE.parent))

from _timing import compare  # noqa: E402
from bench_core import PlainMessage, PlainToolCall, PlainToolCallMessage, PlainToolResult  # noqa: E402

import messages as M  # noqa: E402, N812  (short alias keeps the workload lines readable)
from messages.providers import get_provider  # noqa: E402

Op = Callable[[], object]

USER_TEXT = "What's the weather in Paris and Tokyo right now?"
ARGS_1 = {"city": "Paris", "unit": "celsius"}
ARGS_2 = {"city": "Tokyo", "unit": "celsius"}
RESULT = '{"temp_c": 21, "sky": "clear"}'


# -- the work, per system -------------------------------------------------------------


class Ours:
    """messages."""

    name = "messages"

    def __init__(self) -> None:
        self.openai = get_provider("openai")

    def user(self) -> Any:
        return M.UserMessage(USER_TEXT)

    def assistant(self) -> Any:
        return M.ToolCallMessage(
            (
                M.ToolCall("call_1", "get_weather", ARGS_1),
                M.ToolCall("call_2", "get_weather", ARGS_2),
            )
        )

    def tool(self) -> Any:
        return M.ToolResultMessage("call_1", RESULT)

    def conversation(self) -> list[Any]:
        return [
            M.SystemMessage("You are a weather bot."),
            self.user(),
            self.assistant(),
            M.ToolResultMessage("call_1", RESULT),
            M.ToolResultMessage("call_2", RESULT),
            M.AssistantMessage("Paris 21°C, Tokyo 18°C."),
        ]

    to_dict = staticmethod(M.to_dict)
    from_dict = staticmethod(M.from_dict)
    to_json = staticmethod(M.to_json)
    from_json = staticmethod(M.from_json)

    def to_openai(self, conv: list[Any]) -> Any:
        return self.openai.format_request(conv)

    def hash(self, m: Any) -> int:
        return hash(m)


class Floor:
    """Plain Python: slots classes, dict literals, json of plain dicts.

    Its to_json / from_json rows are timed as ``json.dumps`` of the plain dict equal
    to our canonical dict and ``json.loads`` of our JSON text (see ``op_table``).
    """

    name = "floor"

    def user(self) -> Any:
        return PlainMessage(USER_TEXT)

    def assistant(self) -> Any:
        return PlainToolCallMessage(
            (
                PlainToolCall("call_1", "get_weather", ARGS_1),
                PlainToolCall("call_2", "get_weather", ARGS_2),
            )
        )

    def tool(self) -> Any:
        return PlainToolResult("call_1", RESULT)

    def conversation(self) -> list[Any]:
        return [
            PlainMessage("You are a weather bot."),
            self.user(),
            self.assistant(),
            PlainToolResult("call_1", RESULT),
            PlainToolResult("call_2", RESULT),
            PlainMessage("Paris 21°C, Tokyo 18°C."),
        ]

    @staticmethod
    def to_dict(m: Any) -> dict[str, Any]:
        if isinstance(m, PlainToolCallMessage):
            return {
                "id": m.id,
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments_json},
                    }
                    for c in m.tool_calls
                ],
            }
        if isinstance(m, PlainToolResult):
            return {
                "id": m.id,
                "role": "tool",
                "tool_call_id": m.tool_call_id,
                "content": m.content,
            }
        return {"id": m.id, "role": "user", "content": m.content}

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Any:
        if "tool_calls" in d:
            return PlainToolCallMessage(
                tuple(
                    PlainToolCall(
                        c["id"], c["function"]["name"], json.loads(c["function"]["arguments"])
                    )
                    for c in d["tool_calls"]
                )
            )
        if d["role"] == "tool":
            return PlainToolResult(d["tool_call_id"], d["content"])
        return PlainMessage(d["content"], id=d["id"])

    def to_json(self, m: Any) -> str:
        return json.dumps(self.to_dict(m))

    def from_json(self, s: str) -> Any:
        return self.from_dict(json.loads(s))

    def to_openai(self, conv: list[Any]) -> Any:
        out = []
        for m in conv:
            d = self.to_dict(m)
            del d["id"]
            out.append(d)
        return {"messages": out}

    def hash(self, m: Any) -> int:
        return hash((m.content, m.name))


class LangChain:
    """langchain-core messages."""

    name = "langchain"

    def __init__(self) -> None:
        from langchain_core import messages as lc

        self.lc = lc

    def user(self) -> Any:
        return self.lc.HumanMessage(USER_TEXT)

    def assistant(self) -> Any:
        return self.lc.AIMessage(
            content="",
            tool_calls=[
                {"name": "get_weather", "args": ARGS_1, "id": "call_1", "type": "tool_call"},
                {"name": "get_weather", "args": ARGS_2, "id": "call_2", "type": "tool_call"},
            ],
        )

    def tool(self) -> Any:
        return self.lc.ToolMessage(RESULT, tool_call_id="call_1")

    def conversation(self) -> list[Any]:
        return [
            self.lc.SystemMessage("You are a weather bot."),
            self.user(),
            self.assistant(),
            self.lc.ToolMessage(RESULT, tool_call_id="call_1"),
            self.lc.ToolMessage(RESULT, tool_call_id="call_2"),
            self.lc.AIMessage("Paris 21°C, Tokyo 18°C."),
        ]

    def to_dict(self, m: Any) -> Any:
        return self.lc.message_to_dict(m)

    def from_dict(self, d: Any) -> Any:
        return self.lc.messages_from_dict([d])[0]

    def to_json(self, m: Any) -> str:
        return json.dumps(self.lc.message_to_dict(m))

    def from_json(self, s: str) -> Any:
        return self.lc.messages_from_dict([json.loads(s)])[0]

    def to_openai(self, conv: list[Any]) -> Any:
        return self.lc.convert_to_openai_messages(conv)

    def hash(self, m: Any) -> int:
        return hash(m)


class Haystack:
    """haystack-ai ChatMessage."""

    name = "haystack"

    def __init__(self) -> None:
        from haystack.dataclasses import ChatMessage, ToolCall

        self.ChatMessage = ChatMessage
        self.ToolCall = ToolCall

    def user(self) -> Any:
        return self.ChatMessage.from_user(USER_TEXT)

    def assistant(self) -> Any:
        return self.ChatMessage.from_assistant(
            tool_calls=[
                self.ToolCall(tool_name="get_weather", arguments=ARGS_1, id="call_1"),
                self.ToolCall(tool_name="get_weather", arguments=ARGS_2, id="call_2"),
            ]
        )

    def tool(self) -> Any:
        origin = self.ToolCall(tool_name="get_weather", arguments=ARGS_1, id="call_1")
        return self.ChatMessage.from_tool(RESULT, origin=origin)

    def conversation(self) -> list[Any]:
        origin2 = self.ToolCall(tool_name="get_weather", arguments=ARGS_2, id="call_2")
        return [
            self.ChatMessage.from_system("You are a weather bot."),
            self.user(),
            self.assistant(),
            self.tool(),
            self.ChatMessage.from_tool(RESULT, origin=origin2),
            self.ChatMessage.from_assistant("Paris 21°C, Tokyo 18°C."),
        ]

    def to_dict(self, m: Any) -> Any:
        return m.to_dict()

    def from_dict(self, d: Any) -> Any:
        return self.ChatMessage.from_dict(d)

    def to_json(self, m: Any) -> str:
        return json.dumps(m.to_dict())

    def from_json(self, s: str) -> Any:
        return self.ChatMessage.from_dict(json.loads(s))

    def to_openai(self, conv: list[Any]) -> Any:
        return [m.to_openai_dict_format() for m in conv]

    def hash(self, m: Any) -> int:
        return hash(m)


class PydanticAI:
    """pydantic-ai messages (ModelRequest / ModelResponse)."""

    name = "pydantic-ai"

    def __init__(self) -> None:
        from pydantic_ai import messages as pm

        self.pm = pm
        self.adapter = pm.ModelMessagesTypeAdapter

    def user(self) -> Any:
        return self.pm.ModelRequest(parts=[self.pm.UserPromptPart(USER_TEXT)])

    def assistant(self) -> Any:
        return self.pm.ModelResponse(
            parts=[
                self.pm.ToolCallPart("get_weather", ARGS_1, "call_1"),
                self.pm.ToolCallPart("get_weather", ARGS_2, "call_2"),
            ]
        )

    def tool(self) -> Any:
        return self.pm.ModelRequest(parts=[self.pm.ToolReturnPart("get_weather", RESULT, "call_1")])

    def conversation(self) -> list[Any]:
        return []

    def to_dict(self, m: Any) -> Any:
        return self.adapter.dump_python([m], mode="json")[0]

    def from_dict(self, d: Any) -> Any:
        return self.adapter.validate_python([d])[0]

    def to_json(self, m: Any) -> str:
        return str(self.adapter.dump_json([m]).decode())

    def from_json(self, s: str) -> Any:
        return self.adapter.validate_json(s)[0]

    to_openai = None  # needs the openai package and a model instance; not part of the slim install

    def hash(self, m: Any) -> int:
        return hash(m)


# -- the run ---------------------------------------------------------------------------


def load_systems() -> list[Any]:
    """Our package, the floor, and each peer that is installed."""
    systems: list[Any] = [Ours(), Floor()]
    for cls in (LangChain, Haystack, PydanticAI):
        try:
            systems.append(cls())
        except ImportError as exc:
            print(f"skipping {cls.name}: {exc}", file=sys.stderr)
    return systems


def check_round_trips(systems: list[Any]) -> None:
    """Refuse to time a system whose round trip is not exact."""
    for s in systems:
        for kind in ("user", "assistant", "tool"):
            m = getattr(s, kind)()
            if s.name == "floor":
                continue
            if s.from_dict(s.to_dict(m)) != m:
                raise SystemExit(f"{s.name}: to_dict/from_dict round trip of {kind} is not exact")
            if s.from_json(s.to_json(m)) != m:
                raise SystemExit(f"{s.name}: to_json/from_json round trip of {kind} is not exact")


def _bound(method: str, values: dict[str, Any], s: Any) -> Op:
    """``s.<method>`` of the value made for ``s``, as an operation to time."""
    return partial(getattr(s, method), values[s.name])


def op_table(systems: list[Any]) -> dict[str, dict[str, float | None]]:
    """ns per operation, per system."""
    table: dict[str, dict[str, float | None]] = {}

    def run(label: str, make: Callable[[Any], Op | None]) -> None:
        ops = {}
        for s in systems:
            op = make(s)
            if op is not None:
                ops[s.name] = op
        t = compare(ops)
        table[label] = {s.name: t.get(s.name) for s in systems}

    run("construct user message", lambda s: s.user)
    run("construct assistant with 2 tool calls", lambda s: s.assistant)
    run("construct tool result", lambda s: s.tool)
    for kind in ("user", "assistant", "tool"):
        msgs = {s.name: getattr(s, kind)() for s in systems}
        dicts = {s.name: s.to_dict(msgs[s.name]) for s in systems}
        texts = {s.name: s.to_json(msgs[s.name]) for s in systems}
        run(f"to_dict {kind}", partial(_bound, "to_dict", msgs))
        run(f"from_dict {kind}", partial(_bound, "from_dict", dicts))
        # The floor of to_json / from_json is json.dumps of the plain dict equal to
        # our canonical one, and json.loads of our very text (as issue 10 defines it).
        ours = texts["messages"]
        plain = json.loads(ours)

        def dump(s: Any, m: dict[str, Any] = msgs, p: Any = plain) -> Op:
            if s.name == "floor":
                return lambda: json.dumps(p)
            return lambda: s.to_json(m[s.name])

        def load(s: Any, t: dict[str, Any] = texts, o: str = ours) -> Op:
            if s.name == "floor":
                return lambda: json.loads(o)
            return lambda: s.from_json(t[s.name])

        run(f"to_json {kind}", dump)
        run(f"from_json {kind}", load)
    convs = {s.name: s.conversation() for s in systems}
    run(
        "6-message conversation to OpenAI chat format",
        lambda s: None if s.to_openai is None else (lambda: s.to_openai(convs[s.name])),
    )
    pairs = {s.name: (s.user(), s.user()) for s in systems}
    run("equality of two equal messages", lambda s: lambda: pairs[s.name][0] == pairs[s.name][1])

    def hasher(s: Any) -> Op | None:
        m = pairs[s.name][0]
        try:
            s.hash(m)
        except TypeError:
            return None  # unhashable
        return lambda: s.hash(m)

    run("hash of a message", hasher)
    return table


def memory_row(systems: list[Any]) -> dict[str, float | None]:
    """Bytes per user message over 10,000 messages sharing one content string."""
    out: dict[str, float | None] = {}
    for s in systems:
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        keep = [s.user() for _ in range(10_000)]
        for m in keep:
            if s.name == "messages":
                _ = m.id  # count the formatted id, as a user reading it would
        out[s.name] = (tracemalloc.get_traced_memory()[0] - base) / len(keep)
        tracemalloc.stop()
        del keep
    return out


IMPORTS = {
    "messages": "import messages",
    "floor": "import json",
    "langchain": "import langchain_core.messages",
    "haystack": "from haystack.dataclasses import ChatMessage",
    "pydantic-ai": "import pydantic_ai.messages",
}


def import_row(systems: list[Any]) -> dict[str, float | None]:
    """ms an import adds to a bare interpreter start (median of 5)."""

    # Byte-code caches are what users have; without them the figure is compile time.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def wall(code: str) -> float:
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", f"import sys;sys.path.insert(0,{str(HERE.parent)!r});{code}"],
            check=True,
            env=env,
        )
        return (time.perf_counter() - t0) * 1000

    for s in systems:
        wall(IMPORTS[s.name])  # write the caches
    bare = statistics.median(wall("pass") for _ in range(5))
    return {
        s.name: statistics.median(wall(IMPORTS[s.name]) for _ in range(5)) - bare for s in systems
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    systems = load_systems()
    check_round_trips(systems)
    table = op_table(systems)
    table["bytes per message (10,000, shared content)"] = memory_row(systems)
    table["import time (ms added to interpreter start)"] = import_row(systems)
    names = [s.name for s in systems]
    peers = [n for n in names if n not in ("messages", "floor")]
    print(
        f"Python {sys.version.split()[0]} on {platform.machine()} {platform.system()}; ns per op unless noted"
    )
    header = (
        f"{'operation':<46}" + "".join(f"{n:>13}" for n in names) + f"{'vs peer':>9}{'vs floor':>9}"
    )
    print(header)
    rows = []
    for label, vals in table.items():
        ours = vals.get("messages")
        peer_vals = [v for n in peers if (v := vals.get(n)) is not None]
        best_peer = min(peer_vals) if peer_vals else None
        floor = vals.get("floor")
        r_peer = ours / best_peer if ours is not None and best_peer else None
        r_floor = ours / floor if ours is not None and floor else None
        cells = "".join(
            f"{'n/a' if vals.get(n) is None else format(vals[n], '.1f'):>13}" for n in names
        )
        print(
            f"{label:<46}{cells}"
            f"{'n/a' if r_peer is None else format(r_peer, '.2f'):>9}"
            f"{'n/a' if r_floor is None else format(r_floor, '.2f'):>9}"
        )
        rows.append(
            {
                "operation": label,
                "values": vals,
                "ratio_to_fastest_peer": r_peer,
                "ratio_to_floor": r_floor,
            }
        )
    if args.json:
        Path(args.json).write_text(
            json.dumps({"python": sys.version.split()[0], "rows": rows}, indent=2) + "\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
