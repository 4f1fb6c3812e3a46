"""``convert`` without ``--from``: the input's format detected from its keys (every request
fixture of every provider), said on stderr and used; canonical and envelope input; bodies
whose keys say two things; and the other spellings of provider names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import ConversationHistory, Envelope, Message, ToolCall, ToolCallMessage
from messages._cli.detect import detect
from messages.providers import PROVIDERS, get_provider
from tests.cli_support import cli, example, jsonl, one_line, write
from tests.conftest import FIXTURES, fixture_entries, load_fixture

#: Servers that speak the chat-completions dialect: a body of plain chat messages fits
#: each of them, and is read as ``openai`` unless a key only one of them has says which.
DIALECTS = frozenset(("groq", "vllm", "deepseek", "openrouter", "mistral", "cohere"))

REQUESTS = [e for e in fixture_entries() if e["kind"] == "request"]
TWO = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]


@pytest.mark.parametrize("entry", REQUESTS, ids=[e["file"] for e in REQUESTS])
def test_every_request_fixture_is_detected_as_its_provider(entry: dict[str, Any]) -> None:
    found = detect(load_fixture(entry))
    if entry["provider"] in DIALECTS:
        assert found in (entry["provider"], "openai")
    else:
        assert found == entry["provider"]


@pytest.mark.parametrize(
    "file",
    [
        "anthropic/request_tool_roundtrip.json",
        "gemini/request_tool_roundtrip.json",
        "openai_responses/request_tool_roundtrip.json",
        "ollama/request_tool_roundtrip.json",
        "openrouter/request_reasoning_encrypted.json",
        "openai/request_developer_parts.json",
    ],
)
def test_convert_without_from_reads_a_body_as_the_provider_it_detects_and_says_so(
    capsys: pytest.CaptureFixture[str], file: str
) -> None:
    provider = file.split("/", maxsplit=1)[0]
    path = str(FIXTURES / file)
    code, detected, err = cli(capsys, "convert", path, "--to", "canonical")
    assert code == 0
    first, *rest = err.splitlines()
    assert first.startswith(f"convert: reading the input as {provider} (detected from its keys")
    code, given, err_given = cli(capsys, "convert", path, "--from", provider, "--to", "canonical")
    assert (code, detected, "\n".join(rest)) == (0, given, err_given.rstrip("\n"))


def test_plain_chat_messages_in_a_request_body_are_read_as_openai_and_the_others_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    body = {"model": "m", "temperature": 0.2, "messages": TWO}
    assert detect(body) == "openai"
    path = write(tmp_path / "body.json", json.dumps(body))
    code, out, err = cli(capsys, "convert", str(path), "--to", "anthropic")
    assert code == 0
    assert json.loads(out)["messages"] == [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b"},
    ]
    line = one_line(err)
    assert line.startswith("convert: reading the input as openai (detected from its keys: ")
    assert "groq, vllm, deepseek, openrouter, mistral" in line
    assert "--from chooses" in line


@pytest.mark.parametrize(
    "value",
    [
        [m.to_dict() for m in example()],
        ConversationHistory(example()).to_dict(),
        example()[1].to_dict(),
    ],
    ids=["list", "ConversationHistory.to_dict", "one message"],
)
def test_canonical_dicts_are_detected_and_read_without_a_word(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, value: Any
) -> None:
    assert detect(value) == "canonical"
    path = write(tmp_path / "doc.json", json.dumps(value))
    code, out, err = cli(capsys, "convert", str(path), "--to", "canonical")
    assert (code, err) == (0, "")
    assert len(json.loads(out)) == (1 if "role" in value else len(example()))


def test_envelopes_are_detected_and_read_as_envelopes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    messages = [
        Message.user("weather?"),
        ToolCallMessage([ToolCall("call_1", "get_weather", {"city": "Paris"})]),
    ]
    rows = [Envelope.from_message(m).to_dict() for m in messages]
    assert detect(rows) == "envelope"
    for name, text in (("rows.json", json.dumps(rows)), ("rows.jsonl", jsonl_rows(rows))):
        path = write(tmp_path / name, text)
        code, out, err = cli(capsys, "convert", str(path), "--to", "canonical")
        assert code == 0
        assert one_line(err) == "convert: reading the input as envelope (detected from its keys)"
        back = json.loads(out)
        assert [m["role"] for m in back] == ["user", "assistant"]
        assert back[1]["tool_calls"][0]["id"] == "call_1"


def jsonl_rows(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def test_json_lines_are_judged_by_their_first_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    body = load_fixture({"file": "anthropic/request_tool_roundtrip.json"})
    path = write(tmp_path / "turns.jsonl", jsonl_rows(body["messages"]))
    code, out, err = cli(capsys, "convert", str(path), "--to", "canonical")
    assert code == 0
    assert one_line(err).startswith("convert: reading the input as anthropic")
    expected = get_provider("anthropic").parse_messages(body["messages"])
    assert [m["role"] for m in json.loads(out)] == [m.role.value for m in expected]
    canonical = write(tmp_path / "canonical.jsonl", jsonl(example()))
    assert cli(capsys, "convert", str(canonical), "--to", "canonical")[::2] == (0, "")


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ({"system": "s", "contents": [{"role": "user", "parts": [{"text": "hi"}]}]}, "system"),
        ({"systemInstruction": {"parts": []}, "messages": TWO}, "systemInstruction"),
        ({"contents": [], "messages": TWO}, "contents"),
    ],
)
def test_keys_of_two_formats_are_no_answer_and_the_canonical_reading_names_the_key(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, body: dict[str, Any], key: str
) -> None:
    assert detect(body) is None
    path = write(tmp_path / "body.json", json.dumps(body))
    code, out, err = cli(capsys, "convert", str(path), "--to", "openai")
    assert (code, out) == (1, "")
    assert one_line(err).startswith(f"{key}: ")


@pytest.mark.parametrize(
    "value",
    [TWO, {"messages": TWO}, TWO[0], [], {}, "text", 7, None, [1, "x"], {"messages": "x"}],
)
def test_what_says_nothing_is_no_answer(value: Any) -> None:
    assert detect(value) is None


def test_a_given_from_is_used_as_given(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(FIXTURES / "anthropic" / "request_tool_roundtrip.json")
    code, out, err = cli(capsys, "convert", path, "--from", "canonical", "--to", "openai")
    assert (code, out) == (1, "")
    assert "--from anthropic" in one_line(err)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                ["role", "content", "type", "messages", "input", "system", "parts", "tools",
                 "tool_calls", "function", "arguments", "thinking", "signature", "source",
                 "document", "payload", "schema", "system_instruction", "toolConfig", "text"]
            ) | st.text(max_size=5),
            inner,
            max_size=5,
        )
    ),
    max_leaves=20,
)  # fmt: skip


@given(_json)
def test_any_json_value_gives_a_format_or_none(value: Any) -> None:
    found = detect(value)
    assert found is None or found in ("canonical", "envelope", *PROVIDERS, "gemini_interactions")


# -- the other spellings of provider names ----------------------------------------------------


@pytest.mark.parametrize(
    ("spelling", "name"),
    [
        ("responses", "openai_responses"),
        ("openai-responses", "openai_responses"),
        ("OpenAI-Responses", "openai_responses"),
        (" Responses ", "openai_responses"),
        ("openai_responses", "openai_responses"),
        ("ANTHROPIC", "anthropic"),
    ],
)
def test_get_provider_takes_the_other_spellings_of_a_name(spelling: str, name: str) -> None:
    assert get_provider(spelling) is get_provider(name)
    assert spelling not in PROVIDERS or spelling == name


def test_every_name_takes_a_hyphen_for_an_underscore() -> None:
    for name in PROVIDERS:
        assert get_provider(name.replace("_", "-")) is get_provider(name)
    assert "responses" not in PROVIDERS and "openai-responses" not in PROVIDERS


@pytest.mark.parametrize("spelling", ["responses", "openai-responses", "OpenAI_Responses"])
def test_the_command_line_takes_the_other_spellings(
    capsys: pytest.CaptureFixture[str], spelling: str
) -> None:
    path = str(FIXTURES / "openai_responses" / "request_tool_roundtrip.json")
    expected = cli(capsys, "convert", path, "--from", "openai_responses", "--to", "canonical")
    assert cli(capsys, "convert", path, "--from", spelling, "--to", "canonical") == expected
    back = cli(capsys, "convert", path, "--from", spelling, "--to", spelling)
    again = cli(capsys, "convert", path, "--from", spelling, "--to", "openai_responses")
    assert back == again and back[0] == 0


def test_an_unknown_name_still_lists_the_names(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "convert", "x.json", "--from", "open-ai", "--to", "canonical")
    assert code == 2
    assert "invalid choice: 'open-ai'" in err and "'openai_responses'" in err


OTEL_SPANS = json.loads((FIXTURES / "otel" / "spans.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(OTEL_SPANS))
def test_open_telemetry_span_attributes_and_their_input_messages_are_otel(name: str) -> None:
    span = OTEL_SPANS[name]
    assert detect(span) == "otel"
    for key in ("gen_ai.input.messages", "gen_ai.output.messages"):
        if key in span:
            assert detect(span[key]) == "otel"  # typed parts, not Gemini's


def test_convert_reads_a_bare_list_of_otel_messages_as_otel(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    body = [{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]
    path = write(tmp_path / "in.json", json.dumps(body))
    code, out, err = cli(capsys, "convert", str(path), "--to", "canonical")
    assert code == 0
    assert err.startswith("convert: reading the input as otel (detected from its keys")
    assert [(m["role"], m["content"]) for m in json.loads(out)] == [("user", "hi")]
