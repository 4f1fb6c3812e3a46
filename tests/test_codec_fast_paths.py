"""The codec's fast paths give exactly what its general decoders give.

Each message decoder first tries the canonical shape that ``to_dict`` writes and
otherwise hands the dict to its general decoder; the tool call decoder does the
same. These tests hold the two to each other on canonical dicts and on dicts
one mutation away from canonical (a key dropped, nulled, retyped, added; a
timestamp bent out of shape): same class, fields, id, created_at and encoding,
or the same error text and path. They also pin the created_at text handling: a
canonical timestamp is written back exactly as it was read, any other accepted
form is normalised, and a bad one is a DecodeError.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    AssistantMessage,
    DecodeError,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
    _codec,
    _ids,
    _part_codec,
    from_dict,
    from_json,
    to_dict,
    to_json,
)
from tests.strategies import (
    assistant_messages,
    developer_messages,
    system_messages,
    tool_call_messages,
    tool_result_messages,
    user_messages,
)

Decoder = Callable[[Any, Any], Any]

#: (class, fast decoder, general decoder)
PAIRS: list[tuple[type[Message], Decoder, Decoder]] = [
    (SystemMessage, _codec._dec_system, _codec._dec_system_general),
    (DeveloperMessage, _codec._dec_developer, _codec._dec_system_general),
    (UserMessage, _codec._dec_user, _codec._dec_user_general),
    (AssistantMessage, _codec._dec_assistant, _codec._dec_assistant_general),
    (ToolCallMessage, _codec._dec_tool_call_message, _codec._dec_tool_call_message_general),
    (ToolResultMessage, _codec._dec_tool_result_message, _codec._dec_tool_result_message_general),
]
CLASS_PAIRS = {cls: (fast, general) for cls, fast, general in PAIRS}

STRATEGIES: dict[type[Message], st.SearchStrategy[Any]] = {
    SystemMessage: system_messages,
    DeveloperMessage: developer_messages,
    UserMessage: user_messages,
    AssistantMessage: assistant_messages,
    ToolCallMessage: tool_call_messages,
    ToolResultMessage: tool_result_messages,
}

CANONICAL_TS = "2025-05-06T07:08:09.123456Z"

#: Values that are wrong, or right in an unusual way, for some key or other.
ODD_VALUES: tuple[Any, ...] = (
    None,
    "",
    "x",
    0,
    1.5,
    True,
    False,
    [],
    {},
    ["x"],
    {"x": 1},
    [{"type": "text", "text": "hi"}],
    CANONICAL_TS,
    "2025-05-06T07:08:09Z",
    "2025-05-06T09:08:09.123456+02:00",
)
EXTRA_KEYS = ("name", "metadata", "extras", "tool_calls", "function_call", "is_error", "x-unknown")


def _plain(m: Message) -> dict[str, Any]:
    d: dict[str, Any] = json.loads(to_json(m))
    return d


def outcome(fn: Decoder, cls: type[Message], d: Any) -> tuple[Any, ...]:
    """What a decoder made of ``d``, in a form two decoders' results compare by."""
    try:
        m: Message = fn(cls, d)
    except Exception as exc:  # the error itself is what is compared
        return ("error", type(exc).__name__, str(exc))
    encoded = m.to_dict()
    given_id = isinstance(d.get("id"), str) and bool(d.get("id"))
    given_ts = d.get("created_at") is not None
    if not given_id:  # a fresh id is made: not comparable
        encoded.pop("id")
    if not given_ts:  # nor is the time now
        encoded.pop("created_at")
    return (
        "ok",
        type(m),
        m,
        m.id if given_id else None,
        m.created_at if given_ts else None,
        json.dumps(encoded, sort_keys=True, default=list),
    )


def assert_same(cls: type[Message], d: Any) -> None:
    fast, general = CLASS_PAIRS[cls]
    assert outcome(fast, cls, d) == outcome(general, cls, d)


@st.composite
def mutated(draw: st.DrawFn, cls: type[Message]) -> dict[str, Any]:
    """A canonical dict of ``cls`` with up to two mutations (never of ``role``).

    The decoders are reached only through the dispatcher, which has read a role.
    """
    d = _plain(draw(STRATEGIES[cls]))
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(("drop", "odd", "add", "stamp")))
        keys = sorted(k for k in d if k != "role")
        if kind == "drop" and keys:
            d.pop(draw(st.sampled_from(keys)))
        elif kind == "odd" and keys:
            d[draw(st.sampled_from(keys))] = draw(st.sampled_from(ODD_VALUES))
        elif kind == "add":
            d[draw(st.sampled_from(EXTRA_KEYS))] = draw(st.sampled_from(ODD_VALUES))
        else:
            d["created_at"] = draw(timestamp_texts)
    return d


def _bend(s: str, i: int, c: str) -> str:
    return s[:i] + c + s[i + 1 :]


ODD_TIMESTAMPS = (
    "2025-05-06T07:08:09.123456z",
    "2025-05-06 07:08:09.123456Z",
    "2025-05-06T07:08:09,123456Z",
    "2025-W19-2T07:08:09.123456Z",
    "20250506T070809.1234567890Z",
    "2025-05-06T07:08:09.1234567Z",
    "2025-05-06T07:08:09.12345Z",
    "2025-05-06T07:08:09.123456+00:00",
    "2025-05-06T07:08:09.123456-01:00",
    "2025-02-29T07:08:09.123456Z",
    "2024-02-29T07:08:09.123456Z",
    "2025-13-06T07:08:09.123456Z",
    "2025-05-06T24:08:09.123456Z",
    "2025-05-06T07:60:09.123456Z",
    "2025-05-06T07:08:60.123456Z",
    "0000-05-06T07:08:09.123456Z",
    "2025-05-06T07:08:09.123456",
    "2025-05-06T07:08:09.000000Z",
    "",
)
_canonical_texts = st.datetimes(
    min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59)
).map(lambda dt: dt.isoformat(timespec="microseconds") + "Z")
_bent_texts = st.builds(
    _bend,
    _canonical_texts,
    st.integers(0, 26),
    st.sampled_from("0123456789-:.TtZz +,W\u0663/"),
)
#: Canonical timestamps, ones a character away from canonical, and other accepted forms.
timestamp_texts = st.one_of(
    _canonical_texts,
    _bent_texts,
    st.sampled_from(ODD_TIMESTAMPS),
)


# -- the fast paths against the general decoders --------------------------------------


@pytest.mark.parametrize("cls", [p[0] for p in PAIRS], ids=lambda c: c.__name__)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_fast_and_general_decoders_agree(cls: type[Message], data: st.DataObject) -> None:
    assert_same(cls, data.draw(mutated(cls)))


@pytest.mark.parametrize("cls", [p[0] for p in PAIRS], ids=lambda c: c.__name__)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_canonical_dicts_take_the_fast_path_and_round_trip(
    cls: type[Message], data: st.DataObject
) -> None:
    m = data.draw(STRATEGIES[cls])
    d = _plain(m)
    back = from_dict(d)
    assert back == m
    assert back.id == m.id
    assert back.created_at == m.created_at
    assert to_dict(back) == d


@pytest.mark.parametrize(
    "d",
    [
        {"role": "user", "id": "m1", "content": "hi", "created_at": CANONICAL_TS},
        {"role": "user", "id": "m1", "content": "hi", "created_at": CANONICAL_TS, "name": "bo"},
        {"role": "user", "id": "m1", "content": "hi", "created_at": CANONICAL_TS, "name": ""},
        {"role": "user", "id": "m1", "content": "hi", "created_at": CANONICAL_TS, "name": None},
        {"role": "user", "id": "m1", "content": "hi", "created_at": CANONICAL_TS, "metadata": {}},
        {"role": "user", "id": "m1", "content": "hi", "created_at": CANONICAL_TS, "metadata": 5},
        {"role": "user", "id": "m1", "content": "hi", "created_at": CANONICAL_TS, "metadata": []},
        {
            "role": "user",
            "id": "m1",
            "content": "hi",
            "created_at": CANONICAL_TS,
            "metadata": {"usage": {"input_tokens": 3}, "f": 1.5, "l": [1, {"a": None}]},
            "name": "bo",
        },
        {
            "role": "user",
            "id": "m1",
            "content": "hi",
            "created_at": CANONICAL_TS,
            "metadata": {"x": float("inf")},
        },
        {"role": "user", "id": "", "content": "hi", "created_at": CANONICAL_TS},
        {"role": "user", "id": 7, "content": "hi", "created_at": CANONICAL_TS},
        {"role": "user", "id": "m1", "content": None, "created_at": CANONICAL_TS},
        {"role": "user", "id": "m1", "content": "hi", "created_at": "2025-02-30T07:08:09.123456Z"},
        {"role": "user", "id": "m1", "content": "hi", "created_at": 5},
        {"role": "user", "id": "m1", "content": "hi"},
        {"role": "user", "content": "hi", "created_at": CANONICAL_TS},
    ],
)
def test_user_edge_cases_agree(d: dict[str, Any]) -> None:
    assert_same(UserMessage, d)


def _tool_result(**more: Any) -> dict[str, Any]:
    d = {
        "role": "tool",
        "id": "t1",
        "tool_call_id": "c1",
        "content": "18C",
        "created_at": CANONICAL_TS,
    }
    d.update(more)
    return d


@pytest.mark.parametrize(
    "d",
    [
        _tool_result(),
        _tool_result(is_error=True),
        _tool_result(is_error=False),
        _tool_result(is_error=None),
        _tool_result(is_error=1),
        _tool_result(tool_name="get_weather"),
        _tool_result(tool_name=""),
        _tool_result(tool_name=None),
        _tool_result(tool_name="w", is_error=True),
        _tool_result(tool_call_id=""),
        _tool_result(tool_call_id=None),
        _tool_result(name="n"),
        _tool_result(name="n", metadata={"k": "v"}, tool_name="t", is_error=False),
        _tool_result(metadata={}),
        _tool_result(metadata="x"),
        _tool_result(metadata={"x": float("nan")}),
    ],
)
def test_tool_result_edge_cases_agree(d: dict[str, Any]) -> None:
    assert_same(ToolResultMessage, d)


def _call(cid: str = "c1", name: str = "f", args: Any = '{"a":1}', **more: Any) -> dict[str, Any]:
    d: dict[str, Any] = {
        "id": cid,
        "type": "function",
        "function": {"name": name, "arguments": args},
    }
    d.update(more)
    return d


def _calls_message(calls: list[Any], **more: Any) -> dict[str, Any]:
    d: dict[str, Any] = {
        "role": "assistant",
        "id": "a1",
        "tool_calls": calls,
        "created_at": CANONICAL_TS,
    }
    d.update(more)
    return d


@pytest.mark.parametrize(
    "d",
    [
        _calls_message([_call()]),
        _calls_message([_call(), _call("c2")]),
        _calls_message([_call(), _call()]),  # duplicate ids
        _calls_message([_call(), _call("c2", args="[1]")]),
        _calls_message([_call(), _call("c2", name="bad name")]),
        _calls_message([_call(args='{"x": 1e999}')]),
        _calls_message([_call(args='{"x": [1, {"y": 2}]}')]),
        _calls_message([_call(args="")]),
        _calls_message([_call(args=" {} ")]),
        _calls_message([_call(args={"a": 1})]),
        _calls_message([_call(extra=1)]),
        _calls_message([_call()], content="thinking"),
        _calls_message([_call()], content=None),
        _calls_message([_call()], content=""),
        _calls_message([_call()], function_call={"name": "g", "arguments": "{}"}),
        _calls_message([]),
        _calls_message([_call()], name="bot"),
        _calls_message([_call()], name="bot", metadata={"usage": {"total_tokens": 9}}),
        _calls_message([_call()], metadata={}),
        _calls_message([_call(args="[]")], metadata=5),  # both bad: the calls are read first
        _calls_message([_call()], metadata=5, content="x"),
    ],
)
def test_tool_call_message_edge_cases_agree(d: dict[str, Any]) -> None:
    assert_same(ToolCallMessage, d)


_calls = st.builds(
    _call,
    st.sampled_from(("c1", "", "call_x")),
    st.sampled_from(("f", "get_weather", "bad name", "")),
    st.sampled_from(
        (
            "{}",
            '{"a":1}',
            '{"a":1.5,"b":null,"c":true}',
            '{"a":[1,2],"b":{"c":"d"}}',
            '{"a":1e999}',
            '{"a":1} x',
            " {} ",
            "[]",
            "",
            "nope",
            '{"a":NaN}',
            '{"\\ud800":"\\udfff"}',
        )
    ),
)


@settings(max_examples=200, deadline=None)
@given(
    c=st.one_of(
        _calls,
        st.builds(
            lambda c, k, v: {**c, k: v},
            _calls,
            st.sampled_from((*EXTRA_KEYS, "type", "id")),
            st.sampled_from(ODD_VALUES),
        ),
        st.builds(lambda c: {k: v for k, v in c.items() if k != "type"}, _calls),
        st.sampled_from(ODD_VALUES),
    )
)
def test_tool_call_fast_path_agrees(c: Any) -> None:
    def run(fn: Callable[[Any], Any]) -> tuple[Any, ...]:
        try:
            call = fn(c)
        except Exception as exc:  # the error itself is what is compared
            return ("error", type(exc).__name__, str(exc))
        return ("ok", call, call.arguments, call.extras, call.arguments_json)

    assert run(_part_codec._dec_call) == run(_part_codec._dec_call_general)


def test_failing_call_is_named_by_its_index() -> None:
    d = _calls_message([_call(), _call("c2"), _call("c3", args="[]")])
    with pytest.raises(DecodeError) as err:
        from_dict(d)
    assert err.value.path == "tool_calls[2].function.arguments"


# -- created_at text -------------------------------------------------------------------


_SAMPLES: dict[type[Message], dict[str, Any]] = {
    SystemMessage: {"role": "system", "id": "s1", "content": "be brief"},
    DeveloperMessage: {"role": "developer", "id": "d1", "content": "be brief"},
    UserMessage: {"role": "user", "id": "u1", "content": "hi"},
    AssistantMessage: {"role": "assistant", "id": "a1", "content": "hello"},
    ToolCallMessage: _calls_message([_call()]),
    ToolResultMessage: _tool_result(),
}


@pytest.mark.parametrize("cls", [p[0] for p in PAIRS], ids=lambda c: c.__name__)
@pytest.mark.parametrize("stamp", [CANONICAL_TS, *ODD_TIMESTAMPS])
def test_every_decoder_reads_timestamps_like_the_general_path(
    cls: type[Message], stamp: str
) -> None:
    assert_same(cls, {**_SAMPLES[cls], "created_at": stamp})


@settings(max_examples=300, deadline=None)
@given(s=timestamp_texts)
def test_timestamp_texts_decode_like_the_general_path(s: str) -> None:
    d = {"role": "user", "id": "m1", "content": "hi", "created_at": s}
    assert_same(UserMessage, d)
    try:
        m = from_dict(d)
    except DecodeError as exc:
        assert exc.path == "created_at"
        return
    written = to_dict(m)["created_at"]
    # canonical text is written back as read; anything else is normalised
    assert written == _codec._format_iso(m.created_at)
    if s.endswith("Z") and len(s) == 27 and s[10] == "T":
        expected = _codec._format_iso(_codec.parse_created_at(s))
        assert written == expected
    assert from_dict(to_dict(m)).created_at == m.created_at


@settings(max_examples=100, deadline=None)
@given(s=_canonical_texts)
def test_canonical_timestamp_is_kept_exactly(s: str) -> None:
    m = from_json(json.dumps({"role": "user", "id": "m1", "content": "", "created_at": s}))
    assert isinstance(m, UserMessage)
    assert to_dict(m)["created_at"] == s
    dt = m.created_at
    assert dt.tzinfo is timezone.utc
    assert dt == datetime.fromisoformat(s[:-1]).replace(tzinfo=timezone.utc)
    assert to_dict(m)["created_at"] == s  # still the same after created_at was read


def test_created_at_read_from_text_survives_pickle_and_replace() -> None:
    import pickle

    m = from_dict({"role": "user", "id": "m1", "content": "hi", "created_at": CANONICAL_TS})
    expected = datetime(2025, 5, 6, 7, 8, 9, 123456, tzinfo=timezone.utc)
    again = pickle.loads(pickle.dumps(m))
    assert again.created_at == expected
    assert m.with_name("bo").created_at == expected
    assert to_dict(again)["created_at"] == CANONICAL_TS


# -- a fresh message's first encode ----------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    ns=st.integers(0, (2**63 - 1) // 1000 * 1000),
)
def test_stamp_text_is_the_stamp_datetime_formatted(ns: int) -> None:
    assert _ids.stamp_text(ns) == _codec._format_iso(_ids.stamp_created_at(ns))


@pytest.mark.parametrize("read_first", [False, True])
def test_first_encode_of_a_fresh_message(read_first: bool) -> None:
    m = UserMessage("hi")
    if read_first:
        before = m.created_at
    d = to_dict(m)
    assert d["id"] == m.id
    assert d["created_at"] == _codec._format_iso(m.created_at)
    if read_first:
        assert m.created_at == before
    assert to_dict(m) == d
    assert from_dict(d).created_at == m.created_at


def test_first_encode_keeps_a_given_created_at() -> None:
    t = datetime(2020, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=2)))
    m = ToolCallMessage([ToolCall("c1", "f", {})], created_at=t)
    assert to_dict(m)["created_at"] == "2020-01-02T01:04:05.000000Z"
    assert m.created_at == t
