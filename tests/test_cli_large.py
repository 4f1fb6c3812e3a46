"""Large input: JSON Lines are streamed in constant memory, with progress on a terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_support import (
    env,
    python,
    subprocess_cli,
)

# --------------------------------------------------------------------------- large input

BIG_LINES = 50_000
_FILLER = "It is 27 degrees and partly cloudy, with a light breeze from the river. " * 8


def big_jsonl(path: Path, lines: int = BIG_LINES) -> Path:
    """A long valid conversation in canonical JSON Lines: system, then 4-message turns."""
    with path.open("w", encoding="utf-8") as f:
        f.write(json.dumps({"role": "system", "content": "You are a helpful assistant."}) + "\n")
        for i in range((lines - 1) // 4):
            args = json.dumps({"n": i, "q": "weather in Lisbon"})
            call = {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": "lookup", "arguments": args},
            }
            f.write(json.dumps({"role": "user", "content": f"Question {i}: {_FILLER}"}) + "\n")
            f.write(json.dumps({"role": "assistant", "tool_calls": [call]}) + "\n")
            f.write(
                json.dumps({"role": "tool", "tool_call_id": f"call_{i}", "content": _FILLER}) + "\n"
            )
            f.write(json.dumps({"role": "assistant", "content": f"Answer {i}: {_FILLER}"}) + "\n")
    return path  # fmt: skip


# Each command runs once on a small file first, so that imports and warm caches
# are not counted; then the peak of traced memory is taken per command.
_MEASURE = """\
import contextlib, io, sys, tracemalloc
from messages._cli import main
small, big, commands = sys.argv[1], sys.argv[2], {commands!r}
for argv in commands:
    with contextlib.redirect_stdout(io.StringIO()):
        assert main([small if a == "IN" else a for a in argv]) == 0
tracemalloc.start()
for argv in commands:
    tracemalloc.reset_peak()
    with contextlib.redirect_stdout(io.StringIO()) as out:
        status = main([big if a == "IN" else a for a in argv])
    print(argv[0], status, tracemalloc.get_traced_memory()[1], out.getvalue().count("\\n"))
"""


def test_large_jsonl_streams_without_loading_the_file(tmp_path: Path) -> None:
    path = big_jsonl(tmp_path / "big.jsonl")
    small = big_jsonl(tmp_path / "small.jsonl", 9)
    size = path.stat().st_size
    out = tmp_path / "out.jsonl"
    commands = [
        ["convert", "IN", "--to", "canonical", "--output-format", "jsonl", "-o", str(out)],
        ["validate", "IN"],
        ["stats", "IN", "--json"],
    ]
    script = _MEASURE.format(commands=commands)
    done = python("-c", script, str(small), str(path))
    assert done.returncode == 0, done.stderr
    results = [line.split() for line in done.stdout.splitlines()]
    assert [(name, status) for name, status, _, _ in results] == [
        ("convert", "0"), ("validate", "0"), ("stats", "0")
    ]  # fmt: skip
    for name, _, peak, _ in results:
        assert int(peak) < size / 10, (name, peak, size)
    messages = BIG_LINES - (BIG_LINES - 1) % 4
    with out.open() as f:
        assert sum(1 for _ in f) == messages
    assert results[1][3] == "1"  # validate printed its one "ok" line


def on_a_terminal(*argv: str) -> tuple[int, bytes, bytes]:
    """Run ``python -m messages ARGV`` with stderr on a pseudo-terminal: (status, stdout, stderr)."""
    import pty

    main_fd, child_fd = pty.openpty()
    with subprocess.Popen(
        [sys.executable, "-m", "messages", *argv],
        stdout=subprocess.PIPE,
        stderr=child_fd,
        env=env(),
    ) as proc:
        os.close(child_fd)
        shown = b""
        while True:
            try:
                chunk = os.read(main_fd, 4096)
            except OSError:  # EIO once the child has closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        assert proc.stdout is not None
        out = proc.stdout.read()
        status = proc.wait(timeout=60)
    os.close(main_fd)
    return status, out, shown


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_progress_is_shown_only_on_a_terminal(tmp_path: Path) -> None:
    path = big_jsonl(tmp_path / "big.jsonl", 40_000)
    status, table, shown = on_a_terminal("stats", str(path))
    assert status == 0
    assert f"{path}: 16,384 lines".encode() in shown
    assert f"{path}: 39,997 lines".encode() in shown
    assert shown.endswith(b"\r")  # the progress line is erased at the end
    assert b"messages" in table
    # Not a terminal: no progress at all.
    done = subprocess_cli("stats", str(path))
    assert (done.returncode, done.stderr) == (0, "")


_MEASURE_ALL = """\
import contextlib, sys, tracemalloc
from messages._cli import main

class Count:  # stderr that keeps nothing, only counts lines
    lines = 0
    def write(self, text):
        self.lines += text.count("\\n")
    def flush(self):
        pass

small, big = sys.argv[1], sys.argv[2]
with contextlib.redirect_stderr(Count()):
    main(["validate", small, "--all"])  # imports and warm caches are not counted
tracemalloc.start()
with contextlib.redirect_stderr(Count()) as err:
    status = main(["validate", big, "--all"])
print(status, tracemalloc.get_traced_memory()[1], err.lines)
"""


def test_validate_all_of_a_long_same_role_run_streams(tmp_path: Path) -> None:
    # --all used to decode everything, then run repair() over it, whose merging of a
    # same-role run was quadratic: 40,000 user lines took minutes and all the file.
    def users(path: Path, n: int) -> Path:
        with path.open("w", encoding="utf-8") as f:
            f.write(json.dumps({"role": "system", "content": "s"}) + "\n")
            for i in range(n):
                f.write(json.dumps({"role": "user", "content": f"Question {i}: {_FILLER}"}) + "\n")
        return path

    path = users(tmp_path / "users.jsonl", 40_000)
    small = users(tmp_path / "small.jsonl", 3)
    done = python("-c", _MEASURE_ALL, str(small), str(path))
    assert done.returncode == 0, done.stderr
    status, peak, lines = map(int, done.stdout.split())
    assert (status, lines) == (1, 40_000)  # 39,999 alternation problems and the count
    assert peak < path.stat().st_size / 10


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_problems_found_while_progress_shows_get_lines_of_their_own(tmp_path: Path) -> None:
    path = big_jsonl(tmp_path / "big.jsonl", 40_000)
    with path.open("a", encoding="utf-8") as f:  # two users in a row after the last progress
        f.write(json.dumps({"role": "user", "content": "a"}) + "\n")
        f.write(json.dumps({"role": "user", "content": "b"}) + "\n")
    status, _, shown = on_a_terminal("validate", str(path), "--all")
    assert status == 1
    assert f"{path}: 32,768 lines".encode() in shown
    (line,) = [line for line in shown.split(b"\r\n") if b"[alternation]" in line]
    # the progress line was erased first: after the last carriage return, only the problem
    assert line.rsplit(b"\r", 1)[-1].startswith(b"line 39999: [alternation] "), line
    assert b"32,768 lines\r " in line  # it was on the screen, and erased
