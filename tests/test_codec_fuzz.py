"""Hostile input to every decoder: it decodes, or it raises DecodeError naming the spot.

Never another exception type, never the content in the error text, and never
the codec's last-resort net ("malformed input (unexpected ...)"), which exists
only so that the contract holds even if a decoder has a bug.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import (
    AudioPart,
    DecodeError,
    FilePart,
    ImagePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCall,
    ToolCallDelta,
    ToolCallMessage,
    ToolResult,
    ToolResultMessage,
    UserMessage,
    ValidationError,
    _codec,
    _part_codec,
    default_registry,
    from_dict,
    from_json,
    to_dict,
    to_json,
)
from tests import strategies as gen
from tests.conftest import SECRET

DECODERS: dict[str, Callable[[Any], object]] = {
    "from_dict": from_dict,
    "registry.decode": default_registry.decode,
    "Message.from_dict": Message.from_dict,
    "UserMessage.from_dict": UserMessage.from_dict,
    "ToolCallMessage.from_dict": ToolCallMessage.from_dict,
    "ToolResultMessage.from_dict": ToolResultMessage.from_dict,
    "part_from_dict": _codec.part_from_dict,
    "TextPart.from_dict": TextPart.from_dict,
    "ImagePart.from_dict": ImagePart.from_dict,
    "AudioPart.from_dict": AudioPart.from_dict,
    "FilePart.from_dict": FilePart.from_dict,
    "ReasoningPart.from_dict": ReasoningPart.from_dict,
    "ToolCall.from_dict": ToolCall.from_dict,
    "ToolResult.from_dict": ToolResult.from_dict,
    "ToolCallDelta.from_dict": ToolCallDelta.from_dict,
}


#: Keys whose values are identifiers: an error may show one, quoted, escaped and cut to
#: 64 characters (API.md); content, argument values and results never show.
IDENTIFIER_KEYS = frozenset(("role", "type", "name", "id", "tool_call_id", "tool_name"))


def outcome(fn: Callable[[Any], object], value: Any) -> DecodeError | None:
    """Run a decoder: None when it decoded, the DecodeError when it refused."""
    try:
        result = fn(value)
    except DecodeError as exc:
        assert type(exc) is DecodeError
        assert isinstance(exc.path, str)
        assert "unexpected" not in exc.message, exc  # the safety net was not needed
        if SECRET in str(exc) or SECRET in repr(exc):
            # only as the identifier the path names, quoted (so escaped) and cut
            last = exc.path.rsplit(".", 1)[-1].split("[", 1)[0]
            assert last in IDENTIFIER_KEYS, exc
        return exc
    # only as an identifier (ids may show in a repr), of the value or of a list's items
    for item in result if isinstance(result, list) else [result]:
        if SECRET in repr(item):
            ids = [getattr(item, "id", "")] + [c.id for c in getattr(item, "tool_calls", ())]
            ids += [getattr(item, "tool_call_id", "")]
            assert any(SECRET in i for i in ids if isinstance(i, str)), repr(item)
    return None


# -- hostile values -------------------------------------------------------------------

secret_texts = st.sampled_from((SECRET, f"pre {SECRET} post", SECRET * 3))
weird_leaves = st.one_of(
    gen.json_scalars,
    secret_texts,
    st.sampled_from(
        (
            float("nan"),
            float("inf"),
            -float("inf"),
            2**200,
            b"bytes",
            bytearray(b"x"),
            object(),
            {1, 2},
            frozenset(),
            ...,
            type,
            True,
            -1,
            "function",
            "text",
            "image_url",
            "assistant",
            "user",
            "tool",
        )
    ),
)
hostile: st.SearchStrategy[Any] = st.recursive(
    weird_leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=3).map(tuple),
        st.dictionaries(st.one_of(gen.keys, st.integers(), st.none()), children, max_size=5),
    ),
    max_leaves=20,
)


@given(hostile)
def test_arbitrary_values_decode_or_raise_decode_error(value: Any) -> None:
    for fn in DECODERS.values():
        outcome(fn, value)


@given(gen.json_values)
def test_arbitrary_json_text_decodes_or_raises_decode_error(value: Any) -> None:
    text = json.dumps(value)
    outcome(from_json, text)
    outcome(from_json, text.encode("utf-8", "surrogatepass"))


@given(st.dictionaries(st.sampled_from(sorted(_codec.RESERVED_KEYS)), hostile, max_size=8))
def test_dicts_of_canonical_keys_with_hostile_values(value: dict[str, Any]) -> None:
    for role in ("system", "developer", "user", "assistant", "tool", None):
        d = dict(value)
        if role is not None:
            d["role"] = role
        outcome(from_dict, d)


# -- mutations of valid dicts -----------------------------------------------------------


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(_paths(v, (*here, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(_paths(v, (*here, i)))
    return out


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        value = value[p]
    return value


@st.composite
def mutated(draw: st.DrawFn, json_only: bool = False) -> Any:
    """A valid canonical message dict with one to four random mutations."""
    m = draw(gen.messages)
    d: Any = json.loads(to_json(m))
    leaves = gen.json_values if json_only else hostile
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        paths = _paths(d)
        path = draw(st.sampled_from(paths))
        op = draw(st.sampled_from(("replace", "delete", "insert", "null", "wrap", "retype")))
        if not path:
            if op in ("replace", "wrap"):
                d = draw(leaves) if op == "replace" else [d]
            continue
        parent = _get(d, path[:-1])
        key = path[-1]
        if op == "replace":
            parent[key] = draw(leaves)
        elif op == "delete":
            del parent[key]
        elif op == "null":
            parent[key] = None
        elif op == "wrap":
            parent[key] = [parent[key]]
        elif op == "retype":
            v = parent[key]
            parent[key] = (
                str(v) if not isinstance(v, str) else (len(v) if draw(st.booleans()) else [v])
            )
        else:
            target = _get(d, path)
            if isinstance(target, dict):
                target[draw(gen.keys)] = draw(leaves)
            elif isinstance(target, list):
                target.insert(draw(st.integers(0, len(target))), draw(leaves))
    return d


@given(mutated())
def test_mutated_message_dicts_decode_or_raise_decode_error(d: Any) -> None:
    for fn in DECODERS.values():
        outcome(fn, d)


@given(mutated(json_only=True))
def test_mutated_message_json_decodes_or_raises_decode_error(d: Any) -> None:
    outcome(from_json, json.dumps(d))


@given(st.lists(gen.messages, min_size=1, max_size=4), mutated(), st.data())
def test_an_error_in_a_list_names_the_index(
    ms: list[Message], bad: Any, data: st.DataObject
) -> None:
    items: list[Any] = json.loads(to_json(ms))
    k = data.draw(st.integers(0, len(items)))
    items.insert(k, bad)
    err = outcome(from_dict, items)
    if err is not None:
        assert err.path == f"[{k}]" or err.path.startswith((f"[{k}].", f"[{k}]["))


@given(gen.messages, st.data())
def test_damaged_json_text_decodes_or_raises_decode_error(m: Message, data: st.DataObject) -> None:
    text = to_json(m)
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(text)))
        op = data.draw(st.sampled_from(("cut", "insert", "drop")))
        if op == "cut":
            text = text[:i]
        elif op == "insert":
            text = text[:i] + data.draw(st.sampled_from('{}[]",:\\0-e.nt \ud800')) + text[i:]
        else:
            text = text[:i] + text[i + 1 :]
    outcome(from_json, text)


# -- the named hostile inputs -------------------------------------------------------------


def _deep_list(depth: int) -> list[Any]:
    root: list[Any] = []
    node = root
    for _ in range(depth):
        child: list[Any] = []
        node.append(child)
        node = child
    return root


def test_json_nested_100000_deep_is_a_decode_error() -> None:
    for text in ("[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000):
        err = outcome(from_json, text)
        assert err is not None
        assert "nested too deeply" in err.message


def test_arguments_nested_100000_deep_are_an_invalid_call_holding_the_text() -> None:
    args = '{"a":' + "[" * 100_000 + "]" * 100_000 + "}"
    d = {
        "role": "assistant",
        "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": args}}],
    }
    m: Any = from_dict(d)
    (bad,) = m.invalid_tool_calls
    assert bad.raw_arguments == args
    assert "nested" in bad.error
    ms: Any = from_json(json.dumps([{"role": "user", "content": "x"}, d]))
    assert ms[1].invalid_tool_calls == m.invalid_tool_calls


def test_python_values_nested_100000_deep_are_a_decode_error() -> None:
    deep = _deep_list(100_000)
    err = outcome(from_dict, {"role": "user", "content": "x", "metadata": {"a": deep}})
    assert err is not None
    assert err.path.startswith("metadata.a[0][0]")
    assert "nested deeper than" in err.message
    err = outcome(from_dict, {"role": "user", "content": deep})
    assert err is not None
    assert err.path == "content[0]"
    err = outcome(from_dict, {"role": "user", "content": "x", "deep": deep})
    assert err is not None
    assert err.path.startswith("deep[0]")
    args = {
        "role": "assistant",
        "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": {"a": deep}}}],
    }
    err = outcome(from_dict, args)
    assert err is not None
    assert err.path.startswith("tool_calls[0].function.arguments.a[0]")


def test_a_50_mb_string_decodes_and_an_invalid_one_is_refused_without_its_content() -> None:
    big = "x" * (50 * 1024 * 1024)
    t0 = time.perf_counter()
    m = from_json('{"role": "user", "content": "' + big + '"}')
    assert isinstance(m, UserMessage)
    assert len(m.text) == len(big)
    assert len(to_json(m)) > len(big)
    bad = "{" + json.dumps(SECRET) + ": " + json.dumps(big)  # unterminated object
    d = {
        "role": "assistant",
        "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": bad}}],
    }
    call: Any = from_dict(d)
    (invalid,) = call.invalid_tool_calls
    assert invalid.raw_arguments == bad  # kept as written, never repaired
    assert len(invalid.error) < 200
    assert SECRET not in invalid.error
    assert SECRET not in repr(invalid) and SECRET not in repr(call)
    assert time.perf_counter() - t0 < 20


def test_lone_surrogates_are_kept_and_written_back_escaped() -> None:
    m = from_json('{"role": "user", "content": "a\\ud800b", "name": "\\udfff"}')
    assert m.text == "a\ud800b"  # type: ignore[union-attr]
    text = to_json(m)
    assert "a\\ud800b" in text
    assert text.isascii()
    assert from_json(text) == m
    raw = from_dict({"role": "user", "content": "\udcff"})  # a raw lone surrogate in a str
    assert raw.text == "\udcff"


def test_text_that_is_not_utf8_is_a_decode_error() -> None:
    err = outcome(from_json, b'{"role": "user", "content": "\xed\xa0\x80"}')
    assert err is not None
    assert "UTF-8" in err.message


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_literals_are_refused(literal: str) -> None:
    err = outcome(from_json, '{"role": "user", "content": "x", "metadata": {"a": ' + literal + "}}")
    assert err is not None
    assert err.path == "$"
    assert f"{literal} is not valid JSON" in err.message
    args = json.dumps('{"a": ' + literal + "}")
    text = (
        '{"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": '
        + args
        + "}}]}"
    )
    m: Any = from_json(text)  # arguments that are not JSON: an invalid call, kept as written
    assert m.invalid_tool_calls[0].raw_arguments == json.loads(args)
    assert f"{literal} is not valid JSON" in m.invalid_tool_calls[0].error


def test_numbers_that_overflow_to_infinity_are_refused() -> None:
    err = outcome(from_json, '{"role": "user", "content": "x", "metadata": {"a": 1e999}}')
    assert err is not None
    assert err.path == "metadata.a"
    assert "non-finite" in err.message


def test_duplicate_keys_resolve_to_the_last_one() -> None:
    m = from_json('{"role": "user", "role": "assistant", "content": "a", "content": "b"}')
    assert type(m) is not UserMessage
    assert m.text == "b"  # type: ignore[union-attr]
    raw = '{"x": 1, "x": 2}'
    call = from_dict(
        {
            "role": "assistant",
            "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": raw}}],
        }
    ).tool_calls[0]
    assert dict(call.arguments) == {"x": 2}
    assert call.arguments_json == raw  # the original text is kept as it was


def test_numbers_with_10000_digits() -> None:
    digits = "9" * 10_000
    text = '{"role": "user", "content": "x", "metadata": {"n": ' + digits + "}}"
    limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    err = outcome(from_json, text)
    if limit and limit < 10_000:
        assert err is not None
        assert err.message == "invalid JSON (ValueError)"
    else:  # pragma: no cover - interpreters without the digit limit
        assert err is None
    # A Python int of that size decodes from a dict, but cannot be written as JSON text.
    m = from_dict({"role": "user", "content": "x", "metadata": {"n": 10**10_000 - 1}})
    if limit and limit < 10_000:
        with pytest.raises(ValidationError, match="cannot be written as JSON"):
            to_json(m)


@pytest.mark.parametrize(
    "text",
    ["", "   ", "\ufeff{}", "null", "1", '"x"', "[1]", "{", '{"role": "user", "content": "x"} x'],
)
def test_other_bad_texts(text: str) -> None:
    assert outcome(from_json, text) is not None


def test_from_json_refuses_non_text() -> None:
    err = outcome(from_json, 12)
    assert err is not None
    assert "expected JSON text, got int" in err.message


def test_whitespace_around_json_is_fine() -> None:
    assert from_json('  \n{"role": "user", "content": "x"}\n ') == UserMessage("x")


# -- the secret never shows ------------------------------------------------------------------

SECRET_INPUTS: list[Any] = [
    {"role": "user", "content": 5, "name": SECRET},
    {"role": "user", "content": [{"type": "text", "text": 5}, {"type": "x", "text": SECRET}]},
    {"role": "system", "content": [{"type": "image_url", "image_url": SECRET}]},
    {
        "role": "user",
        "content": [{"type": "image_url", "image_url": {"url": SECRET, "detail": SECRET}}],
    },
    {
        "role": "user",
        "content": [{"type": "input_audio", "input_audio": {"data": SECRET, "format": 1}}],
    },
    {"role": "user", "content": SECRET, "created_at": SECRET},
    {"role": "user", "content": SECRET, "created_at": "2025-01-01T00:00:00"},
    {"role": "user", "content": SECRET, "id": ""},
    {"role": "user", "content": SECRET, "metadata": SECRET},
    {"role": "user", "content": SECRET, "metadata": {"a": [float("nan")]}},
    {"role": "assistant", "tool_calls": [{"id": "c", "function": SECRET}]},
    {"role": "assistant", "content": SECRET, "tool_calls": [{"id": 5, "function": {}}]},
    {"role": "tool", "content": SECRET, "tool_call_id": "c", "is_error": SECRET},
    {"role": "tool", "content": SECRET},
    [{"role": "user", "content": SECRET}, {"role": 5}],
]

#: Inputs whose only secret is an identifier (a role, a type tag, a tool name, an id):
#: the error may name it, quoted and cut to 64 characters.
IDENTIFIER_INPUTS: list[Any] = [
    {"role": SECRET, "content": "x"},
    {"role": "user", "content": [{"type": SECRET, "text": "x"}]},
    {"role": "assistant", "tool_calls": [{"id": "c", "type": SECRET, "function": {"name": "f"}}]},
    [{"role": "user", "content": "x"}, {"role": SECRET}],
]

#: Malformed calls that carry the secret: they load as invalid calls (never an error),
#: and the secret is in their raw text, never in an error or a repr.
MALFORMED_CALL_INPUTS: list[Any] = [
    {
        "role": "assistant",
        "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": SECRET}}],
    },
    {
        "role": "assistant",
        "tool_calls": [
            {"id": "c", "function": {"name": "f", "arguments": "{" + json.dumps(SECRET)}}
        ],
    },
    {
        "role": "assistant",
        "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": json.dumps([SECRET])}}],
    },
    {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "c",
                "function": {"name": "f", "arguments": '{"a": 1e999, "b": "' + SECRET + '"}'},
            }
        ],
    },
    {"role": "assistant", "content": SECRET, "function_call": {"name": "f", "arguments": SECRET}},
]


@pytest.mark.parametrize("value", IDENTIFIER_INPUTS)
def test_an_identifier_in_an_error_is_quoted_and_cut(value: Any) -> None:
    err = outcome(from_dict, value)
    assert err is not None
    assert f"'{SECRET}'" in err.message
    long = json.loads(json.dumps(value).replace(SECRET, "\\u001b[31m" + "x" * 100))
    err = outcome(from_dict, long)
    assert err is not None
    assert "\\x1b[31m" + "x" * 59 + "'..." in err.message  # escaped, 64 characters, marked cut
    assert "\x1b" not in str(err)  # no raw control character reaches a terminal


@pytest.mark.parametrize("value", MALFORMED_CALL_INPUTS)
def test_a_malformed_call_loads_and_keeps_its_text_out_of_errors(value: Any) -> None:
    m: Any = from_dict(value)
    (bad,) = m.invalid_tool_calls
    assert SECRET in bad.raw_arguments
    assert SECRET not in bad.error
    assert SECRET not in repr(bad) and SECRET not in repr(m)
    assert SECRET not in str(to_dict(m)["tool_calls"][-1]["error"])


@pytest.mark.parametrize("value", SECRET_INPUTS)
def test_error_text_never_holds_the_content(value: Any) -> None:
    err = outcome(from_dict, value)
    assert err is not None
    err = outcome(from_json, json.dumps(value, allow_nan=True))
    assert err is not None


def test_the_safety_net_turns_a_stray_exception_into_a_decode_error() -> None:
    def buggy(d: Any) -> Any:
        raise KeyError(SECRET)

    with pytest.raises(DecodeError) as e:
        _part_codec._guarded(buggy, {})
    assert str(e.value) == "$: malformed input (unexpected KeyError)"
    assert isinstance(_part_codec._unexpected(RecursionError()), DecodeError)
    assert _part_codec._unexpected(ValidationError("m", "p")).path == "p"
