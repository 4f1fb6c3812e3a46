"""messages.records: the documented lines of each format, round trips between every pair
of formats, losses per record, and reading that fails only with DecodeError."""

from __future__ import annotations

import dataclasses
import io
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from messages.errors import DecodeError, LossError, ValidationError
from messages.providers import Loss, LossWarning
from messages.records import FORMAT_NAMES, Record, read, write
from messages.tools import ToolDefinition

from .conftest import SECRET

HERE = Path(__file__).resolve().parent / "fixtures" / "records"
MANIFEST: dict[str, Any] = json.loads((HERE / "MANIFEST.json").read_text(encoding="utf-8"))
FILES = sorted(MANIFEST["files"].items())
#: The formats whose lines carry a key, and those that need one (``request-N`` when none).
KEYED = {"canonical", "openai-batch", "anthropic-batch", "gemini-batch", "sharegpt"}
NEEDS_KEY = {"openai-batch", "anthropic-batch", "gemini-batch"}


def _records(name: str) -> list[Record]:
    with (HERE / name).open(encoding="utf-8") as f:
        return list(read(f, MANIFEST["files"][name]["format"]))


def _lines(records: list[Record], fmt: str, **kwargs: Any) -> str:
    out = io.StringIO()
    write(records, out, fmt, **kwargs)
    return out.getvalue()


def _shape(record: Record) -> list[tuple[Any, ...]]:
    """What every format carries of a conversation: roles, texts, calls and results."""
    shape: list[tuple[Any, ...]] = []
    for m in record.messages:
        if isinstance(m, ToolResultMessage):
            shape.append(("result", m.text))
        elif m.tool_calls:
            shape.append(("calls", tuple((c.name, dict(c.arguments)) for c in m.tool_calls)))
        else:
            shape.append((m.role.value, m.text))
    return shape


# -- the documented lines ---------------------------------------------------------------


def test_manifest_names_every_fixture_and_its_source() -> None:
    on_disk = {p.name for p in HERE.glob("*.jsonl")}
    assert on_disk == set(MANIFEST["files"])
    for info in MANIFEST["files"].values():
        assert info["format"] in FORMAT_NAMES
        assert "http" in info["source"] or "LLaMA-Factory" in info["source"]


@pytest.mark.parametrize(("name", "info"), FILES)
def test_documented_lines_come_back_as_the_same_json(name: str, info: dict[str, Any]) -> None:
    fmt = info["format"]
    records = _records(name)
    given_lines = (HERE / name).read_text(encoding="utf-8").splitlines()
    assert len(records) == len(given_lines)
    again = list(read(io.StringIO(_lines(records, fmt)), fmt))
    assert [_shape(r) for r in again] == [_shape(r) for r in records]
    assert [r.key for r in again] == [r.key for r in records]
    assert [r.extras for r in again] == [r.extras for r in records]
    assert [[t.name for t in r.tools] for r in again] == [
        [t.name for t in r.tools] for r in records
    ]


def test_openai_batch_lines_keep_custom_id_url_and_body_options() -> None:
    records = _records("openai_batch.jsonl")
    assert [r.key for r in records] == ["request-1", "request-2"]
    assert records[0].extras == {"body": {"model": "gpt-3.5-turbo-0125", "max_tokens": 1000}}
    assert _shape(records[0]) == [
        ("system", "You are a helpful assistant."),
        ("user", "Hello world!"),
    ]
    given = [json.loads(x) for x in (HERE / "openai_batch.jsonl").read_text().splitlines()]
    written = [json.loads(x) for x in _lines(records, "openai-batch").splitlines()]
    assert written == given


def test_anthropic_batch_lines_are_written_back_as_given() -> None:
    given = [json.loads(x) for x in (HERE / "anthropic_batch.jsonl").read_text().splitlines()]
    written = [
        json.loads(x)
        for x in _lines(_records("anthropic_batch.jsonl"), "anthropic-batch").splitlines()
    ]
    assert written == given


def test_gemini_batch_lines_keep_key_and_generation_config() -> None:
    records = _records("gemini_batch.jsonl")
    assert [r.key for r in records] == ["request-1", "request-2"]
    assert records[0].extras == {"request": {"generation_config": {"temperature": 0.7}}}
    line = json.loads(_lines(records, "gemini-batch").splitlines()[0])
    assert line["key"] == "request-1"
    assert line["request"]["generation_config"] == {"temperature": 0.7}
    assert line["request"]["contents"][0]["parts"] == [
        {"text": "Describe the process of photosynthesis."}
    ]


def test_fine_tuning_weights_survive_and_are_a_loss_elsewhere() -> None:
    records = _records("openai_ft_weight.jsonl")
    assert records[0].messages[2].extras == {"weight": 0}
    given = [json.loads(x) for x in (HERE / "openai_ft_weight.jsonl").read_text().splitlines()]
    assert [json.loads(x) for x in _lines(records, "openai-ft").splitlines()] == given
    lost: list[Loss] = []
    _lines(records[:1], "anthropic-batch", on_loss=lost.append)
    assert [loss.path for loss in lost] == [
        "line 1, messages[2].weight",
        "line 1, messages[4].weight",
    ]


def test_fine_tuning_tools_example() -> None:
    (record,) = _records("openai_ft_tools.jsonl")
    assert [t.name for t in record.tools] == ["get_current_weather"]
    call = record.messages[1].tool_calls[0]
    assert (call.id, call.name, dict(call.arguments)) == (
        "call_id",
        "get_current_weather",
        {"location": "San Francisco, USA", "format": "celsius"},
    )
    line = json.loads(_lines([record], "openai-ft"))
    assert line["tools"][0]["function"]["name"] == "get_current_weather"


def test_sharegpt_function_call_and_observation_turns_are_calls_and_results() -> None:
    record = _records("sharegpt_glaive.jsonl")[1]
    assert [t.name for t in record.tools] == ["calculate_area", "calculate_discount"]
    calls, result = record.messages[1], record.messages[2]
    assert isinstance(calls, ToolCallMessage) and isinstance(result, ToolResultMessage)
    assert dict(calls.tool_calls[0].arguments) == {"shape": "rectangle", "dimensions": [5, 3]}
    assert result.tool_call_id == calls.tool_calls[0].id
    assert result.text == '{"area": 15}'
    anthropic = json.loads(_lines([record], "anthropic-batch"))
    blocks = anthropic["params"]["messages"][1]["content"]
    assert blocks[0]["type"] == "tool_use" and blocks[0]["name"] == "calculate_area"
    assert [t["name"] for t in anthropic["params"]["tools"]] == [
        "calculate_area",
        "calculate_discount",
    ]


def test_sharegpt_system_column_parallel_calls_and_id() -> None:
    line = {
        "id": "QWJhYvA_0",
        "system": "Be brief.",
        "conversations": [
            {"from": "human", "value": "Weather in Paris and Rome?"},
            {"from": "function_call", "value": json.dumps([{"name": "w", "arguments": {"c": "Paris"}}, {"name": "w", "arguments": {"c": "Rome"}}])},
            {"from": "observation", "value": "sunny"},
            {"from": "observation", "value": "rain"},
            {"from": "gpt", "value": "Sunny in Paris, rain in Rome."},
        ],
    }  # fmt: skip
    (record,) = read([json.dumps(line)], "sharegpt")
    assert record.key == "QWJhYvA_0"
    assert _shape(record)[0] == ("system", "Be brief.")
    calls = record.messages[2].tool_calls
    results = [m for m in record.messages[3:5] if isinstance(m, ToolResultMessage)]
    assert [r.tool_call_id for r in results] == [c.id for c in calls]
    back = json.loads(_lines([record], "sharegpt"))
    assert back["id"] == "QWJhYvA_0"
    assert json.loads(back["conversations"][2]["value"]) == [
        {"name": "w", "arguments": {"c": "Paris"}},
        {"name": "w", "arguments": {"c": "Rome"}},
    ]


def test_openai_batch_to_responses_url() -> None:
    records = _records("openai_batch.jsonl")
    lost: list[Loss] = []
    line = json.loads(_lines(records[:1], "openai-batch", url="/v1/responses", on_loss=lost.append))
    assert line["url"] == "/v1/responses"
    assert line["body"]["model"] == "gpt-3.5-turbo-0125"
    assert line["body"]["instructions"] == "You are a helpful assistant."
    assert [loss.path for loss in lost] == ["line 1 (key 'request-1'), body.max_tokens"]
    (again,) = read([json.dumps(line)], "openai-batch")
    assert again.extras["url"] == "/v1/responses"
    assert json.loads(_lines([again], "openai-batch"))["url"] == "/v1/responses"


# -- round trips between every pair of formats -------------------------------------------

_WORDS = (
    st.text(st.sampled_from("abcdefghij KLMNOP.,?"), min_size=1, max_size=30)
    .map(str.strip)
    .filter(bool)
)
_NAMES = st.text(st.sampled_from("abcdefgh_"), min_size=1, max_size=10)
_ARGS = st.dictionaries(
    st.sampled_from(["a", "b", "city"]), st.one_of(st.integers(-99, 99), _WORDS), max_size=2
)


@st.composite
def conversations(draw: st.DrawFn) -> Record:
    messages: list[Message] = []
    if draw(st.booleans()):
        messages.append(SystemMessage(draw(_WORDS)))
    for turn in range(draw(st.integers(1, 3))):
        messages.append(UserMessage(draw(_WORDS)))
        if draw(st.booleans()):
            names = draw(st.lists(_NAMES, min_size=1, max_size=2))
            calls = [ToolCall(f"call_{turn}_{i}", n, draw(_ARGS)) for i, n in enumerate(names)]
            messages.append(ToolCallMessage(calls))
            messages += [ToolResultMessage(c.id, draw(_WORDS), tool_name=c.name) for c in calls]
        messages.append(AssistantMessage(draw(_WORDS)))
    tools = [
        ToolDefinition(
            name,
            draw(_WORDS),
            {"type": "object", "properties": {"a": {"type": "string"}}},
            strict=False,
        )
        for name in draw(st.lists(_NAMES, max_size=2, unique=True))
    ]
    key = draw(st.one_of(st.none(), st.from_regex(r"[A-Za-z0-9_-]{1,20}", fullmatch=True)))
    return Record(key, tuple(messages), tuple(tools))


def _key_after(key: str | None, fmt: str) -> str | None:
    if fmt not in KEYED:
        return None
    return "request-1" if key is None and fmt in NEEDS_KEY else key


PAIRS = [(a, b) for a in FORMAT_NAMES for b in FORMAT_NAMES]


@pytest.mark.parametrize(("first", "second"), PAIRS)
@settings(max_examples=15)
@given(record=conversations())
def test_round_trip_between_every_pair(first: str, second: str, record: Record) -> None:
    (a,) = read(io.StringIO(_lines([record], first, on_loss="ignore")), first)
    (b,) = read(io.StringIO(_lines([a], second, on_loss="ignore")), second)
    assert _shape(b) == _shape(record)
    assert [(t.name, t.description) for t in b.tools] == [
        (t.name, t.description) for t in record.tools
    ]
    assert b.key == _key_after(_key_after(record.key, first), second)


@settings(max_examples=30)
@given(record=conversations())
def test_canonical_is_lossless(record: Record) -> None:
    lost: list[Loss] = []
    (back,) = read(io.StringIO(_lines([record], "canonical", on_loss=lost.append)), "canonical")
    assert lost == []
    assert back == record
    assert [m.id for m in back.messages] == [m.id for m in record.messages]


# -- losses -----------------------------------------------------------------------------


def test_losses_name_the_line_and_key_and_follow_on_loss() -> None:
    records = _records("anthropic_batch.jsonl")
    with pytest.warns(LossWarning) as caught:
        text = _lines(records, "gemini-batch")
    assert [str(w.message) for w in caught] == [
        f"gemini-batch: line {n} (key '{key}'), params: the request options of the "
        "anthropic-batch line (not carried)"
        for n, key in ((1, "my-first-request"), (2, "my-second-request"))
    ]
    assert {w.filename for w in caught} == {__file__}  # warned where write was called
    assert len(text.splitlines()) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _lines(records, "gemini-batch", on_loss="ignore")
    out = io.StringIO()
    with pytest.raises(LossError) as info:
        write(records, out, "openai-ft", on_loss="raise")
    assert out.getvalue() == ""  # the record with the loss is not written
    assert {loss.path for loss in info.value.losses} == {
        "line 1 (key 'my-first-request'), params",
        "line 1 (key 'my-first-request'), key",
    }
    with pytest.raises(ValidationError, match="on_loss"):
        write(records, io.StringIO(), "canonical", on_loss="loud")  # type: ignore[arg-type]


def test_write_refuses_what_is_not_a_record_and_unknown_formats() -> None:
    with pytest.raises(ValidationError, match=r"records\[0\]"):
        write([{"messages": []}], io.StringIO(), "canonical")  # type: ignore[list-item]
    with pytest.raises(ValidationError, match="unknown record format 'jsonl'"):
        write([], io.StringIO(), "jsonl")
    with pytest.raises(ValidationError, match="url"):
        write([], io.StringIO(), "openai-batch", url="/v1/embeddings")


# -- reading: errors with their line, and nothing but DecodeError ----------------------------


def test_errors_start_with_the_line_and_blank_lines_are_skipped() -> None:
    good = (HERE / "openai_batch.jsonl").read_text().splitlines()[0]
    lines = ["", good, "   ", good.replace('"body"', '"bodyx"'), good]
    records = read(iter(lines), "openai-batch")
    assert next(records).key == "request-1"
    with pytest.raises(DecodeError) as info:
        next(records)
    assert info.value.path == "line 4, body"
    with pytest.raises(DecodeError) as info:
        list(read(["{not json"], "canonical"))
    assert info.value.path.startswith("line 1")
    with pytest.raises(DecodeError, match="unknown speaker 'alien'") as info:
        list(read([json.dumps({"conversations": [{"from": "alien", "value": "x"}]})], "sharegpt"))
    assert info.value.path == "line 1, conversations[0].from"


def test_bytes_lines_are_read_as_utf8() -> None:
    good = (HERE / "gemini_batch.jsonl").read_bytes().splitlines()
    assert [r.key for r in read(good, "gemini-batch")] == ["request-1", "request-2"]
    with pytest.raises(DecodeError) as info:
        list(read([b"\xff\xfe"], "gemini-batch"))
    assert info.value.path.startswith("line 1")


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
_KEYS = [
    "messages",
    "conversations",
    "custom_id",
    "key",
    "body",
    "params",
    "request",
    "url",
    "method",
    "tools",
    "from",
    "value",
    "role",
    "content",
    "contents",
    "parts",
    "text",
    "system",
    "id",
    "weight",
]
_SHAPED = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8) | st.sampled_from(_KEYS),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(_KEYS), inner, max_size=5)
    ),
    max_leaves=30,
)


@pytest.mark.parametrize("fmt", FORMAT_NAMES)
@settings(max_examples=150)
@given(value=st.one_of(_JSON, _SHAPED), raw=st.text(max_size=40))
def test_read_raises_only_decode_error(fmt: str, value: Any, raw: str) -> None:
    for line in (json.dumps(value), raw):
        try:
            list(read([line], fmt))
        except DecodeError as exc:
            assert exc.path.startswith("line 1")


# -- Record -----------------------------------------------------------------------------


def test_record_is_deeply_immutable_hashable_and_its_repr_has_no_content() -> None:
    record = Record("k1", (UserMessage(SECRET),), extras={"body": {"model": "m", "stop": [SECRET]}})
    assert isinstance(record.messages, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.key = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        record.extras["body"]["model"] = "x"
    assert hash(record) == hash(
        Record("k1", (UserMessage(SECRET),), extras={"body": {"model": "m", "stop": [SECRET]}})
    )
    assert SECRET not in repr(record)
    assert repr(record) == "Record(key='k1', messages=1, tools=0, extras=['body'])"


@pytest.mark.parametrize(
    ("kwargs", "path"),
    [
        ({"key": 3, "messages": ()}, "key"),
        ({"key": None, "messages": "hello"}, "messages"),
        ({"key": None, "messages": [UserMessage("a"), {"role": "user"}]}, "messages[1]"),
        ({"key": None, "messages": (), "tools": ["f"]}, "tools[0]"),
        ({"key": None, "messages": (), "extras": {"x": float("nan")}}, "extras.x"),
    ],
)
def test_record_checks_its_arguments(kwargs: dict[str, Any], path: str) -> None:
    with pytest.raises(ValidationError) as info:
        Record(**kwargs)
    assert info.value.path == path
