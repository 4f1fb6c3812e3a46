"""The command line: ``python -m messages convert | validate | stats``.

Most tests call ``main(argv)`` in-process; a few run ``python -m messages`` in a
subprocess to check what a shell user sees (exit codes, no tracebacks, stdin,
broken pipes, progress on a terminal, memory on a large file).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from messages import (
    ConversationHistory,
    Message,
    OrderingError,
    OrderingPolicy,
    ToolCall,
    ToolCallMessage,
    ToolDefinition,
    ToolResultMessage,
    UserMessage,
    estimate_tokens,
    from_json,
)
from messages._cli import main
from messages.providers import get_provider
from tests.conftest import FIXTURES, SECRET, fixture_entries
from tests.provider_facts import compare_messages
from tests.strategies import message_lists

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "conversation.json"
PROVIDERS = ("openai", "groq", "vllm", "ollama", "anthropic", "gemini")
COMMANDS = ("convert", "validate", "stats")


# --------------------------------------------------------------------------- helpers


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the command line in-process; return (exit status, stdout, stderr)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def subprocess_cli(
    *argv: str, input: str | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m messages`` in a fresh interpreter."""
    return subprocess.run(
        [sys.executable, "-m", "messages", *argv],
        input=input,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=_env(),
        timeout=120,
        check=False,
    )


def _env() -> dict[str, str]:
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


@pytest.fixture
def example_jsonl(tmp_path: Path) -> Path:
    return write(tmp_path / "chat.jsonl", jsonl(example()))


# --------------------------------------------------------------------------- usage


@pytest.mark.parametrize("command", COMMANDS)
def test_help_of_each_command_shows_an_example(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    code, out, err = cli(capsys, command, "--help")
    assert code == 0
    assert err == ""
    assert f"usage: python -m messages {command} " in out
    assert "examples:" in out
    assert f"python -m messages {command} " in out.split("examples:")[1]


def test_top_level_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "--help")
    assert code == 0
    assert all(c in out for c in COMMANDS)
    code, out, _ = cli(capsys, "--version")
    assert (code, out.split()[0]) == (0, "messages")


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["frobnicate", "x.json"],
        ["convert", "x.json"],  # --to is required
        ["convert", "x.json", "--to", "cohere"],
        ["convert", "x.json", "--from", "palm", "--to", "openai"],
        ["convert", "x.json", "--to", "openai", "--output-format", "jsonl"],
        ["convert", "x.json", "--to", "canonical", "--output-format", "yaml"],
        ["convert", "--to", "openai"],  # no input
        ["validate", "x.json", "--policy", "relaxed"],
        ["validate", "x.json", "--input-format", "xml"],
        ["stats", "x.json", "--verbose"],
    ],
)
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, out, err = cli(capsys, *argv)
    assert code == 2
    assert out == ""
    assert "usage: python -m messages" in err


def test_provider_names_are_case_insensitive(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, _ = cli(
        capsys, "convert", str(EXAMPLE), "--to", "Anthropic", "-o", str(tmp_path / "a")
    )
    assert code == 0


# --------------------------------------------------------------------------- convert


@pytest.mark.parametrize("provider", PROVIDERS)
def test_convert_example_to_each_provider(
    capsys: pytest.CaptureFixture[str], provider: str
) -> None:
    code, out, err = cli(capsys, "convert", str(EXAMPLE), "--to", provider)
    assert code == 0
    body = json.loads(out)
    conversion = get_provider(provider).convert(example())
    assert body == json.loads(json.dumps(conversion.body))
    # The body reads back as the same conversation.
    same_conversation(get_provider(provider).parse_messages(body), example())
    # One warning line per loss, naming the provider and the path, never content.
    lines = err.splitlines()
    assert len(lines) == len(conversion.losses)
    for line, loss in zip(lines, conversion.losses, strict=True):
        assert line == f"warning: {provider}: {loss.path.removeprefix('messages')}: {loss.rule}"


@pytest.mark.parametrize("provider", ["openai", "groq", "vllm", "ollama"])
def test_strict_refuses_a_lossy_conversion_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, provider: str
) -> None:
    # These wires have no error flag for tool results; the example has one.
    out_path = tmp_path / "body.json"
    code, out, err = cli(
        capsys, "convert", str(EXAMPLE), "--to", provider, "--strict", "-o", str(out_path)
    )
    assert code == 1
    assert out == ""
    assert not out_path.exists()
    assert list(tmp_path.iterdir()) == []  # no temporary file left behind
    lines = err.splitlines()
    assert lines[0].startswith(f"error: {provider}: ")
    assert lines[-1].endswith("nothing written (--strict)")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_strict_exit_status_follows_the_losses(
    capsys: pytest.CaptureFixture[str], provider: str
) -> None:
    lossy = bool(get_provider(provider).convert(example()).losses)
    code, _, _ = cli(capsys, "convert", str(EXAMPLE), "--to", provider, "--strict")
    assert code == (1 if lossy else 0)


def test_loss_warnings_never_show_content(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    call = ToolCall("call_1", "lookup", {"q": SECRET})
    messages = [
        UserMessage(SECRET),
        ToolCallMessage((call,)),
        ToolResultMessage("call_1", SECRET, is_error=True, tool_name="lookup"),
    ]
    path = write(tmp_path / "c.jsonl", jsonl(messages))
    code, out, err = cli(capsys, "convert", str(path), "--to", "openai")
    assert code == 0
    assert SECRET in out
    assert err
    assert SECRET not in err


@pytest.mark.parametrize(
    "entry",
    [e for e in fixture_entries() if e["kind"] == "request"],
    ids=lambda e: e["file"],
)
def test_convert_provider_fixture_to_canonical(
    capsys: pytest.CaptureFixture[str], entry: dict[str, Any]
) -> None:
    code, out, _ = cli(
        capsys,
        "convert",
        str(FIXTURES / entry["file"]),
        "--from",
        entry["provider"],
        "--to",
        "canonical",
    )
    assert code == 0
    decoded = from_json(out)
    assert isinstance(decoded, list)
    compare_messages(decoded, entry["expected"]["messages"], ids=False)


def test_convert_provider_to_provider(capsys: pytest.CaptureFixture[str]) -> None:
    source = FIXTURES / "openai" / "request_tool_roundtrip.json"
    code, out, _ = cli(capsys, "convert", str(source), "--from", "openai", "--to", "anthropic")
    assert code == 0
    original = get_provider("openai").parse_messages(json.loads(source.read_text()))
    same_conversation(get_provider("anthropic").parse_messages(json.loads(out)), original)


def test_convert_canonical_round_trip_json_and_jsonl(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = cli(capsys, "convert", str(EXAMPLE), "--to", "canonical")
    assert (code, err) == (0, "")
    assert from_json(out) == example()
    # JSON Lines output: one compact message per line, exactly the messages.
    code, out, _ = cli(
        capsys, "convert", str(EXAMPLE), "--to", "canonical", "--output-format", "jsonl"
    )
    assert code == 0
    lines = out.splitlines()
    assert [Message.from_dict(json.loads(line)) for line in lines] == example()
    # And the JSON Lines read back (detected) give the same list again.
    path = write(tmp_path / "c.jsonl", out)
    code, out, _ = cli(capsys, "convert", str(path), "--to", "canonical")
    assert from_json(out) == example()


def test_convert_keeps_ids_and_timestamps_of_canonical_input(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = cli(capsys, "convert", str(EXAMPLE), "--to", "canonical")
    decoded = from_json(out)
    assert isinstance(decoded, list)
    assert [(m.id, m.created_at) for m in decoded] == [(m.id, m.created_at) for m in example()]


def test_convert_envelope_round_trip(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = cli(capsys, "convert", str(EXAMPLE), "--to", "envelope")
    assert code == 0
    envelopes = json.loads(out)
    assert [e["type"] for e in envelopes] == [
        "text", "text", "tool_call", "tool_result", "tool_result", "text", "text", "text"
    ]  # fmt: skip
    assert all(e["schema"] == "agents-api.message" for e in envelopes)
    path = write(tmp_path / "env.json", out)
    code, out, _ = cli(capsys, "convert", str(path), "--from", "envelope", "--to", "canonical")
    assert code == 0
    assert from_json(out) == example()


def test_convert_legacy_envelope_rows_jsonl(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rows = [
        {"role": "system", "content": "Be brief.", "metadata": {}},
        {"role": "user", "content": "Hi", "metadata": {"type": "text"}},
        {"role": "assistant", "content": "Hello!", "metadata": {"type": "text"}},
    ]
    path = write(tmp_path / "rows.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    code, out, _ = cli(capsys, "convert", str(path), "--from", "envelope", "--to", "openai")
    assert code == 0
    assert [(m["role"], m["content"]) for m in json.loads(out)["messages"]] == [
        ("system", "Be brief."), ("user", "Hi"), ("assistant", "Hello!")
    ]  # fmt: skip


def test_convert_writes_output_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old")
    code, out, _ = cli(capsys, "convert", str(EXAMPLE), "--to", "gemini", "-o", str(target))
    assert (code, out) == (0, "")
    assert "contents" in json.loads(target.read_text())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_output_directory_missing_is_exit_1_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "no" / "such" / "dir" / "out.json"
    code, out, err = cli(capsys, "convert", str(EXAMPLE), "--to", "canonical", "-o", str(target))
    assert (code, out) == (1, "")
    assert one_line(err) == f"{target}: cannot write (No such file or directory)"


def test_output_onto_a_directory_is_exit_1_and_leaves_nothing_behind(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "taken"
    target.mkdir()
    code, _, err = cli(capsys, "convert", str(EXAMPLE), "--to", "canonical", "-o", str(target))
    assert code == 1
    assert one_line(err) == f"{target}: cannot write (Is a directory)"
    assert [p.name for p in tmp_path.iterdir()] == ["taken"]


def test_failed_conversion_leaves_the_old_output_untouched(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = jsonl(example())
    path = write(tmp_path / "c.jsonl", good + '{"role": "user", "content": 5}\n')
    target = write(tmp_path / "out.jsonl", "previous run\n")
    code, _, err = cli(
        capsys,
        "convert",
        str(path),
        "--to",
        "canonical",
        "--output-format",
        "jsonl",
        "-o",
        str(target),
    )
    assert code == 1
    assert one_line(err).startswith("line 9, content: ")
    assert target.read_text() == "previous run\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.jsonl", "out.jsonl"]


def test_bad_document_writes_nothing_to_stdout(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path / "c.json", json.dumps([{"role": "user", "content": "a"}, {"role": 5}]))
    for output in ("json", "jsonl"):
        code, out, err = cli(
            capsys, "convert", str(path), "--to", "canonical", "--output-format", output
        )
        assert (code, out) == (1, "")
        assert one_line(err).startswith("[1].role: ")


def test_line_separators_are_escaped_in_json_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = "a\u2028b\u2029c\x85d"
    path = write(tmp_path / "c.jsonl", json.dumps({"role": "user", "content": text}) + "\n")
    code, out, _ = cli(
        capsys, "convert", str(path), "--to", "canonical", "--output-format", "jsonl"
    )
    assert code == 0
    assert len(out.splitlines()) == 1
    assert json.loads(out)["content"] == text


def test_lone_surrogate_survives_as_valid_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path / "c.json", json.dumps([{"role": "user", "content": "a\ud800b"}]))
    code, out, _ = cli(capsys, "convert", str(path), "--to", "canonical")
    assert code == 0
    assert json.loads(out)[0]["content"] == "a\ud800b"


# --------------------------------------------------------------------------- request bodies

TWO_MESSAGES = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Yo"}]

WEATHER = ToolDefinition(
    "get_weather",
    "The weather in a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    strict=False,
)


def _body_with_tools(provider: str, tmp_path: Path) -> Path:
    msgs = [Message.system("Be brief."), Message.user("Weather in Paris?")]
    body = get_provider(provider).format_request(msgs, [WEATHER])
    return write(tmp_path / f"{provider}.json", json.dumps(body))


@pytest.mark.parametrize("target", PROVIDERS)
@pytest.mark.parametrize("source", ["anthropic", "gemini"])
def test_convert_carries_the_tools_of_a_request_body(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, source: str, target: str
) -> None:
    path = _body_with_tools(source, tmp_path)
    code, out, err = cli(capsys, "convert", str(path), "--from", source, "--to", target)
    assert (code, err) == (0, "")
    assert json.loads(out)["tools"] == get_provider(target).format_tools([WEATHER])


def test_a_tool_the_input_provider_cannot_read_is_reported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    body = json.loads(_body_with_tools("anthropic", tmp_path).read_text(encoding="utf-8"))
    body["tools"].append({"type": "web_search_20250305", "name": "web_search"})
    path = write(tmp_path / "server-tool.json", json.dumps(body))
    code, out, err = cli(capsys, "convert", str(path), "--from", "anthropic", "--to", "gemini")
    assert code == 0
    assert one_line(err) == "warning: anthropic: tools[1]: not a function tool; not carried"
    assert json.loads(out)["tools"] == get_provider("gemini").format_tools([WEATHER])
    code, out, err = cli(
        capsys, "convert", str(path), "--from", "anthropic", "--to", "gemini", "--strict"
    )
    assert (code, out) == (1, "")
    assert err.startswith("error: anthropic: tools[1]: not a function tool; not carried\n")


@pytest.mark.parametrize("source", ["openai", "ollama"])
def test_function_tools_go_from_one_provider_to_another(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, source: str
) -> None:
    path = _body_with_tools(source, tmp_path)
    code, out, err = cli(capsys, "convert", str(path), "--from", source, "--to", "anthropic")
    assert (code, err) == (0, "")
    tools = get_provider(source).parse_tools(json.loads(path.read_text(encoding="utf-8")))
    assert json.loads(out)["tools"] == get_provider("anthropic").format_tools(tools)


@pytest.mark.parametrize("target", ["canonical", "envelope"])
def test_tools_that_cannot_be_carried_are_never_dropped_silently(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, target: str
) -> None:
    source = "gemini"  # canonical and envelope documents have no place for tools
    path = _body_with_tools(source, tmp_path)
    out_path = tmp_path / "out.json"
    argv = ["convert", str(path), "--from", source, "--to", target, "-o", str(out_path)]
    code, _, err = cli(capsys, *argv)
    assert code == 0
    assert one_line(err).startswith(f"warning: {source}: tools: not carried")
    out_path.unlink()
    code, _, err = cli(capsys, *argv, "--strict")
    assert code == 1
    assert err.startswith(f"error: {source}: tools: not carried")
    assert not out_path.exists()


@pytest.mark.parametrize(
    ("body", "key", "hint"),
    [
        ({"system": "s", "messages": TWO_MESSAGES}, "system", "--from anthropic"),
        ({"messages": TWO_MESSAGES, "system": [{"type": "text", "text": "s"}]}, "system", "--from anthropic"),
        ({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}, "contents", "--from gemini"),
        ({"systemInstruction": {"parts": []}, "messages": TWO_MESSAGES}, "systemInstruction", "--from gemini"),
        ({"messages": TWO_MESSAGES, "tools": []}, "tools", "--from PROVIDER (one of openai,"),
        ({"model": "m", "functions": [], "messages": TWO_MESSAGES}, "functions", "--from PROVIDER"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("command", ["convert", "validate", "stats"])
def test_a_provider_body_read_as_canonical_is_an_error_not_a_silent_loss(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    body: dict[str, Any],
    key: str,
    hint: str,
    command: str,
) -> None:
    path = write(tmp_path / "body.json", json.dumps(body))
    extra = ["--to", "openai"] if command == "convert" else []
    code, out, err = cli(capsys, command, str(path), *extra)
    assert (code, out) == (1, "")
    line = one_line(err)
    assert line.startswith(f"{key}: ")
    assert hint in line


@pytest.mark.parametrize(
    "document",
    [
        {"model": "m", "temperature": 0.2, "messages": TWO_MESSAGES},
        ConversationHistory(
            [Message.user("a"), Message.assistant("b")], policy=OrderingPolicy.lenient()
        ).to_dict(),
    ],
    ids=["request options", "ConversationHistory.to_dict"],
)
def test_canonical_documents_with_other_keys_still_convert(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, document: dict[str, Any]
) -> None:
    path = write(tmp_path / "doc.json", json.dumps(document))
    code, out, err = cli(capsys, "convert", str(path), "--to", "canonical")
    assert (code, err) == (0, "")
    assert len(json.loads(out)) == 2


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
    code, out, err = cli(capsys, "convert", str(path), "--to", "openai")
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
        (f'{{"role": "user", "content": "x"}}\n{{"role": "assistant", "tool_calls": [{{"id": "c", "type": "function", "function": {{"name": "f", "arguments": "{{\\"{SECRET}\\": "}}}}]}}\n', "line 2, tool_calls[0].function.arguments: "),
        (f'"{SECRET}"', "expected a list of messages"),
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


# --------------------------------------------------------------------------- validate


def test_validate_example(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "validate", str(EXAMPLE))
    assert (code, err) == (0, "")
    assert out == f"{EXAMPLE}: ok (8 messages, strict ordering)\n"


def alternation_break() -> list[Message]:
    return [Message.system("s"), Message.user("a"), Message.user("b"), Message.assistant("c")]


def test_validate_reports_the_first_ordering_problem(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path / "c.jsonl", jsonl(alternation_break()))
    code, out, err = cli(capsys, "validate", str(path))
    assert (code, out) == (1, "")
    assert one_line(err) == (
        "line 3: [alternation] user and assistant messages must alternate; got user after user"
    )
    listed = write(tmp_path / "c.json", json.dumps([m.to_dict() for m in alternation_break()]))
    code, _, err = cli(capsys, "validate", str(listed))
    assert one_line(err).startswith("[2]: [alternation] ")


@pytest.mark.parametrize(
    ("provider", "body", "path"),
    [
        (
            "anthropic",
            {"system": "s", "messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]},
            "messages[1]",
        ),
        (
            "anthropic",  # one wire message gives two: a tool result and the user's text
            {"system": "s", "messages": [
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "r"},
                    {"type": "text", "text": "thanks"},
                ]},
                {"role": "user", "content": "again"},
            ]},
            "messages[3]",
        ),
        (
            "gemini",
            {"systemInstruction": {"parts": [{"text": "s"}]},
             "contents": [{"role": "user", "parts": [{"text": "a"}]}, {"role": "user", "parts": [{"text": "b"}]}]},
            "contents[1]",
        ),
        (
            "openai",
            {"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "a"},
                          {"role": "user", "content": "b"}]},
            "messages[2]",
        ),
        ("anthropic", {"messages": [{"role": "assistant", "content": "a"}]}, "messages[0]"),
        ("anthropic", {"system": "s", "messages": [{"role": "assistant", "content": "a"}]}, "messages[0]"),
    ],
)  # fmt: skip
def test_validate_names_the_input_path_in_a_provider_body(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    provider: str,
    body: dict[str, Any],
    path: str,
) -> None:
    source = write(tmp_path / "body.json", json.dumps(body))
    code, _, err = cli(capsys, "validate", str(source), "--format", provider)
    assert code == 1
    assert one_line(err).startswith(f"{path}: [")
    code, _, err = cli(capsys, "validate", str(source), "--format", provider, "--all")
    assert code == 1
    assert err.splitlines()[0].startswith(f"{path}: [")


def test_validate_names_the_line_of_provider_messages_in_json_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    orphan = {"type": "tool_result", "tool_use_id": "t9", "content": "r"}
    lines = [{"role": "user", "content": "a"}, {"role": "user", "content": [orphan]}]
    source = write(tmp_path / "m.jsonl", "".join(json.dumps(x) + "\n\n" for x in lines))
    code, _, err = cli(
        capsys, "validate", str(source), "--format", "anthropic", "--policy", "lenient"
    )
    assert code == 1
    assert one_line(err).startswith("line 3: [orphan_tool_result]")


def test_validate_lenient_policy(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(tmp_path / "c.jsonl", jsonl(alternation_break()[1:]))
    code, out, _ = cli(capsys, "validate", str(path), "--policy", "lenient")
    assert code == 0
    assert out.endswith("ok (3 messages, lenient ordering)\n")
    code, _, err = cli(capsys, "validate", str(path), "--policy", "strict")
    assert code == 1
    assert "[system_first]" in err


@pytest.mark.parametrize(
    "entry",
    [e for e in fixture_entries() if e["kind"] == "request"],
    ids=lambda e: e["file"],
)
def test_validate_provider_fixtures(
    capsys: pytest.CaptureFixture[str], entry: dict[str, Any]
) -> None:
    code, out, err = cli(
        capsys,
        "validate",
        str(FIXTURES / entry["file"]),
        "--format",
        entry["provider"],
        "--policy",
        "lenient",
    )
    assert (code, err) == (0, "")
    assert f"({len(entry['expected']['messages'])} messages, lenient ordering)" in out


def test_validate_all_lists_every_problem(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    call = ToolCall("call_1", "lookup", {})
    lines = [
        json.dumps(Message.system("s").to_dict()),
        json.dumps(Message.user("a").to_dict()),
        '{"role": "user", "content": ' + json.dumps(SECRET),  # line 3: not JSON
        json.dumps(ToolCallMessage((call,)).to_dict()),
        json.dumps({"role": "tool", "content": SECRET}),  # line 5: no tool_call_id
        json.dumps(Message.user("b").to_dict()),  # line 6: call_1 never answered
        json.dumps(Message.user("c").to_dict()),  # line 7: two users in a row
    ]
    path = write(tmp_path / "c.jsonl", "\n".join(lines) + "\n")
    code, out, err = cli(capsys, "validate", str(path), "--all")
    assert (code, out) == (1, "")
    problems = err.splitlines()
    assert SECRET not in err
    assert problems[0].startswith("line 3: invalid JSON")
    assert problems[1].startswith("line 5, tool_call_id: ")
    assert problems[-1] == f"{path}: {len(problems) - 1} problem(s)"
    assert len(problems) >= 5  # and the ordering problems after the decode problems
    # Without --all only the first problem is reported.
    code, _, err = cli(capsys, "validate", str(path))
    assert one_line(err).startswith("line 3: invalid JSON")


def test_validate_all_ok(capsys: pytest.CaptureFixture[str], example_jsonl: Path) -> None:
    code, out, err = cli(capsys, "validate", str(example_jsonl), "--all")
    assert (code, err) == (0, "")
    assert out == f"{example_jsonl}: ok (8 messages, strict ordering)\n"


def test_validate_all_reports_repeated_ids(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    messages = [
        Message.system("s", id="m1"),
        Message.user("a", id="m2"),
        Message.assistant("b", id="m2"),
    ]
    path = write(tmp_path / "c.json", json.dumps([m.to_dict() for m in messages]))
    code, _, err = cli(capsys, "validate", str(path), "--all")
    assert code == 1
    assert err.splitlines() == [
        "[2]: [duplicate_id] a message with id 'm2' is already in the history",
        f"{path}: 1 problem(s)",
    ]


def _calls(*ids: str) -> ToolCallMessage:
    return ToolCallMessage(tuple(ToolCall(i, "lookup", {"n": 1}) for i in ids))


HISTORY_CASES: dict[str, list[Message]] = {
    "example": example(),
    "alternation": alternation_break(),
    "no system first": [Message.user("a"), Message.assistant("b")],
    "two systems": [Message.system("s"), Message.system("t"), Message.user("a")],
    "duplicate id": [Message.system("s"), Message.user("a", id="x"), Message.assistant("b", id="x")],
    "orphan result": [Message.system("s"), Message.user("a"), ToolResultMessage("c1", "r")],
    "user while calls pending": [Message.system("s"), Message.user("a"), _calls("c1"), Message.user("b")],
    "unknown call id": [Message.system("s"), Message.user("a"), _calls("c1"), ToolResultMessage("c2", "r")],
    "duplicate result": [
        Message.system("s"), Message.user("a"), _calls("c1", "c2"),
        ToolResultMessage("c1", "r"), ToolResultMessage("c1", "r"),
    ],
    "calls still running at the end": [Message.system("s"), Message.user("a"), _calls("c1", "c2")],
    "answered in any order": [
        Message.system("s"), Message.user("a"), _calls("c1", "c2"),
        ToolResultMessage("c2", "r"), ToolResultMessage("c1", "r"), Message.assistant("done"),
    ],
}  # fmt: skip


@pytest.mark.parametrize("policy", ["strict", "lenient"])
@pytest.mark.parametrize("case", list(HISTORY_CASES))
def test_validate_agrees_with_conversation_history(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, case: str, policy: str
) -> None:
    messages = HISTORY_CASES[case]
    chosen = OrderingPolicy.strict() if policy == "strict" else OrderingPolicy.lenient()
    try:
        ConversationHistory(messages, policy=chosen)
    except OrderingError as exc:
        expected: OrderingError | None = exc
    else:
        expected = None
    path = write(tmp_path / "c.jsonl", jsonl(messages))
    code, out, err = cli(capsys, "validate", str(path), "--policy", policy)
    if expected is None:
        assert (code, err) == (0, "")
        assert out == f"{path}: ok ({len(messages)} messages, {policy} ordering)\n"
    else:
        assert (code, out) == (1, "")
        assert one_line(err) == f"line {expected.index + 1}: [{expected.rule}] {expected.message}"


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


# --------------------------------------------------------------------------- properties

# The conftest profile sets max_examples; the tmp file is rewritten by each example.
_FIXTURE_SETTINGS = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@_FIXTURE_SETTINGS
@given(messages=message_lists, output=st.sampled_from(["json", "jsonl"]))
def test_canonical_to_canonical_is_exact(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, messages: list[Message], output: str
) -> None:
    path = write(tmp_path / "in.jsonl", jsonl(messages))
    code, out, err = cli(
        capsys, "convert", str(path), "--to", "canonical", "--output-format", output,
        "--input-format", "jsonl",
    )  # fmt: skip
    assert (code, err) == (0, "")
    if output == "jsonl":
        assert [Message.from_dict(json.loads(line)) for line in out.splitlines()] == messages
    else:
        assert from_json(out) == messages


_KEYS = st.sampled_from(
    ["role", "content", "messages", "tool_calls", "id", "type", "function", "name", "arguments",
     "tool_call_id", "text", "parts", "contents", "system", "metadata", "payload", "schema"]
)  # fmt: skip
_ROLES = st.sampled_from(["system", "developer", "user", "assistant", "tool", "model", "function"])
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS | st.text(max_size=4), inner, max_size=4),
    max_leaves=10,
)  # fmt: skip
_MESSAGE_LIKE = st.fixed_dictionaries(
    {"role": _ROLES}, optional=dict.fromkeys(("content", "tool_calls", "tool_call_id", "parts", "id", "name"), _JSON)
)  # fmt: skip
_INPUTS = st.one_of(
    st.binary(max_size=120),
    _JSON.map(json.dumps),
    st.lists(_MESSAGE_LIKE, max_size=4).map(json.dumps),
    st.lists(_MESSAGE_LIKE, max_size=4).map(lambda ms: "\n".join(map(json.dumps, ms))),
    st.lists(_MESSAGE_LIKE, max_size=4).map(lambda ms: json.dumps({"messages": ms, "system": "s"})),
)
_FORMAT_NAMES = st.sampled_from(["canonical", "envelope", *PROVIDERS])


@_FIXTURE_SETTINGS
@given(data=_INPUTS, fmt=_FORMAT_NAMES, command=st.sampled_from(["convert", "validate", "stats"]))
def test_any_input_exits_0_or_1_and_never_with_an_internal_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data: str | bytes, fmt: str, command: str
) -> None:
    path = tmp_path / "in"
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))
    argv = {
        "convert": ["convert", str(path), "--from", fmt, "--to", "canonical"],
        "validate": ["validate", str(path), "--format", fmt, "--all"],
        "stats": ["stats", str(path), "--format", fmt],
    }[command]
    code, out, err = cli(capsys, *argv)
    assert code in (0, 1)
    assert "internal error" not in err
    if code == 1:
        assert err
    elif command == "convert":
        assert isinstance(json.loads(out), list)


# --------------------------------------------------------------------------- unexpected errors


def test_an_unexpected_error_shows_only_its_type(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import messages._cli.stats as cli_module

    def broken(args: object) -> int:
        raise RuntimeError(SECRET)

    monkeypatch.setattr(cli_module, "run", broken)
    code, out, err = cli(capsys, "stats", str(EXAMPLE))
    assert (code, out) == (1, "")
    assert one_line(err) == "internal error (RuntimeError); rerun with --traceback to see where"
    with pytest.raises(RuntimeError):
        main(["--traceback", "stats", str(EXAMPLE)])


# --------------------------------------------------------------------------- as a shell user


def test_subprocess_convert_from_stdin_to_stdout() -> None:
    done = subprocess_cli(
        "convert", "-", "--from", "openai", "--to", "gemini",
        input=(FIXTURES / "openai" / "request_tool_roundtrip.json").read_text(),
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    body = json.loads(done.stdout)
    # the body's function tools go along
    [tools] = body["tools"]
    assert [d["name"] for d in tools["functionDeclarations"]] == ["get_weather"]
    assert body["systemInstruction"]["parts"][0]["text"].startswith("You are a helpful")


def test_subprocess_exit_codes_and_no_tracebacks(tmp_path: Path) -> None:
    done = subprocess_cli("validate", "examples/conversation.json")
    assert (done.returncode, done.stderr) == (0, "")
    done = subprocess_cli("validate", str(tmp_path / "nope.json"))
    assert done.returncode == 1
    assert done.stderr == f"{tmp_path / 'nope.json'}: cannot read (No such file or directory)\n"
    bad = write(tmp_path / "bad.json", f'[{{"role": "user", "content": "{SECRET}"')
    done = subprocess_cli("stats", str(bad))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert SECRET not in done.stderr
    done = subprocess_cli("convert", str(bad))
    assert done.returncode == 2
    assert "the following arguments are required: --to" in done.stderr


def test_subprocess_broken_pipe_is_quiet(tmp_path: Path) -> None:
    path = write(tmp_path / "c.jsonl", jsonl(example()) * 2000)
    with subprocess.Popen(
        [sys.executable, "-m", "messages", "convert", str(path), "--to", "canonical",
         "--output-format", "jsonl"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
    ) as proc:  # fmt: skip
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline().startswith(b"{")
        proc.stdout.close()
        err = proc.stderr.read()
        assert proc.wait(timeout=60) == 1
    assert b"Traceback" not in err


def test_demo_runs() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "demo.py")],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for provider in PROVIDERS:
        assert f"$ python -m messages convert conversation.json --to {provider} " in done.stdout
        assert f"validated as {provider}: ok (8 messages, strict ordering)" in done.stdout
    assert done.stdout.endswith("demo ok\n")


# --------------------------------------------------------------------------- large input

BIG_LINES = 50_000
_FILLER = "It is 27 degrees and partly cloudy, with a light breeze from the river. " * 8


def big_jsonl(path: Path, lines: int = BIG_LINES) -> Path:
    """A long valid conversation in canonical JSON Lines: system, then 4-message turns."""
    with path.open("w", encoding="utf-8") as f:
        f.write(json.dumps({"role": "system", "content": "You are a helpful assistant."}) + "\n")
        for i in range((lines - 1) // 4):
            args = json.dumps({"n": i, "q": "weather in Lisbon"})
            call = {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": "lookup", "arguments": args},
            }
            f.write(json.dumps({"role": "user", "content": f"Question {i}: {_FILLER}"}) + "\n")
            f.write(json.dumps({"role": "assistant", "tool_calls": [call]}) + "\n")
            f.write(
                json.dumps({"role": "tool", "tool_call_id": f"call_{i}", "content": _FILLER}) + "\n"
            )
            f.write(json.dumps({"role": "assistant", "content": f"Answer {i}: {_FILLER}"}) + "\n")
    return path  # fmt: skip


# Each command runs once on a small file first, so that imports and warm caches
# are not counted; then the peak of traced memory is taken per command.
_MEASURE = """\
import contextlib, io, sys, tracemalloc
from messages._cli import main
small, big, commands = sys.argv[1], sys.argv[2], {commands!r}
for argv in commands:
    with contextlib.redirect_stdout(io.StringIO()):
        assert main([small if a == "IN" else a for a in argv]) == 0
tracemalloc.start()
for argv in commands:
    tracemalloc.reset_peak()
    with contextlib.redirect_stdout(io.StringIO()) as out:
        status = main([big if a == "IN" else a for a in argv])
    print(argv[0], status, tracemalloc.get_traced_memory()[1], out.getvalue().count("\\n"))
"""


def test_large_jsonl_streams_without_loading_the_file(tmp_path: Path) -> None:
    path = big_jsonl(tmp_path / "big.jsonl")
    small = big_jsonl(tmp_path / "small.jsonl", 9)
    size = path.stat().st_size
    out = tmp_path / "out.jsonl"
    commands = [
        ["convert", "IN", "--to", "canonical", "--output-format", "jsonl", "-o", str(out)],
        ["validate", "IN"],
        ["stats", "IN", "--json"],
    ]
    script = _MEASURE.format(commands=commands)
    done = subprocess.run(
        [sys.executable, "-c", script, str(small), str(path)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    results = [line.split() for line in done.stdout.splitlines()]
    assert [(name, status) for name, status, _, _ in results] == [
        ("convert", "0"), ("validate", "0"), ("stats", "0")
    ]  # fmt: skip
    for name, _, peak, _ in results:
        assert int(peak) < size / 10, (name, peak, size)
    messages = BIG_LINES - (BIG_LINES - 1) % 4
    with out.open() as f:
        assert sum(1 for _ in f) == messages
    assert results[1][3] == "1"  # validate printed its one "ok" line


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_progress_is_shown_only_on_a_terminal(tmp_path: Path) -> None:
    import pty

    path = big_jsonl(tmp_path / "big.jsonl", 40_000)
    main_fd, child_fd = pty.openpty()
    with subprocess.Popen(
        [sys.executable, "-m", "messages", "stats", str(path)],
        stdout=subprocess.PIPE,
        stderr=child_fd,
        env=_env(),
    ) as proc:
        os.close(child_fd)
        shown = b""
        while True:
            try:
                chunk = os.read(main_fd, 4096)
            except OSError:  # EIO once the child has closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        assert proc.stdout is not None
        table = proc.stdout.read()
        assert proc.wait(timeout=60) == 0
    os.close(main_fd)
    assert f"{path}: 16,384 lines".encode() in shown
    assert f"{path}: 39,997 lines".encode() in shown
    assert shown.endswith(b"\r")  # the progress line is erased at the end
    assert b"messages" in table
    # Not a terminal: no progress at all.
    done = subprocess_cli("stats", str(path))
    assert (done.returncode, done.stderr) == (0, "")


def test_a_tool_the_target_cannot_read_is_reported_and_the_rest_carried(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Gemini allows a dot in a function name; the canonical tool name does not
    declarations = [
        {"functionDeclarations": [{"name": "files.read", "description": "r", "parameters": {"type": "object", "properties": {}}}]},
        {"functionDeclarations": [{"name": "ok_tool", "description": "ok", "parameters": {"type": "object", "properties": {}}}]},
    ]  # fmt: skip
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "tools": declarations}
    path = write(tmp_path / "gemini.json", json.dumps(body))
    code, out, err = cli(capsys, "convert", str(path), "--from", "gemini", "--to", "openai")
    assert code == 0
    assert [t["function"]["name"] for t in json.loads(out)["tools"]] == ["ok_tool"]
    assert one_line(err).startswith(
        "warning: gemini: tools[0].functionDeclarations[0].name: not carried: invalid tool name"
    )
    argv = ["convert", str(path), "--from", "gemini", "--to", "openai", "--strict"]
    code, out, err = cli(capsys, *argv)
    assert (code, out) == (1, "")


def test_one_bad_declaration_in_a_gemini_tools_entry_leaves_the_others(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    params = {"type": "object", "properties": {}}
    entry = {"functionDeclarations": [
        {"name": "get_weather", "description": "w", "parameters": params},
        {"name": "ns.bad", "description": "b", "parameters": params},
    ]}  # fmt: skip
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "tools": [entry]}
    path = write(tmp_path / "gemini.json", json.dumps(body))
    code, out, err = cli(capsys, "convert", str(path), "--from", "gemini", "--to", "openai")
    assert code == 0
    assert [t["function"]["name"] for t in json.loads(out)["tools"]] == ["get_weather"]
    assert one_line(err).startswith(
        "warning: gemini: tools[0].functionDeclarations[1].name: not carried"
    )
