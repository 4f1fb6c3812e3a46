"""``validate IN``: does the conversation decode, and would a ConversationHistory take it?

Every message is decoded and replayed as ``ConversationHistory.add`` would check
it (the ordering state machine and the duplicate-id rule), without keeping the
messages: JSON Lines of any length are checked in constant memory, plus the ids
the input gives. Without ``--all`` the first problem is reported; with it, every
one, by the same code: the first line of ``--all`` is what ``validate`` says.

After a problem, ``--all`` carries on from the state ``repair`` would leave, so
that one mistake is reported once rather than again at every later message:

=======================  ==================================================
rule                     the replay then
=======================  ==================================================
tool_results_pending     answers the open calls (repair inserts error
                         results) and checks the message again
system_first             takes an empty system message first (repair
                         inserts one) and checks the message again
alternation, before      takes the calls in place of the text before them
tool calls               (repair merges that text into the calls)
duplicate_id             goes on with the message unless it equals the one
                         first given that id (repair drops it then, and
                         gives it a new id otherwise)
any other rule           goes on without the message (repair drops or
                         merges it)
=======================  ==================================================
"""

from __future__ import annotations

from .._history import _duplicate
from .._message import Message, SystemMessage, ToolResultMessage
from .._ordering import P_USER, OrderingPolicy, OrderingState, advance
from ..errors import MessageError, OrderingError
from .decode import Decoded, decode_all, relocated
from .source import Opened
from .terminal import say, warn

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

__all__ = ["policy_named", "run"]


def policy_named(name: str) -> OrderingPolicy:
    """The ordering policy ``--policy`` names."""
    return OrderingPolicy.lenient() if name == "lenient" else OrderingPolicy.strict()


def run(args: argparse.Namespace) -> int:
    """Run ``validate``; return the exit status."""
    if args.records:
        from .records import validate as records_validate

        return records_validate(args)
    replay = _Replay(policy_named(args.policy), keep_going=args.all)
    found = 0
    opened = Opened(args)
    with opened as source:
        for item in decode_all(source, args.format, keep_going=args.all):
            problems = replay.problems(item)
            if problems:
                if not args.all:
                    warn(str(problems[0]))
                    found = 1
                    break
                for problem in problems:
                    warn(str(problem))
                found += len(problems)
    if found:
        if args.all:
            warn(f"{opened.name}: {found} problem(s)")
        return 1
    say(f"{opened.name}: ok ({replay.count} messages, {args.policy} ordering)")
    return 0


class _Replay:
    """The checks ``ConversationHistory.add`` makes, one decoded message at a time."""

    __slots__ = ("count", "keep_going", "seen", "state")

    def __init__(self, policy: OrderingPolicy, *, keep_going: bool) -> None:
        self.state = OrderingState(policy)
        self.keep_going = keep_going
        # The ids the input gave (ids made on decoding are unique by construction),
        # and with --all the hash of the first message with each, to tell a
        # message imported twice (repair drops it) from a reused id.
        self.seen: dict[str, int] = {}
        self.count = 0

    def problems(self, item: Decoded | MessageError) -> list[MessageError]:
        """The problems of the next item (a message, or the error decoding it)."""
        if isinstance(item, MessageError):
            return [item]
        found: list[OrderingError] = []
        index = self.count
        self.count += 1
        message = item.message
        if item.given_id and self._repeated(message, index, found):
            return self._located(found, item)
        try:
            advance(self.state, message, index)  # hot path: the usual case, no problem
        except OrderingError as exc:
            found.append(exc)
            if self.keep_going:
                self._recover(message, index, exc.rule, found)
        return self._located(found, item) if found else []

    def _repeated(self, message: Message, index: int, found: list[OrderingError]) -> bool:
        """Check the id the input gave; True when the message is to be skipped."""
        mid = message.id
        first = self.seen.get(mid)
        if first is None:
            self.seen[mid] = _hash(message) if self.keep_going else 0
            return False
        found.append(_duplicate(mid, index))
        return first == _hash(message)  # the same message again: repair drops it

    def _recover(self, message: Message, index: int, rule: str, found: list[OrderingError]) -> None:
        """Bring the state to where ``repair`` would leave it, then check the message again."""
        state = self.state
        if rule == "tool_results_pending":
            for call_id, call in list(state.pending.items()):
                advance(state, ToolResultMessage(call_id, "", True, call.name), index)
        elif rule == "system_first":
            advance(state, SystemMessage(""), index)
        elif rule == "alternation" and message.tool_calls:
            state.phase = P_USER  # the text before the calls joins them: as if absent
        else:
            return
        try:
            advance(state, message, index)
        except OrderingError as exc:
            # A second rule the message breaks (each recovery above leaves a state
            # in which it cannot recur, so this ends).
            found.append(exc)
            self._recover(message, index, exc.rule, found)

    @staticmethod
    def _located(found: list[OrderingError], item: Decoded) -> list[MessageError]:
        loc = item.loc
        return [relocated(exc, loc) for exc in found] if loc else list(found)


def _hash(message: object) -> int:
    try:
        return hash(message)
    except TypeError:  # a message class that is not hashable: never "the same again"
        return id(message)
