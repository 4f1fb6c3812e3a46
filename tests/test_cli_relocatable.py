"""The command line of a copy vendored under another name speaks of that name."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "messages"


@pytest.fixture(scope="module")
def vendored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("vendored")
    shutil.copytree(PACKAGE, root / "othername", ignore=shutil.ignore_patterns("__pycache__"))
    return root


def _run(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "othername", *argv],
        cwd=root,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["convert", "--help"],
        ["validate", "--help"],
        ["stats", "--help"],
        ["repair", "--help"],
    ],
)
def test_help_names_the_vendored_package(vendored: Path, argv: list[str]) -> None:
    result = _run(vendored, *argv)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "usage: python -m othername" in result.stdout
    assert "python -m messages" not in result.stdout


def test_version_and_usage_errors_name_the_vendored_package(vendored: Path) -> None:
    version = _run(vendored, "--version")
    assert version.returncode == 0
    assert version.stdout.startswith("othername ")
    wrong = _run(vendored, "convert")
    assert wrong.returncode == 2
    assert "usage: python -m othername convert" in wrong.stderr
    assert "messages" not in wrong.stderr


def test_the_vendored_command_line_converts(vendored: Path) -> None:
    source = vendored / "chat.json"
    source.write_text(json.dumps([{"role": "user", "content": "hi"}]), encoding="utf-8")
    result = _run(vendored, "convert", str(source), "--to", "anthropic")
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout)["messages"][0]["role"] == "user"
