"""The turn-order rules of a conversation: one policy, one table, one function.

Like h11's connection state machine, every rule lives here. A conversation is in
one *phase*; each message has a *kind*; the policy compiles into a table that maps
``(phase, kind)`` to the next phase, or to the name of the rule the message breaks.
:func:`advance` looks the pair up and keeps the pending-tool-call bookkeeping; an
illegal message raises :class:`OrderingError` and nothing happens.

Phases: ``empty`` (nothing yet), ``instructions`` (only system/developer messages
so far), ``user``, ``assistant`` (a text turn), ``calling`` (tool calls wait for
results) and ``answered`` (every call of the last tool-call message has a result).

Rules (the ``rule`` of an OrderingError):

=======================  ===================================================
``system_first``         the first message must be system or developer
``single_system``        at most one system message
``instructions_first``   system/developer only before the first user or
                         assistant message
``assistant_first``      the first turn must be a user message
``alternation``          user and assistant messages alternate
``tool_results_pending`` while tool calls await results, only tool results
``orphan_tool_result``   a tool result must follow a tool-call message
``unknown_tool_call_id`` a tool result answers a call of that message
``duplicate_tool_result`` each call is answered exactly once
``not_a_message``        only Message instances can be ordered
=======================  ===================================================

The tool-pairing rules (the last five) hold under every policy. A completed
tool-call group counts as the assistant's turn for alternation, so after the
results either the assistant continues or the user speaks. A system or developer
message, where the policy allows it late, is transparent to alternation.
Anything but a tool result while calls are pending is refused under every policy,
because providers reject a request whose tool results do not directly follow the
calls.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, cast

from ._kinds import (
    ASSISTANT,
    DEVELOPER,
    KIND_NAMES,
    SYSTEM,
    TOOL_CALL,
    TOOL_RESULT,
    USER,
    kind_or_none,
)
from ._message import Message, ToolResultMessage
from ._role import MessageRole
from ._tool_call import InvalidToolCall, ToolCall
from .errors import DecodeError, OrderingError, ValidationError, ident

__all__ = [  # the kinds are re-exported: the table's columns are numbered by them
    "ASSISTANT",
    "DEVELOPER",
    "KIND_NAMES",
    "SYSTEM",
    "TOOL_CALL",
    "TOOL_RESULT",
    "USER",
    "OrderingPolicy",
    "OrderingState",
    "advance",
    "check_sequence",
    "kind_of",
]

# The kinds of message (SYSTEM .. TOOL_RESULT, from ``_kinds``) number the table's columns.
_NKINDS: Final = len(KIND_NAMES)

# Phases of a conversation, in table order.
EMPTY: Final = 0
INSTRUCTIONS: Final = 1
P_USER: Final = 2
P_ASSISTANT: Final = 3
CALLING: Final = 4
ANSWERED: Final = 5
PHASE_NAMES: Final = ("empty", "instructions", "user", "assistant", "calling", "answered")

#: Table entry meaning "a tool result: check the id against the open group".
_PAIR: Final = -1

#: The kind of a class that derives from ``Message`` directly, by its role.
_KIND_BY_ROLE = {
    MessageRole.SYSTEM: SYSTEM,
    MessageRole.DEVELOPER: DEVELOPER,
    MessageRole.USER: USER,
    MessageRole.ASSISTANT: ASSISTANT,
}


def kind_of(message: object, index: int = -1) -> int:
    """The kind of a message (see ``KIND_NAMES``); OrderingError for anything else.

    A message's kind comes from ``_kinds``; a class that derives from ``Message``
    directly is ordered by its role (a tool message must be a ToolResultMessage).
    """
    kind = kind_or_none(message)
    if kind is None:
        kind = _kind_by_role(message, index)
    return kind


def _kind_by_role(message: object, index: int) -> int:
    if not isinstance(message, Message):
        raise OrderingError(
            f"expected a Message, got {type(message).__name__}", rule="not_a_message", index=index
        )
    kind = _KIND_BY_ROLE.get(message.role)
    if kind is None:
        raise OrderingError(
            "a tool message must be a ToolResultMessage", rule="not_a_message", index=index
        )
    return kind


_FLAGS: Final = (
    "require_system_first",
    "allow_multiple_system",
    "allow_late_instructions",
    "allow_assistant_first",
    "allow_consecutive_user",
    "allow_consecutive_assistant",
)


@dataclass(frozen=True, slots=True)
class OrderingPolicy:
    """Which turn orders a ConversationHistory accepts; configure with flags, no subclassing.

    The default (``OrderingPolicy()`` == ``OrderingPolicy.strict()``) enforces every
    rule; :meth:`lenient` keeps only tool pairing. Flags relax one rule each.
    """

    require_system_first: bool = True
    """The first message must be system or developer (rule ``system_first``)."""
    allow_multiple_system: bool = False
    """More than one system message may appear (else rule ``single_system``)."""
    allow_late_instructions: bool = False
    """System/developer messages may follow user or assistant turns (else ``instructions_first``)."""
    allow_assistant_first: bool = False
    """The first turn may be the assistant's (else rule ``assistant_first``)."""
    allow_consecutive_user: bool = False
    """Two user messages may follow each other (else rule ``alternation``)."""
    allow_consecutive_assistant: bool = False
    """Two assistant messages may follow each other (else rule ``alternation``)."""
    _table: tuple[Any, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in _FLAGS:
            value = getattr(self, name)
            if value is not True and value is not False:
                raise ValidationError(f"expected bool, got {type(value).__name__}", name)
        object.__setattr__(self, "_table", _compile(self))

    @classmethod
    def strict(cls) -> OrderingPolicy:
        """Every rule: system/developer first, one system message, strict alternation."""
        return _STRICT

    @classmethod
    def lenient(cls) -> OrderingPolicy:
        """Only the tool-pairing rules."""
        return _LENIENT

    @property
    def name(self) -> str:
        """``"strict"``, ``"lenient"`` or ``"custom"``."""
        if self == _STRICT:
            return "strict"
        if self == _LENIENT:
            return "lenient"
        return "custom"

    def to_dict(self) -> dict[str, bool]:
        """The flags as a plain dict."""
        return {name: getattr(self, name) for name in _FLAGS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: str = "policy") -> OrderingPolicy:
        """Build from :meth:`to_dict` output; missing flags take the strict default."""
        if not isinstance(data, Mapping):
            raise DecodeError(f"expected an object, got {type(data).__name__}", path)
        flags: dict[str, bool] = {}
        try:
            items = list(data.items())
        except Exception as exc:  # a Mapping whose methods fail: its error, never its text
            raise DecodeError(f"cannot read the object ({type(exc).__name__})", path) from None
        for key, value in items:
            if not isinstance(key, str) or key not in _FLAGS:
                where = f"{path}.{key}" if isinstance(key, str) else path
                raise DecodeError(
                    f"unknown policy flag {ident(key)}; valid flags: {', '.join(_FLAGS)}", where
                )
            if value is not True and value is not False:
                raise DecodeError(f"expected bool, got {type(value).__name__}", f"{path}.{key}")
            flags[key] = value
        return cls(**flags)

    def describe(self) -> str:
        """The compiled transition table as text: what may follow each phase."""
        lines = []
        for phase, phase_name in enumerate(PHASE_NAMES):
            cells = []
            for kind, kind_name in enumerate(KIND_NAMES):
                entry = self._table[phase * _NKINDS + kind]
                if entry == _PAIR:
                    cells.append(f"{kind_name}: if its call is pending")
                elif isinstance(entry, int):
                    cells.append(f"{kind_name} -> {PHASE_NAMES[entry]}")
                else:
                    cells.append(f"{kind_name}: no ({entry})")
            lines.append(f"{phase_name}: " + "; ".join(cells))
        return "\n".join(lines)

    def __reduce__(self) -> tuple[Any, ...]:
        return (OrderingPolicy, tuple(getattr(self, name) for name in _FLAGS))


def _compile(p: OrderingPolicy) -> tuple[Any, ...]:
    """Build the flat ``(phase, kind) -> next phase | rule`` table of a policy."""
    t: list[Any] = [None] * (len(PHASE_NAMES) * _NKINDS)

    def put(phase: int, kind: int, entry: Any) -> None:
        t[phase * _NKINDS + kind] = entry

    first_turn = "system_first" if p.require_system_first else None
    late = None if p.allow_late_instructions else "instructions_first"
    for phase in range(len(PHASE_NAMES)):
        if phase == CALLING:
            for kind in range(_NKINDS):
                put(phase, kind, _PAIR if kind == TOOL_RESULT else "tool_results_pending")
            continue
        # Instructions: always fine before any turn; later only where allowed,
        # and then transparent (the phase does not change).
        for kind in (SYSTEM, DEVELOPER):
            if phase in (EMPTY, INSTRUCTIONS):
                put(phase, kind, INSTRUCTIONS)
            else:
                put(phase, kind, late or phase)
        if phase in (EMPTY, INSTRUCTIONS):
            head = first_turn if phase == EMPTY else None
            put(phase, USER, head or P_USER)
            asst = head or (None if p.allow_assistant_first else "assistant_first")
            put(phase, ASSISTANT, asst or P_ASSISTANT)
            put(phase, TOOL_CALL, asst or CALLING)
            put(phase, TOOL_RESULT, head or "orphan_tool_result")
            continue
        user_ok = phase != P_USER or p.allow_consecutive_user
        put(phase, USER, P_USER if user_ok else "alternation")
        asst_ok = phase != P_ASSISTANT or p.allow_consecutive_assistant
        put(phase, ASSISTANT, P_ASSISTANT if asst_ok else "alternation")
        put(phase, TOOL_CALL, CALLING if asst_ok else "alternation")
        put(phase, TOOL_RESULT, _PAIR if phase == ANSWERED else "orphan_tool_result")
    return tuple(t)


_STRICT: Final = OrderingPolicy()
_LENIENT: Final = OrderingPolicy(
    require_system_first=False,
    allow_multiple_system=True,
    allow_late_instructions=True,
    allow_assistant_first=True,
    allow_consecutive_user=True,
    allow_consecutive_assistant=True,
)


class OrderingState:
    """Where a conversation stands: its phase, whether it has a system message, open calls.

    Mutable and small, so that a check per message is O(1); :meth:`copy` lets
    ``extend`` check a batch without touching the live state.
    """

    __slots__ = ("answered", "has_system", "pending", "phase", "policy", "table")

    def __init__(self, policy: OrderingPolicy) -> None:
        self.policy = policy
        self.table: tuple[Any, ...] = policy._table
        self.phase = EMPTY
        self.has_system = False
        #: The unanswered calls of the last tool-call message, in call order.
        self.pending: dict[str, ToolCall | InvalidToolCall] = {}
        #: The answered call ids of the last tool-call message.
        self.answered: set[str] = set()

    def copy(self) -> OrderingState:
        """An independent copy."""
        other = OrderingState.__new__(OrderingState)
        other.policy = self.policy
        other.table = self.table
        other.phase = self.phase
        other.has_system = self.has_system
        other.pending = dict(self.pending)
        other.answered = set(self.answered)
        return other


def advance(state: OrderingState, message: Message, index: int) -> None:
    """Apply ``message`` (at position ``index``) to ``state``, or raise OrderingError unchanged."""
    kind = kind_of(message, index)
    phase = state.phase
    nxt = state.table[phase * _NKINDS + kind]
    if isinstance(nxt, int) and nxt >= 0:
        if kind == SYSTEM:
            if state.has_system and not state.policy.allow_multiple_system:
                raise _error("single_system", kind, phase, index, state)
            state.has_system = True
        elif kind == TOOL_CALL:
            calls = message.tool_calls
            invalid = message.invalid_tool_calls
            # an invalid call is answered like a valid one (usually with an error result)
            state.pending = {c.id: c for c in calls}
            if invalid:
                state.pending.update({c.id: c for c in invalid})
            state.answered = set()
            if not state.pending:
                nxt = ANSWERED
        state.phase = nxt
        return
    if nxt == _PAIR:
        call_id = cast(ToolResultMessage, message).tool_call_id
        pending = state.pending
        if call_id in pending:
            del pending[call_id]
            state.answered.add(call_id)
            state.phase = CALLING if pending else ANSWERED
            return
        rule = "duplicate_tool_result" if call_id in state.answered else "unknown_tool_call_id"
        raise _error(rule, kind, phase, index, state, call_id)
    raise _error(nxt, kind, phase, index, state)


def check_sequence(
    policy: OrderingPolicy, messages: Iterable[Message], start: int = 0
) -> OrderingState:
    """Check a whole sequence from scratch; return the final state or raise OrderingError."""
    state = OrderingState(policy)
    for i, m in enumerate(messages, start):
        advance(state, m, i)
    return state


_ROLE_OF_KIND = ("system", "developer", "user", "assistant", "assistant", "tool")
_TURN_OF_PHASE = {P_USER: "user", P_ASSISTANT: "assistant", ANSWERED: "tool results"}


def _ids(ids: Iterable[str]) -> str:
    shown = [ident(i) for i in ids]
    if len(shown) > 3:
        return ", ".join(shown[:3]) + f", ... ({len(shown)} in all)"
    return ", ".join(shown)


def _error(
    rule: str, kind: int, phase: int, index: int, state: OrderingState, call_id: str = ""
) -> OrderingError:
    """Build the error for a broken rule; names roles, kinds and call ids, never content."""
    role = _ROLE_OF_KIND[kind]
    if rule == "system_first":
        text = f"the first message must be a system or developer message, got {role}"
    elif rule == "single_system":
        text = "a system message is already present; only one is allowed"
    elif rule == "instructions_first":
        text = f"{role} messages must come before the first user or assistant message"
    elif rule == "assistant_first":
        text = "the first turn must be a user message, got assistant"
    elif rule == "alternation":
        after = _TURN_OF_PHASE.get(phase, role)
        text = f"user and assistant messages must alternate; got {role} after {after}"
    elif rule == "tool_results_pending":
        text = (
            f"{len(state.pending)} tool call(s) still await a result "
            f"({_ids(state.pending)}); only tool results may follow, got {role}"
        )
    elif rule == "orphan_tool_result":
        text = "a tool result must follow an assistant message with tool_calls"
    elif rule == "unknown_tool_call_id":
        text = f"tool_call_id {ident(call_id)} does not match any call of the preceding tool_calls message"
    elif rule == "duplicate_tool_result":
        text = f"tool_call_id {ident(call_id)} was already answered"
    else:  # pragma: no cover - every table entry is one of the rules above
        text = "illegal message"
    return OrderingError(text, rule=rule, index=index)
