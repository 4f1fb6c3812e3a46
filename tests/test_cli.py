"""The command line as a whole: usage, exit statuses, any input, what a shell user sees.

Most tests call ``main(argv)`` in-process; some run ``python -m messages`` in a
subprocess, to check what a shell user sees (exit codes, no tracebacks, stdin,
broken pipes).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from messages._cli import main
from tests.cli_support import (
    COMMANDS,
    EXAMPLE,
    PROVIDERS,
    ROOT,
    cli,
    env,
    example,
    jsonl,
    one_line,
    subprocess_cli,
    write,
)
from tests.conftest import FIXTURES, SECRET

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
        ["convert", "x.json", "--to", "palm"],
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


# --------------------------------------------------------------------------- properties

# The conftest profile sets max_examples; the tmp file is rewritten by each example.
_FIXTURE_SETTINGS = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


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
@given(data=_INPUTS, fmt=_FORMAT_NAMES, command=st.sampled_from(COMMANDS))
def test_any_input_exits_0_or_1_and_never_with_an_internal_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data: str | bytes, fmt: str, command: str
) -> None:
    path = tmp_path / "in"
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))
    argv = {
        "convert": ["convert", str(path), "--from", fmt, "--to", "canonical"],
        "validate": ["validate", str(path), "--format", fmt, "--all"],
        "stats": ["stats", str(path), "--format", fmt],
        "repair": ["repair", str(path), "--format", fmt],
    }[command]
    code, out, err = cli(capsys, *argv)
    assert code in (0, 1)
    assert "internal error" not in err
    if code == 1:
        assert err
    elif command == "convert":
        assert isinstance(json.loads(out), list)
    elif command == "repair" and fmt in ("canonical", "envelope"):
        # what repair wrote passes validate, in the same format
        path.write_text(out, encoding="utf-8")
        assert cli(capsys, "validate", str(path), "--format", fmt)[0] == 0


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
        env=env(),
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
        env=env(),
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for provider in PROVIDERS:
        assert f"$ python -m messages convert conversation.json --to {provider} " in done.stdout
        assert f"validated as {provider}: ok (8 messages, strict ordering)" in done.stdout
    assert "$ python -m messages repair broken.jsonl -o fixed.jsonl" in done.stdout
    assert "fixed.jsonl: ok (8 messages, strict ordering)" in done.stdout
    assert done.stdout.endswith("demo ok\n")
