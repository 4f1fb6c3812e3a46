"""Render `make bench` and `make bench-peers` JSON as the tables of docs/performance.md.

    python benchmarks/readme_tables.py benchmarks/results.json benchmarks/peers.json

prints Markdown; ``--write docs/performance.md`` replaces the text between the
``<!-- perf:start -->`` and ``<!-- perf:end -->`` markers instead.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

START, END = "<!-- perf:start -->", "<!-- perf:end -->"

# The rows of `make bench` worth a place in docs/performance.md, by suite.
PICK = {
    "core": None,
    "codec": None,
    "history": None,
    "providers": ("format_request", "parse_response", "stream per"),
    "providers2": None,
    "storage": ("save 1,000", "load 1,000", "append + save at"),
    "sqlite-vs-postgres": None,
    "bounds": None,
}


def _num(v: float | None, digits: int = 0) -> str:
    if v is None:
        return "n/a"
    return f"{v:,.{digits}f}"


def peers_table(data: dict[str, Any]) -> str:
    """The side-by-side table of `make bench-peers`."""
    rows = data["rows"]
    names = list(rows[0]["values"])
    head = (
        "| operation (ns unless noted) | " + " | ".join(names) + " | vs fastest peer | vs floor |"
    )
    out = [head, "|---" * (len(names) + 3) + "|"]
    for r in rows:
        cells = " | ".join(
            _num(r["values"].get(n), 1 if "import" in r["operation"] else 0) for n in names
        )
        out.append(
            f"| {r['operation']} | {cells} | {_num(r['ratio_to_fastest_peer'], 2)} | {_num(r['ratio_to_floor'], 2)} |"
        )
    return "\n".join(out)


def bench_table(data: dict[str, Any]) -> str:
    """The `make bench` rows, each beside its baseline."""
    out = ["| suite | what | value | baseline | ratio | baseline is |", "|---|---|---|---|---|---|"]
    for suite, rows in data["suites"].items():
        keep = PICK.get(suite)
        for r in rows:
            if keep is not None and not r["what"].startswith(keep):
                continue
            out.append(
                f"| {suite} | {r['what']} | {_num(r['value'], 1)} | {_num(r['baseline'], 1)} "
                f"| {_num(r['ratio'], 2)} | {r['baseline_is']} |"
            )
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("bench")
    parser.add_argument("peers")
    parser.add_argument("--write", default="")
    args = parser.parse_args()
    bench = json.loads(Path(args.bench).read_text(encoding="utf-8"))
    peers = json.loads(Path(args.peers).read_text(encoding="utf-8"))
    text = (
        f"Side by side (`make bench-peers`, Python {peers['python']}; lower is better):\n\n"
        f"{peers_table(peers)}\n\n"
        f"Every `make bench` figure beside its same-run baseline (ns unless noted):\n\n"
        f"{bench_table(bench)}"
    )
    if not args.write:
        print(text)
        return 0
    path = Path(args.write)
    readme = path.read_text(encoding="utf-8")
    before, _, rest = readme.partition(START)
    _, _, after = rest.partition(END)
    path.write_text(f"{before}{START}\n{text}\n{END}{after}", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
