"""Make an imported conversation pass an ordering policy, and say what changed.

``repair`` walks the sequence once with the policy's transition table (see
``_ordering``) and fixes what it can without inventing content:

=======================  =========================  ===================================
rule                     action                     what happens
=======================  =========================  ===================================
orphan_tool_result       ``dropped``                a result with no tool-call message
                                                    before it is removed
unknown_tool_call_id     ``dropped``                a result for no call of the open
                                                    tool-call message is removed
duplicate_tool_result    ``dropped``                a second result for a call is removed
unanswered_tool_call     ``inserted_error_result``  an error ToolResultMessage is inserted
                                                    after the group's last result (index:
                                                    the tool-call message)
alternation              ``merged_into_previous``   a user (assistant) message following
                                                    another is merged into it
alternation              ``merged_into_next``       an assistant text followed by a tool
                                                    call: the text joins the tool-call
                                                    message (calls untouched)
single_system            ``merged_into_first``      a second system message is merged into
                                                    the first
instructions_first       ``moved_to_instructions``  a late system/developer message moves
                                                    to the leading instructions
assistant_first          ``dropped``                an assistant turn before any user turn
                                                    is removed (inventing a user turn would
                                                    put words in the user's mouth)
system_first             ``inserted_empty_system``  an empty SystemMessage is put first (it
                                                    carries no content; replace it at will)
duplicate_id             ``dropped``                a message equal to an earlier one with
                                                    the same id is removed (the same
                                                    message imported twice)
duplicate_id             ``assigned_new_id``        a different message reusing an earlier
                                                    id is kept under a fresh id (same
                                                    content and created_at)
=======================  =========================  ===================================

Merging joins texts as ``Messages.merged_per_role`` does and keeps the first
message's id, name and metadata (for ``merged_into_next``, the tool-call
message's, which may carry provider state). Tool calls left pending at the very
end are not answered: a conversation may legitimately stop while a tool runs.

Ids: a history refuses a second message with an id it holds (``duplicate_id``).
Ids are checked first, against the input: a message whose id an earlier input
message had is dropped when it equals that message (equality ignores id and
created_at) and otherwise kept with a new id, made as for a new message
(``_ids.new_id``); the ordering rules then apply to what is kept. A repeated id
is always resolved this way, even when the earlier message itself was dropped
or merged by another rule.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from ._collections import Messages, join_content, join_contents
from ._ids import new_id
from ._message import Message, SystemMessage, ToolResultMessage
from ._ordering import (
    _NKINDS,
    _PAIR,
    ANSWERED,
    CALLING,
    DEVELOPER,
    INSTRUCTIONS,
    SYSTEM,
    TOOL_CALL,
    TOOL_RESULT,
    OrderingPolicy,
    kind_of,
)
from ._tool_call import InvalidToolCall, ToolCall
from .errors import ValidationError

__all__ = ["UNANSWERED_TEXT", "Repair", "repair"]


UNANSWERED_TEXT = "no result was recorded for this tool call"
"""The content of the error result ``repair`` inserts for an unanswered call."""


@dataclass(frozen=True, slots=True)
class Repair:
    """One change ``repair`` made: the input position, the rule it fixes and the action taken."""

    index: int
    rule: str
    action: str

    def __post_init__(self) -> None:
        if type(self.index) is not int or self.index < 0:
            raise ValidationError("expected an int >= 0", "index")
        for name in ("rule", "action"):
            if not isinstance(getattr(self, name), str):
                raise ValidationError(
                    f"expected str, got {type(getattr(self, name)).__name__}", name
                )

    def __str__(self) -> str:
        return f"message {self.index}: [{self.rule}] {self.action}"


def repair(
    messages: Iterable[Message], policy: OrderingPolicy | None = None
) -> tuple[Messages, tuple[Repair, ...]]:
    """Return ``messages`` changed so that they pass ``policy`` (default strict), and the changes.

    A sequence that already passes comes back unchanged with no records.
    """
    if policy is None:
        policy = OrderingPolicy.strict()
    elif not isinstance(policy, OrderingPolicy):
        raise ValidationError(f"expected an OrderingPolicy, got {type(policy).__name__}", "policy")
    source = messages if isinstance(messages, Messages) else Messages(messages)
    return _Repairer(policy).run(source)


def _first_with_id(items: tuple[Message, ...]) -> list[int] | None:
    """For each message, the index of the first message with its id; None when ids are unique."""
    keys = [m.id for m in items]
    if len(set(keys)) == len(keys):
        return None
    index: dict[str, int] = {}
    return [index.setdefault(k, i) for i, k in enumerate(keys)]


class _FirstSystem:
    """Where the first system message was placed, and the message itself."""

    __slots__ = ("cells", "message", "pos", "src")

    def __init__(self, cells: list[Message | None], pos: int, src: int, message: Message) -> None:
        self.cells = cells  # the head or the body
        self.pos = pos
        self.src = src  # its input index
        self.message = message


class _Repairer:
    """One pass of the repair state machine (a class only to share its state)."""

    def __init__(self, policy: OrderingPolicy) -> None:
        self.policy = policy
        self.table = policy._table
        # Cells are set to None when a message leaves its place; compacted at the end.
        self.head: list[Message | None] = []
        self.body: list[Message | None] = []
        self.records: list[Repair] = []
        self.phase = INSTRUCTIONS
        self.pending: dict[str, ToolCall | InvalidToolCall] = {}
        self.answered: set[str] = set()
        self.call_src = -1
        self.first_system: _FirstSystem | None = None
        self.last_turn = -1  # body position of the last user/assistant message
        self.last_turn_src = -1
        # Contents merged into the last turn / the first system message, joined once
        # by settle(): merging one at a time copied the growing text per merge, which
        # made a long same-role run quadratic (benchmarks/bench_merge.py).
        self.turn_run: list[object] = []
        self.system_run: list[object] = []

    def note(self, index: int, rule: str, action: str) -> None:
        self.records.append(Repair(index, rule, action))

    def run(self, source: Messages) -> tuple[Messages, tuple[Repair, ...]]:
        items = source.items
        first = _first_with_id(items)
        for i, m in enumerate(items):
            kind = kind_of(m, i)
            if first is not None and first[i] != i:  # an earlier message has this id
                if items[first[i]] == m:
                    self.note(i, "duplicate_id", "dropped")
                    continue
                m = dataclasses.replace(m, id=new_id())  # noqa: PLW2901 - the kept copy
                self.note(i, "duplicate_id", "assigned_new_id")
            if self.phase == CALLING and kind != TOOL_RESULT:
                self.close_group()
            if isinstance(m, ToolResultMessage):  # the TOOL_RESULT kind
                self.tool_result(m, i)
            elif kind in (SYSTEM, DEVELOPER):
                self.instruction(m, kind, i)
            else:
                self.turn(m, kind, i)
        self.settle()
        self.ensure_first()
        if not self.records:
            return source, ()
        out = [m for m in self.head if m is not None]
        out.extend([m for m in self.body if m is not None])
        return Messages._of(tuple(out)), tuple(self.records)

    def settle(self) -> None:
        """Join the contents merged into the last turn and into the first system message."""
        self.settle_turn()
        first = self.first_system
        if self.system_run and first is not None:
            first.cells[first.pos] = first.message.with_content(join_contents(self.system_run))
            self.system_run = []

    def settle_turn(self) -> None:
        """Join the contents merged into the last turn, before it is read or left."""
        if self.turn_run:
            prev = self.last_turn_message()
            self.body[self.last_turn] = prev.with_content(join_contents(self.turn_run))
            self.turn_run = []

    def last_turn_message(self) -> Message:
        """The last user/assistant message placed (its place is emptied only once it is left)."""
        prev = self.body[self.last_turn]
        assert prev is not None
        return prev

    def close_group(self) -> None:
        for call_id, call in self.pending.items():
            self.body.append(ToolResultMessage(call_id, UNANSWERED_TEXT, True, call.name or None))
            self.note(self.call_src, "unanswered_tool_call", "inserted_error_result")
            self.answered.add(call_id)
        self.pending = {}
        self.phase = ANSWERED

    def tool_result(self, m: ToolResultMessage, i: int) -> None:
        call_id = m.tool_call_id
        if self.table[self.phase * _NKINDS + TOOL_RESULT] != _PAIR:
            self.note(i, "orphan_tool_result", "dropped")
        elif call_id in self.pending:
            del self.pending[call_id]
            self.answered.add(call_id)
            self.body.append(m)
            self.phase = CALLING if self.pending else ANSWERED
        elif call_id in self.answered:
            self.note(i, "duplicate_tool_result", "dropped")
        else:
            self.note(i, "unknown_tool_call_id", "dropped")

    def instruction(self, m: Message, kind: int, i: int) -> None:
        policy = self.policy
        first = self.first_system
        if kind == SYSTEM and first is not None and not policy.allow_multiple_system:
            if not self.system_run:
                self.system_run.append(first.message.content)
            self.system_run.append(m.content)
            self.note(i, "single_system", "merged_into_first")
            return
        if self.phase == INSTRUCTIONS:
            cells = self.head
        elif policy.allow_late_instructions:
            cells = self.body
        else:
            cells = self.head
            self.note(i, "instructions_first", "moved_to_instructions")
        cells.append(m)
        if kind == SYSTEM and first is None:
            self.first_system = _FirstSystem(cells, len(cells) - 1, i, m)

    def turn(self, m: Message, kind: int, i: int) -> None:
        entry = self.table[self.phase * _NKINDS + kind]
        body = self.body
        if type(entry) is int and entry >= 0:
            self.settle_turn()
            body.append(m)
            self.opened(m, kind, i, entry)
        elif entry == "alternation":
            content = m.content
            if kind != TOOL_CALL:
                if not self.turn_run:
                    self.turn_run.append(self.last_turn_message().content)
                self.turn_run.append(content)
                self.note(i, "alternation", "merged_into_previous")
                return
            self.settle_turn()
            prev = self.last_turn_message()
            merged = join_content(prev.content, content) if prev.parts else content
            # The text goes into the tool-call message, placed where the call was,
            # so that the results still follow it directly.
            body[self.last_turn] = None
            body.append(m.with_content(merged))
            self.note(self.last_turn_src, "alternation", "merged_into_next")
            self.opened(m, kind, i, CALLING)
        else:
            # "assistant_first": the policy wants a user turn first.
            self.note(i, str(entry), "dropped")

    def opened(self, m: Message, kind: int, i: int, phase: int) -> None:
        """Bookkeeping after a user/assistant message was placed at the end of the body."""
        self.last_turn = len(self.body) - 1
        self.last_turn_src = i
        self.phase = phase
        if kind == TOOL_CALL:
            self.pending = {c.id: c for c in m.tool_calls}
            # invalid calls are answered like valid ones (repair gives them an error result)
            if m.invalid_tool_calls:
                self.pending.update({c.id: c for c in m.invalid_tool_calls})
            self.answered = set()
            self.call_src = i
            if not self.pending:
                self.phase = ANSWERED

    def ensure_first(self) -> None:
        """Under ``require_system_first``, give a non-empty conversation a leading instruction."""
        if not self.policy.require_system_first or any(m is not None for m in self.head):
            return
        if not any(m is not None for m in self.body):
            return
        if self.first_system is not None:
            # A late system message (allowed late by this policy) moves to the front
            # rather than adding a second one next to it.
            first = self.first_system
            self.head.insert(0, first.cells[first.pos])
            first.cells[first.pos] = None
            self.note(first.src, "system_first", "moved_to_instructions")
            return
        self.head.insert(0, SystemMessage(""))
        self.note(0, "system_first", "inserted_empty_system")
