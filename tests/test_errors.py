"""The error hierarchy: types, paths, rendering and pickling."""

from __future__ import annotations

import pickle

import pytest

from messages import DecodeError, MessageError, OrderingError, StorageError, ValidationError


@pytest.mark.parametrize("cls", [ValidationError, DecodeError, OrderingError, StorageError])
def test_every_error_is_a_message_error_and_a_value_error(cls: type[MessageError]) -> None:
    err = cls("bad", "a.b")
    assert isinstance(err, MessageError)
    assert isinstance(err, ValueError)


def test_message_error_is_value_error() -> None:
    assert issubclass(MessageError, ValueError)


@pytest.mark.parametrize(
    ("err", "text"),
    [
        (
            DecodeError("expected a string", "messages[3].content"),
            "messages[3].content: expected a string",
        ),
        (ValidationError("is required"), "is required"),
        (StorageError("corrupt", "session x"), "session x: corrupt"),
        (
            OrderingError("tool result without a call", rule="orphan_result", index=4),
            "message 4: [orphan_result] tool result without a call",
        ),
    ],
)
def test_str_names_path_and_message(err: MessageError, text: str) -> None:
    assert str(err) == text


def test_path_attribute() -> None:
    assert (
        DecodeError("x", "tool_calls[0].function.arguments").path
        == "tool_calls[0].function.arguments"
    )


@pytest.mark.parametrize(
    "err",
    [
        ValidationError("bad", "x"),
        DecodeError("bad", "[2].content"),
        OrderingError("bad", "", "alternation", 3),
        StorageError("bad", "k"),
    ],
)
def test_errors_pickle(err: MessageError) -> None:
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is type(err)
    assert str(back) == str(err)
    assert back.path == err.path
    if isinstance(err, OrderingError):
        assert isinstance(back, OrderingError)
        assert (back.rule, back.index) == (err.rule, err.index)


@pytest.mark.parametrize(
    ("path", "prefix", "expected"),
    [
        ("", "[3]", "[3]"),
        ("content", "[3]", "[3].content"),
        ("[0].x", "tool_calls", "tool_calls[0].x"),
        ("function.arguments", "tool_calls[0]", "tool_calls[0].function.arguments"),
    ],
)
def test_at_prefixes_path(path: str, prefix: str, expected: str) -> None:
    err = DecodeError("m", path).at(prefix)
    assert isinstance(err, DecodeError)
    assert err.path == expected


def test_at_keeps_ordering_fields() -> None:
    err = OrderingError("m", "", "pairing", 7).at("history")
    assert isinstance(err, OrderingError)
    assert (err.rule, err.index, err.path) == ("pairing", 7, "history")


def test_a_key_that_starts_with_a_dollar_is_a_key_under_a_prefix() -> None:
    from messages import DecodeError, from_dict

    with pytest.raises(DecodeError) as info:
        from_dict([{"role": "system", "content": "", "$0": float("nan")}])
    assert info.value.path == "[0].$0"
