"""`make bench`: every benchmark, printed as a table and written as JSON.

Each row is (what, value, baseline, baseline description); the ratio is value /
baseline measured in the same run, so figures compare across machines.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# MESSAGES_BENCH_ROOT: measure the package of another checkout (benchmarks/versus.py)
sys.path.insert(0, os.environ.get("MESSAGES_BENCH_ROOT") or str(HERE.parent))

SUITES = [
    ("core", "bench_core", "bench_core"),
    ("codec", "bench_codec", "bench_codec"),
    ("history", "bench_history", "bench_history"),
    ("providers", "bench_providers", "bench_providers"),
    ("providers2", "bench_providers2", "bench_providers2"),
    ("bedrock", "bench_bedrock", "bench_bedrock"),
    ("cohere", "bench_cohere", "bench_cohere"),
    ("gemini_interactions", "bench_gemini_interactions", "bench_gemini_interactions"),
    ("otel", "bench_otel", "bench_otel"),
    ("responses", "bench_responses", "bench_responses"),
    ("storage", "bench_storage", "bench_storage"),
    ("sqlite-vs-postgres", "bench_storage", "bench_sqlite_vs_postgres"),
    ("bounds", "bench_bounds", "bench_bounds"),
    ("tools", "bench_tools", "bench_tools"),
    ("merge", "bench_merge", "bench_merge"),
    ("records", "bench_records", "bench_records"),
    ("transcript", "bench_transcript", "bench_transcript"),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", default="", help="write the results here as JSON")
    parser.add_argument("--only", nargs="*", default=[], help="run only these suites")
    args = parser.parse_args()
    results: dict[str, object] = {
        "python": sys.version.split()[0],
        "machine": f"{platform.machine()} {platform.system()}",
        "suites": {},
    }
    print(f"Python {results['python']} on {results['machine']}")
    for name, module, fn in SUITES:
        if args.only and name not in args.only:
            continue
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name == module:
                continue
            raise
        rows = getattr(mod, fn)()
        print(f"\n## {name}")
        print(f"{'what':<62} {'value':>12} {'baseline':>12} {'ratio':>7}  baseline is")
        out = []
        for row in rows:
            what, value, base, desc = _norm(row)
            ratio = value / base if base else float("nan")
            print(f"{what:<62} {value:>12.1f} {base:>12.1f} {ratio:>7.2f}  {desc}")
            out.append(
                {
                    "what": what,
                    "value": value,
                    "baseline": base,
                    "ratio": ratio,
                    "baseline_is": desc,
                }
            )
        results["suites"][name] = out  # type: ignore[index]
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


def _norm(row: tuple[object, ...]) -> tuple[str, float, float, str]:
    if len(row) == 4:
        return str(row[0]), float(row[1]), float(row[2]), str(row[3])  # type: ignore[arg-type]
    if len(row) == 3:
        return str(row[0]), float(row[1]), float(row[2]), ""  # type: ignore[arg-type]
    return str(row[0]), float(row[1]), 0.0, ""  # type: ignore[arg-type]


if __name__ == "__main__":
    raise SystemExit(main())
