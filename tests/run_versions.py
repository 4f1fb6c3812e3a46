"""Run the test suite on every CPython the package admits that this machine has (``make versions``).

Usage: ``python tests/run_versions.py [--dev PYTHON] [--jobs N] [-- PYTEST-ARGS...]``
from the clone's root. The admitted versions are those ``requires-python`` in
``pyproject.toml`` admits, from its lower bound up to ``NEWEST``. ``--dev`` (the
dev venv's interpreter) runs the suite for its own version; each other admitted
version is looked for as ``python3.N`` on PATH and in ``~/.pyenv/versions/*/bin``
(a pyenv shim that does not run is passed over), gets a venv of its own
(``.venv-3.N``, with the dev extra installed, again when ``pyproject.toml``
changed) and runs the suite there. Up to ``--jobs`` suites run at once, each
writing its output to a log file; a failed run's output is printed in full.

At the end every admitted version is listed as passed, failed or missing. A
missing version is not a failure; a failed run (or a venv that cannot be
installed) is: the exit status is then 1.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "pyproject.toml"
_LOWER_BOUND = re.compile(r">=\s*3\.(\d+)")
#: The newest CPython 3 minor released: raise it (and add its classifier) when one comes out.
NEWEST = 14
#: How the suite's summary names the PostgreSQL server it used (tests/conftest.py).
_POSTGRES_SAID = "PostgreSQL tests ran against:"
_PROBE = "import platform, sys; print(platform.python_implementation(), *sys.version_info[:3])"


@dataclass
class Run:
    """One version's suite: where its interpreter is, and how its run went."""

    minor: int
    python: str | None = None  # None: not found on this machine
    venv_python: str | None = None
    patch: int = 0
    log: Path | None = None
    status: str = "missing"
    seconds: float = 0.0
    postgres: str = ""  # the server the PostgreSQL tests ran against, as the run said

    @property
    def name(self) -> str:
        return f"3.{self.minor}"


def admitted_minors() -> list[int]:
    """The 3.N minors ``requires-python`` admits, up to ``NEWEST``, in order."""
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    match = _LOWER_BOUND.fullmatch(project["requires-python"].strip())
    if match is None:
        raise SystemExit(f"requires-python: expected '>=3.N', got {project['requires-python']!r}")
    return list(range(int(match.group(1)), NEWEST + 1))


def probe(python: str) -> tuple[int, int] | None:
    """``(minor, patch)`` of a CPython 3 interpreter that runs; None for anything else."""
    try:
        done = subprocess.run(
            [python, "-c", _PROBE], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    words = done.stdout.split()
    if done.returncode != 0 or len(words) != 4 or words[0] != "CPython" or words[1] != "3":
        return None
    return int(words[2]), int(words[3])


def find_python(minor: int) -> tuple[str, int] | None:
    """An interpreter of CPython 3.``minor`` (PATH first, then pyenv), with its patch level."""
    candidates: list[str] = []
    on_path = shutil.which(f"python3.{minor}")
    if on_path is not None:
        candidates.append(on_path)
    pattern = os.path.expanduser(f"~/.pyenv/versions/3.{minor}*/bin/python3.{minor}")
    candidates += sorted(glob.glob(pattern), reverse=True)
    for python in candidates:
        found = probe(python)
        if found is not None and found[0] == minor:
            return python, found[1]
    return None


def prepare_venv(run: Run) -> bool:
    """Create ``.venv-3.N`` and install the dev extra when needed; False when that fails."""
    assert run.python is not None
    venv = ROOT / f".venv-{run.name}"
    python = venv / "bin" / "python"
    stamp = venv / ".installed-dev"
    run.venv_python = str(python)
    if stamp.exists() and stamp.stat().st_mtime >= PYPROJECT.stat().st_mtime:
        return True
    print(f"[{run.name}] installing the dev extra into {venv.name} ...", flush=True)
    steps = [
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "-e", ".[dev]"]
    ]
    if not python.exists():
        steps.insert(0, [run.python, "-m", "venv", str(venv)])
    for step in steps:
        if subprocess.run(step, cwd=ROOT, check=False).returncode != 0:
            print(f"[{run.name}] FAILED: {' '.join(step)}", flush=True)
            return False
    stamp.touch()
    return True


def run_suite(run: Run, pytest_args: list[str]) -> None:
    """Run the suite with the venv's interpreter, its output into ``run.log``."""
    assert run.venv_python is not None and run.log is not None
    print(
        f"[{run.name}] running the suite with {run.venv_python} (output in {run.log})", flush=True
    )
    start = time.monotonic()
    with run.log.open("w", encoding="utf-8") as out:
        done = subprocess.run(
            [run.venv_python, "-m", "pytest", *pytest_args],
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    run.seconds = time.monotonic() - start
    run.status = "passed" if done.returncode == 0 else f"failed (exit {done.returncode})"
    lines = run.log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    said = [line for line in lines if line.startswith(_POSTGRES_SAID)]
    run.postgres = said[-1].removeprefix(_POSTGRES_SAID).strip() if said else ""
    print(f"[{run.name}] {run.status} in {run.seconds:.0f} s: {''.join(lines[-1:])}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description="The suite on every admitted CPython found.")
    parser.add_argument("--dev", help="the dev venv's python (its version is run with it)")
    parser.add_argument("--jobs", type=int, default=2, help="suites run at once (default: 2)")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (after --)")
    args = parser.parse_args()
    dev = probe(args.dev) if args.dev else None
    if args.dev and dev is None:
        parser.error(f"--dev {args.dev}: not a CPython 3 interpreter that runs")
    runs = [Run(minor) for minor in admitted_minors()]
    logs = Path(tempfile.mkdtemp(prefix="messages-versions-"))
    ready: list[Run] = []
    for run in runs:
        run.log = logs / f"python{run.name}.log"
        if dev is not None and run.minor == dev[0]:
            dev_python = os.path.abspath(args.dev)  # a venv's python: its link, not its target
            run.python, run.patch, run.venv_python = dev_python, dev[1], dev_python
            ready.append(run)
            continue
        found = find_python(run.minor)
        if found is None:
            continue
        run.python, run.patch = found
        if prepare_venv(run):
            ready.append(run)
        else:
            run.status = "failed (cannot install the dev extra)"
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for future in [pool.submit(run_suite, run, args.pytest_args) for run in ready]:
            future.result()
    return report(runs)


def report(runs: list[Run]) -> int:
    """Print each failed run's output and one line per admitted version; the exit status."""
    for run in runs:
        if run.status.startswith("failed") and run.log is not None and run.log.exists():
            print(f"\n===== Python {run.name}: {run.log} =====")
            print(run.log.read_text(encoding="utf-8", errors="replace"), end="")
    print("\nThe suite on every admitted CPython:")
    for run in runs:
        if run.python is None:
            print(f"  Python {run.name}: missing on this machine (skipped)")
        else:
            took = f" in {run.seconds:.0f} s" if run.seconds else ""
            print(f"  Python {run.name}.{run.patch}: {run.status}{took}  ({run.python})")
            if run.postgres:
                print(f"    PostgreSQL tests ran against: {run.postgres}")
    return 1 if any(run.status.startswith("failed") for run in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
