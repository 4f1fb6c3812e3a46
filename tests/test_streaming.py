"""ToolCallDelta and ToolCallAccumulator (FR-004a-91..100)."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import InvalidToolCall, ToolCall, ToolCallAccumulator, ToolCallDelta, ValidationError


def test_delta_fields() -> None:
    d = ToolCallDelta(0, "call_1", "get_weather", '{"ci')
    assert (d.index, d.id, d.name, d.arguments_delta) == (0, "call_1", "get_weather", '{"ci')
    assert ToolCallDelta(1).id is None


@pytest.mark.parametrize(
    "kwargs",
    [{"index": -1}, {"index": "0"}, {"index": 0, "id": 5}, {"index": 0, "arguments_delta": b"x"}],
)
def test_delta_validation(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        ToolCallDelta(**kwargs)


def test_delta_repr_hides_arguments(secret: str) -> None:
    assert secret not in repr(ToolCallDelta(0, arguments_delta=secret))


def test_single_call_assembled_from_fragments() -> None:
    acc = ToolCallAccumulator()
    for d in [
        ToolCallDelta(0, "call_1", "get_weather", ""),
        ToolCallDelta(0, arguments_delta='{"city": '),
        ToolCallDelta(0, arguments_delta='"Paris"}'),
    ]:
        acc.feed(d)
    (call,) = acc.tool_calls()
    assert call == ToolCall("call_1", "get_weather", {"city": "Paris"})
    assert call.arguments_json == '{"city": "Paris"}'
    assert acc.invalid_tool_calls() == ()


def test_parallel_calls_interleaved_come_out_in_index_order() -> None:
    acc = ToolCallAccumulator()
    acc.feed(ToolCallDelta(1, "call_b", "lookup", '{"q"'))
    acc.feed(ToolCallDelta(0, "call_a", "get_weather", '{"city"'))
    acc.feed(ToolCallDelta(1, arguments_delta=': "x"}'))
    acc.feed(ToolCallDelta(0, arguments_delta=': "Oslo"}'))
    calls = acc.tool_calls()
    assert [c.id for c in calls] == ["call_a", "call_b"]
    assert [dict(c.arguments) for c in calls] == [{"city": "Oslo"}, {"q": "x"}]
    assert acc.indices() == (0, 1)
    assert len(acc) == 2


def test_empty_arguments_become_empty_object() -> None:
    acc = ToolCallAccumulator()
    acc.feed(ToolCallDelta(0, "c", "now"))
    acc.feed(ToolCallDelta(0, arguments_delta=""))
    (call,) = acc.tool_calls()
    assert dict(call.arguments) == {}


@pytest.mark.parametrize("raw", ['{"city": "Par', "[1, 2]", '"text"', "{'a': 1}", '{"a": NaN}'])
def test_invalid_final_json_is_reported_not_dropped_or_repaired(raw: str) -> None:
    acc = ToolCallAccumulator()
    acc.feed(ToolCallDelta(0, "good", "f", "{}"))
    acc.feed(ToolCallDelta(1, "bad", "g", raw))
    assert [c.id for c in acc.tool_calls()] == ["good"]
    (invalid,) = acc.invalid_tool_calls()
    assert isinstance(invalid, InvalidToolCall)
    assert (invalid.id, invalid.name, invalid.raw_arguments) == ("bad", "g", raw)
    assert invalid.error


def test_invalid_error_text_has_no_content(secret: str) -> None:
    acc = ToolCallAccumulator()
    acc.feed(ToolCallDelta(0, "c", "f", '{"k": "' + secret))
    (invalid,) = acc.invalid_tool_calls()
    assert secret not in invalid.error
    assert secret not in repr(invalid)


def test_a_missing_id_is_derived_and_a_missing_name_is_invalid() -> None:
    acc = ToolCallAccumulator()
    acc.feed(ToolCallDelta(0, None, "f", "{}"))
    acc.feed(ToolCallDelta(1, "c2", None, "{}"))
    calls, invalid = acc.result()
    (call,) = calls
    assert call.id.startswith("call_derived_")
    assert acc.result()[0][0].id == call.id  # the same stream gives the same id
    assert [(i.id, i.error) for i in invalid] == [("c2", "tool name is required")]
    calls, invalid = acc.result(id_for=lambda index, name: f"gen_{index}_{name}")
    assert [c.id for c in calls] == ["gen_0_f"]
    assert len(invalid) == 1


def test_extras_attach_to_a_call() -> None:
    acc = ToolCallAccumulator()
    acc.add(0, "c", "f", "{}")
    acc.set_extra(0, "gemini", {"thought_signature": "sig"})
    (call,) = acc.tool_calls()
    assert call.extras["gemini"]["thought_signature"] == "sig"


def test_repeated_name_fragment_is_not_doubled() -> None:
    acc = ToolCallAccumulator()
    acc.add(0, "c", "get_weather", '{"a":')
    acc.add(0, "c", "get_weather", "1}")
    (call,) = acc.tool_calls()
    assert call.name == "get_weather"


json_objects = st.dictionaries(
    st.text(max_size=8),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=12),
        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3),
        max_leaves=8,
    ),
    max_size=5,
)


@given(st.lists(json_objects, min_size=1, max_size=4), st.data())
def test_any_split_of_valid_arguments_reassembles_exactly(
    objs: list[dict[str, Any]], data: Any
) -> None:
    texts = [json.dumps(o, ensure_ascii=data.draw(st.booleans())) for o in objs]
    fragments: list[tuple[int, str]] = []
    for index, text in enumerate(texts):
        cuts = sorted(data.draw(st.sets(st.integers(0, len(text)), max_size=6)))
        bounds = [0, *cuts, len(text)]
        fragments.extend((index, text[a:b]) for a, b in itertools.pairwise(bounds))
    # Interleave the calls at random, each call's own fragments staying in order.
    acc = ToolCallAccumulator()
    for index in range(len(texts)):
        acc.feed(ToolCallDelta(index, f"call_{index}", "tool"))
    queues = {i: [f for j, f in fragments if j == i] for i in range(len(texts))}
    pick = data.draw(st.lists(st.integers(0, len(texts) - 1), max_size=len(fragments) * 2))
    for i in pick:
        if queues[i]:
            acc.feed(ToolCallDelta(i, arguments_delta=queues[i].pop(0)))
    for i in range(len(texts)):
        for f in queues[i]:
            acc.feed(ToolCallDelta(i, arguments_delta=f))
    calls = acc.tool_calls()
    assert [c.arguments_json for c in calls] == texts
    assert [json.loads(c.arguments_json) for c in calls] == objs
    assert acc.invalid_tool_calls() == ()
