"""Conversation builders and hypothesis strategies shared by the history, ordering and repair tests.

``build("S U C:a,b R:b R:a A")`` spells a conversation: S system, D developer,
U user, A assistant text, ``C:ids`` a tool-call message, ``R:id`` a tool result.
``spell(messages)`` gives the spelling back.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from messages._ordering import OrderingPolicy
from tests.conftest import SECRET

TEXTS = ("", "hi", "hello world", SECRET, "x" * 50)


def make(token: str, text: str = "text") -> Message:
    """One message from its spelling."""
    head, _, rest = token.partition(":")
    if head == "S":
        return SystemMessage(text)
    if head == "D":
        return DeveloperMessage(text)
    if head == "U":
        return UserMessage(text)
    if head == "A":
        return AssistantMessage(text)
    if head == "C":
        return ToolCallMessage([ToolCall(i, f"tool_{i}", {"q": text}) for i in rest.split(",")])
    if head == "R":
        return ToolResultMessage(rest, text)
    raise ValueError(f"bad token {token!r}")


def build(spec: str, text: str = "text") -> list[Message]:
    """A list of messages from a spelling such as ``"S U C:a R:a A"``."""
    return [make(t, text) for t in spec.split()]


def spell(messages: Any) -> str:
    """The spelling of a sequence of messages (inverse of ``build`` up to content)."""
    out = []
    for m in messages:
        if isinstance(m, ToolCallMessage):
            out.append("C:" + ",".join(c.id for c in m.tool_calls))
        elif isinstance(m, ToolResultMessage):
            out.append("R:" + m.tool_call_id)
        else:
            out.append(
                {"system": "S", "developer": "D", "user": "U", "assistant": "A"}[m.role.value]
            )
    return " ".join(out)


texts = st.sampled_from(TEXTS) | st.text(alphabet="ab c\n", max_size=80)

policies = st.builds(
    OrderingPolicy,
    require_system_first=st.booleans(),
    allow_multiple_system=st.booleans(),
    allow_late_instructions=st.booleans(),
    allow_assistant_first=st.booleans(),
    allow_consecutive_user=st.booleans(),
    allow_consecutive_assistant=st.booleans(),
)
"""Every combination of policy flags."""


@st.composite
def conversations(draw: st.DrawFn, max_turns: int = 8) -> list[Message]:
    """A conversation valid under the strict policy (and so under every policy).

    System (and maybe developer) first, then user turns each answered by zero to
    two tool rounds (results in any order) and a text; the last turn may stop
    with calls still pending.
    """
    msgs: list[Message] = [SystemMessage(draw(texts))]
    if draw(st.booleans()):
        msgs.append(DeveloperMessage(draw(texts)))
    n_turns = draw(st.integers(0, max_turns))
    next_id = 0
    for t in range(n_turns):
        msgs.append(UserMessage(draw(texts)))
        for r in range(draw(st.integers(0, 2))):
            ids = [f"call_{next_id + k}" for k in range(draw(st.integers(1, 3)))]
            next_id += len(ids)
            calls = [ToolCall(i, "lookup", {"q": draw(texts)}) for i in ids]
            msgs.append(ToolCallMessage(calls, draw(st.none() | texts)))
            order = draw(st.permutations(ids))
            if t == n_turns - 1 and r == 0 and draw(st.booleans()):
                # Stop mid-round: some calls stay pending.
                order = order[: draw(st.integers(0, len(order) - 1))]
                msgs.extend(ToolResultMessage(i, draw(texts)) for i in order)
                return msgs
            msgs.extend(ToolResultMessage(i, draw(texts)) for i in order)
        if t < n_turns - 1 or draw(st.booleans()):
            msgs.append(AssistantMessage(draw(texts)))
        else:
            return msgs  # ends on a user message or on tool results
    return msgs


_POOL = ("a", "b", "c", "d")


def _any_message(draw: st.DrawFn) -> Message:
    kind = draw(st.sampled_from("SDUACCRR"))
    text = draw(texts)
    if kind == "C":
        ids = draw(st.lists(st.sampled_from(_POOL), min_size=1, max_size=3, unique=True))
        return ToolCallMessage([ToolCall(i, "lookup", {}) for i in ids], draw(st.none() | texts))
    if kind == "R":
        return ToolResultMessage(draw(st.sampled_from(_POOL)), text)
    return make(kind, text)


@st.composite
def any_sequences(draw: st.DrawFn, max_size: int = 20) -> list[Message]:
    """Any sequence of messages: rule-breaking orders, orphan and duplicate results."""
    n = draw(st.integers(0, max_size))
    return [_any_message(draw) for _ in range(n)]
