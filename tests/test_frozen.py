"""FrozenDict and deep freezing of JSON-like values."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import ValidationError
from messages._frozen import EMPTY, FrozenDict, FrozenList, freeze, freeze_mapping, thaw

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(), c, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_freeze_thaw_round_trip_and_json(value: Any) -> None:
    frozen = freeze(value)
    assert thaw(frozen) == value
    assert json.loads(json.dumps(frozen)) == json.loads(json.dumps(value))
    hash(frozen)


@given(st.dictionaries(st.text(), json_values, max_size=5))
def test_equal_mappings_hash_equal(value: dict[str, Any]) -> None:
    a, b = freeze(value), freeze(dict(reversed(list(value.items()))))
    assert a == b
    assert hash(a) == hash(b)


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.__setitem__("a", 1),
        lambda d: d.__delitem__("a"),
        lambda d: d.update(a=2),
        lambda d: d.pop("a"),
        lambda d: d.popitem(),
        lambda d: d.setdefault("b", 1),
        lambda d: d.clear(),
    ],
)
def test_frozen_dict_refuses_mutation(mutate: Any) -> None:
    d = FrozenDict({"a": 1})
    with pytest.raises(TypeError):
        mutate(d)
    assert d == {"a": 1}


def test_frozen_dict_ior_refused() -> None:
    d = FrozenDict({"a": 1})
    with pytest.raises(TypeError):
        d |= {"b": 2}


def test_frozen_dict_pickle_copy() -> None:
    d = freeze({"a": [1, {"b": 2}]})
    assert pickle.loads(pickle.dumps(d)) == d
    assert type(pickle.loads(pickle.dumps(d))) is FrozenDict
    assert copy.deepcopy(d) is d


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ({"a": {1, 2}}, "m.a"),
        ({"a": [1, object()]}, "m.a[1]"),
        ({"a": float("inf")}, "m.a"),
        ({"a": {"b": float("nan")}}, "m.a.b"),
        ({3: "x"}, "m"),
    ],
)
def test_freeze_rejects_non_json_with_path(value: Any, path: str) -> None:
    with pytest.raises(ValidationError) as info:
        freeze_mapping(value, "m")
    assert info.value.path == path


def test_freeze_refuses_too_deep_nesting() -> None:
    deep: Any = "x"
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(ValidationError, match="nested deeper"):
        freeze({"a": deep})


def test_empty_and_none_give_shared_empty() -> None:
    assert freeze_mapping(None, "m") is EMPTY
    assert freeze_mapping({}, "m") is EMPTY


def test_enum_and_subclass_scalars_become_plain() -> None:
    import enum

    class Color(enum.StrEnum):
        RED = "red"

    frozen = freeze({"c": Color.RED, "t": (True, 1)})
    assert type(frozen["c"]) is str
    assert frozen["t"] == (True, 1)


@given(json_values)
def test_frozen_value_equals_the_plain_value(value: Any) -> None:
    # callers compare what they wrote with what is stored: a frozen array equals its list
    frozen = freeze(value)
    assert frozen == value
    assert value == frozen
    assert (frozen != value) is False
    assert freeze(frozen) is frozen or freeze(frozen) == frozen


def test_frozen_list_is_an_immutable_hashable_tuple() -> None:
    frozen = freeze([1, [2, {"a": [3]}]])
    assert type(frozen) is FrozenList
    assert isinstance(frozen, tuple)
    assert frozen == (1, (2, {"a": (3,)}))
    assert frozen != [1, [2, {"a": [4]}]]
    assert frozen != [1]
    assert frozen != "x"
    assert hash(frozen) == hash((1, (2, FrozenDict({"a": (3,)}))))
    assert json.dumps(frozen) == '[1, [2, {"a": [3]}]]'
    assert pickle.loads(pickle.dumps(frozen)) == frozen
    assert type(pickle.loads(pickle.dumps(frozen))) is FrozenList
    assert copy.deepcopy(frozen) is frozen
    assert thaw(frozen) == [1, [2, {"a": [3]}]]
    assert type(thaw(frozen)) is list
    with pytest.raises(AttributeError):
        frozen.append(1)  # type: ignore[attr-defined]
    assert freeze({"k": frozen})["k"] is frozen
