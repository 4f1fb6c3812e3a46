"""Static checks of messages.records' types (mypy --strict with assert_type); also run by pytest."""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping
from typing import Any, assert_type

from messages import Message, UserMessage
from messages.providers import Loss
from messages.records import FORMAT_NAMES, Record, read, write
from messages.tools import ToolDefinition


def test_record_fields_and_read_write_types() -> None:
    record = Record("k", (UserMessage("hi"),))
    assert_type(record.key, str | None)
    assert_type(record.messages, tuple[Message, ...])
    assert_type(record.tools, tuple[ToolDefinition, ...])
    assert_type(record.extras, Mapping[str, Any])
    assert_type(FORMAT_NAMES, tuple[str, ...])
    out = io.StringIO()
    lost: list[Loss] = []
    assert_type(write([record], out, "canonical", on_loss=lost.append), int)
    records = read(io.StringIO(out.getvalue()), "canonical")
    assert_type(records, Iterator[Record])
    assert [r.key for r in records] == ["k"]
    assert lost == []
