"""What the command line prints for people carries no raw control characters from the input.

A file name, a key of a tool's schema or an id can hold an escape sequence; the
command line writes it escaped (``\\x1b``), so the terminal shows it instead of
obeying it. JSON printed for people (``stats --json``) gets JSON escapes instead.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages._cli.terminal import json_printable, printable
from tests.cli_support import cli, one_line, write

ESC = "\x1b]0;owned\x07\x1b[2J"  # retitle the window, clear the screen


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain text, é, 日本語, 👩‍👩‍👧", "plain text, é, 日本語, 👩‍👩‍👧"),
        ("a\x1b[31mb", "a\\x1b[31mb"),
        ("tab\there\nnewline\r", "tab\\there\\nnewline\\r"),
        ("bidi \u202egnp.exe", "bidi \\u202egnp.exe"),
        ("c1 \x9b31m del \x7f", "c1 \\x9b31m del \\x7f"),
        ("not utf-8 \udcff", "not utf-8 \\udcff"),
        ("line\u2028separator", "line\\u2028separator"),
    ],
)
def test_printable(text: str, shown: str) -> None:
    assert printable(text) == shown
    assert printable(text).replace("\u200d", "").isprintable()


@given(
    st.recursive(
        st.none() | st.text() | st.integers(), lambda x: st.lists(x) | st.dictionaries(st.text(), x)
    )
)
def test_json_printable_is_the_same_json_value(value: Any) -> None:
    text = json.dumps(value, ensure_ascii=False, indent=2)
    shown = json_printable(text)
    assert json.loads(shown) == value
    assert all(
        line.replace("\u200c", "").replace("\u200d", "").isprintable() for line in shown.split("\n")
    )


def test_a_file_name_is_escaped_in_every_message(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    named = write(tmp_path / f"chat{ESC}.json", json.dumps([{"role": "system", "content": "s"}]))
    shown = printable(str(named))
    code, out, err = cli(capsys, "validate", str(named))
    assert (code, err, out) == (0, "", f"{shown}: ok (1 messages, strict ordering)\n")
    missing = tmp_path / f"gone{ESC}.json"
    code, _, err = cli(capsys, "stats", str(missing))
    assert (code, one_line(err)) == (
        1,
        f"{printable(str(missing))}: cannot read (No such file or directory)",
    )
    empty = write(tmp_path / f"empty{ESC}", "")
    code, _, err = cli(capsys, "validate", str(empty), "--all")
    assert "\x1b" not in err
    assert err.startswith(printable(str(empty)))


def test_a_schema_key_in_a_loss_warning_is_escaped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    parameters = {"type": "object", "properties": {"x": {"type": "string", ESC: 1}}}
    tool = {
        "type": "function",
        "function": {"name": "f", "description": "d", "parameters": parameters},
    }
    body = {"messages": [{"role": "user", "content": "a"}], "tools": [tool]}
    path = write(tmp_path / "body.json", json.dumps(body))
    code, out, err = cli(capsys, "convert", str(path), "--from", "openai", "--to", "gemini")
    assert code == 0
    assert "\x1b" not in err
    assert f"parameters.properties.x.{printable(ESC)}: " in one_line(err)
    assert "functionDeclarations" in json.loads(out)["tools"][0]


def test_stats_json_escapes_what_json_dumps_leaves_raw(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    call = {"id": "c\u202e\x85", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    path = write(tmp_path / "c.json", json.dumps([{"role": "assistant", "tool_calls": [call]}]))
    code, out, _ = cli(capsys, "stats", str(path), "--json")
    assert code == 0
    assert all(line.isprintable() for line in out.splitlines())
    assert json.loads(out)["unanswered_tool_calls"] == [{"id": "c\u202e\x85", "name": "f"}]
