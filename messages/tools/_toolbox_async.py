"""The async side of :class:`._toolbox.Toolbox`: ``arun`` and ``arun_all``.

Imported on first use, so ``import messages`` and a sync agent loop never import
``asyncio``. Checking a call and writing its result are the sync side's
(:func:`._toolbox.prepare`, :func:`._toolbox.finish`); only where the function
runs differs: a coroutine function is awaited in the caller's task, a plain one
runs in the loop's default executor (``asyncio.to_thread``, which also carries the
caller's context variables), its result written in that thread too, so a large
JSON result does not stall the loop.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable
from typing import Any

from .._message import Message, ToolResultMessage
from .._tool_call import InvalidToolCall, ToolCall
from .._tool_result import ToolResult
from ._toolbox import Tool, as_message, calls_of, finish, prepare, raised

__all__ = ["arun", "arun_all"]


async def arun(
    tools: dict[str, Tool], call: ToolCall | InvalidToolCall
) -> ToolResult | ToolResultMessage:
    """Answer one call: the tool's result, or the error result that answers it."""
    ready = prepare(tools, call)
    if isinstance(ready, ToolResult):  # an error
        return ready
    tool, call, kwargs = ready
    if tool.is_async:
        try:
            awaitable = tool.fn(**kwargs)
        except Exception as exc:
            return raised(call, exc)
        return await _awaited(call, awaitable)
    outcome = await asyncio.to_thread(_in_thread, tool, call, kwargs)
    if isinstance(outcome, (ToolResult, ToolResultMessage)):
        return outcome
    # A plain function that returned an awaitable (a partial of a coroutine
    # function, a lambda calling one): awaited here, in the loop.
    return await _awaited(call, outcome)


async def _awaited(call: ToolCall, awaitable: Awaitable[Any]) -> ToolResult | ToolResultMessage:
    """The result of what a tool's awaitable gives."""
    try:
        value = await awaitable
    except Exception as exc:  # BaseException (CancelledError included) propagates
        return raised(call, exc)
    return finish(call, value)


def _in_thread(
    tool: Tool, call: ToolCall, kwargs: dict[str, Any]
) -> ToolResult | ToolResultMessage | Awaitable[Any]:
    """Run a plain function in a worker thread: its result, or an awaitable it returned."""
    try:
        value = tool.fn(**kwargs)
    except Exception as exc:
        return raised(call, exc)
    if inspect.isawaitable(value):
        return value
    return finish(call, value)


async def arun_all(tools: dict[str, Tool], message: Message) -> tuple[ToolResultMessage, ...]:
    """Answer every call of ``message`` concurrently, in call order."""
    calls = calls_of(message)
    if not calls:
        return ()
    if len(calls) == 1:  # no task to make: the call runs in the caller's task
        return (as_message(await arun(tools, calls[0])),)
    loop = asyncio.get_running_loop()
    tasks = [loop.create_task(arun(tools, c)) for c in calls]
    try:
        await _until_done_or_failed(loop, tasks)
    except BaseException:  # the caller is cancelled (or the loop goes down)
        await _cancel(tasks)
        raise
    for t in tasks:
        if t.done() and (t.cancelled() or t.exception() is not None):
            # A tool raised a BaseException (a CancelledError of its own): as a
            # TaskGroup does, stop the others and let the exception through.
            await _cancel(tasks)
            t.result()  # raises it
    return tuple([as_message(t.result()) for t in tasks])


async def _until_done_or_failed(
    loop: asyncio.AbstractEventLoop, tasks: list[asyncio.Task[Any]]
) -> None:
    """Wait until every task is done, or one ended cancelled or with an exception."""
    waiter: asyncio.Future[None] = loop.create_future()
    left = len(tasks)

    def on_done(t: asyncio.Task[Any]) -> None:
        nonlocal left
        left -= 1
        if not waiter.done() and (left == 0 or t.cancelled() or t.exception() is not None):
            waiter.set_result(None)

    for t in tasks:
        t.add_done_callback(on_done)
    try:
        await waiter
    finally:
        for t in tasks:
            t.remove_done_callback(on_done)


async def _cancel(tasks: list[asyncio.Task[Any]]) -> None:
    """Cancel the tasks still running and wait until every one has ended."""
    for t in tasks:
        t.cancel()
    await asyncio.wait(tasks)
    for t in tasks:  # mark their exceptions retrieved (the one that matters propagates)
        if not t.cancelled():
            t.exception()
