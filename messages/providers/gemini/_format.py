"""Formatting: canonical messages to ``systemInstruction`` and ``contents`` (see the package docstring).

One ``_Writer`` per request writes the conversation, with one method per message
kind. It holds the contents written so far and the open one (``out[-1]``): its role,
its parts (function responses first, ``nresp`` of them), and what it will need when
it closes, noted as it happens: ``settle`` (responses out of call order, kept parts
to put back, a message that added nothing) and ``pending`` (calls not answered yet).
``calls`` are the calls of the latest model content, each with its position, the
name sent, its message and whether its id is sent; ``answered`` those with a result.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..._frozen import EMPTY, thaw
from ..._ids import DERIVED_ID_PREFIX
from ..._json import loads
from ..._kinds import (
    ASSISTANT,
    DEVELOPER,
    SYSTEM,
    TOOL_CALL,
    TOOL_RESULT,
    USER,
    kind_of,
    kind_or_none,
)
from ..._message import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from ..._parts import TextPart
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import DecodeError, ValidationError
from .._base import (
    Losses,
    foreign_state_losses,
    joined_text,
    kept_unknown,
    key_items,
    plain_arguments,
)
from .._cache_hints import hint_loss, no_breakpoints
from .._json_results import json_object_of
from .._losses import part_words
from ._parts import MODEL_PARTS, USER_PARTS, attach_text_signature, format_part, request_parts
from ._wire import DERIVED_LEN, NEW_CONTENT, is_provider_key

#: Gemini's documented stand-in for the thought signature of a function call it did not
#: generate (https://ai.google.dev/gemini-api/docs/thought-signatures, FAQ).
DUMMY_SIGNATURE = "skip_thought_signature_validator"

#: The Loss of a cache hint: Gemini caches implicitly, and an explicit cache is a
#: ``cachedContents`` resource made apart from the request, not a breakpoint in it.
CACHE_RULE = no_breakpoints(
    "gemini", "implicit caching is automatic; explicit caches are cachedContents"
)

#: The role of the content each kind of message goes in (system messages go in none).
_ROLES = {USER: "user", TOOL_RESULT: "user", ASSISTANT: "model", TOOL_CALL: "model"}


#: A call of the latest model content: its position among the content's calls, the
#: name sent, the index of its message, and whether its id is sent (a derived one is not).
_Call = tuple[int, str, int, bool]


class _Extra:
    """What an open content needs done when it closes (rare): kept parts to put back."""

    __slots__ = ("keys", "moved", "unknown")

    def __init__(self) -> None:
        self.unknown: list[tuple[int, Any]] = []
        self.keys: list[tuple[int, Any]] = []
        self.moved = 0  # media moved out of tool results, right after the responses


_KEPT, _TURN_ENDS, _REMOVED = range(3)


def contents(
    messages: Sequence[Message], tag: str, losses: Losses
) -> tuple[list[Any], Any, list[dict[str, Any]]]:
    """The system parts, the role a parsed ``systemInstruction`` spelled out, and ``contents``."""
    writer = _Writer(messages, tag, losses)
    for i, m in enumerate(messages):
        kind = kind_or_none(m)
        if kind is None:
            raise ValidationError(
                f"cannot format a message of type {type(m).__name__}", f"messages[{i}]"
            )
        _WRITE[kind](writer, m, i)
    writer.finish()
    return writer.system, writer.system_role, writer.out


class _Writer:
    """One request being formatted (module docstring)."""

    __slots__ = (
        "answered",
        "calls",
        "extra",
        "last",
        "losses",
        "merge",
        "messages",
        "nresp",
        "out",
        "parts",
        "pending",
        "role",
        "settle",
        "signed",
        "system",
        "system_role",
        "tag",
        "turn",
        "unsent",
    )

    def __init__(self, messages: Sequence[Message], tag: str, losses: Losses) -> None:
        self.messages = messages
        self.tag = tag
        self.losses = losses
        self.system: list[Any] = []
        self.system_role: Any = None
        self.out: list[dict[str, Any]] = []
        self.role = ""  # the role of the open content ("" before the first)
        self.parts: list[Any] = []  # its parts (out[-1]["parts"]): function responses first
        self.nresp = 0  # ... how many (a user content)
        self.last = -1  # ... the call position of the last one
        self.unsent: dict[int, int] = {}  # id(response part) -> call position, when no id
        self.settle = False  # ... whether it needs settling when it closes
        self.extra: _Extra | None = None  # ... its kept parts
        self.merge = False  # the last content was removed: the next of its role merges back
        self.calls: dict[str, _Call] = {}
        self.answered: set[str] = set()
        self.pending = 0
        self.turn = 0  # where the current turn starts in ``out`` (after the last user text)
        # whether the first call part of a message gets the dummy signature
        self.signed: dict[int, bool] = {}

    # -- one method per message kind ----------------------------------------------------------

    def system_message(self, m: SystemMessage | DeveloperMessage, i: int) -> None:
        """Add a system or developer message to the system parts."""
        own = (
            _message_state(m, i, self.tag, self.losses) if m.name is not None or m.extras else EMPTY
        )
        if m.cache is not None:
            hint_loss(self.losses, i, CACHE_RULE)
        if self.role:
            self.losses.add(
                f"messages[{i}]",
                f"{m.role.value} message after the first turn",
                "moved to systemInstruction",
            )
        text = m.content
        kept = own.get("system")
        if kept and joined_text(kept) == text:
            self.system.extend(thaw(kept))
            if "system_role" in own:
                self.system_role = own["system_role"]
        elif text:
            self.system.append({"text": text})

    def user(self, m: UserMessage, i: int) -> None:
        self.enter("user", i, new=bool(m.extras) and _opens_content(m.extras, self.tag))
        if m.name is not None or m.extras or m.cache is not None:
            self.take_state(m, i)
        content = m.content
        if isinstance(content, str):
            added = [{"text": content}] if content else []
        else:
            added = request_parts(content, USER_PARTS, i, self.losses, self.tag)
        if added:
            self.parts.extend(added)
            self.turn = len(self.out)
        else:
            self.settle = True  # nothing added: the content may be left empty

    def assistant(self, m: AssistantMessage, i: int) -> None:
        self.enter("model", i)
        own: Mapping[str, Any] = EMPTY
        if m.name is not None or m.extras or m.cache is not None:
            own = self.take_state(m, i)
        if not self.model_parts(m, own, i):
            self.settle = True  # nothing added: the content may be left empty

    def tool_calls(self, m: ToolCallMessage, i: int) -> None:
        self.enter("model", i)
        own: Mapping[str, Any] | None = None
        if m.name is not None or m.extras or m.cache is not None:
            own = self.take_state(m, i)
        self.model_parts(m, own or EMPTY, i)
        start = len(self.parts)  # where the message's call parts start
        for k, c in enumerate(m.tool_calls):
            part, sent = _function_call(c, i, k, self.losses, self.tag)
            if k == 0:
                self.signed[id(part)] = _made_elsewhere(c, self.tag)
            self.parts.append(part)
            self.calls[c.id] = (len(self.calls), c.name, i, sent)
        if m.invalid_tool_calls:
            self.invalid_calls(m, i)
        if own is not None or m.invalid_tool_calls:
            self.calls_state(m, own or EMPTY, start)
        self.pending = len(self.calls)

    def tool_result(self, m: ToolResultMessage, i: int) -> None:
        self.enter("user", i)
        own: Mapping[str, Any] = EMPTY
        if m.name is not None or m.extras or m.cache is not None:
            own = self.take_state(m, i)
        call_id = m.tool_call_id
        found = self.calls.get(call_id)
        if found is None or call_id in self.answered:
            why = "a second result for the call" if found else "no matching functionCall"
            self.losses.add(
                f"messages[{i}]",
                f"tool result with {why}",
                "dropped: Gemini rejects unpaired responses",
            )
            self.settle = True  # nothing added: the content may be left empty
            return
        self.answered.add(call_id)
        self.pending -= 1
        self.add_response(m, found, own, i)
        position = found[0]
        if position < self.last:
            self.settle = True  # out of call order: sorted when the content closes
        self.last = position
        self.nresp += 1

    # -- the parts of a message ---------------------------------------------------------------

    def take_state(self, m: Message, i: int) -> Mapping[str, Any]:
        """A message with a name, extras or a cache hint: its Losses, and this provider's
        state; the parts it kept are noted, to be put back when its content closes."""
        own = _message_state(m, i, self.tag, self.losses)
        if m.cache is not None:
            hint_loss(self.losses, i, CACHE_RULE)
        if own and ("unknown" in own or "keys" in own):
            extra = self.kept_parts()
            extra.unknown.extend(_unknown_items(own))
            extra.keys.extend(key_items(own))
            self.settle = True
        return own

    def kept_parts(self) -> _Extra:
        if self.extra is None:
            self.extra = _Extra()
        return self.extra

    def model_parts(self, m: AssistantMessage, own: Mapping[str, Any], i: int) -> int:
        """Add a model message's text and reasoning parts, its text signature back on; how many."""
        content = m.content
        parts = self.parts
        start = len(parts)
        if isinstance(content, str):
            if content:
                parts.append({"text": content})
        elif content is not None:
            parts.extend(request_parts(content, MODEL_PARTS, i, self.losses, self.tag))
        sig = own.get("text_signature")
        if type(sig) is str:
            attach_text_signature(parts, start, sig)
        return len(parts) - start

    def invalid_calls(self, m: ToolCallMessage, i: int) -> None:
        """The invalid calls of a message, after its valid ones (call order)."""
        for k, bad in enumerate(m.invalid_tool_calls, len(m.tool_calls)):
            part, name = _invalid_call(bad, f"messages[{i}].tool_calls[{k}]", self.losses, self.tag)
            self.parts.append(part)
            self.calls[bad.id] = (len(self.calls), name, i, not _is_derived(bad.id))

    def calls_state(self, m: ToolCallMessage, own: Mapping[str, Any], start: int) -> None:
        """The kept state of a message's calls (``parts[start:]``): calls imported without
        ``args``, their wire order, and whether the first needs the dummy signature."""
        parts = self.parts
        every: list[ToolCall | InvalidToolCall] = [*m.tool_calls, *m.invalid_tool_calls]
        if own:
            _no_args(m, own, parts, start)
            order = own.get("call_order")
            if isinstance(order, (list, tuple)) and sorted(order) == sorted(c.id for c in every):
                # back in the order they came in (an invalid call before a valid one)
                by_id = {c.id: (c, part) for c, part in zip(every, parts[start:], strict=True)}
                base = self.calls[every[0].id][0]
                for j, call_id in enumerate(order):
                    self.calls[call_id] = (base + j, *self.calls[call_id][1:])
                every = [by_id[call_id][0] for call_id in order]
                parts[start:] = [by_id[call_id][1] for call_id in order]
        unsigned = own.get("calls_unsigned") is True
        self.signed[id(parts[start])] = _made_elsewhere(every[0], self.tag) and not unsigned

    def add_response(
        self, m: ToolResultMessage, found: _Call, own: Mapping[str, Any], i: int
    ) -> None:
        """A result's ``functionResponse``, at ``nresp``; its media after the responses (a Loss)."""
        position, name, _, sent = found
        content = m.content
        text = content if isinstance(content, str) else m.text
        fr: dict[str, Any] = {"id": m.tool_call_id} if sent else {}
        fr["name"] = name
        if own:
            fr["response"] = _response_object(m, text, own)
            _kept_response(fr, own)
        elif m.is_error:
            fr["response"] = {"error": text}
        else:  # a JSON object goes as one (see _json_results), other text as text
            value = json_object_of(content) if isinstance(content, str) else None
            fr["response"] = {"output": text if value is None else value}
        part = {"functionResponse": fr}
        if not sent:
            self.unsent[id(part)] = position
        self.parts.insert(self.nresp, part)
        if not isinstance(content, str):
            extra = self.kept_parts()
            at = self.nresp + 1 + extra.moved
            extra.moved += _move_media(content, i, self.parts, at, self.losses, self.tag)
            self.settle = True
            if extra.moved:
                self.turn = len(self.out)

    # -- contents -----------------------------------------------------------------------------

    def enter(self, role: str, i: int, new: bool = False) -> None:
        """Message ``i`` goes in a content of ``role``: the open one, else a new one (or
        the one before, when the one between was removed); ``new``: a user message
        imported from a content of its own opens one again."""
        if role == self.role and not new:
            return
        if self.settle or (self.pending and role == "model"):  # the open content needs it
            self.close(i)
        if role == self.role:  # that user message: a user content again
            self.start(role)
            self.nresp = 0  # the responses of the content closed stay answered
            self.last = -1
            self.merge = False
        elif self.merge and self.out and self.out[-1]["role"] == role:
            self.parts = self.out[-1]["parts"]  # the content before was removed: merge back
            self.merge = False
        else:
            self.start(role)
            if role == "model":  # a user content after it starts with no responses
                self.calls = {}
                self.answered.clear()
                self.nresp = 0
                self.last = -1
        self.role = role

    def start(self, role: str) -> None:
        self.parts = []
        self.out.append({"role": role, "parts": self.parts})

    def close(self, end: int) -> None:
        """Settle the open content (its messages end before ``end``) when it needs more
        than appending."""
        done = self.settled(end)
        if done == _TURN_ENDS:
            self.turn = len(self.out)
        self.merge = done == _REMOVED
        self.settle = False
        self.extra = None
        self.pending = 0

    def settled(self, end: int) -> int:
        """Answer the calls left without a result, put the responses in call order and
        kept parts back, or take the content out when it is empty. _TURN_ENDS when it is
        a user content with more than function responses, _REMOVED when taken out."""
        role = self.role
        parts = self.parts
        nresp = self.nresp if role == "user" else 0
        if role == "user" and len(self.answered) < len(self.calls):
            nresp = self.answer_the_rest(nresp)
        if nresp > 1:  # the responses in call order (the sort is stable)
            responses = parts[:nresp]
            positions = [self.position(part) for part in responses]
            order = sorted(range(nresp), key=positions.__getitem__)
            parts[:nresp] = [responses[j] for j in order]
        if self.extra is not None:
            for index, part in sorted(self.extra.unknown, key=_first):
                parts.insert(min(index, len(parts)), part)
            for index, keys in self.extra.keys:
                if index < len(parts):
                    parts[index] = {**parts[index], **keys}
        if parts:
            return _TURN_ENDS if role == "user" and nresp < len(parts) else _KEPT
        return self.empty(end)

    def empty(self, end: int) -> int:
        """An empty content: a user one with a user message keeps one empty text part
        (the API takes it; a content without parts it rejects); any other is removed."""
        first, users = self.span(end)
        if self.role == "model":
            self.losses.add(
                f"messages[{first}]",
                "empty model content",
                "omitted: Gemini rejects a content without parts",
            )
        elif users:
            self.parts.append({"text": ""})
            return _TURN_ENDS
        self.out.pop()  # a model content with nothing, or a user one of dropped results only
        return _REMOVED

    def span(self, end: int) -> tuple[int, bool]:
        """The index of the first message of the (empty) content whose messages end before
        ``end``, and whether one of them is a user message (the rest: dropped results)."""
        first, users = end, False
        for j in range(end - 1, -1, -1):
            kind = kind_of(self.messages[j], f"messages[{j}]")
            if kind in (SYSTEM, DEVELOPER):
                continue
            if _ROLES[kind] != self.role:
                break
            first, users = j, users or kind == USER
        return first, users

    def position(self, part: dict[str, Any]) -> int:
        """The position of the call a response answers (its id, or as noted when it has none)."""
        call_id = part["functionResponse"].get("id")
        return self.calls[call_id][0] if call_id is not None else self.unsent[id(part)]

    def answer_the_rest(self, nresp: int) -> int:
        """Answer each call of the model content before this user content that has no
        result (Gemini rejects a turn with fewer responses than calls); the new count of
        responses at the front of the parts."""
        from ..._repair import UNANSWERED_TEXT  # rare: not loaded by every convert

        counts: dict[int, int] = {}  # calls seen per message: ``calls`` is in call order
        for call_id, (position, name, i, sent) in self.calls.items():
            k = counts.get(i, 0)
            counts[i] = k + 1
            if call_id in self.answered:
                continue
            self.answered.add(call_id)
            fr: dict[str, Any] = {"id": call_id} if sent else {}
            fr["name"] = name
            fr["response"] = {"error": UNANSWERED_TEXT}
            part = {"functionResponse": fr}
            if not sent:
                self.unsent[id(part)] = position
            self.parts.insert(nresp, part)
            nresp += 1
            self.losses.add(
                f"messages[{i}].tool_calls[{k}]",
                "unanswered tool call",
                "answered with an error result: Gemini requires a response for every call",
            )
        return nresp

    def finish(self) -> None:
        """Settle the last content; the dummy signatures of the current turn."""
        if self.settle or (self.pending and self.role == "user"):
            self.close(len(self.messages))
        _sign_current_turn(self.out, self.turn, self.signed)


_WRITE: dict[int, Callable[[_Writer, Any, int], None]] = {
    SYSTEM: _Writer.system_message,
    DEVELOPER: _Writer.system_message,
    USER: _Writer.user,
    ASSISTANT: _Writer.assistant,
    TOOL_CALL: _Writer.tool_calls,
    TOOL_RESULT: _Writer.tool_result,
}


def _first(item: tuple[int, Any]) -> int:
    return item[0]


def _is_derived(call_id: str) -> bool:
    return len(call_id) == DERIVED_LEN and call_id.startswith(DERIVED_ID_PREFIX)


# -- kept state -----------------------------------------------------------------------------


def _own_state(extras: Mapping[str, Any], tag: str, i: int, losses: Losses) -> Mapping[str, Any]:
    """This provider's state in a message's extras; other providers' (and origins') is a Loss."""
    for key, value in extras.items():
        if key != tag and isinstance(value, Mapping) and is_provider_key(key):
            foreign_state_losses(key, value, f"messages[{i}]", losses)
    own = extras.get(tag)
    return own if isinstance(own, Mapping) else EMPTY


def _kept(state: Mapping[str, Any], key: str) -> Sequence[Any]:
    """A list kept in provider state; anything else (edited by hand, corrupt) is none."""
    items = state.get(key)
    return items if isinstance(items, (list, tuple)) else ()


def _unknown_items(own: Mapping[str, Any]) -> list[tuple[int, Any]]:
    items = []
    for item in kept_unknown(own):
        if type(item.get("index")) is int:
            value = item.get("value")
            if isinstance(value, Mapping):
                items.append((item["index"], thaw(value)))
    return items


def _call_state(
    extras: Mapping[str, Any], part: dict[str, Any], path: str, losses: Losses, tag: str
) -> None:
    """Put this provider's signature of a call on its part; another's state is a Loss."""
    for key in extras:
        if key != tag and is_provider_key(key):
            losses.add(
                f"{path}.extras.{key}",
                f"{key} state of the tool call",
                f"dropped: only re-sent to {key}",
            )
    own = extras.get(tag)
    if isinstance(own, (dict, Mapping)):
        sig = own.get("thought_signature")
        if type(sig) is str:
            part["thoughtSignature"] = sig


def _made_elsewhere(c: ToolCall | InvalidToolCall, tag: str) -> bool:
    """Whether this provider (at this origin) did not make the call: it has no state of
    ours, and either another provider's state or an id of its own (a call Gemini sent
    without an id has a derived one)."""
    extras = c.extras
    if extras:
        if isinstance(extras.get(tag), Mapping):
            return False
        if any(is_provider_key(key) for key in extras):
            return True
    return not _is_derived(c.id)


def _function_call(
    c: ToolCall, i: int, k: int, losses: Losses, tag: str
) -> tuple[dict[str, Any], bool]:
    """The part of call ``k`` of message ``i``, and whether its id is sent (a derived one
    is not)."""
    fc: dict[str, Any] = {}
    sent = not _is_derived(c.id)
    if sent:
        fc["id"] = c.id
    fc["name"] = c.name
    fc["args"] = plain_arguments(c.arguments)
    part: dict[str, Any] = {"functionCall": fc}
    if c.extras:
        _call_state(c.extras, part, f"messages[{i}].tool_calls[{k}]", losses, tag)
    return part, sent


#: A name Gemini takes for a function (declarations allow dots and colons; calls echo them).
_WIRE_NAME = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
_NOT_WIRE = re.compile(r"[^A-Za-z0-9_.:-]")


def _invalid_call(
    c: InvalidToolCall, path: str, losses: Losses, tag: str
) -> tuple[dict[str, Any], str]:
    """An invalid call sent as the model wrote it where Gemini can take it (its part, its name)."""
    name = c.name
    if name is None or _WIRE_NAME.fullmatch(name) is None:
        name = _NOT_WIRE.sub("_", name or "")[:64] or "unnamed_call"
        losses.add(
            f"{path}.name",
            "tool name Gemini rejects",
            "replaced by one of the characters Gemini allows (A-Z a-z 0-9 _ . : -)",
        )
    try:
        args = loads(c.raw_arguments)
    except DecodeError:
        args = None
    if type(args) is not dict:
        args = {}
        losses.add(
            path,
            "tool call arguments that are not a JSON object",
            "sent as {}: Gemini's functionCall.args is an object",
        )
    fc: dict[str, Any] = {}
    if not _is_derived(c.id):
        fc["id"] = c.id
    fc["name"] = name
    fc["args"] = args
    part: dict[str, Any] = {"functionCall": fc}
    if c.extras:
        _call_state(c.extras, part, path, losses, tag)
    return part, name


def _response_object(m: ToolResultMessage, text: str, own: Mapping[str, Any]) -> dict[str, Any]:
    """The ``response`` object of a result that kept how it was imported."""
    shape = own.get("response")
    if m.is_error:
        if shape == "error" and own.get("json") is True:
            try:
                return {"error": loads(text)}
            except DecodeError:
                pass  # edited since it was imported: send the text
        return {"error": text}
    if shape == "object":
        try:
            value = loads(text)
            if type(value) is dict:
                return value
        except DecodeError:
            pass
    elif shape == "output" and own.get("json") is True:
        try:
            return {"output": loads(text)}
        except DecodeError:
            pass
    return {"output": text}


def _opens_content(extras: Mapping[str, Any], tag: str) -> bool:
    """Whether a message's state says it opens a content of its own (``new_content``:
    imported from a user content right after another one)."""
    own = extras.get(tag)
    return isinstance(own, Mapping) and own.get(NEW_CONTENT) is True


def _message_state(m: Message, i: int, tag: str, losses: Losses) -> Mapping[str, Any]:
    """A message's name (a Loss) and this provider's state in its extras."""
    if m.name is not None:
        losses.add(f"messages[{i}].name", "message name", "dropped: Gemini contents have no name")
    return _own_state(m.extras, tag, i, losses) if m.extras else EMPTY


def _kept_response(fr: dict[str, Any], own: Mapping[str, Any]) -> None:
    """Fields of an imported ``functionResponse`` the model has no place for, put back."""
    kept = own.get("function_response")
    if isinstance(kept, Mapping):
        for key, value in kept.items():
            if key not in fr:
                fr[key] = thaw(value)


def _move_media(
    content: Sequence[Any], i: int, parts: list[Any], at: int, losses: Losses, tag: str
) -> int:
    """Images, audio and files of a tool result go after the function responses (a Loss),
    inserted at ``at``; how many."""
    moved = 0
    for j, p in enumerate(content):
        if type(p) is TextPart:
            continue
        where = f"messages[{i}].content[{j}]"
        part = format_part(USER_PARTS, p, where, losses, tag)
        if part is not None:
            losses.add(
                where,
                f"{part_words(p)} in a tool result",
                "moved to a user part after the function responses",
            )
            parts.insert(at + moved, part)
            moved += 1
    return moved


def _no_args(m: ToolCallMessage, own: Mapping[str, Any], parts: list[Any], start: int) -> None:
    """Calls imported without ``args`` are formatted back without it."""
    no_args = _kept(own, "no_args")
    if no_args:
        for c, part in zip(m.tool_calls, parts[start:], strict=False):
            if c.id in no_args and not c.arguments:
                part["functionCall"].pop("args", None)


def _sign_current_turn(out: list[dict[str, Any]], turn: int, signed: dict[int, bool]) -> None:
    """Give the calls of the current turn that Gemini did not make its dummy signature.

    Gemini 3 validates the current turn only: the model contents after the last user
    content with anything but function responses. The first functionCall part of
    each must carry a signature ("Function call is missing a thought_signature").
    """
    for content in out[turn:]:
        if content["role"] == "model":
            for part in content["parts"]:
                if "functionCall" in part:
                    if signed.get(id(part), True) and "thoughtSignature" not in part:
                        part["thoughtSignature"] = DUMMY_SIGNATURE
                    break
