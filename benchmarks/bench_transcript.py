"""One long transcript on the command line: each command beside its floor, and its peak memory.

The transcript is canonical JSON Lines as the library writes it (``dump_jsonl``:
every message with its id and time): a system prompt, then turns of a user
question, an assistant calling two tools, the two results and an answer. Each
command runs in a fresh interpreter (``python -c``) that times only the
command's own ``main([...])`` call, in CPU time (user and system: a busy machine
slows it less than the wall clock), and reports its peak resident memory, as do
the floors, so that every row is measured the same way in the same run:

* ``validate`` and ``stats`` beside ``json.loads`` of every line;
* ``convert --to canonical`` (JSON Lines out) beside ``json.loads`` and
  ``json.dumps`` of every line, written to a file;
* ``convert --to openai`` (one request body) and ``repair`` beside the same floor;
* ``json.loads`` and ``from_dict`` of every line (the decoding every command
  does) beside the first floor, to show how much of each ratio that takes.

The peak is the process's maximum resident set (``VmHWM``, Linux), as a multiple
of the file's size; it includes the interpreter itself.

``make bench`` uses a 50,000-line transcript; ``python benchmarks/bench_transcript.py
--lines 200000`` gives the issue's size.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

Row = tuple[str, float, float, str]

#: The checkout whose package is measured (MESSAGES_BENCH_ROOT: another one, as in run.py).
ROOT = Path(os.environ.get("MESSAGES_BENCH_ROOT") or Path(__file__).resolve().parent.parent)

_SYSTEM = "You are a careful travel assistant. Answer briefly and cite the tool results."
_QUESTION = "What is the weather like in {city} and in {other} this weekend? I am packing for both."
_RESULT = "{city}: {t} degrees, partly cloudy, light wind from the west, 10% chance of rain."
_ANSWER = (
    "{city} will be around {t} degrees and partly cloudy, so a light jacket will do; "
    "in {other} expect {u} degrees with a small chance of rain: pack an umbrella."
)
_CITIES = ("Lisbon", "Kyoto", "Montréal", "São Paulo", "Zürich", "Reykjavík", "Nairobi")


def _turn(turn: int) -> list[dict[str, Any]]:
    """The five messages of one turn: question, two calls, two results, answer."""
    city, other = _CITIES[turn % 7], _CITIES[(turn + 3) % 7]
    t, u = 10 + turn % 20, 15 + turn % 13
    calls = [
        {
            "id": f"call_{turn}_{k}",
            "type": "function",
            "function": {"name": "get_weather", "arguments": json.dumps({"city": c})},
        }
        for k, c in enumerate((city, other))
    ]
    results = [
        {
            "role": "tool",
            "content": _RESULT.format(city=c, t=degrees),
            "tool_call_id": call["id"],
            "tool_name": "get_weather",
        }
        for c, degrees, call in ((city, t, calls[0]), (other, u, calls[1]))
    ]
    return [
        {"role": "user", "content": _QUESTION.format(city=city, other=other)},
        {"role": "assistant", "tool_calls": calls},
        *results,
        {"role": "assistant", "content": _ANSWER.format(city=city, other=other, t=t, u=u)},
    ]


def write_transcript(path: Path, lines: int) -> int:
    """Write a transcript of ``lines`` canonical JSON Lines to ``path``; its size in bytes."""
    stamp = "2026-01-02T03:04:05.000006Z"
    with path.open("w", encoding="utf-8") as f:
        row: dict[str, Any] = {"id": "m0", "role": "system", "content": _SYSTEM}
        f.write(json.dumps({**row, "created_at": stamp}, separators=(",", ":")) + "\n")
        n = 1
        for turn in itertools.count():
            for row in _turn(turn):
                if n == lines:
                    return path.stat().st_size
                line = {"id": f"msg_{n:08d}", **row, "created_at": stamp}
                f.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
                n += 1
    raise AssertionError("unreachable")


# The peak is the kernel's high-water mark of this process's resident memory
# (VmHWM): unlike ru_maxrss, it does not carry over the parent's peak across exec.
_PROGRAM = """\
import sys, time
{setup}
t0 = time.process_time()
{work}
t = time.process_time() - t0
with open("/proc/self/status") as status:
    peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
print(t, peak * 1024)
"""

_LOADS = """\
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        loads(line)
"""

_LOADS_DUMPS = """\
with open(sys.argv[1], encoding="utf-8") as f, open(sys.argv[2], "w", encoding="utf-8") as out:
    for line in f:
        out.write(dumps(loads(line)) + "\\n")
"""

_DECODE = """\
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        from_dict(loads(line))
"""

_CLI = "status = main(sys.argv[3:])\nassert status == 0, status"

#: Each measurement: the setup (not timed) and the timed work.
WORKS: dict[str, tuple[str, str]] = {
    "loads": ("from json import loads", _LOADS),
    "loads+dumps": ("from json import dumps, loads", _LOADS_DUMPS),
    "loads+from_dict": ("from json import loads\nfrom messages import from_dict", _DECODE),
    "cli": ("from messages._cli import main", _CLI),
}

#: The floors, and the decoding every command does (``from_dict`` of every line).
FLOORS = ("loads", "loads+dumps", "loads+from_dict")

#: The commands measured: (label, command line with IN and OUT, floor).
COMMANDS: tuple[tuple[str, list[str], str], ...] = (
    ("validate", ["validate", "IN"], "loads"),
    ("stats", ["stats", "IN"], "loads"),
    (
        "convert --to canonical",
        ["convert", "IN", "--to", "canonical", "--output-format", "jsonl", "-o", "OUT"],
        "loads+dumps",
    ),
    ("convert --to openai", ["convert", "IN", "--to", "openai", "-o", "OUT"], "loads+dumps"),
    ("repair", ["repair", "IN", "-o", "OUT"], "loads+dumps"),
)


def measure(work: str, path: Path, out: Path, argv: Sequence[str] = ()) -> tuple[float, int]:
    """Seconds and peak resident bytes of one run of ``work`` in a fresh interpreter."""
    setup, body = WORKS[work]
    program = _PROGRAM.format(setup=setup, work=body)
    args = [a.replace("IN", str(path)).replace("OUT", str(out)) for a in argv]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", program, str(path), str(out), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,  # python -c puts the working directory first on sys.path
        check=False,
    )
    if done.returncode:
        raise RuntimeError(f"{work} {argv} failed: {done.stderr}")
    seconds, peak = done.stdout.split()[-2:]
    return float(seconds), int(peak)


def run(lines: int, repeat: int = 2) -> tuple[int, dict[str, tuple[float, int]]]:
    """The file's size, and the best time and highest peak of each floor and command."""
    best: dict[str, tuple[float, int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        path, out = Path(tmp) / "transcript.jsonl", Path(tmp) / "out"
        size = write_transcript(path, lines)
        jobs: list[tuple[str, str, Sequence[str]]] = [(w, w, ()) for w in FLOORS]
        jobs += [(label, "cli", argv) for label, argv, _ in COMMANDS]
        for _ in range(repeat):  # interleaved: a slower moment touches every row alike
            for label, work, argv in jobs:
                seconds, peak = measure(work, path, out, argv)
                old = best.get(label, (float("inf"), 0))
                best[label] = (min(old[0], seconds), max(old[1], peak))
    return size, best


def rows(lines: int) -> list[Row]:
    """The suite's rows: milliseconds beside the floor, and peak memory beside the file."""
    size, best = run(lines)
    out: list[Row] = [
        (
            f"json loads + from_dict, {lines:,} lines (ms)",
            best["loads+from_dict"][0] * 1e3,
            best["loads"][0] * 1e3,
            "json loads of every line",
        )
    ]
    for label, _, floor in COMMANDS:
        out.append(
            (
                f"{label}, {lines:,} lines (ms)",
                best[label][0] * 1e3,
                best[floor][0] * 1e3,
                f"json {floor} of every line",
            )
        )
    mib = 1 << 20
    for label, _, _ in COMMANDS:
        out.append((f"{label}, peak RSS (MiB)", best[label][1] / mib, size / mib, "the file"))
    return out


def bench_transcript() -> list[Row]:
    """``make bench``: the rows for a 50,000-line transcript."""
    return rows(50_000)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    size, best = run(args.lines, args.repeat)
    print(f"{args.lines:,} lines, {size / (1 << 20):.1f} MiB")
    for label in FLOORS:
        seconds = best[label][0]
        print(f"  {label:<32} {seconds:7.2f} s  {seconds / best['loads'][0]:5.2f}x loads")
    for label, _, floor in COMMANDS:
        seconds, peak = best[label]
        ratio = seconds / best[floor][0]
        print(
            f"  {label:<32} {seconds:7.2f} s  {ratio:5.2f}x {floor:<12}"
            f"  peak {peak >> 20:5d} MiB = {peak / size:5.2f}x the file"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
