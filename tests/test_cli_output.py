"""``convert -o OUT``: where the output goes when OUT is a symlink, a FIFO or a file."""

from __future__ import annotations

import json
import os
import stat
import sys
import threading
from pathlib import Path

import pytest

from messages._cli import main

CONVERSATION = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": "hello"},
]

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX symlinks and FIFOs")


def _input(tmp_path: Path) -> Path:
    path = tmp_path / "in.json"
    path.write_text(json.dumps(CONVERSATION), encoding="utf-8")
    return path


def _convert(capsys: pytest.CaptureFixture[str], source: Path, out: Path) -> None:
    code = main(["convert", str(source), "--to", "openai", "-o", str(out)])
    _, err = capsys.readouterr()
    assert (code, err) == (0, "")


def _is_openai_body(data: bytes) -> bool:
    body = json.loads(data)
    return [m["content"] for m in body["messages"]] == ["hi", "hello"]


def test_a_symlink_is_written_through_to_its_target(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "body.json"
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "out.json"
    link.symlink_to(target)
    _convert(capsys, _input(tmp_path), link)
    assert link.is_symlink()
    assert os.readlink(link) == str(target)
    assert _is_openai_body(target.read_bytes())
    assert sorted(os.listdir(tmp_path / "real")) == ["body.json"]  # no temporary file left


def test_a_dangling_symlink_creates_its_target(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "body.json"
    link = tmp_path / "out.json"
    link.symlink_to(target)
    _convert(capsys, _input(tmp_path), link)
    assert link.is_symlink()
    assert _is_openai_body(target.read_bytes())


def test_a_fifo_is_written_in_place_not_replaced(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    try:
        _convert(capsys, _input(tmp_path), fifo)
    finally:
        reader.join(timeout=30)
        if reader.is_alive():  # pragma: no cover - the output never reached the FIFO
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # lets the reader end
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert len(received) == 1
    assert _is_openai_body(received[0])
    assert sorted(os.listdir(tmp_path)) == ["in.json", "out.fifo"]


def test_a_file_at_the_old_predictable_temporary_name_is_not_followed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    out = tmp_path / "out.json"
    # Someone plants a symlink where a predictable temporary name would be.
    trap = tmp_path / f"out.json.{os.getpid()}.tmp"
    trap.symlink_to(victim)
    _convert(capsys, _input(tmp_path), out)
    assert victim.read_text(encoding="utf-8") == "precious"
    assert trap.is_symlink()
    assert not out.is_symlink()
    assert _is_openai_body(out.read_bytes())


def test_an_existing_output_keeps_its_permissions(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "out.json"
    out.write_text("old", encoding="utf-8")
    out.chmod(0o640)
    _convert(capsys, _input(tmp_path), out)
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert _is_openai_body(out.read_bytes())
    assert sorted(os.listdir(tmp_path)) == ["in.json", "out.json"]


@pytest.mark.parametrize("spec", ["/dev/stdout", "/dev/fd/1"])
def test_dev_stdout_writes_to_the_descriptor_and_keeps_what_came_before(
    tmp_path: Path, spec: str
) -> None:
    # `... -o /dev/stdout >> log`: the output is appended to log, not written over it
    if not os.path.exists(spec):
        pytest.skip(f"{spec} does not exist here")
    import subprocess

    log = tmp_path / "log.txt"
    log.write_bytes(b"EARLIER\n")
    with log.open("ab") as appended:
        done = subprocess.run(
            [sys.executable, "-m", "messages", "convert", str(_input(tmp_path)), "--to", "openai",
             "-o", spec],
            stdout=appended, stderr=subprocess.PIPE, check=False,
        )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, b"")
    data = log.read_bytes()
    assert data.startswith(b"EARLIER\n")
    assert _is_openai_body(data[len(b"EARLIER\n") :])
