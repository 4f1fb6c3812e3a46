"""Formatting: canonical messages as the message part of a Messages API request body.

One loop formats every conversation (the rules are in the package docstring). It
keeps the turn being written in locals: ``out[-1]`` is the open wire turn, ``cur``
its content (a str while it holds one string, else a block list whose first
``n_res`` blocks are tool results, which the API wants first). The usual messages
(text turns, calls, paired text results, one message per turn) are written inline;
anything else (merging into a turn, state kept in extras, invalid calls, unanswered
calls, an empty turn) goes through small helpers that change ``out`` and give the
loop its locals back.

Hot path figures (the 100-message conversation of ``benchmarks/bench_providers2.py``,
Python 3.11, CPU time): ~0.49 us per message, within 1.03x of the fast path this
loop replaced (which handled only plain conversations; the general path beside it
took ~1.0 us). Counted bytecodes per message: 86.5 here, 84 in that fast path,
~190 in that general path. What it takes: no builder object and no method call
per message; the calls of the latest assistant turn in a dict and those still
without a result in another (``unanswered.pop`` pairs a result in one step, and
``if unanswered`` is the whole "calls pending" test); a message's kept state
makes ``later`` non-None, so the usual cases test one local for all the unusual
ones; each branch ends in ``continue`` and puts its rare case first (no jumps on
the usual path).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..._build import message, tool_call_message, tool_result_message
from ..._frozen import EMPTY, thaw
from ..._message import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from ..._repair import UNANSWERED_TEXT
from ...errors import ValidationError
from .._base import Losses, joined_text, kept_unknown, plain_arguments
from .._cache_hints import CONTROL_KEY, NOT_SENT, WHAT, hint_loss, kept_rule
from ._common import BLANK_RULE, SPACES, blank, own_state
from ._hints import hinted, limit_breakpoints, mark_turn, needs_limit, unmark
from ._parts import ASSISTANT_BLOCKS, USER_BLOCKS, part_blocks
from ._tools import call_state_losses, invalid_tool_use

#: The message classes formatted as they are (a subclass is formatted as a copy of its base).
_EXACT = frozenset(
    (
        SystemMessage,
        DeveloperMessage,
        UserMessage,
        AssistantMessage,
        ToolCallMessage,
        ToolResultMessage,
    )
)
_ASSISTANT_KINDS = frozenset((AssistantMessage, ToolCallMessage))
_NO_CALLS = ()  # the empty tuple (one object in CPython): a message without invalid calls

_UNANSWERED_RULE = "answered with an error result: Anthropic requires a result for every call"
_EMPTY_RULE = "omitted: Anthropic rejects empty content"
_MOVED_RULE = "moved to the top-level system prompt"
_IN_PLACE_RULE = (
    "; a system message inside messages must follow a user turn and precede an assistant turn"
)


def format_messages(
    messages: Sequence[Message], tag: str, in_place: bool
) -> tuple[dict[str, Any], Losses]:
    """The ``system`` and ``messages`` of a request body, and every loss.

    ``in_place``: a system message after the first turn goes inside ``messages``
    where the API's placement rules allow it (else it is moved to ``system``).
    """
    losses = Losses()
    out: list[dict[str, Any]] = []
    system: list[tuple[Any, bool]] = []  # top-level system blocks, each with "made from text"
    role = ""  # the role of out[-1]
    cur: Any = None  # the content of out[-1]
    n_res = 0  # tool_result blocks at the front of cur (while role is "user")
    first = 0  # the first message of out[-1] (kept while it may yet be empty)
    calls: dict[str, int] = {}  # calls of the latest assistant turn: id -> message index
    unanswered: dict[str, int] = {}  # ... those without a result yet
    # Not None when the open turn needs work when it closes: kept blocks and keys to
    # place, invalid calls not sent to take out, or it may be empty (then omitted).
    later: list[Any] | None = None
    own: Mapping[str, Any] = EMPTY  # the state of message own_i (kept while it is formatted)
    own_i = -1
    empty = EMPTY
    marks: list[tuple[int, dict[str, Any]]] = []  # (message, cache_control) of each hint
    # hot path: exact-type dispatch; each branch reads its class's fields, so that
    # each attribute read stays specialised to one class; identity tests where a
    # truth test would call PyObject_IsTrue; the usual case of each branch inline
    # and the rest (merging into a turn, closing one with work left) in helpers,
    # which keeps the loop short (fewer EXTENDED_ARG jumps). Figures in the module
    # docstring.
    for i, m in enumerate(messages):
        t = type(m)  # hot path: m.__class__ at a site meeting four classes is not specialised
        # Each branch first tests for a name (a loss) or kept state, rare: its kept
        # blocks and keys join the turn's, so ``later`` is set and the branch takes its
        # general case. hot path: tested in the branches, where the loads of ``m.name``
        # and ``m.extras`` see one class and stay specialised (tested here, for four
        # classes in turn, they cost ~280 instructions a message: 610k -> 583k a request)
        if t is ToolResultMessage:
            if m.name is not None or m.extras is not empty:
                own, own_i, later = _state(m, i, tag, later, losses)
            call_id: str = m.tool_call_id  # type: ignore[attr-defined]
            if unanswered.pop(call_id, None) is None:
                later = _unpaired(i, call_id in calls, later, losses)
                if m.cache is not None:
                    hint_loss(losses, i, NOT_SENT)
                continue
            content = m.content  # type: ignore[attr-defined]
            # (the rare case first: the usual one then needs no jump over it)
            if content.__class__ is not str or not content or later is not None:
                state = own if own_i == i else empty
                block = _result_block(m, i, call_id, state, tag, losses)  # type: ignore[arg-type]
            else:
                block = {"type": "tool_result", "tool_use_id": call_id, "content": content}
                if m.is_error:  # type: ignore[attr-defined]
                    block["is_error"] = True
            if m.cache is not None:  # hot path: a message without a hint pays this read only
                block = hinted([block], m.cache, i, marks, losses)[0]
            if role == "user" and n_res:  # the results of a turn, one after another
                cur.insert(n_res, block)
                n_res += 1
                continue
            if role != "user" and later is None:
                cur = [block]
                out.append({"role": "user", "content": cur})
                role = "user"
                n_res = 1
                continue
            role, cur, n_res, later = _add_result(
                out, role, cur, n_res, later, first, block, i, losses
            )
            continue
        if t is ToolCallMessage:
            if m.name is not None or m.extras is not empty:
                own, own_i, later = _state(m, i, tag, later, losses)
            if unanswered:  # the calls before this turn need results
                role, cur, n_res, first, later = _answer_before(
                    out, role, cur, n_res, first, later, i, unanswered, messages, losses
                )
            content = m.content  # type: ignore[attr-defined]
            if content is not None:
                content = _assistant_content(content, i, tag, losses)
            if role != "assistant" and later is None:
                if calls:
                    calls = {}
                blocks: list[Any] = []
                out.append({"role": "assistant", "content": blocks})
                role = "assistant"
            else:
                role, blocks, later = _open_assistant(
                    out, role, cur, later, first, calls, i, losses
                )
            cur = blocks
            if content:
                if content.__class__ is str:
                    blocks.append({"type": "text", "text": content})
                else:
                    blocks.extend(content)
            for c in m.tool_calls:
                if c.extras is not empty:
                    _call_losses(m, c, i, tag, losses)
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": c.id,
                        "name": c.name,
                        "input": plain_arguments(c.arguments),
                    }
                )
                calls[c.id] = unanswered[c.id] = i
            if m.invalid_tool_calls is not _NO_CALLS and _invalid_calls(
                m, i, tag, blocks, calls, unanswered, losses
            ):
                later = [] if later is None else later  # placeholders to take out on close
                first = i
            if own_i == i and "order" in own:
                _in_wire_order(blocks, content, m, own["order"])
            if m.cache is not None:
                mark_turn(blocks, content, m, i, marks, losses)
            continue
        if t is UserMessage:
            if m.name is not None or m.extras is not empty:
                own, own_i, later = _state(m, i, tag, later, losses)
            content = m.content  # type: ignore[attr-defined]
            if content.__class__ is not str:
                content = part_blocks(content, USER_BLOCKS, f"messages[{i}]", losses, tag)
            elif content and content[-1] in SPACES and content.isspace():
                losses.add(f"messages[{i}].content", "whitespace-only text", BLANK_RULE)
                content = ""
            if m.cache is not None:
                content = hinted(content, m.cache, i, marks, losses)
            if role != "user" and later is None and content:
                out.append({"role": "user", "content": content})
                role = "user"
                cur = content
                n_res = 0
                continue
            role, cur, n_res, first, later = _add_content(
                out, "user", content, i, role, cur, n_res, first, later, losses, calls
            )
            continue
        if t is AssistantMessage:
            if m.name is not None or m.extras is not empty:
                own, own_i, later = _state(m, i, tag, later, losses)
            if unanswered:  # the calls before this turn need results
                role, cur, n_res, first, later = _answer_before(
                    out, role, cur, n_res, first, later, i, unanswered, messages, losses
                )
            content = m.content  # type: ignore[attr-defined]
            if content.__class__ is not str:
                content = part_blocks(content, ASSISTANT_BLOCKS, f"messages[{i}]", losses, tag)
            elif content and content[-1] in SPACES and content.isspace():
                losses.add(f"messages[{i}].content", "whitespace-only text", BLANK_RULE)
                content = ""
            if m.cache is not None:
                content = hinted(content, m.cache, i, marks, losses)
            if role != "assistant" and later is None and content:
                if calls:
                    calls = {}
                out.append({"role": "assistant", "content": content})
                role = "assistant"
                cur = content
                continue
            role, cur, n_res, first, later = _add_content(
                out,
                "assistant",
                content,
                i,
                role,
                cur,
                n_res,
                first,
                later,
                losses,
                calls,
            )
            continue
        if t is SystemMessage or t is DeveloperMessage:
            if m.name is not None or m.extras is not empty:
                own, own_i = _message_state(m, i, tag, losses), i
            role, cur, n_res, first, later = _system_message(
                messages, i, own if own_i == i else empty, in_place, system, out, role, cur,
                n_res, first, later, unanswered, marks, losses,
            )  # fmt: skip
            continue
        # a user-defined subclass: the conversation is formatted with each such
        # message made a copy of its built-in class
        return format_messages([_as_base(x, k) for k, x in enumerate(messages)], tag, in_place)
    if role == "user" and unanswered:
        # the calls' turn is followed by results or text: the rest need results too;
        # a last turn of calls with nothing after it is left pending
        cur, n_res = _answer(out[-1], cur, n_res, unanswered, messages, losses)
    if later is not None:
        role, cur, n_res, later = _close(out, later, first, len(messages), losses)
    if role == "assistant":
        _strip_final(out[-1], messages, marks, losses)
    body: dict[str, Any] = {}
    if system:
        plain_one = len(system) == 1 and system[0][1]
        body["system"] = system[0][0]["text"] if plain_one else [b for b, _ in system]
    body["messages"] = out
    if marks and needs_limit(marks, own_i >= 0):
        # more hints than the API takes, state kept from a request (its own
        # cache_control among it) or two lifetimes: see where they all sit
        limit_breakpoints(body, marks, losses)
    return body, losses


def _state(
    m: Message, i: int, tag: str, later: list[Any] | None, losses: Losses
) -> tuple[Mapping[str, Any], int, list[Any] | None]:
    """The state of a user, assistant or result message with a name or kept state: its
    state, its index, and the open turn's ``later`` with its kept blocks and keys."""
    own = _message_state(m, i, tag, losses)
    return own, i, _keep(own, i, later)


def _assistant_content(content: Any, i: int, tag: str, losses: Losses) -> Any:
    """The content of a ToolCallMessage (not None): its text, or its parts as blocks."""
    if content.__class__ is str:
        if content and content[-1] in SPACES and content.isspace():
            losses.add(f"messages[{i}].content", "whitespace-only text", BLANK_RULE)
            return None
        return content
    return part_blocks(content, ASSISTANT_BLOCKS, f"messages[{i}]", losses, tag)


def _add_result(
    out: list[dict[str, Any]],
    role: str,
    cur: Any,
    n_res: int,
    later: list[Any] | None,
    first: int,
    block: dict[str, Any],
    i: int,
    losses: Losses,
) -> tuple[str, Any, int, list[Any] | None]:
    """Add a tool_result block where the loop's usual cases do not fit: after the
    user's text, or in a turn to close first (work left, or omitted as empty)."""
    if role != "user" and later is not None:
        role, cur, n_res, later = _close(out, later, first, i, losses)
    if role == "user":
        if cur.__class__ is not list:
            cur = out[-1]["content"] = [{"type": "text", "text": cur}] if cur else []
        cur.insert(n_res, block)
        return role, cur, n_res + 1, later
    cur = [block]
    out.append({"role": "user", "content": cur})
    return "user", cur, 1, later


def _open_assistant(
    out: list[dict[str, Any]],
    role: str,
    cur: Any,
    later: list[Any] | None,
    first: int,
    calls: dict[str, int],
    i: int,
    losses: Losses,
) -> tuple[str, list[Any], list[Any] | None]:
    """The block list a ToolCallMessage's blocks go into, where the usual case (a new
    turn) does not fit: the assistant turn open (merged into), or one to close first."""
    if role != "assistant" and later is not None:
        role, cur, _, later = _close(out, later, first, i, losses)
    if role == "assistant":
        if cur.__class__ is not list:
            cur = out[-1]["content"] = [{"type": "text", "text": cur}] if cur else []
        return role, cur, later
    calls.clear()
    blocks: list[Any] = []
    out.append({"role": "assistant", "content": blocks})
    return "assistant", blocks, later


def _add_content(
    out: list[dict[str, Any]],
    to: str,
    content: Any,
    i: int,
    role: str,
    cur: Any,
    n_res: int,
    first: int,
    later: list[Any] | None,
    losses: Losses,
    calls: dict[str, int],
) -> tuple[str, Any, int, int, list[Any] | None]:
    """Add a user or assistant message's content where the usual case (a new turn
    with content) does not fit: merged into the turn of its role, after closing the
    open one, or a turn that may yet be empty."""
    if role != to and later is not None:
        role, cur, n_res, later = _close(out, later, first, i, losses)
    if role == to:
        return role, _add(out[-1], cur, content), n_res, first, later
    if to == "assistant":  # a new assistant turn: the calls are of the turn before
        calls.clear()
    out.append({"role": to, "content": content})
    if not content:  # an empty turn so far: omitted on close unless more joins it
        return to, content, 0, i, [] if later is None else later
    return to, content, 0, first, later


def _system_message(
    messages: Sequence[Message],
    i: int,
    own: Mapping[str, Any],
    in_place: bool,
    system: list[tuple[Any, bool]],
    out: list[dict[str, Any]],
    role: str,
    cur: Any,
    n_res: int,
    first: int,
    later: list[Any] | None,
    unanswered: dict[str, int],
    marks: list[tuple[int, dict[str, Any]]],
    losses: Losses,
) -> tuple[str, Any, int, int, list[Any] | None]:
    """A system or developer message: in place inside ``messages`` when wanted and the
    API's placement rules allow it, else in the top-level ``system``."""
    m: Any = messages[i]
    text: str = m.content
    started = i > 0 and _started(messages, i)
    want = in_place or own.get("in_place") is True
    if started and want:
        if later is not None:
            role, cur, n_res, later = _close(out, later, first, i, losses)
        pending = bool(unanswered)
        sent = _system_in_place(messages, i, text, own, role, pending, out)
        if sent is not None:
            if pending:  # the calls' results go in the user turn before it
                _answer(out[-1], cur, n_res, unanswered, messages, losses)
            if m.cache is not None:
                sent = hinted(sent, m.cache, i, marks, losses)
            out.append({"role": "system", "content": sent})
            return "system", sent, 0, first, later
    if started:
        rule = _MOVED_RULE + (_IN_PLACE_RULE if want else "")
        losses.add(f"messages[{i}]", f"{m.role.value} message after the first turn", rule)
    before = len(system)
    _top_system(system, text, own, i, losses)
    if m.cache is not None:
        if len(system) > before:
            block, _ = system[-1]
            system[-1] = (hinted([block], m.cache, i, marks, losses)[0], False)
        else:
            hint_loss(losses, i, NOT_SENT)
    return role, cur, n_res, first, later


def _started(messages: Sequence[Message], i: int) -> bool:
    """Whether a message other than a system or developer one comes before ``i``."""
    return any(
        type(m) is not SystemMessage and type(m) is not DeveloperMessage for m in messages[:i]
    )


def _as_base(m: Any, i: int) -> Message:
    """A message of a user-defined subclass as its built-in class (what is formatted)."""
    if type(m) in _EXACT:
        return m  # type: ignore[no-any-return]
    base: Any = _base_class(m, i)
    name, metadata, extras, cache = m.name, m.metadata, m.extras, m.cache
    if base is ToolCallMessage:
        calls, invalid = m.tool_calls, m.invalid_tool_calls
        return tool_call_message(
            base, calls, m.content, invalid, name, metadata, extras, cache=cache
        )
    if base is ToolResultMessage:
        call_id, content = m.tool_call_id, m.content
        return tool_result_message(
            base, call_id, content, m.is_error, m.tool_name, name, metadata, extras, cache=cache
        )
    return message(base, m.content, name, metadata, extras, cache=cache)  # type: ignore[no-any-return]


def _top_system(
    system: list[tuple[Any, bool]], text: str, own: Mapping[str, Any], i: int, losses: Losses
) -> None:
    """Add a system message to the top-level ``system`` (its kept blocks while its text
    is unchanged, else a text block)."""
    kept = own.get("system") if own else None
    if kept and joined_text(kept) == text:
        system.extend((block, False) for block in thaw(kept))
        return
    if kept:
        losses.add(
            f"messages[{i}]",
            "kept system blocks whose text was changed",
            "their cache_control and other keys are dropped; the text is sent",
        )
    if not text:
        return
    if blank(text):
        losses.add(f"messages[{i}].content", "whitespace-only text", BLANK_RULE)
        return
    system.append(({"type": "text", "text": text}, True))


def _unpaired(i: int, twice: bool, later: list[Any] | None, losses: Losses) -> list[Any] | None:
    """A result that is not sent is a loss (its kept blocks go with it)."""
    why = "a second result for the call" if twice else "no matching tool_use"
    losses.add(
        f"messages[{i}]", f"tool result with {why}", "dropped: Anthropic rejects unpaired results"
    )
    if later is None or all(x[3] != i for x in later):
        return later
    return [x for x in later if x[3] != i]


def _call_losses(m: Message, c: Any, i: int, tag: str, losses: Losses) -> None:
    k = m.tool_calls.index(c)
    call_state_losses(c.extras, tag, f"messages[{i}].tool_calls[{k}]", losses)


def _answer_before(
    out: list[dict[str, Any]],
    role: str,
    cur: Any,
    n_res: int,
    first: int,
    later: list[Any] | None,
    i: int,
    unanswered: dict[str, int],
    messages: Sequence[Message],
    losses: Losses,
) -> tuple[str, Any, int, int, list[Any] | None]:
    """Before an assistant turn: error results for the calls still without one, in
    the user turn after the calls (opened if need be). Gives the loop its locals back."""
    if role != "user":
        if later is not None:
            role, cur, n_res, later = _close(out, later, first, i, losses)
        if role != "user":
            cur = []
            out.append({"role": "user", "content": cur})
            role = "user"
            n_res = 0
    cur, n_res = _answer(out[-1], cur, n_res, unanswered, messages, losses)
    return role, cur, n_res, first, later


def _base_class(m: Message, i: int) -> type:
    """The built-in class a message of a user-defined subclass is formatted as."""
    for klass in type(m).__mro__:
        if klass in _EXACT:
            return klass
    raise ValidationError(f"cannot format a message of type {type(m).__name__}", f"messages[{i}]")


def _message_state(m: Message, i: int, tag: str, losses: Losses) -> Mapping[str, Any]:
    """A message's name (a loss) and its state for ``tag`` (others' state: losses)."""
    if m.name is not None:
        losses.add(
            f"messages[{i}].name", "message name", "dropped: Anthropic messages have no name"
        )
    own = own_state(m.extras, tag, f"messages[{i}]", losses) if m.extras else EMPTY
    return own or EMPTY


def _add(turn: dict[str, Any], cur: Any, content: str | list[Any]) -> Any:
    """Add a message's content (a string or blocks) to the open turn of its role."""
    if cur.__class__ is str:
        cur = turn["content"] = [{"type": "text", "text": cur}] if cur else []
    if content.__class__ is str:
        if content:
            cur.append({"type": "text", "text": content})
    else:
        cur.extend(content)
    return cur


def _tail(out: list[dict[str, Any]]) -> tuple[str, Any, int]:
    """The loop's locals for the turn ``out[-1]`` (``role``, ``cur``, ``n_res``)."""
    if not out:
        return "", None, 0
    turn = out[-1]
    content = turn["content"]
    n_res = 0
    if content.__class__ is list:
        for block in content:
            if block.get("type") != "tool_result":
                break
            n_res += 1
    return turn["role"], content, n_res


def _close(
    out: list[dict[str, Any]], later: list[Any], first: int, i: int, losses: Losses
) -> tuple[str, Any, int, list[Any] | None]:
    """Close the open turn before message ``i`` joins another: place the kept blocks
    and keys of its messages; omit it if it is empty. Gives the loop its locals back,
    and the kept blocks and keys of message ``i`` (for the turn it joins)."""
    mine = [x for x in later if x[3] < i]
    carried = [x for x in later if x[3] >= i] or None
    if out:
        turn = out[-1]
        _place(turn, mine, losses)
        if not turn["content"]:
            out.pop()
            losses.add(f"messages[{first}]", f"empty {turn['role']} message", _EMPTY_RULE)
    role, cur, n_res = _tail(out)
    return role, cur, n_res, carried


def _keep(own: Mapping[str, Any], i: int, later: list[Any] | None) -> list[Any]:
    """Add a message's kept blocks and block keys to those of its turn (a list either
    way: the message's branch then takes its general case)."""
    items = [] if later is None else later
    if "unknown" in own:
        for item in kept_unknown(own):
            index = item.get("index")
            if (
                not item.get("within")
                and type(index) is int
                and isinstance(item.get("value"), Mapping)
            ):
                items.append((0, index, thaw(item["value"]), i))
    if "keys" in own:
        for index, kind, keys in _key_items(own, within=False):
            items.append((1, index, (kind, keys), i))
    return items


def _key_items(own: Mapping[str, Any], within: bool) -> list[tuple[int, Any, dict[str, Any]]]:
    """The well-formed ``(index, type or None, keys)`` kept in ``own["keys"]``."""
    out = []
    kept = own.get("keys")
    for item in kept if isinstance(kept, (list, tuple)) else ():
        if not isinstance(item, Mapping) or bool(item.get("within")) != within:
            continue
        index = item.get("index")
        keys = item.get("keys")
        if type(index) is int and isinstance(keys, Mapping):
            kind = item.get("type")
            out.append((index, kind if type(kind) is str else None, thaw(keys)))
    return out


def _place(turn: dict[str, Any], later: list[Any], losses: Losses) -> None:
    """Put a closed turn's kept blocks and keys back at their indices (see _common)."""
    content = turn["content"]
    if later:
        if content.__class__ is str:
            content = turn["content"] = [{"type": "text", "text": content}] if content else []
        for _, index, block, _i in sorted((x for x in later if x[0] == 0), key=_index):
            content.insert(min(index, len(content)), block)
        for _, index, (kind, keys), i in (x for x in later if x[0] == 1):
            _put_keys(content, index, kind, keys, f"messages[{i}]", losses)
    if content.__class__ is list and None in content:  # invalid calls not sent
        turn["content"] = [b for b in content if b is not None]


def _put_keys(
    blocks: list[Any], index: int, kind: str | None, keys: dict[str, Any], path: str, losses: Losses
) -> None:
    """Kept keys back on the block at ``index`` while it is still a block of that type
    (a kept ``cache_control`` wins over the hint on the block: a Loss if they differ)."""
    block = blocks[index] if 0 <= index < len(blocks) else None
    if block is not None and (kind is None or block.get("type") == kind):
        mine = block.get(CONTROL_KEY)
        if mine is not None and CONTROL_KEY in keys and keys[CONTROL_KEY] != mine:
            losses.add(f"{path}.cache", WHAT, kept_rule(CONTROL_KEY))
        blocks[index] = {**block, **keys}
    elif keys:
        losses.add(
            path,
            f"kept keys of a {kind or 'content'} block that is no longer there",
            "dropped: the message was changed since it was parsed",
        )


def _index(item: tuple[int, int, Any, int]) -> int:
    return item[1]


def _answer(
    turn: dict[str, Any],
    cur: Any,
    n_res: int,
    unanswered: dict[str, int],
    messages: Sequence[Message],
    losses: Losses,
) -> tuple[Any, int]:
    """An error result, in the user turn ``turn``, for each call without one.

    Anthropic rejects a ``tool_use`` whose ``tool_result`` is not in the next user turn.
    """
    if cur.__class__ is not list:
        cur = turn["content"] = [{"type": "text", "text": cur}] if cur else []
    for call_id, i in unanswered.items():
        cur.insert(
            n_res,
            {
                "type": "tool_result",
                "tool_use_id": call_id,
                "content": UNANSWERED_TEXT,
                "is_error": True,
            },
        )
        n_res += 1
        m = messages[i]
        ids = [c.id for c in m.tool_calls] + [c.id for c in m.invalid_tool_calls]
        k = ids.index(call_id)
        losses.add(f"messages[{i}].tool_calls[{k}]", "unanswered tool call", _UNANSWERED_RULE)
    unanswered.clear()
    return cur, n_res


def _invalid_calls(
    m: Message,
    i: int,
    tag: str,
    blocks: list[Any],
    calls: dict[str, int],
    unanswered: dict[str, int],
    losses: Losses,
) -> bool:
    """Add the blocks of a message's invalid calls; True when one could not be sent.

    One that cannot go leaves a None in its place, so that kept blocks and keys are
    placed as they came; the turn's close takes it out.
    """
    placeholder = False
    for k, c in enumerate(m.invalid_tool_calls, len(m.tool_calls)):
        block = invalid_tool_use(c, tag, f"messages[{i}].tool_calls[{k}]", losses)
        blocks.append(block)
        if block is None:
            placeholder = True
        else:
            calls[c.id] = unanswered[c.id] = i
    return placeholder


def _in_wire_order(blocks: list[Any], content: Any, m: Message, order: object) -> None:
    """A message's part and call blocks (the last of ``blocks``) put in their wire order.

    ``content`` is what the message's content gave: None, a string, or its blocks.

    ``order`` (kept when parsed) holds ``p`` for a part, ``c`` for a call and ``i``
    for an invalid call, in wire order; when it no longer fits the message (edited,
    or a part not sent) the blocks stay parts first, then calls, then invalid calls.
    """
    n_calls = len(m.tool_calls)
    n_invalid = len(m.invalid_tool_calls)
    n_parts = 0 if not content else 1 if content.__class__ is str else len(content)
    start = len(blocks) - n_parts - n_calls - n_invalid
    if (
        type(order) is not str
        or order.strip("pci")
        or order.count("p") != n_parts
        or order.count("c") != n_calls
        or order.count("i") != n_invalid
    ):
        return
    mine = blocks[start:]
    runs = {
        "p": iter(mine[:n_parts]),
        "c": iter(mine[n_parts : n_parts + n_calls]),
        "i": iter(mine[n_parts + n_calls :]),
    }
    blocks[start:] = [next(runs[ch]) for ch in order]


def _result_block(
    m: ToolResultMessage, i: int, call_id: str, own: Mapping[str, Any], tag: str, losses: Losses
) -> dict[str, Any]:
    """The ``tool_result`` block of a result with parts, no text, or kept state."""
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id}
    content = m.content
    if content.__class__ is str:
        if content:
            block["content"] = content
    else:
        inner = part_blocks(content, USER_BLOCKS, f"messages[{i}]", losses, tag)  # type: ignore[arg-type]
        if own:
            unknown = [
                (item["index"], thaw(item["value"]))
                for item in kept_unknown(own)
                if item.get("within") and type(item.get("index")) is int
                and isinstance(item.get("value"), Mapping)
            ]  # fmt: skip
            for index, value in sorted(unknown, key=_first):
                inner.insert(min(index, len(inner)), value)
            for index, kind, keys in _key_items(own, within=True):
                _put_keys(inner, index, kind, keys, f"messages[{i}]", losses)
        if inner:
            block["content"] = inner
    if m.is_error:
        block["is_error"] = True
    defaults = own.get("defaults") if own else None
    if isinstance(defaults, Mapping):
        # Keys the parsed block spelled out with their default value; only where
        # the message leaves the key out, so they never override it.
        for key, value in defaults.items():
            if key not in block:
                block[key] = thaw(value)
    return block


def _first(item: tuple[int, Any]) -> int:
    return item[0]


def _system_in_place(
    messages: Sequence[Message],
    i: int,
    text: str,
    own: Mapping[str, Any],
    role: str,
    pending: bool,
    out: list[dict[str, Any]],
) -> Any:
    """The content of a system message sent where it sits, or None when it cannot be.

    The API takes ``role: "system"`` inside ``messages`` right after a user turn (or
    an assistant turn ending in a server tool call) and before an assistant turn or
    at the end; never two in a row.
    """
    after_user = role == "user" or (
        not pending
        and role == "assistant"
        and out[-1]["content"].__class__ is list
        and out[-1]["content"]
        and out[-1]["content"][-1].get("type") == "server_tool_use"
    )
    nxt = messages[i + 1] if i + 1 < len(messages) else None
    if not after_user or (nxt is not None and type(nxt) not in _ASSISTANT_KINDS):
        return None
    kept = own.get("system") if own else None
    if kept and joined_text(kept) == text:
        return thaw(kept)
    if not text or blank(text):
        return None
    return text


def _strip_final(
    turn: dict[str, Any],
    messages: Sequence[Message],
    marks: list[tuple[int, dict[str, Any]]],
    losses: Losses,
) -> None:
    """Strip the trailing whitespace of a request's final assistant turn (the API rejects
    it); a hint on a block taken out moves to the last markable block left."""
    content = turn["content"]
    if type(content) is str:
        if content[-1] in SPACES:
            turn["content"] = content.rstrip()
        else:
            return
    else:
        changed = False
        while content:
            last = content[-1]
            text = last.get("text") if last.get("type") == "text" else None
            if type(text) is not str or not text or text[-1] not in SPACES:
                break
            changed = True
            stripped = text.rstrip()
            if stripped or len(content) == 1:
                content[-1] = {**last, "text": stripped}
                break
            del content[-1]  # whitespace-only beside other blocks: an empty block is refused
            if "cache_control" in last:
                unmark(content, last["cache_control"], marks, losses)
        if not changed:
            return
    last = max(i for i, m in enumerate(messages) if type(m) in _ASSISTANT_KINDS)
    losses.add(
        f"messages[{last}].content",
        "trailing whitespace of the final assistant turn",
        "stripped: Anthropic rejects a final assistant turn that ends in whitespace",
    )
