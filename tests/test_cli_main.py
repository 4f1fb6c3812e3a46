"""Exit statuses when a standard stream is closed: a clear message and 1, never a crash.

A shell's ``<&-`` / ``>&-`` / ``2>&-`` starts Python without that stream
(``sys.stdin`` / ``sys.stdout`` / ``sys.stderr`` is None). Reading a closed stdin
or writing to a closed stdout is exit 1 with one line on stderr, checked before
any work; a closed stderr only silences the messages (the exit status still
tells), and never sends them into stdout.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_support import EXAMPLE, ROOT, cli, env, one_line

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell redirections")

STDIN_CLOSED = "<stdin>: cannot read (standard input is closed)"
STDOUT_CLOSED = "<stdout>: cannot write (standard output is closed)"


def shell(redirect: str, *argv: str) -> subprocess.CompletedProcess[bytes]:
    """Run ``python -m messages ARGV REDIRECT`` through ``sh`` (e.g. ``<&-``)."""
    script = f'exec "$0" -m messages "$@" {redirect}'
    return subprocess.run(
        ["sh", "-c", script, sys.executable, *argv],
        capture_output=True,
        cwd=ROOT,
        env=env(),
        timeout=120,
        check=False,
    )


def test_reading_a_closed_stdin_is_exit_1() -> None:
    for argv in (["stats", "-"], ["validate", "-"], ["convert", "-", "--to", "openai"]):
        done = shell("<&-", *argv)
        assert (done.returncode, done.stdout) == (1, b""), done.stderr
        assert done.stderr.decode() == STDIN_CLOSED + "\n"


def test_a_closed_stdin_does_not_matter_when_in_is_a_file() -> None:
    done = shell("<&-", "stats", str(EXAMPLE), "--json")
    assert (done.returncode, done.stderr) == (0, b"")
    assert json.loads(done.stdout)["messages"] == 8


@pytest.mark.parametrize(
    "argv",
    [
        ["convert", str(EXAMPLE), "--to", "canonical"],
        ["convert", str(EXAMPLE), "--to", "canonical", "-o", "-"],
        ["convert", str(EXAMPLE), "--to", "canonical", "-o", "/dev/stdout"],
        ["validate", str(EXAMPLE)],  # exited 0 and printed nothing
        ["stats", str(EXAMPLE)],
        ["repair", str(EXAMPLE)],
    ],
)
def test_writing_to_a_closed_stdout_is_exit_1(argv: list[str]) -> None:
    done = shell(">&-", *argv)
    assert done.returncode == 1
    assert done.stderr.decode() == STDOUT_CLOSED + "\n"


def test_a_closed_stdout_does_not_matter_with_an_output_file(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    done = shell(">&-", "convert", str(EXAMPLE), "--to", "canonical", "-o", str(out))
    assert (done.returncode, done.stderr) == (0, b"")
    assert len(json.loads(out.read_text(encoding="utf-8"))) == 8


def test_a_closed_stderr_keeps_warnings_out_of_stdout() -> None:
    # openai has no error flag for tool results: converting the example warns
    done = shell("2>&-", "convert", str(EXAMPLE), "--to", "openai")
    assert done.returncode == 0
    assert b"warning" not in done.stdout
    assert len(json.loads(done.stdout)["messages"]) == 8
    failed = shell("2>&-", "validate", str(ROOT / "no-such-file.json"))
    assert (failed.returncode, failed.stdout) == (1, b"")


def test_closed_streams_in_process(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", None)
    code, out, err = cli(capsys, "stats", "-")
    assert (code, out, one_line(err)) == (1, "", STDIN_CLOSED)
    closed = io.StringIO()
    closed.close()
    monkeypatch.setattr(sys, "stdout", closed)
    code, _, err = cli(capsys, "stats", str(EXAMPLE))
    assert (code, one_line(err)) == (1, STDOUT_CLOSED)
