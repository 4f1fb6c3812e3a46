"""One long transcript on the command line: read and written as streams, a request body within 10x."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from messages import Message, ToolCall, dump_jsonl, from_jsonl, to_jsonl
from tests.cli_support import cli, python

TURNS = 5_000


def transcript(path: Path, turns: int) -> Path:
    """A transcript as the library writes it (ids and times given), with non-ASCII text."""
    start = datetime(2026, 1, 2, tzinfo=UTC)

    def messages() -> Iterator[Message]:
        yield Message.system("Be brief.", id="s", created_at=start)
        for t in range(turns):
            at = start + timedelta(seconds=t)
            call = ToolCall(f"call_{t}", "get_weather", {"city": "Zürich"})
            yield Message.user(f"Wetter in Zürich? {t}", id=f"u{t}", created_at=at)
            yield Message.assistant(None, [call], id=f"a{t}", created_at=at)
            yield Message.tool_result(call.id, "18°C \u2028 sunny", id=f"r{t}", created_at=at)
            yield Message.assistant(f"18°C ({t})", id=f"b{t}", created_at=at)

    with path.open("w", encoding="utf-8") as f:
        dump_jsonl(messages(), f)
    return path


def test_convert_to_canonical_writes_the_library_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = transcript(tmp_path / "in.jsonl", 50)
    out = tmp_path / "out.jsonl"
    status, _, err = cli(
        capsys,
        "convert",
        str(path),
        "--to",
        "canonical",
        "--output-format",
        "jsonl",
        "-o",
        str(out),
    )
    assert status == 0, err
    assert out.read_bytes() == path.read_bytes()
    assert out.read_bytes() == to_jsonl(from_jsonl(path.read_bytes())).encode("utf-8")


def test_repair_of_json_lines_writes_json_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = transcript(tmp_path / "in.jsonl", 3)
    lines = path.read_text(encoding="utf-8").splitlines()
    broken = tmp_path / "broken.jsonl"
    twice = lines[1].replace('"u0"', '"u9"')  # a second user turn: merged into the first
    broken.write_text("\n".join([lines[0], lines[1], twice, *lines[2:]]) + "\n")
    out = tmp_path / "out.jsonl"
    status, _, err = cli(capsys, "repair", str(broken), "-o", str(out))
    assert status == 0, err
    assert err.strip() == "line 3: alternation"
    repaired = from_jsonl(out.read_bytes())
    assert len(repaired) == len(lines)
    assert repaired[2:] == from_jsonl(path.read_bytes())[2:]


# Each command runs once on a small file first (imports, caches), then the peak of
# traced memory is taken while it runs on the long one.
_MEASURE = """\
import contextlib, io, sys, tracemalloc
from messages._cli import main
small, big, commands = sys.argv[1], sys.argv[2], {commands!r}
for argv in commands:
    with contextlib.redirect_stdout(io.StringIO()):
        assert main([small if a == "IN" else a for a in argv]) == 0
tracemalloc.start()
for argv in commands:
    tracemalloc.reset_peak()
    status = main([big if a == "IN" else a for a in argv])
    print(argv[0], status, tracemalloc.get_traced_memory()[1])
"""


def test_a_request_body_and_a_repair_stay_within_ten_times_the_file(tmp_path: Path) -> None:
    # short lines: the objects a line becomes weigh most beside the line's bytes
    path = transcript(tmp_path / "big.jsonl", TURNS)
    small = transcript(tmp_path / "small.jsonl", 2)
    size = path.stat().st_size
    body, repaired = tmp_path / "body.json", tmp_path / "repaired.jsonl"
    commands = [
        ["convert", "IN", "--to", "openai", "-o", str(body)],
        ["convert", "IN", "--to", "anthropic", "-o", str(body)],
        ["repair", "IN", "-o", str(repaired)],
    ]
    done = python("-c", _MEASURE.format(commands=commands), str(small), str(path))
    assert done.returncode == 0, done.stderr
    for line in done.stdout.splitlines():
        name, status, peak = line.split()
        assert status == "0"
        assert int(peak) < 10 * size, (name, int(peak) / size)
    # the last body written: anthropic's, the system prompt outside its messages
    assert len(json.loads(body.read_text(encoding="utf-8"))["messages"]) == 4 * TURNS
    with repaired.open(encoding="utf-8") as f:
        assert sum(1 for _ in f) == 4 * TURNS + 1
