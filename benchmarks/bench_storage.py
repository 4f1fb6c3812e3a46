"""Storage: save and load of a 1,000-message session per backend beside to_json /
from_json of the same messages, the per-append cost of a growing session, and
SQLite beside PostgreSQL: append + save at 100 and 100,000 messages, loading
10,000, and 4 processes appending to one session.

PostgreSQL is a throwaway server started here (tests/postgres_server.py, with
fsync on, as SQLite's synchronous=FULL) or the one MESSAGES_TEST_POSTGRES_DSN
names. Each durability level is compared with its like: SQLite synchronous=FULL
with PostgreSQL synchronous_commit=on (a commit waits for the disk), SQLite
synchronous=NORMAL with PostgreSQL synchronous_commit=off (a power loss may lose
the last commits, never corrupts).
"""

from __future__ import annotations

import gc
import multiprocessing
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

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
    _seed(backend, ident, base)
    return _append_at_us(backend, ident, ops)


def _load_ms(backend: Backend, ident: SessionIdentity, repeat: int = 5) -> float:
    return _best_ms(lambda: ChatHistoryStorage(backend, ident).messages(), repeat)


def _seed(backend: Backend, ident: SessionIdentity, n: int) -> None:
    seed = ChatHistoryStorage(backend, ident)
    for m in conversation(n):
        seed.add_message(m)
    seed.save()


def _append_at_us(backend: Backend, ident: SessionIdentity, ops: int) -> float:
    """Median microseconds per add_message + save on an existing session.

    The median: one WAL checkpoint now and then is SQLite's cost, not the append's.
    """
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
    return statistics.median(times) * 1e6


def _open(kind: str, where: str) -> Backend:
    if kind.startswith("sqlite"):
        return SQLiteBackend(where, fsync=kind == "sqlite-full")
    from messages.storage import PostgresBackend

    return PostgresBackend(where)


def _appender(kind: str, where: str, name: str, count: int, start: Any, out: Any) -> None:
    """One of the processes appending to one session: add + save ``count`` times."""
    backend = _open(kind, where)
    storage = ChatHistoryStorage(backend, SessionIdentity("bench", "together"))
    storage.len()
    start.wait()
    t0 = time.perf_counter()
    for i in range(count):
        storage.add_message(UserMessage(f"{name} {i}"))
        storage.save()
    out.put((t0, time.perf_counter()))
    getattr(backend, "close", lambda: None)()


def _throughput(kind: str, where: str, writers: int, count: int) -> float:
    """Appends per second of ``writers`` processes appending to one fresh session."""
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Barrier(writers)
    out = ctx.Queue()
    procs = [
        ctx.Process(target=_appender, args=(kind, where, f"w{k}", count, start, out))
        for k in range(writers)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=600)
    if [p.exitcode for p in procs] != [0] * writers:
        raise RuntimeError(f"{kind}: a writer failed: exit codes {[p.exitcode for p in procs]}")
    spans: list[tuple[float, float]] = [out.get(timeout=10) for _ in procs]
    backend = _open(kind, where)
    try:
        ident = SessionIdentity("bench", "together")
        stored = ChatHistoryStorage(backend, ident).len()
        if stored != writers * count:
            raise RuntimeError(f"{kind}: {stored} of {writers * count} appends stored")
        backend.delete(ident)
    finally:
        getattr(backend, "close", lambda: None)()
    wall = max(e for _, e in spans) - min(s for s, _ in spans)
    return writers * count / wall


@contextmanager
def _postgres() -> Iterator[str]:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests import postgres_server

    server = postgres_server.start(durable=True)
    print(f"(PostgreSQL: {server.origin})", file=sys.stderr)
    try:
        yield server.dsn
    finally:
        server.stop()


def bench_sqlite_vs_postgres() -> list[Row]:
    """SQLite and PostgreSQL side by side, each durability level beside its like."""
    rows: list[Row] = []
    small, large = SessionIdentity("bench", "s100"), SessionIdentity("bench", "s100000")
    loaded = SessionIdentity("bench", "s10000")
    with tempfile.TemporaryDirectory() as tmp, _postgres() as dsn:
        db = str(Path(tmp) / "bench.sqlite")
        no_wait = f"{dsn} options='-c synchronous_commit=off'"
        pairs = [
            ("sqlite, synchronous=FULL", "sqlite-full", db, "postgres, synchronous_commit=on", dsn),
            (
                "sqlite, synchronous=NORMAL",
                "sqlite-normal",
                db,
                "postgres, synchronous_commit=off",
                no_wait,
            ),
        ]
        for kind, where in (("sqlite-normal", db), ("postgres", no_wait)):
            backend = _open(kind, where)
            try:
                _seed(backend, small, 100)
                _seed(backend, large, 100_000)
                _seed(backend, loaded, 10_000)
            finally:
                getattr(backend, "close", lambda: None)()
        msgs = conversation(10_000)
        text = to_json(msgs)
        from_json_ms = _best_ms(lambda: from_json(text), 3)
        for lite_name, lite_kind, lite_where, pg_name, pg_where in pairs:
            lite, pg = _open(lite_kind, lite_where), _open("postgres", pg_where)
            try:
                at_100 = 0.0
                for ident, size in ((small, "100"), (large, "100,000")):
                    a = _append_at_us(lite, ident, 300)
                    b = _append_at_us(pg, ident, 300)
                    at_100 = at_100 or a
                    what = f"append + save at {size} messages"
                    rows.append(
                        (
                            f"{what}: {lite_name} (us)",
                            a,
                            at_100,
                            "itself" if a == at_100 else "at 100",
                        )
                    )
                    rows.append((f"{what}: {pg_name} (us)", b, a, "sqlite"))
            finally:
                getattr(lite, "close", lambda: None)()
                getattr(pg, "close", lambda: None)()
        lite, pg = _open("sqlite-normal", db), _open("postgres", dsn)
        try:
            a, b = _load_ms(lite, loaded, 3), _load_ms(pg, loaded, 3)
        finally:
            getattr(lite, "close", lambda: None)()
            getattr(pg, "close", lambda: None)()
        rows.append(("load 10,000 messages: sqlite (ms)", a, from_json_ms, "from_json"))
        rows.append(("load 10,000 messages: postgres (ms)", b, a, "sqlite"))
        for lite_name, lite_kind, lite_where, pg_name, pg_where in pairs:
            one = _throughput(lite_kind, lite_where, 1, 800)
            four = _throughput(lite_kind, lite_where, 4, 200)
            pg_four = _throughput("postgres", pg_where, 4, 200)
            what = "appends/s, 4 processes on one session"
            rows.append((f"{what}: {lite_name}", four, one, "1 process"))
            rows.append((f"{what}: {pg_name}", pg_four, four, "sqlite"))
    return rows


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
    for what, value, base, desc in bench_storage() + bench_sqlite_vs_postgres():
        print(f"{what:<66} {value:>10.1f} {value / base:>7.2f}x {desc}")
