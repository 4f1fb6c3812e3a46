"""``Toolbox.arun`` / ``arun_all`` (API.md, "Toolbox: running calls"), on a real event loop.

Coroutine functions are awaited and plain ones run in worker threads; ``arun_all``
runs the calls concurrently (each test below deadlocks, and fails on its timeout,
if the calls ran one after another) and returns the results in call order.
Cancellation and exceptions that are not an ``Exception`` propagate, and no tool
is left running in the loop.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping
from typing import Any, TypeVar

import pytest

from messages import (
    InvalidToolCall,
    Message,
    Toolbox,
    ToolCall,
    ToolDefinition,
    ToolResult,
    ToolResultMessage,
)

T = TypeVar("T")

#: Seconds a test waits for what should happen at once before it fails.
PATIENCE = 10.0


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def call(name: str, arguments: dict[str, Any] | None = None, id: str = "call_1") -> ToolCall:
    return ToolCall(id, name, arguments or {})


def turn(*calls: ToolCall | InvalidToolCall) -> Message:
    valid = [c for c in calls if isinstance(c, ToolCall)]
    invalid = [c for c in calls if isinstance(c, InvalidToolCall)]
    return Message.assistant(tool_calls=valid, invalid_tool_calls=invalid)


async def get_weather(city: str, unit: str = "celsius") -> str:
    """Current weather for a city."""
    await asyncio.sleep(0)
    return f"{city}|{unit}"


def get_time(zone: str) -> str:
    """The time in a zone."""
    return f"{zone}|{threading.current_thread() is threading.main_thread()}"


def test_arun_awaits_coroutine_functions_and_threads_plain_ones() -> None:
    box = Toolbox([get_weather, get_time])

    async def main() -> tuple[ToolResult, ToolResult]:
        return (
            await box.arun(call("get_weather", {"city": "Oslo", "unit": None})),
            await box.arun(call("get_time", {"zone": "UTC"})),
        )

    weather, time_ = run(main())
    assert weather == ToolResult("call_1", "Oslo|celsius", False, "get_weather")
    assert time_ == ToolResult("call_1", "UTC|False", False, "get_time")  # not the main thread


def test_arun_answers_failures_like_run() -> None:
    async def broken(city: str) -> str:
        """Break."""
        raise ValueError("service down")

    box = Toolbox([get_weather, broken])
    calls: list[ToolCall | InvalidToolCall] = [
        call("nope"),
        call("get_weather", {"city": 7}),
        InvalidToolCall("call_1", "get_weather", "{", "invalid JSON"),
        call("broken", {"city": "x"}),
    ]

    async def main() -> list[ToolResult]:
        return [await box.arun(c) for c in calls]

    got = run(main())
    assert got == [box.run(c) for c in calls[:3]] + [
        ToolResult("call_1", "ValueError: service down", True, "broken")
    ]
    assert all(r.is_error for r in got)


def test_arun_all_runs_coroutine_tools_concurrently() -> None:
    async def main() -> tuple[ToolResultMessage, ...]:
        ping_seen, pong_seen = asyncio.Event(), asyncio.Event()

        async def ping() -> str:
            """Set ping, wait for pong."""
            ping_seen.set()
            await pong_seen.wait()
            return "ping"

        async def pong() -> str:
            """Set pong, wait for ping."""
            pong_seen.set()
            await ping_seen.wait()
            return "pong"

        box = Toolbox([ping, pong])
        message = turn(call("ping", id="a"), call("pong", id="b"))
        return await asyncio.wait_for(box.arun_all(message), PATIENCE)

    answers = run(main())
    assert [(m.tool_call_id, m.text) for m in answers] == [("a", "ping"), ("b", "pong")]


def test_arun_all_runs_plain_tools_in_worker_threads_concurrently() -> None:
    first, second = threading.Event(), threading.Event()
    threads: set[int] = set()

    def one() -> str:
        """Set one, wait for two."""
        threads.add(threading.get_ident())
        first.set()
        if not second.wait(PATIENCE):
            raise TimeoutError("ran alone")
        return "one"

    def two() -> str:
        """Set two, wait for one."""
        threads.add(threading.get_ident())
        second.set()
        if not first.wait(PATIENCE):
            raise TimeoutError("ran alone")
        return "two"

    box = Toolbox([one, two])
    answers = run(box.arun_all(turn(call("one", id="a"), call("two", id="b"))))
    assert [(m.text, m.is_error) for m in answers] == [("one", False), ("two", False)]
    assert len(threads) == 2 and threading.get_ident() not in threads


def test_arun_all_keeps_call_order_whatever_finishes_first() -> None:
    async def wait(ms: int) -> int:
        """Wait ms milliseconds."""
        await asyncio.sleep(ms / 1000)
        return ms

    def block(ms: int) -> int:
        """Block ms milliseconds."""
        time.sleep(ms / 1000)
        return ms

    box = Toolbox([wait, block])
    message = turn(
        call("wait", {"ms": 60}, "a"),
        call("block", {"ms": 30}, "b"),
        call("wait", {"ms": 0}, "c"),
        call("nope", {}, "d"),
        InvalidToolCall("e", None, "[", "invalid JSON"),
    )
    answers = run(box.arun_all(message))
    assert [m.tool_call_id for m in answers] == ["a", "b", "c", "d", "e"]
    assert [m.text for m in answers[:3]] == ["60", "30", "0"]
    assert [m.is_error for m in answers] == [False, False, False, True, True]
    assert run(box.arun_all(Message.assistant("no calls"))) == ()


def test_arun_all_gives_what_run_all_gives() -> None:
    def plain(city: str) -> dict[str, str]:
        """Plain."""
        return {"city": city}

    box = Toolbox([get_weather, plain])
    message = turn(
        call("get_weather", {"city": "Oslo"}, "a"),
        call("plain", {"city": "Rome"}, "b"),
        InvalidToolCall("c", "plain", "{", "invalid JSON"),
    )
    sync = Toolbox([plain]).run_all(message)
    asynced = run(box.arun_all(message))
    assert asynced[1:] == sync[1:]  # equality ignores ids
    assert asynced[0].text == "Oslo|celsius"


def test_callable_shapes_that_are_awaited() -> None:
    class Async:
        async def __call__(self, x: int) -> int:
            await asyncio.sleep(0)
            return x + 1

    async def add(x: int, y: int) -> int:
        return x + y

    async def later() -> str:
        return "later"

    number = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
    box = Toolbox(
        [
            (ToolDefinition("inst", "I.", number), Async()),
            (ToolDefinition("part", "P.", number), functools.partial(add, y=10)),
            (ToolDefinition("lam", "L.", {"type": "object", "properties": {}}), lambda: later()),
        ]
    )
    answers = run(
        box.arun_all(
            turn(call("inst", {"x": 1}, "a"), call("part", {"x": 1}, "b"), call("lam", {}, "c"))
        )
    )
    assert [(m.text, m.is_error) for m in answers] == [
        ("2", False),
        ("11", False),
        ("later", False),
    ]
    # In sync code the two coroutine functions are refused, the lambda's coroutine closed.
    assert (
        box.run(call("inst", {"x": 1})).text
        == "tool 'inst' is a coroutine function: run it with arun"
    )
    assert box.run(call("part", {"x": 1})).is_error


def test_a_plain_function_that_returns_a_failing_awaitable() -> None:
    async def fail() -> str:
        raise LookupError("gone")

    box = Toolbox(
        [(ToolDefinition("f", "F.", {"type": "object", "properties": {}}), lambda: fail())]
    )
    assert run(box.arun(call("f"))) == ToolResult("call_1", "LookupError: gone", True, "f")


def test_context_variables_reach_the_worker_thread() -> None:
    user: contextvars.ContextVar[str] = contextvars.ContextVar("user", default="nobody")

    def whoami() -> str:
        """Who is asking."""
        return user.get()

    async def main() -> ToolResult:
        user.set("ada")
        return await Toolbox([whoami]).arun(call("whoami"))

    assert run(main()).text == "ada"


def test_a_plain_tools_result_is_written_in_its_worker_thread() -> None:
    readers: list[int] = []

    class Rows(Mapping[str, int]):
        """A mapping that notes which thread reads it."""

        def __getitem__(self, key: str) -> int:
            return int(key)

        def __iter__(self) -> Iterator[str]:
            readers.append(threading.get_ident())
            return iter(["1", "2"])

        def __len__(self) -> int:
            return 2

    def rows() -> Any:
        """Rows."""
        return Rows()

    async def main() -> tuple[int, ToolResult]:
        return threading.get_ident(), await Toolbox([rows]).arun(call("rows"))

    loop_thread, result = run(main())
    assert result.text == '{"1":1,"2":2}'
    assert readers and loop_thread not in readers  # a big result does not stall the loop


# ------------------------------------------------------------ cancellation


def test_cancelling_arun_all_cancels_the_tools_and_propagates() -> None:
    ended: list[str] = []

    async def main() -> None:
        release = asyncio.Event()

        async def hang(name: str) -> str:
            """Wait forever."""
            try:
                await release.wait()
            except asyncio.CancelledError:
                ended.append(name)
                raise
            return name

        box = Toolbox([hang])
        message = turn(call("hang", {"name": "a"}, "a"), call("hang", {"name": "b"}, "b"))
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(box.arun_all(message), 0.05)
        # Every tool was cancelled and has ended by the time arun_all let go.
        assert sorted(ended) == ["a", "b"]
        assert asyncio.all_tasks() == {asyncio.current_task()}

    run(main())


def test_cancelling_arun_all_does_not_wait_for_threads() -> None:
    gate = threading.Event()

    def stuck() -> str:
        """Block until released."""
        gate.wait(PATIENCE)
        return "late"

    async def main() -> float:
        box = Toolbox([stuck])
        started = time.monotonic()
        try:
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(
                    box.arun_all(turn(call("stuck", id="a"), call("stuck", id="b"))), 0.05
                )
            return time.monotonic() - started
        finally:
            gate.set()  # the threads run to their end: asyncio.run waits for them on exit

    assert run(main()) < PATIENCE / 2


def test_a_tool_raising_cancelled_error_stops_the_others_and_propagates() -> None:
    ended: list[str] = []

    async def main() -> str:
        async def give_up() -> str:
            """Give up."""
            await asyncio.sleep(0)
            raise asyncio.CancelledError

        async def slow() -> str:
            """Slow."""
            try:
                await asyncio.sleep(PATIENCE)
            finally:
                ended.append("slow")
            return "slow"

        box = Toolbox([give_up, slow])
        try:
            await box.arun_all(turn(call("slow", id="a"), call("give_up", id="b")))
        except asyncio.CancelledError:
            return "propagated"
        return "swallowed"

    started = time.monotonic()
    assert run(main()) == "propagated"
    assert ended == ["slow"] and time.monotonic() - started < PATIENCE / 2


def test_arun_lets_cancelled_error_through() -> None:
    async def give_up() -> str:
        """Give up."""
        raise asyncio.CancelledError

    async def main() -> str:
        try:
            await Toolbox([give_up]).arun(call("give_up"))
        except asyncio.CancelledError:
            return "propagated"
        return "swallowed"

    assert run(main()) == "propagated"


@pytest.mark.parametrize("exc", [KeyboardInterrupt, SystemExit])
def test_a_base_exception_from_a_threaded_tool_propagates(exc: type[BaseException]) -> None:
    def stop() -> str:
        """Stop."""
        raise exc

    with pytest.raises(exc):
        run(Toolbox([stop]).arun(call("stop")))


def test_one_toolbox_shared_by_many_tasks() -> None:
    async def double(x: int) -> int:
        """Double."""
        await asyncio.sleep(0)
        return 2 * x

    box = Toolbox([double])

    async def main() -> list[tuple[ToolResultMessage, ...]]:
        runs: list[Awaitable[tuple[ToolResultMessage, ...]]] = [
            box.arun_all(turn(*(call("double", {"x": i * 10 + j}, f"c{j}") for j in range(5))))
            for i in range(20)
        ]
        return list(await asyncio.gather(*runs))

    for i, answers in enumerate(run(main())):
        assert [m.text for m in answers] == [str(2 * (i * 10 + j)) for j in range(5)]


def test_wrappers_of_the_loop_see_a_plain_coroutine() -> None:
    box = Toolbox([get_weather])
    coro: Callable[..., Any] = box.arun
    assert asyncio.iscoroutinefunction(coro) and asyncio.iscoroutinefunction(box.arun_all)
