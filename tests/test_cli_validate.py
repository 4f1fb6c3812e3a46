"""``validate``: the first problem, or every one (``--all``), as ConversationHistory would see it."""

from __future__ import annotations

import json
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
    ToolResultMessage,
    repair,
)
from tests.cli_support import (
    ASSISTANT,
    EXAMPLE,
    SYSTEM,
    USER,
    calls,
    cli,
    example,
    jsonl,
    one_line,
    result,
    write,
)
from tests.conftest import FIXTURES, SECRET, fixture_entries
from tests.conversations import any_sequences


@pytest.fixture
def example_jsonl(tmp_path: Path) -> Path:
    return write(tmp_path / "chat.jsonl", jsonl(example()))


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


# --------------------------------------------------------------------------- validate and --all agree

_D = {"role": "developer", "content": "d"}


def _lines(*items: Any) -> str:
    return "".join(json.dumps(x) + "\n" for x in items)


# (name, input text, --format, the one problem as validate and validate --all report it)
ONE_PROBLEM: list[tuple[str, str, str, str]] = [
    ("system first", _lines(USER, ASSISTANT), "canonical",
     "line 1: [system_first] the first message must be a system or developer message, got user"),
    ("alternation", _lines(SYSTEM, USER, USER, ASSISTANT), "canonical",
     "line 3: [alternation] user and assistant messages must alternate; got user after user"),
    ("orphan result", _lines(SYSTEM, USER, result("c1")), "canonical",
     "line 3: [orphan_tool_result] a tool result must follow an assistant message with tool_calls"),
    ("results pending", _lines(SYSTEM, USER, calls("c1"), USER, ASSISTANT), "canonical",
     "line 4: [tool_results_pending] 1 tool call(s) still await a result ('c1'); only tool results may follow, got user"),
    ("unknown call id", _lines(SYSTEM, USER, calls("c1"), result("c2")), "canonical",
     "line 4: [unknown_tool_call_id] tool_call_id 'c2' does not match any call of the preceding tool_calls message"),
    ("duplicate result", _lines(SYSTEM, USER, calls("c1", "c2"), result("c1"), result("c1")), "canonical",
     "line 5: [duplicate_tool_result] tool_call_id 'c1' was already answered"),
    ("two systems", _lines(SYSTEM, SYSTEM, USER), "canonical",
     "line 2: [single_system] a system message is already present; only one is allowed"),
    ("late developer", _lines(SYSTEM, USER, ASSISTANT, _D), "canonical",
     "line 4: [instructions_first] developer messages must come before the first user or assistant message"),
    ("assistant first", json.dumps([SYSTEM, ASSISTANT, USER]), "canonical",
     "[1]: [assistant_first] the first turn must be a user message, got assistant"),
    ("repeated id", json.dumps({"messages": [SYSTEM, {**USER, "id": "m1"}, {**ASSISTANT, "id": "m1"}]}), "canonical",
     "messages[2]: [duplicate_id] a message with id 'm1' is already in the history"),
    ("bad role", _lines(SYSTEM, {"role": "wizard"}, USER), "canonical",
     "line 2, role: unknown role 'wizard'; expected one of system, developer, user, assistant, tool"),
    ("not json", json.dumps(SYSTEM) + "\n{\n" + json.dumps(USER) + "\n", "canonical",
     "line 2: invalid JSON (Expecting property name enclosed in double quotes at line 2 column 1)"),
    ("envelope alternation", _lines(SYSTEM, USER, USER), "envelope",
     "line 3: [alternation] user and assistant messages must alternate; got user after user"),
    ("anthropic alternation", json.dumps({"system": "s", "messages": [USER, USER]}), "anthropic",
     "messages[1]: [alternation] user and assistant messages must alternate; got user after user"),
    ("gemini system first", json.dumps({"contents": [{"role": "user", "parts": [{"text": "u"}]}]}), "gemini",
     "contents[0]: [system_first] the first message must be a system or developer message, got user"),
    ("openai results pending", json.dumps({"messages": [SYSTEM, USER, calls("c1"), USER]}), "openai",
     "messages[3]: [tool_results_pending] 1 tool call(s) still await a result ('c1'); only tool results may follow, got user"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "text", "fmt", "problem"), ONE_PROBLEM, ids=[c[0] for c in ONE_PROBLEM]
)
def test_validate_and_validate_all_report_one_problem_the_same_way(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, text: str, fmt: str, problem: str
) -> None:
    path = write(tmp_path / "in", text)
    code, out, err = cli(capsys, "validate", str(path), "--format", fmt)
    assert (code, out, one_line(err)) == (1, "", problem)
    code, out, err = cli(capsys, "validate", str(path), "--format", fmt, "--all")
    assert (code, out) == (1, "")
    assert err.splitlines() == [problem, f"{path}: 1 problem(s)"]


def test_all_carries_on_after_each_problem_as_repair_would(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Each mistake once, not again at every message after it.
    text = _lines(
        USER, ASSISTANT, USER, calls("c1", "c2"), result("c2"), USER, USER, ASSISTANT, ASSISTANT, calls("c3"), result("c3"), ASSISTANT
    )  # fmt: skip
    path = write(tmp_path / "c.jsonl", text)
    code, _, err = cli(capsys, "validate", str(path), "--all")
    assert code == 1
    assert [line.split("] ")[0] for line in err.splitlines()[:-1]] == [
        "line 1: [system_first",
        "line 6: [tool_results_pending",  # c1 is never answered: reported once
        "line 7: [alternation",
        "line 9: [alternation",
        "line 10: [alternation",  # the text before the calls (repair merges it into them)
    ]
    assert err.splitlines()[-1] == f"{path}: 5 problem(s)"
    code, _, err = cli(capsys, "validate", str(path))
    assert (
        one_line(err)
        == "line 1: [system_first] the first message must be a system or developer message, got user"
    )


def test_all_drops_a_message_imported_twice_but_goes_on_with_a_reused_id(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    again = _lines(
        SYSTEM, {**USER, "id": "m1"}, {**USER, "id": "m1"}, ASSISTANT
    )  # the same message twice
    _, _, err = cli(capsys, "validate", str(write(tmp_path / "a.jsonl", again)), "--all")
    assert [line.split(": [")[1].split("]")[0] for line in err.splitlines()[:-1]] == [
        "duplicate_id"
    ]
    reused = _lines(
        SYSTEM, {**USER, "id": "m1"}, {**ASSISTANT, "id": "m1"}, ASSISTANT
    )  # another message, same id
    _, _, err = cli(capsys, "validate", str(write(tmp_path / "b.jsonl", reused)), "--all")
    assert [line.split(": [")[1].split("]")[0] for line in err.splitlines()[:-1]] == [
        "duplicate_id",
        "alternation",
    ]


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(messages=any_sequences(), policy=st.sampled_from(["strict", "lenient"]))
def test_the_first_problem_of_all_is_what_validate_reports(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, messages: list[Message], policy: str
) -> None:
    path = write(tmp_path / "c.jsonl", jsonl(messages))
    argv = ["validate", str(path), "--policy", policy, "--input-format", "jsonl"]
    code, out, err = cli(capsys, *argv)
    code_all, out_all, err_all = cli(capsys, *argv, "--all")
    assert (code, out) == (code_all, out_all)
    if code:
        assert err_all.splitlines()[0] == one_line(err)
    chosen = OrderingPolicy.strict() if policy == "strict" else OrderingPolicy.lenient()
    assert (code == 0) == (not repair(messages, policy=chosen)[1])
