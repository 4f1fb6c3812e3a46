"""The package works when copied into another project under another name."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "messages"

SCRIPT = """
import vendored_msgs as m
from vendored_msgs.providers import get_provider
h = m.ConversationHistory()
h.add(m.Message.system("be brief"))
h.add(m.Message.user("hi"))
call = m.ToolCall("call_1", "get_weather", {"city": "Paris"})
h.add(m.Message.assistant(tool_calls=[call]))
h.add(m.Message.tool_result("call_1", "sunny"))
back = m.from_json(m.to_json(list(h)))
assert back == list(h), "round trip"
for name in ("openai", "anthropic", "gemini", "ollama"):
    body = get_provider(name).format_request(list(h))
    assert body, name
assert "messages" not in __import__("sys").modules, "imported the original package"
print("ok")
"""


def test_vendored_copy_imports_under_another_name(tmp_path: Path) -> None:
    shutil.copytree(
        PACKAGE, tmp_path / "vendored_msgs", ignore=shutil.ignore_patterns("__pycache__")
    )
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "ok"


def test_no_absolute_self_imports() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            if any(n == "messages" or n.startswith("messages.") for n in names):
                offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []


def test_import_messages_stays_light() -> None:
    # Import time is latency: the codecs, json, datetime and typing load on first use.
    code = (
        "import sys, messages; "
        "heavy = ['typing', 'json', 'datetime', 'sqlite3', 'messages._codec', 'messages.providers']; "
        "print(','.join(m for m in heavy if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=PACKAGE.parent,
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.strip() == ""
