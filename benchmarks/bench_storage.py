"""Storage: save and load of a 1,000-message session per backend beside to_json /
from_json of the same messages, and the per-append cost of a growing session."""

from __future__ import annotations

import gc
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
    from_json,
    to_json,
)
from messages.storage import (
    Backend,
    ChatHistoryStorage,
    JsonFileBackend,
    MemoryBackend,
    SessionIdentity,
    SQLiteBackend,
)

Row = tuple[str, float, float, str]

SESSION = 1000
IDENT = SessionIdentity("bench", "session")


def conversation(n: int) -> list[Message]:
    """A realistic session: system prompt, then user / assistant / tool-call turns."""
    msgs: list[Message] = [SystemMessage("You are a helpful assistant. " * 8)]
    i = 0
    while len(msgs) < n:
        msgs.append(UserMessage(f"Question {i}: " + "what about this? " * 10))
        if i % 4 == 3 and len(msgs) + 3 <= n:
            call = ToolCall(f"call_{i}", "search", {"query": f"topic {i}", "limit": 5})
            msgs.append(ToolCallMessage([call]))
            msgs.append(ToolResultMessage(f"call_{i}", "result text " * 20, tool_name="search"))
        usage = {"usage": {"input_tokens": 900 + i, "output_tokens": 60, "total_tokens": 960 + i}}
        msgs.append(AssistantMessage(f"Answer {i}: " + "here is the reply. " * 12, metadata=usage))
        i += 1
    return msgs[:n]


def _best_ms(fn: Callable[[], object], repeat: int = 5) -> float:
    fn()  # warm up (and create files / tables)
    best = float("inf")
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t0)
    finally:
        if gc_was:
            gc.enable()
    return best * 1000


def _append_us(backend: Backend, base: int, ops: int) -> float:
    """Microseconds per add_message + save on a session that holds ``base`` messages."""
    ident = SessionIdentity("bench", f"append-{base}")
    seed = ChatHistoryStorage(backend, ident)
    for m in conversation(base):
        seed.add_message(m)
    seed.save()
    storage = ChatHistoryStorage(backend, ident)
    storage.len()  # load outside the timing
    times: list[float] = []
    perf = time.perf_counter
    for k in range(ops):
        msg = UserMessage(f"one more message {k}")
        t0 = perf()
        storage.add_message(msg)
        storage.save()
        times.append(perf() - t0)
    # The median: one WAL checkpoint now and then is SQLite's cost, not the append's.
    return statistics.median(times) * 1e6


def bench_storage() -> list[Row]:
    """The storage rows for benchmarks/run.py."""
    msgs = conversation(SESSION)
    text = to_json(msgs)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        to_json_ms = _best_ms(lambda: to_json(msgs))
        from_json_ms = _best_ms(lambda: from_json(text))
        rows.append(("to_json, 1,000 messages (ms)", to_json_ms, to_json_ms, "itself"))
        rows.append(("from_json, 1,000 messages (ms)", from_json_ms, from_json_ms, "itself"))
        sqlite = SQLiteBackend(root / "bench.sqlite")
        sqlite_nosync = SQLiteBackend(root / "bench-nosync.sqlite", fsync=False)
        backends: list[tuple[str, Backend]] = [
            ("memory", MemoryBackend()),
            ("json file, fsync", JsonFileBackend(root / "json")),
            ("json file, no fsync", JsonFileBackend(root / "json-nosync", fsync=False)),
            ("sqlite, synchronous=FULL", sqlite),
            ("sqlite, synchronous=NORMAL", sqlite_nosync),
        ]
        try:
            for name, backend in backends:

                def save(backend: Backend = backend) -> None:
                    # What a full save does: canonical dicts, then one atomic write.
                    backend.save(IDENT, [m.to_dict() for m in msgs])

                def load(backend: Backend = backend) -> None:
                    ChatHistoryStorage(backend, IDENT).messages()

                rows.append(
                    (f"save 1,000 messages: {name} (ms)", _best_ms(save), to_json_ms, "to_json")
                )
                rows.append(
                    (f"load 1,000 messages: {name} (ms)", _best_ms(load), from_json_ms, "from_json")
                )
            for name, backend, ops in (
                ("sqlite, synchronous=FULL", sqlite, 300),
                ("sqlite, synchronous=NORMAL", sqlite_nosync, 300),
                ("json file, no fsync", backends[2][1], 30),
            ):
                small = _append_us(backend, 100, ops)
                large = _append_us(backend, 10_000, ops)
                rows.append((f"append + save at 100 messages: {name} (us)", small, small, "itself"))
                rows.append(
                    (f"append + save at 10,000 messages: {name} (us)", large, small, "at 100")
                )
        finally:
            sqlite.close()
            sqlite_nosync.close()
    return rows


if __name__ == "__main__":
    for what, value, base, desc in bench_storage():
        print(f"{what:<58} {value:>10.3f} {value / base:>7.2f}x {desc}")
