"""``stats``: counts per role and tool, unanswered calls, estimated tokens."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from messages import (
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
        "unanswered_tool_calls": [{"id": "call_a", "name": "search"}],
        "estimated_tokens": sum(estimate_tokens(m) for m in messages),
    }


def test_stats_of_a_provider_body(capsys: pytest.CaptureFixture[str]) -> None:
    source = FIXTURES / "anthropic" / "request_tool_roundtrip.json"
    code, out, _ = cli(capsys, "stats", str(source), "--format", "anthropic", "--json")
    assert code == 0
    parsed = get_provider("anthropic").parse_messages(json.loads(source.read_text()))
    stats = json.loads(out)
    assert stats["messages"] == len(parsed)
    assert stats["estimated_tokens"] == sum(estimate_tokens(m) for m in parsed)
    assert stats["unanswered_tool_calls"] == []
