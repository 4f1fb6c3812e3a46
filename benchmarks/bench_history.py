"""ConversationHistory: add is O(1), snapshots share messages, truncation is linear.

Targets (issue 4): ``add`` of a valid message <= 2 us amortized including the lock
and the order check, flat from 10 to 100,000 messages; ``messages()`` of 10,000
without copying messages; ``truncate`` of 10,000 messages <= 20 ms.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable

from messages import (
    ConversationHistory,
    Message,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    estimate_tokens,
    repair,
)

Row = tuple[str, float, float, str]


def _conversation(n: int, tools: bool = False) -> list[Message]:
    """A strict-valid conversation of ``n`` messages (system, then user/assistant turns)."""
    msgs: list[Message] = [Message.system("You are a helpful assistant.")]
    k = 0
    while len(msgs) < n:
        msgs.append(Message.user("What is the weather like in Paris today?"))
        if tools and k % 4 == 0 and len(msgs) + 4 <= n:
            a, b = f"call_{k}_a", f"call_{k}_b"
            msgs.append(
                ToolCallMessage(
                    [ToolCall(a, "weather", {"city": "Paris"}), ToolCall(b, "time", {})]
                )
            )
            msgs.append(ToolResultMessage(b, "12:00"))
            msgs.append(ToolResultMessage(a, "sunny, 21 C"))
        msgs.append(Message.assistant("It is sunny and 21 degrees in Paris."))
        k += 1
    return msgs[:n]


def _best(run: Callable[[], float], repeat: int = 7) -> float:
    """Best of ``repeat`` runs of ``run`` (which returns ns per operation), GC off."""
    gc_was = gc.isenabled()
    gc.disable()
    try:
        return min(run() for _ in range(repeat))
    finally:
        if gc_was:
            gc.enable()


def _fill_cost(msgs: list[Message], histories: int) -> float:
    """ns per add when filling ``histories`` fresh histories with ``msgs``."""

    def run() -> float:
        hs = [ConversationHistory() for _ in range(histories)]
        t0 = time.perf_counter_ns()
        for h in hs:
            add = h.add
            for m in msgs:
                add(m)
        return (time.perf_counter_ns() - t0) / (histories * len(msgs))

    return _best(run)


def _append_cost(msgs: list[Message], lists: int) -> float:
    """Baseline: list.append of the same messages under a threading.Lock."""

    def run() -> float:
        ls: list[tuple[list[Message], threading.Lock]] = [
            ([], threading.Lock()) for _ in range(lists)
        ]
        t0 = time.perf_counter_ns()
        for lst, lock in ls:
            append = lst.append
            for m in msgs:
                with lock:
                    append(m)
        return (time.perf_counter_ns() - t0) / (lists * len(msgs))

    return _best(run)


def bench_history() -> list[Row]:
    """(what, ns per op, baseline ns per op, baseline description) rows."""
    rows: list[Row] = []
    base_desc = "list.append under a threading.Lock"

    for n in (10, 1_000, 100_000):
        msgs = _conversation(n)
        reps = max(1, 100_000 // n)
        rows.append(
            (
                f"add (user/assistant), per add, filling to {n:,}",
                _fill_cost(msgs, reps),
                _append_cost(msgs, reps),
                base_desc,
            )
        )
    msgs = _conversation(1_000, tools=True)
    rows.append(
        (
            "add (with tool rounds), per add, filling to 1,000",
            _fill_cost(msgs, 100),
            _append_cost(msgs, 100),
            base_desc,
        )
    )

    msgs = _conversation(1_000)

    def extend() -> float:
        hs = [ConversationHistory() for _ in range(100)]
        t0 = time.perf_counter_ns()
        for h in hs:
            h.extend(msgs)
        return (time.perf_counter_ns() - t0) / (100 * len(msgs))

    rows.append(("extend of 1,000, per message", _best(extend), _append_cost(msgs, 100), base_desc))

    # Snapshots of 10,000 messages.
    msgs = _conversation(10_000)
    h = ConversationHistory(msgs)
    items = list(msgs)

    def tuple_copy() -> float:
        t0 = time.perf_counter_ns()
        for _ in range(100):
            tuple(items)
        return (time.perf_counter_ns() - t0) / 100

    def snapshot_after_change() -> float:
        total = 0
        for _ in range(100):
            h._snapshot = None  # what any change does; the next snapshot rebuilds the tuple
            t0 = time.perf_counter_ns()
            h.messages()
            total += time.perf_counter_ns() - t0
        return total / 100

    def snapshot_cached() -> float:
        h.messages()
        t0 = time.perf_counter_ns()
        for _ in range(10_000):
            h.messages()
        return (time.perf_counter_ns() - t0) / 10_000

    copy = _best(tuple_copy)
    rows.append(
        (
            "messages() of 10,000 after a change",
            _best(snapshot_after_change),
            copy,
            "tuple(list) of 10,000",
        )
    )
    rows.append(
        (
            "messages() of 10,000, unchanged since the last",
            _best(snapshot_cached),
            copy,
            "tuple(list) of 10,000",
        )
    )

    # Truncation and whole-sequence checks of 10,000 messages.
    msgs = _conversation(10_000, tools=True)
    total = sum(map(estimate_tokens, msgs))

    def count() -> float:
        t0 = time.perf_counter_ns()
        sum(map(estimate_tokens, msgs))
        return float(time.perf_counter_ns() - t0)

    def truncate() -> float:
        hist = ConversationHistory(msgs)
        t0 = time.perf_counter_ns()
        hist.truncate(total // 2)
        return float(time.perf_counter_ns() - t0)

    counting = _best(count, 5)
    rows.append(
        (
            "truncate 10,000 to half the tokens (ns per call)",
            _best(truncate, 5),
            counting,
            "estimate_tokens of 10,000",
        )
    )

    hist = ConversationHistory(msgs)

    def validate() -> float:
        t0 = time.perf_counter_ns()
        hist.validate()
        return float(time.perf_counter_ns() - t0)

    rows.append(
        (
            "validate() of 10,000 (ns per call)",
            _best(validate, 5),
            counting,
            "estimate_tokens of 10,000",
        )
    )

    def repair_valid() -> float:
        t0 = time.perf_counter_ns()
        repair(msgs)
        return float(time.perf_counter_ns() - t0)

    rows.append(
        (
            "repair() of a valid 10,000 (ns per call)",
            _best(repair_valid, 5),
            counting,
            "estimate_tokens of 10,000",
        )
    )
    return rows


if __name__ == "__main__":
    for what, value, base, desc in bench_history():
        print(f"{what:<52} {value:>12.1f} ns   {base:>12.1f} ns  ({desc})")
