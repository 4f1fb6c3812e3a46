"""`make demo`: the command line at work on a real conversation.

Validates and summarises examples/conversation.json (a travel-assistant chat with
two parallel tool calls, one of which fails), converts it to every provider's
request format with ``python -m messages convert``, validates each result in that
provider's format, converts one provider's body straight into another's, and
repairs a conversation that breaks the turn rules.
Every step runs the actual command line in a subprocess and shows the command.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = Path("examples") / "conversation.json"
PROVIDERS = ("openai", "groq", "vllm", "ollama", "anthropic", "gemini")


def run(
    *args: str, cwd: Path = ROOT, show: bool = True, status: int = 0
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m messages ARGS`` in ``cwd``; stop the demo unless it exits ``status``."""
    if show:
        print(f"$ python -m messages {shlex.join(args)}")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-m", "messages", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != status:
        print(done.stdout + done.stderr, end="")
        sys.exit(f"demo failed: 'python -m messages {shlex.join(args)}' exited {done.returncode}")
    return done


def indent(text: str, prefix: str = "    ") -> str:
    """Every non-empty line of ``text`` with ``prefix`` in front."""
    return "\n".join(prefix + line for line in text.splitlines() if line)


def shape(body: dict[str, object]) -> str:
    """A one-line outline of a request body: its keys, with list lengths."""
    keys = []
    for key, value in body.items():
        keys.append(f"{key}[{len(value)}]" if isinstance(value, list) else key)
    return ", ".join(keys)


def counts(stats_json: str) -> dict[str, object]:
    """The counts of ``stats --json`` that a faithful conversion keeps (not token estimates)."""
    stats = json.loads(stats_json)
    return {k: stats[k] for k in ("messages", "roles", "tool_calls", "unanswered_tool_calls")}


def main() -> int:
    """Run the demo; return the exit status."""
    conversation = json.loads((ROOT / EXAMPLE).read_text(encoding="utf-8"))
    calls = [c["function"]["name"] for m in conversation for c in m.get("tool_calls", ())]
    errors = sum(1 for m in conversation if m.get("is_error"))
    print(f"== {EXAMPLE}: {len(conversation)} messages, {len(calls)} parallel tool calls")
    print(f"   ({', '.join(calls)}), {errors} of them answered with an error\n")

    print(run("validate", str(EXAMPLE)).stdout)
    print(run("stats", str(EXAMPLE)).stdout)
    original = counts(run("stats", str(EXAMPLE), "--json", show=False).stdout)

    with tempfile.TemporaryDirectory(prefix="messages-demo-") as tmp:
        out = Path(tmp)
        shutil.copy(ROOT / EXAMPLE, out / EXAMPLE.name)
        print(f"== the same conversation as each provider's request body (working in {out})\n")
        for name in PROVIDERS:
            done = run("convert", EXAMPLE.name, "--to", name, "-o", f"{name}.json", cwd=out)
            body = json.loads((out / f"{name}.json").read_text(encoding="utf-8"))
            print(f"    body: {shape(body)}")
            losses = done.stderr.strip()
            print(indent(losses) if losses else "    nothing lost")
            checked = run("validate", f"{name}.json", "--format", name, cwd=out, show=False)
            print(f"    validated as {name}: {checked.stdout.strip().split(': ', 1)[1]}\n")

        print("== provider to provider: Anthropic's body straight into Gemini's\n")
        run("convert", "anthropic.json", "--from", "anthropic", "--to", "gemini",
            "-o", "anthropic-to-gemini.json", cwd=out)  # fmt: skip
        print(run("stats", "anthropic-to-gemini.json", "--format", "gemini", cwd=out).stdout)
        again = run("stats", "anthropic-to-gemini.json", "--format", "gemini", "--json",
                    cwd=out, show=False).stdout  # fmt: skip
        if counts(again) != original:
            sys.exit("demo failed: the converted conversation lost messages or tool calls")
        print("same messages, roles and tool calls as the original")

        print("\n== repair: an exported chat that breaks the turn rules\n")
        # no system prompt, the question imported twice, the tool results lost
        broken = conversation[1:3] + conversation[1:2] + conversation[5:]
        (out / "broken.jsonl").write_text(
            "".join(json.dumps(m) + "\n" for m in broken), encoding="utf-8"
        )
        problems = run("validate", "broken.jsonl", "--all", cwd=out, status=1).stderr
        print(indent(problems))
        fixed = run("repair", "broken.jsonl", "-o", "fixed.jsonl", cwd=out)
        print(indent(fixed.stderr))
        print(run("validate", "fixed.jsonl", cwd=out).stdout)
    print("\ndemo ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
