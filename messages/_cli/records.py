"""``convert --records``, ``validate --records`` and ``stats --records``: datasets, streamed.

The input is read in chunks of lines; each chunk is worked on here (``--jobs 1``) or
by a pool of processes with a bounded number of chunks in flight, and the results are
taken in input order, so the output is the same whatever ``--jobs`` and memory does
not grow with the number of records. A record that cannot be read (or converted) is
reported with its line number; ``--on-error stop`` ends the run there, ``skip`` goes
on. Nothing is dropped silently: the last line on stderr says how many records were
read, written (valid, counted) and failed, and the exit status is 1 when any failed.
"""

from __future__ import annotations

import os
import stat
import sys
from collections import deque
from collections.abc import Callable, Iterator

from ..records._common import Options
from .record_progress import Bar
from .record_work import Chunk, Done, Stats, Task, work
from .sink import Sink, pretty
from .source import _open_input
from .terminal import json_printable, say, warn

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from concurrent.futures import Future
    from typing import IO

    from ..providers._base import Loss

__all__ = ["convert", "stats", "validate"]

CHUNK_BYTES = 1 << 19
"""Bytes read at a time, and the size of a chunk: hundreds of lines, so that a worker's
round trip is small beside its work, and few chunks in memory at once."""
SHOWN_PER_KIND = 10
"""Losses of one kind (what and rule) printed before the rest are only counted."""


class _Input:
    """The input's lines in chunks, and how many bytes of it were read (for the bar)."""

    __slots__ = ("consumed", "size", "stream")

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.consumed = 0
        self.size = _regular_size(stream)

    def chunks(self, limit: int) -> Iterator[Chunk]:
        """The input in chunks of whole lines, about ``CHUNK_BYTES`` each; a line longer
        than ``limit`` is skipped and stands alone as a chunk without data."""
        read = self.stream.read
        first = 1
        rest = b""
        while block := read(CHUNK_BYTES):
            self.consumed += len(block)
            data = rest + block if rest else block
            cut = data.rfind(b"\n") + 1
            if cut == 0:  # no line end yet: a line longer than the block
                rest = data
                if len(rest) > limit:
                    rest = self._past_line_end()
                    yield Chunk(first, None)
                    first += 1
                continue
            body, rest = data[:cut], data[cut:]
            yield Chunk(first, body)
            first += body.count(b"\n")
        if rest:
            yield Chunk(first, rest)

    def _past_line_end(self) -> bytes:
        """Read past the end of the line being read; what follows it."""
        while block := self.stream.read(CHUNK_BYTES):
            self.consumed += len(block)
            end = block.find(b"\n")
            if end >= 0:
                return block[end + 1 :]
        return b""


def _regular_size(stream: IO[bytes]) -> int | None:
    """The size of a regular file (None for a pipe or a terminal): the bar's ETA needs it."""
    try:
        st = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


class _Totals:
    """The counts of the whole run, and the losses shown or held back by kind."""

    __slots__ = ("failed", "kinds", "read", "stats", "target", "written")

    def __init__(self, target: str | None) -> None:
        self.read = 0
        self.written = 0
        self.failed = 0
        self.stats = Stats.empty()
        self.kinds: dict[tuple[str, str], int] = {}
        self.target = target

    def take(self, done: Done, sink: Sink | None) -> None:
        """Write a chunk's output, report its failures and losses, add its counts."""
        if sink is not None and done.text:
            sink.write(done.text)
        for _n, text in done.failures:
            warn(f"error: {text}")
        for loss in done.losses:
            self._loss(loss)
        self.read += done.read
        self.written += done.written
        self.failed += len(done.failures)
        if done.stats is not None:
            self.stats = self.stats.add(done.stats)

    def _loss(self, loss: Loss) -> None:
        kind = (loss.what, loss.rule)
        seen = self.kinds.get(kind, 0)
        self.kinds[kind] = seen + 1
        if seen < SHOWN_PER_KIND:
            warn(f"warning: {self.target}: {loss}")

    def held_back(self) -> None:
        """A line for each kind of loss that had more than were shown."""
        for (what, rule), n in self.kinds.items():
            if n > SHOWN_PER_KIND:
                warn(
                    f"warning: {self.target}: {n - SHOWN_PER_KIND} more like this: {what} ({rule})"
                )


def _drive(args: argparse.Namespace, task: Task, totals: _Totals, sink: Sink | None) -> None:
    """Read the input in chunks, work on each (in a pool with ``--jobs``), take the results in order."""
    stream, name = _open_input(args.input, args.max_size)
    try:
        source = _Input(stream)
        bar = Bar.on_stderr(name, source.size)

        def take(done: Done) -> bool:
            totals.take(done, sink)
            if bar is not None:
                bar.update(totals.read, source.consumed)
            return done.stopped

        chunks = source.chunks(args.max_size)
        if args.jobs <= 1:
            for chunk in chunks:
                if take(work(task, chunk)):
                    break
        else:
            _in_pool(args.jobs, task, chunks, take)
        if bar is not None:
            bar.clear()
    finally:
        if stream is not getattr(sys.stdin, "buffer", None):
            stream.close()


def _in_pool(jobs: int, task: Task, chunks: Iterator[Chunk], take: Callable[[Done], bool]) -> None:
    """``work`` on each chunk in ``jobs`` processes, at most two chunks each in flight."""
    from concurrent.futures import ProcessPoolExecutor

    pending: deque[Future[Done]] = deque()
    with ProcessPoolExecutor(jobs) as pool:
        try:
            for chunk in chunks:
                pending.append(pool.submit(work, task, chunk))
                if len(pending) >= 2 * jobs and take(pending.popleft().result()):
                    return
            while pending:
                if take(pending.popleft().result()):
                    return
        finally:
            for future in pending:
                future.cancel()


def _summary(totals: _Totals, name: str, done_word: str, done: int) -> int:
    totals.held_back()
    warn(f"{name}: {totals.read} read, {done} {done_word}, {totals.failed} failed")
    return 1 if totals.failed else 0


def _task(args: argparse.Namespace, command: str, source: str, target: str | None = None) -> Task:
    return Task(
        command,
        source,
        target,
        Options(getattr(args, "url", None), stamps=source == "canonical"),
        strict=getattr(args, "strict", False),
        policy=getattr(args, "policy", "strict"),
        stop=args.on_error == "stop",
        max_size=args.max_size,
    )


def convert(args: argparse.Namespace) -> int:
    """``convert --records``: each line of IN as a line of the target format."""
    totals = _Totals(args.to_format)
    task = _task(args, "convert", args.from_format, args.to_format)
    with Sink(args.output) as sink:
        _drive(args, task, totals, sink)
    return _summary(totals, _name(args), "written", totals.written)


def validate(args: argparse.Namespace) -> int:
    """``validate --records``: each line read and its conversation checked against the policy."""
    totals = _Totals(None)
    _drive(args, _task(args, "validate", args.format), totals, None)
    valid = totals.read - totals.failed
    if not totals.failed:
        say(f"{_name(args)}: ok ({totals.read} records, {args.policy} ordering)")
    return _summary(totals, _name(args), "valid", valid)


def stats(args: argparse.Namespace) -> int:
    """``stats --records``: records, messages per role, tool calls per name, estimated tokens."""
    totals = _Totals(None)
    _drive(args, _task(args, "stats", args.format), totals, None)
    counted = totals.read - totals.failed
    figures = totals.stats
    if args.json:
        report = {
            "records": counted,
            "records_with_tools": figures.with_tools,
            "messages": sum(figures.messages.values()),
            "roles": figures.messages,
            "tool_calls": dict(sorted(figures.tool_calls.items())),
            "estimated_tokens": figures.tokens,
        }
        sys.stdout.write(json_printable(pretty(report)) + "\n")
    else:
        _table(counted, figures)
    return _summary(totals, _name(args), "counted", counted)


def _table(records: int, figures: Stats) -> None:
    rows: list[tuple[str, int]] = [("records", records), ("  with tools", figures.with_tools)]
    rows.append(("messages", sum(figures.messages.values())))
    rows += [(f"  {role}", n) for role, n in figures.messages.items() if n]
    rows.append(("tool calls", sum(figures.tool_calls.values())))
    rows += [(f"  {name}", n) for name, n in sorted(figures.tool_calls.items())]
    rows.append(("estimated tokens", figures.tokens))
    width = max(len(label) for label, _ in rows)
    digits = max(len(str(n)) for _, n in rows)
    for label, n in rows:
        say(f"{label:<{width}}  {n:>{digits}}")


def _name(args: argparse.Namespace) -> str:
    return "<stdin>" if args.input == "-" else str(args.input)
