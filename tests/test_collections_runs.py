"""Merging runs of same-role messages: one join per run, equal to the pairwise fold.

``join_contents`` replaces a left fold of ``join_content`` that copied the growing
text once per merged message (O(n^2) on a run of n). The fold stays the reference:
the two must agree on every sequence of contents. Linearity is checked by counting
the merged messages built, not by timing: one per run, whatever its length.
"""

from __future__ import annotations

from functools import reduce
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from messages import AssistantMessage, ImagePart, Messages, TextPart, UserMessage
from messages._collections import join_content, join_contents
from tests.built_messages import built_messages
from tests.strategies import assistant_parts, texts, user_parts

_CONTENTS = st.one_of(
    st.none(),
    st.sampled_from(["", "a", "b\n", "\n\n"]),
    texts,
    st.lists(st.one_of(user_parts, assistant_parts), max_size=3).map(tuple),
    st.lists(st.sampled_from([TextPart(""), TextPart("x"), TextPart("y")]), max_size=3).map(tuple),
)


def fold(contents: list[Any]) -> Any:
    return reduce(join_content, contents[1:], contents[0])


@given(st.lists(_CONTENTS, min_size=1, max_size=8))
def test_join_contents_equals_the_pairwise_fold(contents: list[Any]) -> None:
    assert join_contents(contents) == fold(contents)


@pytest.mark.parametrize(
    "contents",
    [
        [""],
        [None],
        [None, ""],
        ["", None],
        ["a", (), "b"],
        [(), "a"],
        ["a", (ImagePart(url="u"),), "b", "c"],
        [(TextPart("a"),), (TextPart("b"),), "c", ()],
        [(ImagePart(url="u"),), "", (TextPart(""),), (TextPart("z"),)],
    ],
)
def test_join_contents_edge_cases(contents: list[Any]) -> None:
    assert join_contents(contents) == fold(contents)


def test_a_long_run_is_merged_once() -> None:
    with built_messages() as built:
        n = 20_000
        lines = [f"line {i}" for i in range(n)]
        run = [UserMessage(t) for t in lines]
        mixed = [*run, AssistantMessage("reply"), *run[:3], AssistantMessage("end")]
        out = Messages(mixed).merged_per_role()
        assert [m.content for m in out] == [
            "\n\n".join(lines),
            "reply",
            "line 0\n\nline 1\n\nline 2",
            "end",
        ]
        assert len(built) == 2  # one merged message per run: the pairwise fold built n - 1 + 2


def test_a_long_run_of_parts_is_merged_once() -> None:
    with built_messages() as built:
        image = ImagePart(url="https://example.com/a.png")
        run = [UserMessage([f"t{i}", image]) for i in range(5_000)]
        (merged,) = Messages(run).merged_per_role()
        assert merged.content == fold([m.content for m in run])
        assert isinstance(merged.content, tuple) and len(merged.content) == 10_000
        assert len(built) == 1
