"""``convert``: every format to every other, losses reported, tools carried, output files."""

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
    OrderingPolicy,
    ToolCall,
    ToolCallMessage,
    ToolDefinition,
    ToolResultMessage,
    UserMessage,
    from_json,
)
from messages.providers import get_provider
from tests.cli_support import (
    EXAMPLE,
    PROVIDERS,
    cli,
    example,
    jsonl,
    one_line,
    same_conversation,
    write,
)
from tests.conftest import FIXTURES, SECRET, fixture_entries
from tests.provider_facts import compare_messages
from tests.strategies import message_lists

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
        where = loss.path.removeprefix("messages")
        assert line == f"warning: {provider}: {where}: {loss.what} ({loss.rule})"


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


#: Where each provider's tools entry takes a key this package has no field for: the
#: path below ``tools[0]`` (an Anthropic or OpenRouter ``cache_control``, Gemini's
#: ``behavior``, an OpenAI function's own key).
_UNMODELLED_TOOL_KEY = {
    "anthropic": ("cache_control",),
    "gemini": ("functionDeclarations", 0, "behavior"),
    "openai_responses": ("defer_loading",),
    **dict.fromkeys(
        ("openai", "groq", "vllm", "ollama", "deepseek", "openrouter", "mistral"),
        ("function", "x_hint"),
    ),
}


@pytest.mark.parametrize("source", sorted(_UNMODELLED_TOOL_KEY))
def test_a_tool_key_no_definition_holds_is_reported_and_a_plain_tool_is_not(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, source: str
) -> None:
    path = _body_with_tools(source, tmp_path)
    code, _, err = cli(capsys, "convert", str(path), "--from", source, "--to", "anthropic")
    assert (code, err) == (0, "")  # what format_tools writes reads back whole
    body = json.loads(path.read_text(encoding="utf-8"))
    *outer, key = _UNMODELLED_TOOL_KEY[source]
    target = body["tools"][0]
    for step in outer:
        target = target[step]
    target[key] = {"type": "ephemeral"}
    path.write_text(json.dumps(body), encoding="utf-8")
    code, out, err = cli(capsys, "convert", str(path), "--from", source, "--to", "anthropic")
    where = "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in (*outer, key))
    assert code == 0
    assert one_line(err) == (
        f"warning: {source}: tools[0]{where}: not carried: a tool definition has no field for it"
    )
    assert json.loads(out)["tools"] == get_provider("anthropic").format_tools([WEATHER])


@pytest.mark.parametrize("source", ["openai", "mistral", "anthropic"])
def test_an_empty_tool_description_is_reported_as_changed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, source: str
) -> None:
    body = json.loads(_body_with_tools(source, tmp_path).read_text(encoding="utf-8"))
    tool = body["tools"][0]
    tool.get("function", tool)["description"] = ""
    path = write(tmp_path / "empty-description.json", json.dumps(body))
    code, out, err = cli(capsys, "convert", str(path), "--from", source, "--to", "openai")
    where = "tools[0].function.description" if "function" in tool else "tools[0].description"
    assert code == 0
    assert one_line(err) == (
        f"warning: {source}: {where}: changed: a tool definition's description is never"
        " empty (the name stands in)"
    )
    assert json.loads(out)["tools"][0]["function"]["description"] == "get_weather"


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
    # convert without --from detects these bodies (test_cli_detect.py); as canonical, an error
    extra = ["--from", "canonical", "--to", "openai"] if command == "convert" else []
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
    argv = ["convert", str(path), "--from", "canonical", "--to", "canonical"]
    code, out, err = cli(capsys, *argv)
    assert (code, err) == (0, "")
    assert len(json.loads(out)) == 2


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
