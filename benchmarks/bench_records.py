"""Datasets on the command line: ``convert --records`` beside its floor, with one and two jobs.

The dataset is ShareGPT JSON Lines as LLaMA-Factory reads them: a system prompt and
one to four exchanges of a human question and a model answer (three to eight
sentences, as long as the answers of LLaMA-Factory's glaive_toolcall demo); one record
in five then calls a tool (a ``function_call`` turn, its ``observation``, the answer)
and lists its tools as JSON text. Each run is a fresh interpreter (``python -c``) that times
only its own work, as ``bench_transcript`` does:

* the floor: ``json.loads`` and ``json.dumps`` of every line, written to a file;
* ``convert --records --from sharegpt --to openai-batch`` with ``--jobs 1``, and
  with ``--jobs 2`` (the pool's start included), whose output must be the same bytes.

``make bench`` converts 50,000 records; ``python benchmarks/bench_records.py
--records N`` another count.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

Row = tuple[str, float, float, str]

ROOT = Path(__file__).resolve().parent.parent

_SYSTEM = "You are a helpful assistant. Answer in a few sentences."
_QUESTIONS = (
    "Can you explain the difference between machine learning and deep learning?",
    "How does a blockchain keep its record of transactions safe from tampering?",
    "What were the main causes of the fall of the Western Roman Empire?",
    "Write a short definition of photosynthesis for a ten-year-old.",
)
#: Sentences an answer is made of: answers of three to eight sentences (about 400 to
#: 1,100 characters), the length of the answers in LLaMA-Factory's glaive_toolcall demo.
_SENTENCES = (
    "The short answer is that it depends on the data you have and on what you want to predict.",
    "In the first approach the rules are written by hand, while in the second they are learned from examples.",
    "Each layer of the network transforms its input a little, and many layers together can model complex patterns.",
    "Historians usually point to a mix of economic, political and military causes rather than a single event.",
    "Plants take in light, water and carbon dioxide, and they give off oxygen while storing energy as sugar.",
    "Every block holds a hash of the block before it, so changing an old record would break the whole chain.",
    "In practice you would start with a small experiment, measure the result, and only then scale it up.",
    "That is why the method is popular for images, speech and text, where hand-written rules work poorly.",
)
_TOOLS = json.dumps(
    [
        {
            "name": "calculate_area",
            "description": "Calculate the area of a given shape",
            "parameters": {
                "type": "object",
                "properties": {
                    "shape": {"type": "string", "description": "The shape"},
                    "dimensions": {"type": "array", "items": {"type": "number"}},
                },
                "required": ["shape", "dimensions"],
            },
        }
    ]
)


def _record(rng: random.Random) -> dict[str, object]:
    turns = [{"from": "system", "value": _SYSTEM}]
    for _ in range(rng.randint(1, 4)):
        turns.append({"from": "human", "value": rng.choice(_QUESTIONS)})
        answer = " ".join(rng.choice(_SENTENCES) for _ in range(rng.randint(3, 8)))
        turns.append({"from": "gpt", "value": answer})
    if rng.random() >= 0.2:
        return {"conversations": turns}
    side = rng.randint(2, 9)
    call = {"name": "calculate_area", "arguments": {"shape": "square", "dimensions": [side]}}
    turns += [
        {"from": "human", "value": f"And the area of a square with side {side}?"},
        {"from": "function_call", "value": json.dumps(call)},
        {"from": "observation", "value": json.dumps({"area": side * side})},
        {"from": "gpt", "value": f"The area is {side * side} square units."},
    ]
    return {"conversations": turns, "tools": _TOOLS}


def write_dataset(path: Path, records: int) -> int:
    """Write ``records`` ShareGPT lines to ``path``; the file's size in bytes."""
    rng = random.Random(28)
    with path.open("w", encoding="utf-8") as f:
        for _ in range(records):
            f.write(json.dumps(_record(rng)) + "\n")
    return path.stat().st_size


_PROGRAM = """\
import resource, sys, time
{setup}
def cpu():
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
t0, c0 = time.perf_counter(), cpu()
{work}
print(time.perf_counter() - t0, cpu() - c0)
"""

_FLOOR = """\
with open(sys.argv[1], "rb") as f, open(sys.argv[2], "w", encoding="utf-8") as out:
    for line in f:
        out.write(dumps(loads(line)) + "\\n")
"""

_CLI = "status = main(sys.argv[3:])\nassert status == 0, status"
_WORKS = {
    "floor": ("from json import dumps, loads", _FLOOR),
    "cli": ("from messages._cli import main", _CLI),
}
_CONVERT = ["convert", "--records", "IN", "--from", "sharegpt", "--to", "openai-batch", "-o", "OUT"]
#: The runs: (label, work, command line, output file name).
RUNS: tuple[tuple[str, str, list[str], str], ...] = (
    ("floor", "floor", [], "floor.jsonl"),
    ("jobs 1", "cli", [*_CONVERT, "--jobs", "1"], "one.jsonl"),
    ("jobs 2", "cli", [*_CONVERT, "--jobs", "2"], "two.jsonl"),
)


def measure(work: str, path: Path, out: Path, argv: list[str]) -> tuple[float, float]:
    """Seconds of one run of ``work`` in a fresh interpreter: wall clock, and CPU (its
    workers' included), which a machine busy with other work changes less."""
    setup, body = _WORKS[work]
    args = [a.replace("IN", str(path)).replace("OUT", str(out)) for a in argv]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", _PROGRAM.format(setup=setup, work=body), str(path), str(out), *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode:
        raise RuntimeError(f"{work} {argv} failed: {done.stderr}")
    wall, cpu = done.stdout.split()[-2:]
    return float(wall), float(cpu)


def run(records: int, repeat: int = 3) -> tuple[int, dict[str, float], dict[str, float]]:
    """The file's size, and the best wall clock and CPU time of each run (interleaved,
    ``repeat`` rounds)."""
    best: dict[str, float] = {}
    cpu: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sharegpt.jsonl"
        size = write_dataset(path, records)
        for _ in range(repeat):
            for label, work, argv, name in RUNS:
                seconds, used = measure(work, path, Path(tmp) / name, argv)
                best[label] = min(best.get(label, float("inf")), seconds)
                cpu[label] = min(cpu.get(label, float("inf")), used)
        if not filecmp.cmp(Path(tmp) / "one.jsonl", Path(tmp) / "two.jsonl", shallow=False):
            raise RuntimeError("--jobs 2 wrote other bytes than --jobs 1")
    return size, best, cpu


def rows(records: int) -> list[Row]:
    """The suite's rows: each run beside the floor (wall clock, and CPU for ``--jobs 1``),
    and the two jobs' speed-up."""
    _, best, cpu = run(records)
    what = f"convert --records sharegpt -> openai-batch, {records:,} records"
    floor = "json loads+dumps of every line"
    return [
        (f"{what}, --jobs 1 (ms)", best["jobs 1"] * 1e3, best["floor"] * 1e3, floor),
        (f"{what}, --jobs 1 (CPU ms)", cpu["jobs 1"] * 1e3, cpu["floor"] * 1e3, f"{floor} (CPU)"),
        (f"{what}, --jobs 2 (ms)", best["jobs 2"] * 1e3, best["floor"] * 1e3, floor),
        (
            f"{what}, --jobs 2 (ms), beside --jobs 1",
            best["jobs 2"] * 1e3,
            best["jobs 1"] * 1e3,
            "--jobs 1",
        ),
    ]


def bench_records() -> list[Row]:
    """``make bench``: the rows for 50,000 records."""
    return rows(50_000)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    size, best, cpu = run(args.records, args.repeat)
    print(f"{args.records:,} ShareGPT records, {size / (1 << 20):.1f} MiB")
    for label, _, _, _ in RUNS:
        print(
            f"  {label:<8} {best[label]:7.2f} s  {best[label] / best['floor']:5.2f}x the floor"
            f"   CPU {cpu[label]:7.2f} s  {cpu[label] / cpu['floor']:5.2f}x"
        )
    print(f"  --jobs 2 is {best['jobs 1'] / best['jobs 2']:.2f}x faster than --jobs 1 (same bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
