"""The work on one chunk of a dataset's lines: convert, validate or count each record.

A chunk is a run of consecutive lines (its first line's number and the lines, blank
ones included so that numbering stays exact). The same function runs in this process
(``--jobs 1``) or in a worker of the pool, and returns everything the command prints:
the output text, the failures by line, the losses, and the counts.
"""

from __future__ import annotations

from typing import NamedTuple

from .._ordering import OrderingPolicy, OrderingState, advance
from .._role import MessageRole
from .._tokens import estimate_tokens
from ..errors import MessageError, OrderingError
from ..providers._base import Loss
from ..records._common import Options
from ..records._formats import Format, format_named
from ..records._lines import decode_line, encode_record
from ..records._record import Record
from .validate import policy_named

__all__ = ["Chunk", "Done", "Stats", "Task", "work"]


class Task(NamedTuple):
    """What to do with each record: the command and its options (sent with every chunk)."""

    command: str  # "convert", "validate" or "stats"
    source: str
    target: str | None = None
    options: Options = Options()
    strict: bool = False
    policy: str = "strict"
    stop: bool = True
    max_size: int = 0


class Chunk(NamedTuple):
    """Consecutive lines of the input, the first of them being line ``first``.

    ``data`` is the lines' bytes, line ends included (the worker splits them: the
    reading process does no work per line), or None for one line longer than
    ``--max-size``, which was skipped.
    """

    first: int
    data: bytes | None


class Stats(NamedTuple):
    """What ``stats --records`` counts, in a form that adds up across chunks."""

    messages: dict[str, int]
    tool_calls: dict[str, int]
    tokens: int
    with_tools: int

    @staticmethod
    def empty() -> Stats:
        """No records counted yet."""
        return Stats({role.value: 0 for role in MessageRole}, {}, 0, 0)

    def add(self, other: Stats) -> Stats:
        """The counts of both."""
        messages = {k: v + other.messages.get(k, 0) for k, v in self.messages.items()}
        calls = dict(self.tool_calls)
        for name, n in other.tool_calls.items():
            calls[name] = calls.get(name, 0) + n
        return Stats(
            messages, calls, self.tokens + other.tokens, self.with_tools + other.with_tools
        )


class Done(NamedTuple):
    """A chunk's results: output text, counts, failures and losses by line, and the stats."""

    text: str
    read: int
    written: int
    failures: list[tuple[int, str]]
    losses: list[Loss]
    stats: Stats | None
    stopped: bool


class _Run:
    """The state of one chunk's work."""

    __slots__ = ("failures", "losses", "out", "policy", "read", "source", "stats", "target", "task")

    def __init__(self, task: Task) -> None:
        self.task = task
        self.source = format_named(task.source)
        self.target: Format | None = format_named(task.target) if task.target else None
        self.out: list[str] = []
        self.failures: list[tuple[int, str]] = []
        self.losses: list[Loss] = []
        self.read = 0
        self.stats = Stats.empty() if task.command == "stats" else None
        self.policy = policy_named(task.policy)

    def line(self, n: int, raw: bytes) -> None:
        """Do the task's work on line ``n`` (raises MessageError for a bad record)."""
        record = decode_line(raw, n, self.source)
        if self.target is not None:
            text, losses = encode_record(record, n, self.target, self.task.options)
            if losses and self.task.strict:
                raise MessageError(
                    f"{self.task.target} cannot carry {len(losses)} thing(s) here (--strict)",
                    losses[0].path,
                )
            self.losses.extend(losses)
            self.out.append(text)
        elif self.task.command == "validate":
            _check_order(record, n, self.policy)
        else:
            self._count(record)

    def _count(self, record: Record) -> None:
        stats = self.stats
        assert stats is not None
        calls = stats.tool_calls
        tokens = 0
        for message in record.messages:
            stats.messages[message.role.value] += 1
            tokens += estimate_tokens(message)
            for call in message.tool_calls:
                calls[call.name] = calls.get(call.name, 0) + 1
        self.stats = stats._replace(
            tokens=stats.tokens + tokens, with_tools=stats.with_tools + bool(record.tools)
        )


def _check_order(record: Record, n: int, policy: OrderingPolicy) -> None:
    """MessageError (located at line ``n``) when the record breaks the ordering policy."""
    state = OrderingState(policy)
    for i, message in enumerate(record.messages):
        try:
            advance(state, message, i)
        except OrderingError as exc:
            raise MessageError(f"[{exc.rule}] {exc.message}", f"line {n}, messages[{i}]") from None


def work(task: Task, chunk: Chunk) -> Done:
    """Run ``task`` on every record of ``chunk``; with ``task.stop``, up to the first failure."""
    run = _Run(task)
    if chunk.data is None:
        run.read = 1
        failure = f"line {chunk.first}: the line is longer than --max-size ({task.max_size} bytes)"
        return Done("", 1, 0, [(chunk.first, failure)], [], run.stats, task.stop)
    stopped = False
    limit = task.max_size
    for n, raw in enumerate(chunk.data.split(b"\n"), chunk.first):
        if not raw or raw.isspace():
            continue
        run.read += 1
        try:
            if limit and len(raw) > limit:
                raise MessageError(
                    f"the line is longer than --max-size ({limit} bytes)", f"line {n}"
                )
            run.line(n, raw)
        except MessageError as exc:
            run.failures.append((n, str(exc)))
            if task.stop:
                stopped = True
                break
    text = "\n".join(run.out) + "\n" if run.out else ""
    return Done(text, run.read, len(run.out), run.failures, run.losses, run.stats, stopped)
