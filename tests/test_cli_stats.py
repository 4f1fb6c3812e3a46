"""``stats``: counts per role and tool, unanswered calls, estimated tokens."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from messages import (
    InvalidToolCall,
    Message,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    estimate_tokens,
)
from messages.providers import get_provider
from tests.cli_support import (
    EXAMPLE,
    cli,
    example,
    jsonl,
    write,
)
from tests.conftest import FIXTURES

# --------------------------------------------------------------------------- stats


def test_stats_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "stats", str(EXAMPLE))
    assert (code, err) == (0, "")
    tokens = sum(estimate_tokens(m) for m in example())
    rows = [tuple(line.rsplit(None, 1)) for line in out.splitlines()]
    assert rows == [
        ("messages", "8"),
        ("  system", "1"),
        ("  user", "2"),
        ("  assistant", "3"),
        ("  tool", "2"),
        ("tool calls", "2"),
        ("  get_flight_status", "1"),
        ("  get_weather_forecast", "1"),
        ("unanswered tool calls", "0"),
        ("estimated tokens", str(tokens)),
    ]
    assert len({len(line) for line in out.splitlines()}) == 1  # aligned columns


def test_stats_json_with_unanswered_calls(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    messages = example()
    calls = (ToolCall("call_a", "search", {"q": "x"}), ToolCall("call_b", "search", {"q": "y"}))
    messages += [Message.user("more?"), ToolCallMessage(calls), ToolResultMessage("call_b", "ok")]
    path = write(tmp_path / "c.jsonl", jsonl(messages))
    code, out, _ = cli(capsys, "stats", str(path), "--json")
    assert code == 0
    roles = Counter(m.role.value for m in messages)
    assert json.loads(out) == {
        "messages": 11,
        "roles": {r: roles.get(r, 0) for r in ("system", "developer", "user", "assistant", "tool")},
        "tool_calls": {"get_flight_status": 1, "get_weather_forecast": 1, "search": 2},
        "invalid_tool_calls": {},
        "unanswered_tool_calls": [{"id": "call_a", "name": "search"}],
        "estimated_tokens": sum(estimate_tokens(m) for m in messages),
    }


def test_stats_counts_invalid_tool_calls_and_says_how_many_were_invalid(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Six calls made, one of them with arguments that are not JSON: six are counted."""
    calls = [ToolCall(f"call_{n}", "search", {"q": str(n)}) for n in range(4)]
    bad = [
        InvalidToolCall("call_bad", "search", '{"q": ', "arguments are not JSON"),
        InvalidToolCall("call_anon", None, "{}", "no name"),
    ]
    messages = [
        Message.user("find"),
        ToolCallMessage(calls[:2], invalid_tool_calls=bad[:1]),
        *(ToolResultMessage(i, "ok") for i in ("call_0", "call_1", "call_bad")),
        ToolCallMessage(calls[2:], invalid_tool_calls=bad[1:]),
        *(ToolResultMessage(c.id, "ok") for c in calls[2:]),
    ]
    path = write(tmp_path / "c.jsonl", jsonl(messages))
    code, out, err = cli(capsys, "stats", str(path))
    assert (code, err) == (0, "")
    rows = [tuple(line.rsplit(None, 1)) for line in out.splitlines()]
    assert rows[rows.index(("tool calls", "6")) :][:6] == [
        ("tool calls", "6"),
        ("  (unnamed)", "1"),
        ("  search", "5"),
        ("invalid tool calls (of these)", "2"),
        ("  (unnamed)", "1"),
        ("  search", "1"),
    ]
    assert ("unanswered tool calls", "1") in rows  # the unnamed invalid call
    code, out, _ = cli(capsys, "stats", str(path), "--json")
    stats = json.loads(out)
    assert stats["tool_calls"] == {"(unnamed)": 1, "search": 5}
    assert stats["invalid_tool_calls"] == {"(unnamed)": 1, "search": 1}
    assert stats["unanswered_tool_calls"] == [{"id": "call_anon", "name": "(unnamed)"}]


def test_stats_of_a_provider_body(capsys: pytest.CaptureFixture[str]) -> None:
    source = FIXTURES / "anthropic" / "request_tool_roundtrip.json"
    code, out, _ = cli(capsys, "stats", str(source), "--format", "anthropic", "--json")
    assert code == 0
    parsed = get_provider("anthropic").parse_messages(json.loads(source.read_text()))
    stats = json.loads(out)
    assert stats["messages"] == len(parsed)
    assert stats["estimated_tokens"] == sum(estimate_tokens(m) for m in parsed)
    assert stats["unanswered_tool_calls"] == []
