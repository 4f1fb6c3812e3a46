"""Reading the input: JSON or JSON Lines detected, stdin, unreadable and malformed input."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from messages._cli.parser import parse_size
from tests.cli_support import (
    cli,
    example,
    jsonl,
    one_line,
    python,
    write,
)
from tests.conftest import SECRET

# --------------------------------------------------------------------------- input detection


TWO = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Yo"}]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("list", json.dumps(TWO)),
        ("pretty list", json.dumps(TWO, indent=2)),
        ("messages key", json.dumps({"model": "m", "messages": TWO})),
        ("pretty messages key", json.dumps({"model": "m", "messages": TWO}, indent=2)),
        ("jsonl", "".join(json.dumps(m) + "\n" for m in TWO)),
        ("jsonl blank lines crlf bom", "\ufeff\r\n" + "\r\n\r\n".join(map(json.dumps, TWO))),
    ],
)
def test_input_shapes_are_detected(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, text: str
) -> None:
    path = write(tmp_path / "in", text)
    code, out, err = cli(capsys, "convert", str(path), "--from", "canonical", "--to", "openai")
    assert (code, err) == (0, "")
    assert json.loads(out)["messages"] == TWO


def test_single_message_and_single_line_body(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    one = write(tmp_path / "one.json", json.dumps({"role": "user", "content": "Hi"}, indent=2))
    code, out, _ = cli(capsys, "convert", str(one), "--to", "canonical")
    assert code == 0
    assert [m["content"] for m in json.loads(out)] == ["Hi"]
    body = {"model": "m", "system": "Be brief.", "messages": [{"role": "user", "content": "Hi"}]}
    path = write(tmp_path / "body.json", json.dumps(body))
    code, out, _ = cli(capsys, "convert", str(path), "--from", "anthropic", "--to", "canonical")
    assert code == 0
    assert [(m["role"], m["content"]) for m in json.loads(out)] == [
        ("system", "Be brief."), ("user", "Hi")
    ]  # fmt: skip


def test_provider_messages_as_jsonl_report_the_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lines = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": 42},
    ]  # fmt: skip
    path = write(tmp_path / "m.jsonl", "".join(json.dumps(x) + "\n\n" for x in lines))
    code, _, err = cli(capsys, "validate", str(path), "--format", "openai")
    assert code == 1
    assert one_line(err).startswith("line 7, content: ")


def test_forced_input_format(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(tmp_path / "in", '{"role": "user", "content": "Hi"}\n')
    code, out, _ = cli(capsys, "convert", str(path), "--to", "canonical", "--input-format", "json")
    assert code == 0
    assert len(json.loads(out)) == 1
    listed = write(tmp_path / "list", '[{"role": "user", "content": "Hi"}]\n')
    code, _, err = cli(
        capsys, "convert", str(listed), "--to", "canonical", "--input-format", "jsonl"
    )
    assert code == 1
    assert one_line(err).startswith("line 1")


def test_empty_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(tmp_path / "empty.json", "\n  \n")
    code, _, err = cli(capsys, "validate", str(path))
    assert code == 1
    assert one_line(err) == f"{path}: the input is empty; expected JSON or JSON Lines"
    code, out, _ = cli(capsys, "convert", str(path), "--to", "canonical", "--input-format", "jsonl")
    assert (code, json.loads(out)) == (0, [])


def test_stdin_in_process(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = jsonl(example()).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, out, _ = cli(capsys, "stats", "-", "--json")
    assert code == 0
    assert json.loads(out)["messages"] == 8


# --------------------------------------------------------------------------- bad input


def test_missing_file_is_exit_1_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "missing.json"
    for argv in (
        ["convert", str(missing), "--to", "openai"],
        ["validate", str(missing)],
        ["stats", str(missing)],
    ):
        code, out, err = cli(capsys, *argv)
        assert (code, out) == (1, "")
        assert one_line(err) == f"{missing}: cannot read (No such file or directory)"


def test_directory_is_exit_1_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = cli(capsys, "validate", str(tmp_path))
    assert code == 1
    assert one_line(err) == f"{tmp_path}: cannot read (Is a directory)"


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (f'[{{"role": "user", "content": "{SECRET}"}}', "{path}: invalid JSON ("),
        (f'{{"role": "user", "content": "{SECRET}"}}\n{{"role": "assistant", "content": "{SECRET}\n', "line 2: invalid JSON ("),
        (f'[{{"role": "user", "content": "{SECRET}"}}, {{"role": "wizard", "content": "{SECRET}"}}]', "[1].role: "),
        (f'{{"messages": [{{"role": "user", "content": [{{"type": "text", "text": ["{SECRET}"]}}]}}]}}', "messages[0].content[0]"),
        (f'{{"role": "user", "content": "x"}}\n{{"role": "assistant", "tool_calls": [{{"id": "c", "type": "function", "function": 5}}], "content": "{SECRET}"}}\n', "line 2, tool_calls[0].function: "),
        (f'"{SECRET}"', "$: expected a list of messages"),
        (f'{{"role": "user", "content": "a"}}\n[1, "{SECRET}"]\n', "line 2: "),
        ('{"role": "user", "content": "\xff"}'.encode("latin-1").decode("utf-8", "surrogateescape"), "{path}: "),
    ],
)  # fmt: skip
def test_malformed_input_is_exit_1_with_a_path_and_no_content(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, where: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    for argv in (
        ["validate", str(path), "--policy", "lenient"],
        ["convert", str(path), "--to", "openai"],
        ["stats", str(path)],
    ):
        code, out, err = cli(capsys, *argv)
        assert (code, out) == (1, "")
        line = one_line(err)
        assert line.startswith(where.format(path=path)), line
        assert SECRET not in line


# --------------------------------------------------------------------------- size limit


def _memory_limit() -> None:  # in the child, before exec: 512 MiB of address space
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (512 << 20, 512 << 20))


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["stats", "/dev/zero"], "line 1: the line is longer than 64 MiB"),
        (["validate", "/dev/zero", "--input-format", "jsonl"], "line 1: the line is longer than 64 MiB"),
        (["convert", "/dev/zero", "--to", "openai", "--input-format", "json"], "/dev/zero: the document is longer than 64 MiB"),
    ],
)  # fmt: skip
def test_an_endless_line_stops_at_the_limit_in_bounded_memory(argv: list[str], said: str) -> None:
    # Before the limit, /dev/zero (one endless line) grew until MemoryError or the OOM killer.
    done = python("-m", "messages", *argv, preexec_fn=_memory_limit)
    assert (done.returncode, done.stdout) == (1, "")
    assert (
        done.stderr
        == f"{said}, the limit; raise it with --max-size or MESSAGES_MAX_SIZE (e.g. --max-size 1G)\n"
    )


LINE = json.dumps({"role": "user", "content": "x" * 1000})  # 1,032 bytes


@pytest.mark.parametrize("how", ["option", "environment"])
def test_a_line_over_the_limit_is_exit_1_naming_it(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    how: str,
) -> None:
    short = json.dumps({"role": "system", "content": "s"})
    path = write(tmp_path / "c.jsonl", f"{short}\n{LINE}\n")
    size = ["--max-size", "1K"] if how == "option" else []
    if how == "environment":
        monkeypatch.setenv("MESSAGES_MAX_SIZE", "1k")
    code, out, err = cli(capsys, "validate", str(path), *size)
    assert (code, out) == (1, "")
    assert one_line(err).startswith("line 2: the line is longer than 1 KiB, the limit; ")
    # Raised, the same file is fine; the option wins over the environment.
    assert cli(capsys, "validate", str(path), "--policy", "lenient", "--max-size", "2KiB")[0] == 0


def test_a_line_at_the_limit_is_read(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(tmp_path / "c.jsonl", LINE + "\n" + LINE)  # the last without a newline
    limit = str(len(LINE))
    assert cli(capsys, "stats", str(path), "--max-size", limit)[0] == 0
    code, _, err = cli(capsys, "stats", str(path), "--max-size", str(len(LINE) - 1))
    assert (code, one_line(err).split(":")[0]) == (1, "line 1")


def test_a_document_over_the_limit_is_exit_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path / "c.json", json.dumps([json.loads(LINE)] * 3, indent=2))
    code, out, err = cli(capsys, "stats", str(path), "--max-size", "2K")
    assert (code, out) == (1, "")
    assert one_line(err).startswith(f"{path}: the document is longer than 2 KiB, the limit; ")
    assert cli(capsys, "stats", str(path), "--max-size", "4K")[0] == 0


@pytest.mark.parametrize(
    ("text", "size"),
    [("1", 1), ("1000", 1000), ("512k", 512 << 10), ("64M", 64 << 20), ("64MiB", 64 << 20),
     ("64mb", 64 << 20), (" 2G ", 2 << 30)],
)  # fmt: skip
def test_sizes(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "0", "-1", "1.5M", "M", "12T", "١٢"])
def test_bad_sizes_are_usage_errors(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    with pytest.raises(ValueError):
        parse_size(text)
    code, out, err = cli(capsys, "stats", "x.json", "--max-size", text)
    assert (code, out) == (2, "")
    assert "--max-size: expected a size such as 64M" in err
    if text.strip():
        monkeypatch.setenv("MESSAGES_MAX_SIZE", text)
        code, _, err = cli(capsys, "stats", "x.json")
        assert code == 2
        assert "MESSAGES_MAX_SIZE: expected a size such as 64M" in err
