"""JSON Lines in the library: to_jsonl / from_jsonl / dump_jsonl / iter_jsonl."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import (
    ConversationHistory,
    DecodeError,
    Message,
    MessageError,
    Messages,
    ToolCall,
    UserMessage,
    ValidationError,
    dump_jsonl,
    from_jsonl,
    iter_jsonl,
    to_dict,
    to_jsonl,
)
from tests import strategies as gen
from tests.cli_support import env
from tests.conftest import SECRET


def conversation() -> list[Message]:
    call = ToolCall("call_1", "get_weather", {"city": "Lisbon"})
    return [
        Message.system("Be brief."),
        Message.user(f"weather? {SECRET}"),
        Message.assistant(None, [call]),
        Message.tool_result("call_1", f"18C {SECRET}"),
        Message.assistant("18C in Lisbon."),
    ]


# ---------------------------------------------------------------------------- round trips


@given(gen.message_lists)
def test_text_round_trip(ms: list[Message]) -> None:
    text = to_jsonl(ms)
    assert from_jsonl(text) == ms
    assert [type(m) for m in from_jsonl(text)] == [type(m) for m in ms]
    assert from_jsonl(text.encode("utf-8")) == ms


@given(gen.message_lists)
def test_each_line_is_one_compact_canonical_dict(ms: list[Message]) -> None:
    text = to_jsonl(ms)
    assert text.count("\n") == len(ms)
    assert text == "".join(line + "\n" for line in text.split("\n")[:-1])
    for line, m in zip(text.split("\n"), ms, strict=False):
        # one line to every reader, and always encodable as UTF-8
        assert len(line.splitlines()) == 1
        line.encode("utf-8")
        assert json.loads(line) == json.loads(json.dumps(to_dict(m)))
        assert ", " not in line.replace('", "', "") or '":' in line  # compact separators


@given(gen.message_lists)
def test_file_round_trip_streams_through_text_and_binary_files(ms: list[Message]) -> None:
    out = io.StringIO()
    dump_jsonl(ms, out)
    assert out.getvalue() == to_jsonl(ms)
    assert list(iter_jsonl(io.StringIO(out.getvalue()))) == ms
    assert list(iter_jsonl(io.BytesIO(out.getvalue().encode("utf-8")))) == ms


def test_non_ascii_is_written_as_utf8_and_line_breaks_escaped() -> None:
    m = UserMessage("Zürich \u2028 \u2029 \x85 \ud800 👩\u200d👩", id="m1")
    line = to_jsonl([m])
    assert "Zürich" in line and "👩" in line
    assert "\\u2028" in line and "\\u2029" in line and "\\u0085" in line and "\\ud800" in line
    assert from_jsonl(line) == [m]


def test_the_bytes_are_those_the_command_line_writes(tmp_path: Path) -> None:
    ms = [
        UserMessage("Zürich \u2028 ok", id="m1", created_at=datetime(2026, 1, 2, tzinfo=UTC)),
        Message.assistant("fine", id="m2", created_at=datetime(2026, 1, 3, tzinfo=UTC)),
    ]
    source = tmp_path / "in.json"
    source.write_text(json.dumps(to_dict(ms)), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "messages", "convert", str(source), "--to", "canonical",
         "--output-format", "jsonl", "-o", str(out)],
        env=env(), capture_output=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == to_jsonl(ms).encode("utf-8")


def test_what_users_hold_is_accepted() -> None:
    ms = conversation()
    history = ConversationHistory()
    history.extend(ms)
    expected = to_jsonl(ms)
    assert to_jsonl(history) == expected
    assert to_jsonl(Messages(ms)) == expected
    assert to_jsonl(tuple(ms)) == expected
    assert to_jsonl(m for m in ms) == expected
    assert to_jsonl([]) == ""
    assert from_jsonl("") == []


@pytest.mark.parametrize("value", ["text", b"bytes", {"role": "user"}, 3, Message.user("x")])
def test_something_else_than_messages_is_named(value: Any) -> None:
    with pytest.raises(ValidationError) as info:
        to_jsonl(value)
    assert info.value.path == "messages"
    with pytest.raises(ValidationError):
        dump_jsonl(value, io.StringIO())


def test_an_item_that_is_not_a_message_is_named_by_index() -> None:
    with pytest.raises(ValidationError) as info:
        to_jsonl([Message.user("a"), cast("Any", {"role": "user"})])
    assert info.value.path == "messages[1]"


def test_dump_writes_an_iterator_as_it_reads_it() -> None:
    written: list[str] = []

    class File:
        def write(self, text: str) -> int:
            written.append(text)
            return len(text)

    def produce() -> Any:
        for m in conversation():
            yield m
            assert len(written) == produced[0]  # the message before was written already
            produced[0] += 1

    produced = [1]
    file: Any = File()
    dump_jsonl(produce(), file)
    assert len(written) == 5


def test_iter_jsonl_refuses_text_and_what_is_not_iterable() -> None:
    values: list[Any] = ["{}", b"{}", 3]
    for value in values:
        with pytest.raises(ValidationError) as info:
            iter_jsonl(value)
        assert info.value.path == "file"


# ---------------------------------------------------------------------------- reading


def test_blank_lines_crlf_and_a_bom_are_read() -> None:
    ms = conversation()
    lines = to_jsonl(ms).split("\n")
    text = "\ufeff\n  \n" + "\r\n\t\r\n".join(lines)
    assert from_jsonl(text) == ms
    assert from_jsonl(text.encode("utf-8")) == ms
    assert list(iter_jsonl(io.BytesIO(text.encode("utf-8")))) == ms
    # lines given without their line ends
    assert list(iter_jsonl(line for line in lines)) == ms


def test_a_real_file(tmp_path: Path) -> None:
    ms = conversation()
    path = tmp_path / "chat.jsonl"
    with path.open("w", encoding="utf-8") as f:
        dump_jsonl(ms, f)
    with path.open(encoding="utf-8") as f:
        assert list(iter_jsonl(f)) == ms
    with path.open("rb") as f:
        assert list(iter_jsonl(f)) == ms
    assert from_jsonl(path.read_bytes()) == ms
    binary = tmp_path / "chat.bin.jsonl"
    with binary.open("wb") as f:
        dump_jsonl(ms, f)
    assert binary.read_bytes() == path.read_bytes() == to_jsonl(ms).encode("utf-8")


def test_iter_jsonl_is_lazy() -> None:
    good = to_jsonl(conversation()[:2])
    messages = iter_jsonl(io.StringIO(good + "not json\n"))
    assert next(messages).role.value == "system"
    assert next(messages).role.value == "user"
    with pytest.raises(DecodeError) as info:
        next(messages)
    assert str(info.value).startswith("line 3: invalid JSON")


def bad_lines() -> list[tuple[str, str]]:
    """(line text, the start of the error after ``line N``) of lines that cannot be read."""
    return [
        (f'{{"role": "user", "content": "{SECRET}"', ": invalid JSON"),
        (f"[{json.dumps(SECRET)}]", ": expected a message object, got array"),
        (json.dumps(SECRET), ": expected a message object, got string"),
        ("null", ": expected a message object, got null"),
        (json.dumps({"role": "wizard", "content": SECRET}), ", role: unknown role 'wizard'"),
        (json.dumps({"role": "user", "content": [{"type": "nope", "text": SECRET}]}),
         ", content[0].type: "),
        (json.dumps({"role": "assistant", "tool_calls": [{"id": "c", "type": "retrieval",
         "function": {"name": "f", "arguments": "{}"}}], "content": SECRET}),
         ", tool_calls[0].type: "),
        ('{"role": "user", "content": NaN}', ": invalid JSON"),
        ("[" * 100_000 + "]" * 100_000, ": "),
    ]  # fmt: skip


@pytest.mark.parametrize(("bad", "expected"), bad_lines())
@pytest.mark.parametrize("position", [0, 1, 4])
def test_a_bad_line_is_named_by_its_number_never_its_content(
    bad: str, expected: str, position: int
) -> None:
    lines = to_jsonl(conversation()).splitlines()
    lines.insert(position, bad)
    lines.insert(0, "")  # a blank line counts as a line
    text = "\n".join(lines) + "\n"
    n = position + 2
    readers: list[Callable[[], list[Message]]] = [
        lambda: from_jsonl(text),
        lambda: from_jsonl(text.encode("utf-8")),
        lambda: list(iter_jsonl(io.StringIO(text))),
    ]
    for read in readers:
        with pytest.raises(DecodeError) as info:
            read()
        assert str(info.value).startswith(f"line {n}{expected}"), str(info.value)
        assert info.value.path.startswith(f"line {n}")
        assert SECRET not in str(info.value) and SECRET not in repr(info.value)


def test_bytes_that_are_not_utf8_and_lines_that_are_not_text() -> None:
    with pytest.raises(DecodeError) as info:
        from_jsonl(b'{"role":"user","content":"ok"}\n{"role":"user","content":"\xff"}\n')
    assert str(info.value) == "line 2: the line is not valid UTF-8"
    with pytest.raises(DecodeError) as info:
        lines: list[Any] = ['{"role":"user","content":"ok"}', 7]
        list(iter_jsonl(lines))
    assert str(info.value) == "line 2: expected a line (str or bytes), got int"
    with pytest.raises(DecodeError):
        from_jsonl(cast("Any", 7))


def test_order_is_not_checked() -> None:
    # as from_dict: a tool result with no call before it decodes; a history refuses it
    ms = from_jsonl(to_jsonl([Message.tool_result("c9", "late"), Message.user("hi")]))
    assert [m.role.value for m in ms] == ["tool", "user"]
    with pytest.raises(MessageError):
        ConversationHistory().extend(ms)


@given(st.lists(st.one_of(st.text(), st.binary()), max_size=5))
def test_any_lines_decode_or_raise_decode_error(lines: list[str | bytes]) -> None:
    try:
        list(iter_jsonl(lines))
    except DecodeError as exc:
        assert exc.path.startswith("line ")


@given(st.text())
def test_any_text_decodes_or_raises_decode_error(text: str) -> None:
    try:
        from_jsonl(text)
    except DecodeError as exc:
        assert exc.path.startswith("line ")


# ---------------------------------------------------------------------------- memory

_STREAM = """\
import sys, tracemalloc
from messages import iter_jsonl
path = sys.argv[1]
with open(path, encoding="utf-8") as f:  # warm up: imports and caches
    for _ in zip(range(100), iter_jsonl(f)):
        pass
tracemalloc.start()
count = 0
with open(path, encoding="utf-8") as f:
    for message in iter_jsonl(f):
        count += 1
print(count, tracemalloc.get_traced_memory()[1])
"""


def test_a_long_file_streams_in_flat_memory(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for i in range(100_000):
            role = "user" if i % 2 == 0 else "assistant"
            f.write(json.dumps({"id": f"m{i}", "role": role, "content": f"turn {i} " * 8}) + "\n")
    size = path.stat().st_size
    done = subprocess.run(
        [sys.executable, "-c", _STREAM, str(path)],
        env=env(), capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    count, peak = map(int, done.stdout.split())
    assert count == 100_000
    # what one message takes, not the file's size
    assert peak < 1_000_000 < size / 10, (peak, size)
