"""examples/agent_loop.py runs as the README says: two processes, one SQLite session."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from messages import ToolCallMessage, ToolResultMessage
from messages.storage import ChatHistoryStorage, SessionIdentity, SQLiteBackend

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "agent_loop.py"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-W", "always", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_loop_runs_in_two_processes_over_one_database(tmp_path: Path) -> None:
    db = tmp_path / "chats.db"
    first = run(str(EXAMPLE), "first", str(db), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines() == [
        "It is 14:00 in Paris, 18 °C with light rain: take an umbrella.",
        "6 messages, 2 tool calls, valid: True",
    ]
    assert "Warning" not in first.stderr  # the Responses turns lose nothing

    second = run(str(EXAMPLE), "second", str(db), cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert second.stdout.splitlines() == [
        "Tokyo is sunny at 24 °C: no umbrella needed there.",
        "10 messages, 3 tool calls, valid: True",
    ]
    # Anthropic is asked twice with the whole history; each loss is said once.
    warned = [line for line in second.stderr.splitlines() if "LossWarning" in line]
    assert len(warned) == len(set(warned)) == 5
    assert all("openai_responses" in line for line in warned)

    with SQLiteBackend(db) as backend:
        stored = ChatHistoryStorage(backend, SessionIdentity("travel", "trip-1")).messages()
    kinds = [type(m).__name__ for m in stored]
    assert kinds == [
        "SystemMessage",
        "UserMessage",
        "ToolCallMessage",
        "ToolResultMessage",
        "ToolResultMessage",
        "AssistantMessage",
        "UserMessage",
        "ToolCallMessage",
        "ToolResultMessage",
        "AssistantMessage",
    ]
    results = [m for m in stored if isinstance(m, ToolResultMessage)]
    assert [r.text for r in results] == ["18 °C, light rain", "14:00", "24 °C, sunny"]
    calls = [m for m in stored if isinstance(m, ToolCallMessage)]
    assert [c.name for m in calls for c in m.tool_calls] == [
        "get_weather",
        "local_time",
        "get_weather",
    ]

    exported = run(
        "-m",
        "messages",
        "export",
        str(db),
        "--agent",
        "travel",
        "--session",
        "trip-1",
        cwd=tmp_path,
    )
    assert exported.returncode == 0, exported.stderr
    assert len(exported.stdout.splitlines()) == 10
