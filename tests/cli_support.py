"""Helpers shared by the command-line tests (tests/test_cli*.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from messages import (
    Message,
    from_json,
)
from messages._cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "conversation.json"
PROVIDERS = ("openai", "groq", "vllm", "ollama", "anthropic", "gemini")
COMMANDS = ("convert", "validate", "stats", "repair")


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the command line in-process; return (exit status, stdout, stderr)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def subprocess_cli(
    *argv: str, input: str | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m messages`` in a fresh interpreter."""
    return python("-m", "messages", *argv, input=input, cwd=cwd)


def python(
    *argv: str, input: str | None = None, cwd: Path = ROOT, **options: Any
) -> subprocess.CompletedProcess[str]:
    """Run ``python ARGV`` in a fresh interpreter that imports this checkout's ``messages``."""
    return subprocess.run(
        [sys.executable, *argv],
        input=input,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env(),
        timeout=300,
        check=False,
        **options,
    )


def env() -> dict[str, str]:
    """The environment for a subprocess that imports this checkout's ``messages``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def example() -> list[Message]:
    """The example conversation, decoded."""
    decoded = from_json(EXAMPLE.read_text(encoding="utf-8"))
    assert isinstance(decoded, list)
    return decoded


def jsonl(messages: list[Message]) -> str:
    """Messages as canonical JSON Lines."""
    return "".join(json.dumps(m.to_dict()) + "\n" for m in messages)


def one_line(err: str) -> str:
    """The only line of ``err`` (asserting that there is exactly one)."""
    assert err.endswith("\n")
    assert err.count("\n") == 1, err
    return err[:-1]


def same_conversation(a: list[Message], b: list[Message]) -> None:
    """Equal roles, text, tool calls, tool-call ids and error flags, in order."""
    assert [m.role for m in a] == [m.role for m in b]
    # A wire without an error flag marks an error result by its text (a documented loss).
    assert [m.text.removeprefix("Error: ") for m in a] == [m.text for m in b]
    assert [[(c.name, dict(c.arguments)) for c in m.tool_calls] for m in a] == [
        [(c.name, dict(c.arguments)) for c in m.tool_calls] for m in b
    ]


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# Canonical message dicts for small hand-written conversations.
SYSTEM: dict[str, Any] = {"role": "system", "content": "s"}
USER: dict[str, Any] = {"role": "user", "content": "u"}
ASSISTANT: dict[str, Any] = {"role": "assistant", "content": "a"}


def calls(*ids: str) -> dict[str, Any]:
    """An assistant message calling tool ``f`` once per id."""
    wire = [
        {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}} for i in ids
    ]
    return {"role": "assistant", "tool_calls": wire}


def result(call_id: str) -> dict[str, Any]:
    """A tool result answering ``call_id``."""
    return {"role": "tool", "tool_call_id": call_id, "content": "r"}
