"""``repair``: the conversation made to pass the policy, in the input's format, each change listed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from messages import Message, OrderingPolicy, from_json, repair
from tests.cli_support import (
    ASSISTANT,
    EXAMPLE,
    SYSTEM,
    USER,
    calls,
    cli,
    example,
    one_line,
    result,
    subprocess_cli,
    write,
)
from tests.conftest import SECRET

BROKEN: dict[str, list[dict[str, Any]]] = {
    "no system": [USER, ASSISTANT],
    "two users": [SYSTEM, USER, {"role": "user", "content": "v"}, ASSISTANT],
    "orphan result": [SYSTEM, USER, result("c1"), ASSISTANT],
    "unanswered call": [SYSTEM, USER, calls("c1", "c2"), result("c2"), USER],
    "duplicate result": [SYSTEM, USER, calls("c1"), result("c1"), result("c1"), ASSISTANT],
    "text before calls": [SYSTEM, USER, ASSISTANT, calls("c1"), result("c1"), ASSISTANT],
    "late system": [SYSTEM, USER, ASSISTANT, {"role": "system", "content": "t"}, USER],
    "assistant first": [SYSTEM, ASSISTANT, USER],
    "everything": [ASSISTANT, USER, USER, result("x"), calls("c1"), USER, USER, SYSTEM],
}


@pytest.mark.parametrize("policy", ["strict", "lenient"])
@pytest.mark.parametrize("case", list(BROKEN))
def test_repair_lists_each_change_and_writes_what_validate_accepts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, case: str, policy: str
) -> None:
    items = BROKEN[case]
    path = write(tmp_path / "in.json", json.dumps(items))
    code, out, err = cli(capsys, "repair", str(path), "--policy", policy)
    assert code == 0
    chosen = OrderingPolicy.strict() if policy == "strict" else OrderingPolicy.lenient()
    fixed, changes = repair([Message.from_dict(d) for d in items], policy=chosen)
    assert err.splitlines() == [f"[{c.index}]: {c.rule}" for c in changes]
    assert from_json(out) == list(fixed)
    repaired = write(tmp_path / "out.json", out)
    code, out, err = cli(capsys, "validate", str(repaired), "--policy", policy)
    assert (code, err) == (0, "")


def test_a_valid_conversation_comes_back_as_convert_writes_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = cli(capsys, "repair", str(EXAMPLE))
    assert (code, err) == (0, "")
    assert out == cli(capsys, "convert", str(EXAMPLE), "--to", "canonical")[1]
    assert from_json(out) == example()


@pytest.mark.parametrize("fmt", ["canonical", "envelope", "ollama", "openai"])
def test_a_repair_that_drops_every_message_fails_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str
) -> None:
    lines = write(tmp_path / "c.jsonl", json.dumps(ASSISTANT) + "\n")
    code, out, err = cli(capsys, "repair", str(lines), "--format", fmt)
    assert (code, out) == (1, "")
    assert err.splitlines()[0] == "line 1: assistant_first"
    assert "nothing is left after repair" in err


def test_the_input_shape_is_kept(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    lines = write(
        tmp_path / "c.jsonl", "".join(json.dumps(d) + "\n" for d in [USER, USER, ASSISTANT])
    )
    code, out, err = cli(capsys, "repair", str(lines))
    assert code == 0
    assert err.splitlines() == [
        "line 2: alternation",
        "line 1: system_first",
    ]
    assert [json.loads(line)["role"] for line in out.splitlines()] == [
        "system",
        "user",
        "assistant",
    ]
    document = {"model": "m", "temperature": 0.5, "messages": [SYSTEM, USER, USER], "policy": "x"}
    path = write(tmp_path / "doc.json", json.dumps(document))
    code, out, err = cli(capsys, "repair", str(path))
    assert (code, one_line(err)) == (0, "messages[2]: alternation")
    written = json.loads(out)
    assert list(written) == ["model", "temperature", "messages", "policy"]
    assert [m["content"] for m in written["messages"]] == ["s", "u\n\nu"]
    single = write(tmp_path / "one.json", json.dumps(USER, indent=2))
    code, out, _ = cli(capsys, "repair", str(single), "--policy", "lenient")
    assert (code, [m["role"] for m in json.loads(out)]) == (0, ["user"])


def test_envelope_in_envelope_out(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rows = [
        {"role": "user", "content": "hi", "metadata": {}},
        {"role": "user", "content": "there", "metadata": {}},
    ]
    path = write(tmp_path / "rows.json", json.dumps(rows))
    code, out, err = cli(capsys, "repair", str(path), "--format", "envelope")
    assert code == 0
    assert err.splitlines() == [
        "[1]: alternation",
        "[0]: system_first",
    ]
    system, envelope = json.loads(out)
    assert (system["role"], system["content"]) == ("system", "")
    assert (envelope["schema"], envelope["content"]) == ("agents-api.message", "hi\n\nthere")
    assert "created_at" not in envelope  # the input gave none


def test_a_request_body_keeps_its_options_and_tools(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    tool = {"name": "lookup", "description": "d", "input_schema": {"type": "object"}}
    server_tool = {"type": "web_search_20250305", "name": "web_search"}
    body = {
        "model": "claude",
        "max_tokens": 100,
        "system": "Be brief.",
        "messages": [USER, {"role": "user", "content": "more"}, ASSISTANT],
        "tools": [tool, server_tool],  # kept as they were, even the one not read
        "tool_choice": {"type": "auto"},
    }
    path = write(tmp_path / "body.json", json.dumps(body))
    code, out, err = cli(capsys, "repair", str(path), "--format", "anthropic")
    assert (code, one_line(err)) == (0, "messages[1]: alternation")
    written = json.loads(out)
    assert list(written) == list(body)
    assert {k: v for k, v in written.items() if k != "messages"} == {
        k: v for k, v in body.items() if k != "messages"
    }
    assert [m["role"] for m in written["messages"]] == ["user", "assistant"]
    assert (
        cli(capsys, "validate", str(write(tmp_path / "out.json", out)), "--format", "anthropic")[0]
        == 0
    )


def test_a_list_of_provider_messages_stays_a_list(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path / "list.json", json.dumps([SYSTEM, USER, calls("c1"), USER]))
    code, out, err = cli(capsys, "repair", str(path), "--format", "openai")
    assert code == 0
    # openai has no error flag: the inserted error result is reported as convert would
    lines = err.splitlines()
    assert lines[0] == "[2]: unanswered_tool_call"
    assert lines[1].startswith("warning: openai: messages[3].is_error: ")
    written = json.loads(out)
    assert [m["role"] for m in written] == ["system", "user", "assistant", "tool", "user"]
    assert written[3]["tool_call_id"] == "c1"


def test_a_body_without_a_system_prompt_stays_without_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # strict wants a system message first; Anthropic keeps no empty system prompt, so
    # the body says "none" (as the repaired conversation does) and a note says so
    path = write(tmp_path / "body.json", json.dumps({"messages": [USER, ASSISTANT]}))
    target = write(tmp_path / "out.json", "previous\n")
    code, out, err = cli(capsys, "repair", str(path), "--format", "anthropic", "-o", str(target))
    assert (code, out) == (0, "")
    assert err.splitlines() == [
        "messages[0]: system_first",
        "note: anthropic keeps no empty system prompt; the body has none",
    ]
    assert json.loads(target.read_text()) == {"messages": [USER, ASSISTANT]}
    code, _, err = cli(
        capsys,
        "repair",
        str(path),
        "--format",
        "anthropic",
        "--policy",
        "lenient",
        "-o",
        str(target),
    )
    assert (code, err) == (0, "")


def test_input_that_cannot_be_decoded_is_exit_1_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(
        tmp_path / "bad.jsonl",
        json.dumps(SYSTEM)
        + "\n"
        + json.dumps({"role": "user", "content": 5, "name": SECRET})
        + "\n",
    )
    target = write(tmp_path / "out.jsonl", "previous\n")
    code, out, err = cli(capsys, "repair", str(path), "-o", str(target))
    assert (code, out) == (1, "")
    assert one_line(err).startswith("line 2, content")
    assert SECRET not in err
    assert target.read_text() == "previous\n"


def test_ids_and_times_come_from_the_input_only(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    items = [
        {**SYSTEM, "id": "sys", "created_at": "2025-01-01T00:00:00.000000Z"},
        USER,
        calls("c1"),  # unanswered: repair inserts an error result
        {**USER, "id": "sys"},  # a reused id: kept under a new one
    ]
    path = write(tmp_path / "c.json", json.dumps(items))
    code, out, _ = cli(capsys, "repair", str(path))
    assert code == 0
    written = json.loads(out)
    assert [m["role"] for m in written] == ["system", "user", "assistant", "tool", "user"]
    assert written[0]["id"] == "sys"
    assert [m.get("created_at") for m in written] == [
        "2025-01-01T00:00:00.000000Z",
        None,
        None,
        None,
        None,
    ]
    ids = [m["id"] for m in written]
    assert len(set(ids)) == 5
    assert all(len(i) == 32 and int(i, 16) >= 0 for i in ids[1:])
    # The same in another process, byte for byte.
    again = subprocess_cli("repair", str(path))
    assert again.stdout == out
