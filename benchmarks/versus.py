"""Before and after, side by side: the same benchmarks over two checkouts of the package.

``python benchmarks/versus.py BASE [--only core codec ...] [--rounds 3]`` runs
``benchmarks/run.py`` of this checkout alternately against the package in ``BASE``
(for example a ``git worktree add ../base <commit>``) and against this checkout's
own, keeps the best value of each row over the rounds, and prints each row's
value before, after and their ratio (after / before). Rounds alternate their
order, so a machine that slows down during the run hits both sides alike.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run_once(root: Path, only: list[str]) -> dict[tuple[str, str], float]:
    """One run of run.py with the package of ``root``: {(suite, what): value}."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.json"
        env = dict(os.environ, MESSAGES_BENCH_ROOT=str(root))
        cmd = [sys.executable, str(HERE / "run.py"), "--json", str(out)]
        if only:
            cmd += ["--only", *only]
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
        data = json.loads(out.read_text(encoding="utf-8"))
    return {
        (suite, row["what"]): float(row["value"])
        for suite, rows in data["suites"].items()
        for row in rows
    }


def main() -> int:
    """Print the rows of both checkouts and their ratios."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("base", type=Path, help="root of the checkout to compare against")
    parser.add_argument("--only", nargs="*", default=[], help="suites (as for run.py)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", default="", help="write the rows here as JSON")
    args = parser.parse_args()
    sides = {"before": args.base.resolve(), "after": HERE.parent}
    best: dict[str, dict[tuple[str, str], float]] = {"before": {}, "after": {}}
    for r in range(args.rounds):
        order = ("before", "after") if r % 2 == 0 else ("after", "before")
        for side in order:
            for key, value in run_once(sides[side], args.only).items():
                best[side][key] = min(best[side].get(key, value), value)
    rows = []
    print(f"{'suite':<10} {'what':<66} {'before':>10} {'after':>10} {'ratio':>6}")
    for key, after in best["after"].items():
        before = best["before"].get(key)
        if before is None:
            continue
        ratio = after / before if before else float("nan")
        rows.append(
            {"suite": key[0], "what": key[1], "before": before, "after": after, "ratio": ratio}
        )
        print(f"{key[0]:<10} {key[1][:66]:<66} {before:>10.1f} {after:>10.1f} {ratio:>6.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
