"""repair() on long same-role runs: each merged message is built once, not once per merge.

Merging one message at a time copied the growing text per merge (O(n^2) on a run
of n). Linearity is checked by counting the merged messages built, not by timing.
"""

from __future__ import annotations

from messages import (
    AssistantMessage,
    Message,
    OrderingPolicy,
    SystemMessage,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
    repair,
)
from messages._ordering import check_sequence
from tests.built_messages import built_messages

N = 20_000


def test_a_long_user_run_is_merged_once() -> None:
    with built_messages() as built:
        texts = [f"u{i}" for i in range(N)]
        given = [SystemMessage("s"), *map(UserMessage, texts), AssistantMessage("a")]
        fixed, changes = repair(given)
        assert [m.content for m in fixed] == ["s", "\n\n".join(texts), "a"]
        assert fixed[1].id == given[1].id
        assert [(c.index, c.rule, c.action) for c in changes] == [
            (i, "alternation", "merged_into_previous") for i in range(2, N + 1)
        ]
        assert len(built) == 1


def test_a_long_system_run_is_merged_once() -> None:
    with built_messages() as built:
        texts = [f"s{i}" for i in range(N)]
        fixed, changes = repair([*map(SystemMessage, texts), UserMessage("u")])
        assert [m.content for m in fixed] == ["\n\n".join(texts), "u"]
        assert len(changes) == N - 1
        assert len(built) == 1


def test_runs_between_other_repairs_each_merge_once() -> None:
    with built_messages() as built:
        call = ToolCallMessage((ToolCall("c1", "f", {}),))
        given: list[Message] = [
            SystemMessage("s"),
            *(UserMessage(f"a{i}") for i in range(1000)),
            *(AssistantMessage(f"b{i}") for i in range(1000)),
            call,  # the assistant run's text joins the call (merged_into_next)
            UserMessage("late"),  # the call is answered by an inserted error result first
            SystemMessage("second"),  # merged into the first system message
            *(UserMessage(f"c{i}") for i in range(1000)),
        ]
        fixed, _ = repair(given)
        check_sequence(OrderingPolicy.strict(), fixed)
        assert fixed[0].content == "s\n\nsecond"
        assert fixed[1].content == "\n\n".join(f"a{i}" for i in range(1000))
        assert fixed[2].content == "\n\n".join(f"b{i}" for i in range(1000))
        assert fixed[2].tool_calls == call.tool_calls
        assert type(fixed[3]) is ToolResultMessage
        assert fixed[4].content == "\n\n".join(["late", *(f"c{i}" for i in range(1000))])
        # the user run, the assistant run, the call taking its text, the system, the last run
        assert len(built) == 5
