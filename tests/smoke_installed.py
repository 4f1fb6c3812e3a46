"""Smoke test of an installed wheel, run by ``make distcheck`` from outside the clone.

Usage: ``VENV/bin/python smoke_installed.py CLONE`` with the current directory
outside the clone. It checks that what the wheel installed is what the source tree
ships: every module of the package imports from site-packages (not from the clone),
every data file (``py.typed``, the JSON Schema) is there, and the command line works
as the ``messages`` console script and as ``python -m messages`` (``--help`` and
one real conversion of the bundled example). Exit 0 when everything holds.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path


def fail(message: str) -> None:
    """Report one failed check and stop."""
    print(f"smoke: FAIL: {message}", file=sys.stderr)
    raise SystemExit(1)


def source_modules(package_dir: Path) -> list[str]:
    """The dotted names of every module and sub-package in the source tree."""
    names = []
    for path in sorted(package_dir.rglob("*.py")):
        rel = path.relative_to(package_dir.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


def data_files(package_dir: Path) -> list[Path]:
    """Files of the package that are not Python source (they must ship too)."""
    return sorted(
        p.relative_to(package_dir)
        for p in package_dir.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    )


def run(args: list[str], stdin: str | None = None) -> str:
    """Run a command; fail with its stderr when it does not exit 0."""
    done = subprocess.run(args, input=stdin, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        fail(f"{' '.join(args)} exited {done.returncode}: {done.stderr.strip()[:500]}")
    return done.stdout


def main() -> int:
    """Check the installed package against the source tree in ``sys.argv[1]``."""
    clone = Path(sys.argv[1]).resolve()
    source = clone / "messages"
    if Path.cwd().resolve().is_relative_to(clone):
        fail("run this from outside the clone, or the clone's package is imported")
    site = Path(sysconfig.get_paths()["purelib"]).resolve()

    import messages

    installed = Path(messages.__file__).resolve().parent
    if not installed.is_relative_to(site):
        fail(f"messages was imported from {installed}, not from site-packages {site}")
    for name in source_modules(source):
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            # An optional driver (psycopg for the postgres backend) may be absent.
            missing = getattr(exc, "name", None) or ""
            if missing.split(".")[0] in {"psycopg", "psycopg_pool"}:
                continue
            fail(f"import {name}: {exc}")
        if not Path(str(module.__file__)).resolve().is_relative_to(installed):
            fail(f"{name} was imported from {module.__file__}")
    for rel in data_files(source):
        if not (installed / rel).is_file():
            fail(f"data file {rel} is missing from the installed package")
    for name in messages.__all__:
        getattr(messages, name)
    if messages.__version__ not in run([sys.executable, "-m", "messages", "--version"]):
        fail("python -m messages --version does not print messages.__version__")

    script = Path(sys.executable).parent / "messages"
    for command in ([str(script)], [sys.executable, "-m", "messages"]):
        if "convert" not in run([*command, "--help"]):
            fail(f"{' '.join(command)} --help does not list the convert command")
        example = (clone / "examples" / "conversation.json").read_text(encoding="utf-8")
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "anthropic.json"
            run(
                [
                    *command,
                    "convert",
                    "-",
                    "--from",
                    "canonical",
                    "--to",
                    "anthropic",
                    "-o",
                    str(out),
                ],
                example,
            )
            body = json.loads(out.read_text(encoding="utf-8"))
            if not body.get("messages"):
                fail("the conversion to anthropic wrote no messages")
            back = run([*command, "convert", str(out), "--from", "anthropic", "--to", "openai"])
            if not json.loads(back).get("messages"):
                fail("the conversion from anthropic to openai wrote no messages")
    print(f"smoke: ok: {len(source_modules(source))} modules and the command line from {installed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
