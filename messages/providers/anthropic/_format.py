"""Formatting: canonical messages as the message part of a Messages API request body.

One ``_Writer`` per request writes the conversation (the rules are in the package
docstring), with one method per message kind. It holds the wire turns written so
far and the open turn: ``out[-1]``, whose content ``cur`` is a str while it holds
one string, else a block list whose first ``n_res`` blocks are tool results (the
API wants them first). ``calls`` are the calls of the latest assistant turn and
``unanswered`` those still without a result. ``later`` is not None when the open
turn needs work when it closes: kept blocks and keys of its messages to put back,
invalid calls that could not be sent to take out, or it may be empty (it is then
omitted, a Loss).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from ..._frozen import EMPTY, thaw
from ..._kinds import ASSISTANT, DEVELOPER, SYSTEM, TOOL_CALL, TOOL_RESULT, USER, kind_or_none
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
from ._common import BLANK_RULE, blank, own_state
from ._hints import hinted, limit_breakpoints, needs_limit, unmark
from ._parts import ASSISTANT_BLOCKS, USER_BLOCKS, PartFn, part_blocks
from ._tools import call_state_losses, invalid_tool_use

_UNANSWERED_RULE = "answered with an error result: Anthropic requires a result for every call"
_EMPTY_RULE = "omitted: Anthropic rejects empty content"
_MOVED_RULE = "moved to the top-level system prompt"
_IN_PLACE_RULE = (
    "; a system message inside messages must follow a user turn and precede an assistant turn"
)
_ASSISTANT_KINDS = (ASSISTANT, TOOL_CALL)


def format_messages(
    messages: Sequence[Message], tag: str, in_place: bool
) -> tuple[dict[str, Any], Losses]:
    """The ``system`` and ``messages`` of a request body, and every loss.

    ``in_place``: a system message after the first turn goes inside ``messages``
    where the API's placement rules allow it (else it is moved to ``system``).
    """
    writer = _Writer(messages, tag, in_place)
    for i, m in enumerate(messages):
        kind = kind_or_none(m)
        if kind is None:
            raise ValidationError(
                f"cannot format a message of type {type(m).__name__}", f"messages[{i}]"
            )
        _WRITE[kind](writer, m, i)
        if kind not in (SYSTEM, DEVELOPER):
            writer.started = True
    return writer.body(), writer.losses


class _Writer:
    """One request being formatted (module docstring)."""

    __slots__ = (
        "calls",
        "cur",
        "first",
        "in_place",
        "later",
        "losses",
        "marks",
        "messages",
        "n_res",
        "out",
        "own",
        "own_i",
        "role",
        "started",
        "system",
        "tag",
        "unanswered",
    )

    def __init__(self, messages: Sequence[Message], tag: str, in_place: bool) -> None:
        self.messages = messages
        self.tag = tag
        self.in_place = in_place
        self.losses = Losses()
        self.out: list[dict[str, Any]] = []
        self.system: list[tuple[Any, bool]] = []  # top-level blocks, each with "made from text"
        self.role = ""  # the role of out[-1]
        self.cur: Any = None  # the content of out[-1]
        self.n_res = 0  # tool_result blocks at the front of cur (while role is "user")
        self.first = 0  # the first message of out[-1] (kept while it may yet be empty)
        self.calls: dict[str, int] = {}  # calls of the latest assistant turn: id -> message
        self.unanswered: dict[str, int] = {}  # ... those without a result yet
        self.later: list[Any] | None = None  # what the open turn needs when it closes
        self.own: Mapping[str, Any] = EMPTY  # the state of message own_i
        self.own_i = -1
        self.started = False  # whether a message other than a system one came
        self.marks: list[tuple[int, dict[str, Any]]] = []  # (message, cache_control) of hints

    # -- one method per message kind ----------------------------------------------------------

    def system_message(self, m: SystemMessage | DeveloperMessage, i: int) -> None:
        """In place inside ``messages`` when wanted and the API's placement rules allow
        it, else in the top-level ``system``."""
        own: Mapping[str, Any] = EMPTY
        if m.name is not None or m.extras:
            own = self.own = _message_state(m, i, self.tag, self.losses)
            self.own_i = i
        want = self.in_place or own.get("in_place") is True
        if self.started and want:
            if self.later is not None:
                self.close(i)
            sent = self.in_place_content(i, m.content, own)
            if sent is not None:
                if self.unanswered:  # the calls' results go in the user turn before it
                    self.answer()
                if m.cache is not None:
                    sent = hinted(sent, m.cache, i, self.marks, self.losses)
                self.open("system", sent)
                return
        if self.started:
            rule = _MOVED_RULE + (_IN_PLACE_RULE if want else "")
            self.losses.add(f"messages[{i}]", f"{m.role.value} message after the first turn", rule)
        before = len(self.system)
        _top_system(self.system, m.content, own, i, self.losses)
        if m.cache is None:
            return
        if len(self.system) > before:
            block, _ = self.system[-1]
            self.system[-1] = (hinted([block], m.cache, i, self.marks, self.losses)[0], False)
        else:
            hint_loss(self.losses, i, NOT_SENT)

    def user(self, m: UserMessage, i: int) -> None:
        if m.name is not None or m.extras:
            self.take_state(m, i)
        content = self.content(m, USER_BLOCKS, i)
        self.add_content("user", content, i)

    def assistant(self, m: AssistantMessage, i: int) -> None:
        if m.name is not None or m.extras:
            self.take_state(m, i)
        if self.unanswered:  # the calls before this turn need results
            self.answer_before(i)
        content = self.content(m, ASSISTANT_BLOCKS, i)
        self.add_content("assistant", content, i)

    def tool_calls(self, m: ToolCallMessage, i: int) -> None:
        if m.name is not None or m.extras:
            self.take_state(m, i)
        if self.unanswered:  # the calls before this turn need results
            self.answer_before(i)
        content = m.content
        if content is not None:
            content = _call_content(content, i, self.tag, self.losses)
        blocks = self.open_assistant(i)
        start = len(blocks)  # where this message's blocks start
        if isinstance(content, str):
            if content:
                blocks.append({"type": "text", "text": content})
        elif content:
            blocks.extend(content)
        for k, c in enumerate(m.tool_calls):
            if c.extras:
                path = f"messages[{i}].tool_calls[{k}]"
                call_state_losses(c.extras, self.tag, path, self.losses)
            args = plain_arguments(c.arguments)
            blocks.append({"type": "tool_use", "id": c.id, "name": c.name, "input": args})
            self.calls[c.id] = self.unanswered[c.id] = i
        if m.invalid_tool_calls and self.invalid_calls(m, i, blocks):
            self.later = [] if self.later is None else self.later  # placeholders to take out
            self.first = i
        if self.own_i == i and "order" in self.own:
            _in_wire_order(blocks, start, m, self.own["order"])
        if m.cache is not None:
            hinted(blocks, m.cache, i, self.marks, self.losses, start)

    def tool_result(self, m: ToolResultMessage, i: int) -> None:
        if m.name is not None or m.extras:
            self.take_state(m, i)
        call_id = m.tool_call_id
        if self.unanswered.pop(call_id, None) is None:
            self.drop_unpaired(i, call_id in self.calls)
            if m.cache is not None:
                hint_loss(self.losses, i, NOT_SENT)
            return
        own = self.own if self.own_i == i else EMPTY
        block = _result_block(m, i, own, self.tag, self.losses)
        if m.cache is not None:
            block = hinted([block], m.cache, i, self.marks, self.losses)[0]
        self.add_result(block, i)

    # -- the parts of a message ---------------------------------------------------------------

    def content(self, m: UserMessage | AssistantMessage, table: dict[type, PartFn], i: int) -> Any:
        """A user or assistant message's content: its text or its blocks, with its hint."""
        content: Any = m.content
        if not isinstance(content, str):
            content = part_blocks(content, table, f"messages[{i}]", self.losses, self.tag)
        elif blank(content):
            self.losses.add(f"messages[{i}].content", "whitespace-only text", BLANK_RULE)
            content = ""
        if m.cache is not None:
            content = hinted(content, m.cache, i, self.marks, self.losses)
        return content

    def take_state(self, m: Message, i: int) -> None:
        """A message with a name or kept state: its state, and its kept blocks and keys
        joined to those of the open turn (a list either way: the turn then needs work)."""
        self.own = _message_state(m, i, self.tag, self.losses)
        self.own_i = i
        self.later = _keep(self.own, i, self.later)

    def invalid_calls(self, m: ToolCallMessage, i: int, blocks: list[Any]) -> bool:
        """Add the blocks of a message's invalid calls; True when one could not be sent.

        One that cannot go leaves a None in its place, so that kept blocks and keys are
        placed as they came; the turn's close takes it out.
        """
        placeholder = False
        for k, c in enumerate(m.invalid_tool_calls, len(m.tool_calls)):
            path = f"messages[{i}].tool_calls[{k}]"
            block = invalid_tool_use(c, self.tag, path, self.losses)
            blocks.append(block)
            if block is None:
                placeholder = True
            else:
                self.calls[c.id] = self.unanswered[c.id] = i
        return placeholder

    def drop_unpaired(self, i: int, twice: bool) -> None:
        """A result that is not sent is a loss (its kept blocks go with it)."""
        why = "a second result for the call" if twice else "no matching tool_use"
        rule = "dropped: Anthropic rejects unpaired results"
        self.losses.add(f"messages[{i}]", f"tool result with {why}", rule)
        if self.later is not None and any(x[3] == i for x in self.later):
            self.later = [x for x in self.later if x[3] != i]

    # -- the open turn ------------------------------------------------------------------------

    def open(self, role: str, content: Any) -> None:
        """Open a new turn of ``role`` holding ``content``."""
        self.out.append({"role": role, "content": content})
        self.role = role
        self.cur = content
        self.n_res = 0

    def blocks(self) -> list[Any]:
        """The open turn's content as a block list (a string becomes a text block)."""
        if type(self.cur) is not list:
            text = self.cur
            self.cur = self.out[-1]["content"] = [{"type": "text", "text": text}] if text else []
        return self.cur

    def add_content(self, role: str, content: Any, i: int) -> None:
        """A user or assistant message's content: merged into the open turn of its role,
        else a new turn (one that may yet be empty, then omitted when it closes)."""
        if self.role != role and self.later is not None:
            self.close(i)
        if self.role == role:
            if not isinstance(content, str):
                self.blocks().extend(content)
            elif content:
                self.blocks().append({"type": "text", "text": content})
            return
        if role == "assistant":  # a new assistant turn: the calls are of the turn before
            self.calls.clear()
        self.open(role, content)
        if not content:  # an empty turn so far: omitted on close unless more joins it
            self.first = i
            if self.later is None:
                self.later = []

    def add_result(self, block: dict[str, Any], i: int) -> None:
        """A tool_result block: after the results of the user turn open (before its text),
        else in a new user turn."""
        if self.role != "user" and self.later is not None:
            self.close(i)
        if self.role == "user":
            self.blocks().insert(self.n_res, block)
            self.n_res += 1
            return
        self.open("user", [block])
        self.n_res = 1

    def open_assistant(self, i: int) -> list[Any]:
        """The block list a ToolCallMessage's blocks go into: the open assistant turn, or
        a new one."""
        if self.role != "assistant" and self.later is not None:
            self.close(i)
        if self.role == "assistant":
            return self.blocks()
        self.calls.clear()  # the calls are of the turn before
        blocks: list[Any] = []
        self.open("assistant", blocks)
        return blocks

    def answer_before(self, i: int) -> None:
        """Before an assistant turn: error results for the calls still without one, in
        the user turn after the calls (opened if need be)."""
        if self.role != "user":
            if self.later is not None:
                self.close(i)
            if self.role != "user":
                self.open("user", [])
        self.answer()

    def answer(self) -> None:
        """An error result, in the open user turn, for each call without one.

        Anthropic rejects a ``tool_use`` whose ``tool_result`` is not in the next user turn.
        """
        blocks = self.blocks()
        for call_id, i in self.unanswered.items():
            result = {
                "type": "tool_result",
                "tool_use_id": call_id,
                "content": UNANSWERED_TEXT,
                "is_error": True,
            }
            blocks.insert(self.n_res, result)
            self.n_res += 1
            m = cast(ToolCallMessage, self.messages[i])
            ids = [c.id for c in m.tool_calls] + [c.id for c in m.invalid_tool_calls]
            k = ids.index(call_id)
            self.losses.add(
                f"messages[{i}].tool_calls[{k}]", "unanswered tool call", _UNANSWERED_RULE
            )
        self.unanswered.clear()

    def close(self, i: int) -> None:
        """Close the open turn before message ``i`` joins another: place the kept blocks
        and keys of its messages; omit it if it is empty. The kept blocks and keys of
        message ``i`` stay in ``later``, for the turn it joins."""
        later = self.later or []
        mine = [x for x in later if x[3] < i]
        self.later = [x for x in later if x[3] >= i] or None
        if self.out:
            turn = self.out[-1]
            _place(turn, mine, self.losses)
            if not turn["content"]:
                self.out.pop()
                self.losses.add(
                    f"messages[{self.first}]", f"empty {turn['role']} message", _EMPTY_RULE
                )
        self.role, self.cur, self.n_res = _tail(self.out)

    def in_place_content(self, i: int, text: str, own: Mapping[str, Any]) -> Any:
        """The content of a system message sent where it sits, or None when it cannot be.

        The API takes ``role: "system"`` inside ``messages`` right after a user turn (or
        an assistant turn ending in a server tool call) and before an assistant turn or
        at the end; never two in a row.
        """
        after_user = self.role == "user" or (
            not self.unanswered
            and self.role == "assistant"
            and _ends_in_server_tool(self.out[-1]["content"])
        )
        nxt = self.messages[i + 1] if i + 1 < len(self.messages) else None
        if not after_user or (nxt is not None and kind_or_none(nxt) not in _ASSISTANT_KINDS):
            return None
        kept = own.get("system")
        if kept and joined_text(kept) == text:
            return thaw(kept)
        if not text or blank(text):
            return None
        return text

    # -- the request ----------------------------------------------------------------------------

    def body(self) -> dict[str, Any]:
        """Close the last turn; the ``system`` and ``messages`` of the body."""
        if self.role == "user" and self.unanswered:
            # the calls' turn is followed by results or text: the rest need results too;
            # a last turn of calls with nothing after it is left pending
            self.answer()
        if self.later is not None:
            self.close(len(self.messages))
        if self.role == "assistant":
            _strip_final(self.out[-1], self.messages, self.marks, self.losses)
        body: dict[str, Any] = {}
        if self.system:
            plain_one = len(self.system) == 1 and self.system[0][1]
            body["system"] = self.system[0][0]["text"] if plain_one else [b for b, _ in self.system]
        body["messages"] = self.out
        if self.marks and needs_limit(self.marks, self.own_i >= 0):
            # more hints than the API takes, state kept from a request (its own
            # cache_control among it) or two lifetimes: see where they all sit
            limit_breakpoints(body, self.marks, self.losses)
        return body


_WRITE: dict[int, Callable[[_Writer, Any, int], None]] = {
    SYSTEM: _Writer.system_message,
    DEVELOPER: _Writer.system_message,
    USER: _Writer.user,
    ASSISTANT: _Writer.assistant,
    TOOL_CALL: _Writer.tool_calls,
    TOOL_RESULT: _Writer.tool_result,
}


def _call_content(content: str | tuple[Any, ...], i: int, tag: str, losses: Losses) -> Any:
    """The content of a ToolCallMessage (not None): its text, or its parts as blocks."""
    if isinstance(content, str):
        if blank(content):
            losses.add(f"messages[{i}].content", "whitespace-only text", BLANK_RULE)
            return None
        return content
    return part_blocks(content, ASSISTANT_BLOCKS, f"messages[{i}]", losses, tag)


def _ends_in_server_tool(content: Any) -> bool:
    """Whether an assistant turn's content ends in a server tool call."""
    return type(content) is list and bool(content) and content[-1].get("type") == "server_tool_use"


def _message_state(m: Message, i: int, tag: str, losses: Losses) -> Mapping[str, Any]:
    """A message's name (a loss) and its state for ``tag`` (others' state: losses)."""
    if m.name is not None:
        losses.add(
            f"messages[{i}].name", "message name", "dropped: Anthropic messages have no name"
        )
    own = own_state(m.extras, tag, f"messages[{i}]", losses) if m.extras else EMPTY
    return own or EMPTY


def _top_system(
    system: list[tuple[Any, bool]], text: str, own: Mapping[str, Any], i: int, losses: Losses
) -> None:
    """Add a system message to the top-level ``system`` (its kept blocks while its text
    is unchanged, else a text block)."""
    kept = own.get("system")
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


# -- kept blocks and keys ----------------------------------------------------------------------
#
# ``later`` holds ``(0, index, block, i)`` for a kept block of message ``i`` and
# ``(1, index, (type, keys), i)`` for kept keys of one of its blocks.


def _tail(out: list[dict[str, Any]]) -> tuple[str, Any, int]:
    """The role, the content and the count of leading tool results of ``out[-1]``."""
    if not out:
        return "", None, 0
    turn = out[-1]
    content = turn["content"]
    n_res = 0
    if type(content) is list:
        for block in content:
            if block.get("type") != "tool_result":
                break
            n_res += 1
    return turn["role"], content, n_res


def _keep(own: Mapping[str, Any], i: int, later: list[Any] | None) -> list[Any]:
    """Add a message's kept blocks and block keys to those of its turn."""
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
        if type(content) is str:
            content = turn["content"] = [{"type": "text", "text": content}] if content else []
        for _, index, block, _i in sorted((x for x in later if x[0] == 0), key=_index):
            content.insert(min(index, len(content)), block)
        for _, index, (kind, keys), i in (x for x in later if x[0] == 1):
            _put_keys(content, index, kind, keys, f"messages[{i}]", losses)
    if type(content) is list and None in content:  # invalid calls not sent
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


def _in_wire_order(blocks: list[Any], start: int, m: ToolCallMessage, order: object) -> None:
    """A message's part and call blocks (``blocks[start:]``) put in their wire order.

    ``order`` (kept when parsed) holds ``p`` for a part, ``c`` for a call and ``i``
    for an invalid call, in wire order; when it no longer fits the message (edited,
    or a part not sent) the blocks stay parts first, then calls, then invalid calls.
    """
    n_calls = len(m.tool_calls)
    n_invalid = len(m.invalid_tool_calls)
    n_parts = len(blocks) - start - n_calls - n_invalid
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
    m: ToolResultMessage, i: int, own: Mapping[str, Any], tag: str, losses: Losses
) -> dict[str, Any]:
    """The ``tool_result`` block of a result (its kept blocks and keys put back)."""
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": m.tool_call_id}
    content = m.content
    if isinstance(content, str):
        if content:
            block["content"] = content
    else:
        inner = part_blocks(content, USER_BLOCKS, f"messages[{i}]", losses, tag)
        if own:
            _put_back_within(inner, own, i, losses)
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


def _put_back_within(inner: list[Any], own: Mapping[str, Any], i: int, losses: Losses) -> None:
    """The kept blocks and keys of the blocks inside a ``tool_result``, put back."""
    unknown = [
        (item["index"], thaw(item["value"]))
        for item in kept_unknown(own)
        if item.get("within")
        and type(item.get("index")) is int
        and isinstance(item.get("value"), Mapping)
    ]
    for index, value in sorted(unknown, key=_first):
        inner.insert(min(index, len(inner)), value)
    for index, kind, keys in _key_items(own, within=True):
        _put_keys(inner, index, kind, keys, f"messages[{i}]", losses)


def _first(item: tuple[int, Any]) -> int:
    return item[0]


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
        if not content[-1].isspace():
            return
        turn["content"] = content.rstrip()
    elif not _strip_blocks(content, marks, losses):
        return
    last = max(i for i, m in enumerate(messages) if kind_or_none(m) in _ASSISTANT_KINDS)
    losses.add(
        f"messages[{last}].content",
        "trailing whitespace of the final assistant turn",
        "stripped: Anthropic rejects a final assistant turn that ends in whitespace",
    )


def _strip_blocks(
    content: list[Any], marks: list[tuple[int, dict[str, Any]]], losses: Losses
) -> bool:
    """Strip the trailing whitespace of the last text blocks; whether any was stripped."""
    changed = False
    while content:
        last = content[-1]
        text = last.get("text") if last.get("type") == "text" else None
        if type(text) is not str or not text or not text[-1].isspace():
            break
        changed = True
        stripped = text.rstrip()
        if stripped or len(content) == 1:
            content[-1] = {**last, "text": stripped}
            break
        del content[-1]  # whitespace-only beside other blocks: an empty block is refused
        if "cache_control" in last:
            unmark(content, last["cache_control"], marks, losses)
    return changed
