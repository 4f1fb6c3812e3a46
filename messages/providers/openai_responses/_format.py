"""Canonical messages to a Responses request: ``{"input": [...], "instructions"?, "tools"?}``.

Rules (each that loses something is a Loss):

* The first message, when it is a system or developer message, is
  ``instructions`` (unless it was read from ``input``, then it goes back there);
  later ones are ``system`` / ``developer`` message items in place.
* User parts: text ``input_text``; images ``input_image`` (URL or data URL, with
  ``detail``); files ``input_file`` (data URL, file id, filename), an image file
  as ``input_image``. Audio and reasoning cannot be sent.
* An assistant turn parsed by this provider goes back as the items it came from,
  in their order, with their ids, phases, annotations and refusals: its texts in
  its message items, its reasoning as ``reasoning`` items (summary, content and
  ``encrypted_content``), its calls as ``function_call`` items, and the items this
  package does not model verbatim. Any other assistant turn is one assistant
  message with its text, then a ``function_call`` per call. Reasoning goes only to
  the provider that produced it (this tag), and needs its item id.
* Tool calls: ``call_id``, ``name``, the arguments string (an invalid call as the
  model wrote it); results ``function_call_output`` (a string, or parts with
  images and files); ``is_error`` has no field: the text gets ``Error: `` in front.
  A call left without a result before the next user or assistant turn gets an
  error result; a result that answers no call of the turn before it is dropped
  (the API rejects both).
* Message ``name`` has no field. State other providers (or other origins) kept in
  ``extras`` is never sent.
* ``previous_response_id`` (server-side continuation): only the messages after the
  stored response's turn are sent, with the response id; ``instructions`` are sent
  again (the API does not carry them over).
* A message's cache hint (``Message.cache``) is a ``prompt_cache_breakpoint``
  (``{"mode": "explicit"}``) on the last ``input_text`` / ``input_image`` /
  ``input_file`` of its item: a system, developer or user message, or the output of
  a ``function_call_output`` (string content becomes one ``input_text``). A hinted
  first system message is sent as an input item, not ``instructions`` (which take
  no parts), except when continued from a stored response (then the hint is a
  Loss, as is the hint of each message the stored response covers). An
  assistant turn takes none (Loss), and a hint's ``ttl`` is a Loss (a breakpoint
  lives as long as the request's ``prompt_cache_options.ttl``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, cast

from ..._frozen import EMPTY, SCALARS, FrozenDict, thaw
from ..._message import (
    AssistantMessage,
    Message,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from ..._parts import (
    AudioPart,
    ContentPart,
    FilePart,
    ImagePart,
    ReasoningPart,
    TextPart,
    data_url,
)
from ..._repair import UNANSWERED_TEXT
from ..._role import MessageRole
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import ValidationError, ident
from .._base import DROP_OTHER_REASONING, Loss, Losses, foreign_state_losses
from .._cache_hints import (
    BREAKPOINT_KEY,
    NOT_SENT,
    breakpoint_ttl_rule,
    hint_loss,
    input_only_rule,
    mark_last,
    missed,
    no_part_rule,
    openai_breakpoint,
)
from ._read import (
    INPUT,
    ITEM,
    ITEMS,
    KEYS,
    RESPONSE_ID,
    SPLIT,
    TEXT_PARTS,
    UNKNOWN,
    is_provider_key,
)
from ._tools import format_tools

if TYPE_CHECKING:
    from ..._cache import CacheHint
    from ...tools import ToolDefinition

__all__ = ["format_body"]

_SYSTEM = MessageRole.SYSTEM
_DEVELOPER = MessageRole.DEVELOPER
_USER = MessageRole.USER
_ASSISTANT = MessageRole.ASSISTANT
_TOOL = MessageRole.TOOL

_UNANSWERED: Final = "Error: " + UNANSWERED_TEXT

#: The parts a ``prompt_cache_breakpoint`` may go on.
_MARKABLE: Final = frozenset(("input_text", "input_image", "input_file"))
_NO_PART: Final = no_part_rule("input part")
_ASSISTANT_RULE: Final = input_only_rule("openai_responses")
_TTL_RULE: Final = breakpoint_ttl_rule("openai_responses")
_STORED_RULE: Final = "dropped: continued from a stored response, which holds it"


def error_prefixed(text: str) -> str:
    """``text`` marked as a failure: ``"Error: "`` in front unless it already starts so."""
    return text if text[:5].lower() == "error" else "Error: " + text


def _kept(own: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    """The well-formed ``{index, ...}`` records of ``own[key]``, by index."""
    items = own.get(key)
    if not isinstance(items, (list, tuple)):
        return []
    out = [it for it in items if isinstance(it, Mapping) and type(it.get("index")) is int]
    return sorted(out, key=lambda it: int(it["index"]))


def _reinsert(items: list[Any], own: Mapping[str, Any]) -> list[Any]:
    """Put the kept unknown items (or parts) back at their original index."""
    for record in _kept(own, UNKNOWN):
        if "value" in record:
            items.insert(min(record["index"], len(items)), thaw(record["value"]))
    return items


def _plain(value: Mapping[str, Any]) -> dict[str, Any]:
    """A plain dict of kept item keys; hot path: flat keys (ids, status, phase) are one C
    copy (~0.2 us), nested ones are thawed."""
    for v in value.values():
        if v.__class__ not in SCALARS:
            return thaw(value)  # type: ignore[no-any-return]
    return dict(value)


def _take_text(parts: Sequence[ContentPart], pos: int) -> tuple[str, int]:
    """The text of the part at ``pos`` if it is a text part (and the next position)."""
    if pos < len(parts):
        p = parts[pos]
        if type(p) is TextPart or isinstance(p, TextPart):
            return p.text, pos + 1
    return "", pos


def _stored(messages: Sequence[Message], tag: str, wanted: str | bool) -> tuple[int, str] | None:
    """The position and id of the stored response to continue from (None: replay all)."""
    for k in range(len(messages) - 1, -1, -1):
        extras = messages[k].extras
        own = extras.get(tag) if extras else None
        if isinstance(own, Mapping):
            rid = own.get(RESPONSE_ID)
            if isinstance(rid, str) and (wanted is True or rid == wanted):
                return k, rid
    if wanted is True:
        return None
    raise ValidationError(
        f"previous_response_id {ident(wanted)} is not a response parsed into these messages",
        "previous_response_id",
    )


def _input_part(part: Mapping[str, Any]) -> bool:
    """Whether a part may carry a ``prompt_cache_breakpoint``."""
    return part.get("type") in _MARKABLE


class Formatter:
    """One request being formatted (a provider's tag, the items and the losses)."""

    __slots__ = ("answered", "losses", "open_at", "open_calls", "out", "string_input", "tag")

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.losses = Losses()
        self.out: list[dict[str, Any]] = []
        # the calls of the last assistant turn, where it is, and the ids answered
        self.open_calls: Sequence[ToolCall | InvalidToolCall] | None = None
        self.open_at = 0
        self.answered: list[str] = []
        # a user message read from a string ``input``: alone, it goes back as one
        self.string_input: dict[str, Any] | None = None

    # -- state kept on messages -------------------------------------------------

    def own(self, m: Message, i: int) -> Mapping[str, Any]:
        """This tag's state on ``m``; other providers' state is a loss."""
        own: Mapping[str, Any] = EMPTY
        for key, value in m.extras.items():
            if not isinstance(value, Mapping):
                continue
            if key == self.tag:
                own = value
            elif is_provider_key(key):
                path = f"messages[{i}]"
                foreign_state_losses(key, value, path, self.losses)
        return own

    # -- tool pairing -------------------------------------------------------------

    def answer_pending(self) -> None:
        """An error result for each call of the last turn left without one."""
        calls = self.open_calls
        if calls is None:
            return
        for k, call in enumerate(calls):
            if call.id in self.answered:
                continue
            self.out.append(
                {"type": "function_call_output", "call_id": call.id, "output": _UNANSWERED}
            )
            self.losses.add(
                f"messages[{self.open_at}].tool_calls[{k}]",
                "unanswered tool call",
                "answered with an error result: openai_responses requires a result for every call",
            )
        self.open_calls = None

    def paired(self, call_id: str) -> bool:
        """True when ``call_id`` answers a call of the last turn not answered yet."""
        calls = self.open_calls
        if calls is None or call_id in self.answered:
            return False
        k = len(self.answered)  # hot path: results usually come in the calls' order
        if k < len(calls) and calls[k].id == call_id:
            return True
        return any(c.id == call_id for c in calls)

    # -- messages -----------------------------------------------------------------

    def message(self, m: Any, i: int) -> None:
        """Append the items of one message (the general path)."""
        try:
            role = m.role
        except AttributeError:
            raise ValidationError(
                f"expected a Message, got {type(m).__name__}", f"messages[{i}]"
            ) from None
        own = self.own(m, i) if m.extras else EMPTY
        if m.name is not None:
            self.losses.add(
                f"messages[{i}].name", "message name", "dropped: Responses input items have no name"
            )
        if role is _TOOL:
            if not self.paired(m.tool_call_id):
                self.losses.add(
                    f"messages[{i}]",
                    "tool result that answers no open call",
                    "dropped: openai_responses rejects an output without its call",
                )
                if m.cache is not None:
                    hint_loss(self.losses, i, NOT_SENT)
                return
            self.answered.append(m.tool_call_id)
            self.out.append(self.tool_result(m, i, own))
            if m.cache is not None:
                self.hint(self.out[-1], "output", m.cache, i)
            return
        if role is _USER or role is _ASSISTANT:
            if self.open_calls is not None and len(self.answered) < len(self.open_calls):
                self.answer_pending()
            self.open_calls = None
        if role is _USER:
            self.out.append(self.user(m, i, own))
        elif role is _ASSISTANT:
            sent = self.assistant(m, i, own)
            if sent:
                self.open_calls, self.open_at, self.answered = sent, i, []
            if m.cache is not None:
                hint_loss(self.losses, i, _ASSISTANT_RULE)
            return
        else:
            self.out.append(self.system(m, role, own))
        if m.cache is not None:
            self.hint(self.out[-1], "content", m.cache, i)

    def hint(self, d: dict[str, Any], key: str, hint: CacheHint, i: int) -> None:
        """Put a message's cache hint on the last input part of its item (``d[key]``); a
        part that kept its own breakpoint keeps it (a Loss when it differs)."""
        value = openai_breakpoint()
        d[key], placed = mark_last(d[key], BREAKPOINT_KEY, value, "input_text", _input_part)
        if d is self.string_input and d[key].__class__ is list:
            self.string_input = None  # a list of parts now: sent as an item
        if missed(self.losses, i, placed, value, BREAKPOINT_KEY, _NO_PART):
            return
        if hint.ttl is not None:
            self.losses.add(f"messages[{i}].cache.ttl", "cache hint ttl", _TTL_RULE)

    def system(self, m: Message, role: MessageRole, own: Mapping[str, Any]) -> dict[str, Any]:
        """A system or developer message item (its text split as it was read, if it was)."""
        text = m.text
        content: Any = text
        split = own.get(SPLIT)
        if (
            isinstance(split, (list, tuple))
            and split
            and all(type(n) is int and n >= 0 for n in split)
        ):
            if sum(split) == len(text):
                content, at = [], 0
                for n in split:
                    content.append({"type": "input_text", "text": text[at : at + n]})
                    at += n
                for record in _kept(own, KEYS):  # e.g. a breakpoint on another part
                    j, keys = record["index"], record.get("keys")
                    if j < len(content) and isinstance(keys, Mapping):
                        content[j].update(thaw(keys))
            else:
                content = [{"type": "input_text", "text": text}]
        d = _head(own)
        d["role"] = "system" if role is _SYSTEM else "developer"
        d["content"] = content
        return d

    def part(self, p: ContentPart, i: int, j: int, where: str) -> dict[str, Any] | None:
        """One user or tool-output content part; None (and a loss) when it cannot go."""
        t = type(p)
        if t is TextPart or isinstance(p, TextPart):
            return {"type": "input_text", "text": cast("TextPart", p).text}
        if isinstance(p, ImagePart):
            d: dict[str, Any] = {"type": "input_image", "image_url": p.data_url}
            if p.detail is not None:
                d["detail"] = p.detail
            return d
        if isinstance(p, FilePart):
            if p.media_type is not None and p.media_type.startswith("image/"):
                if p.data is not None:
                    return {
                        "type": "input_image",
                        "image_url": data_url(p.media_type, p.data),
                    }
                return {"type": "input_image", "file_id": p.file_id}
            d = {"type": "input_file"}
            if p.data is not None:
                d["file_data"] = data_url(p.media_type, p.data) if p.media_type else p.data
            if p.file_id:
                d["file_id"] = p.file_id
            if p.filename:
                d["filename"] = p.filename
            return d
        path = f"messages[{i}].content[{j}]"
        if isinstance(p, AudioPart):
            self.losses.add(path, "audio part", f"dropped: Responses {where} take no audio")
        elif t is ReasoningPart:
            self.losses.add(
                path, "reasoning in a user or tool message", "dropped: not sent as text"
            )
        else:
            self.losses.add(
                path,
                f"{t.__name__} in a user or tool message",
                "dropped: not a content part this wire carries",
            )
        return None

    def parts(
        self, content: Sequence[ContentPart], i: int, own: Mapping[str, Any], where: str
    ) -> list[dict[str, Any]]:
        """User or tool-output parts, with this provider's unknown parts and kept keys
        back in place (both by their index on the wire)."""
        sent = [d for j, p in enumerate(content) if (d := self.part(p, i, j, where)) is not None]
        if own:
            _reinsert(sent, own)
            for record in _kept(own, KEYS):
                j = record["index"]
                keys = record.get("keys")
                if j < len(sent) and isinstance(keys, Mapping):
                    sent[j].update(thaw(keys))
        return sent

    def user(self, m: UserMessage, i: int, own: Mapping[str, Any]) -> dict[str, Any]:
        """A user message item."""
        c = m.content
        d = _head(own)
        d["role"] = "user"
        if isinstance(c, str):
            d["content"] = c
            if own and own.get(INPUT) is True:
                self.string_input = d
        else:
            d["content"] = self.parts(c, i, own, "messages") or ""
        return d

    def tool_result(self, m: ToolResultMessage, i: int, own: Mapping[str, Any]) -> dict[str, Any]:
        """A ``function_call_output`` item."""
        c = m.content
        output: Any = c if isinstance(c, str) else (self.parts(c, i, own, "outputs") or "")
        if m.is_error:
            self.losses.add(
                f"messages[{i}].is_error",
                "is_error flag",
                "the wire has no error flag: the text is sent, prefixed 'Error: ' unless it already starts so",
            )
            if isinstance(output, str):
                output = error_prefixed(output)
            elif not (
                output[0].get("type") == "input_text"
                and str(output[0].get("text", ""))[:5].lower() == "error"
            ):
                output = [{"type": "input_text", "text": "Error: "}, *output]
        d = _head(own)
        d["type"] = "function_call_output"
        d["call_id"] = m.tool_call_id
        d["output"] = output
        return d

    def call(self, c: ToolCall | InvalidToolCall, i: int, k: int) -> dict[str, Any] | None:
        """A ``function_call`` item (an invalid call as the model wrote it)."""
        own: Any = None
        if c.extras:
            for key, value in c.extras.items():
                if key == self.tag:
                    own = value
                else:
                    self.losses.add(
                        f"messages[{i}].tool_calls[{k}]",
                        f"opaque state from {key} on a tool call",
                        f"dropped: only re-sent to {key}",
                    )
        if isinstance(c, ToolCall):
            name, args = c.name, c.arguments_json
        else:
            if c.name is None:
                self.losses.add(
                    f"messages[{i}].tool_calls[{k}]",
                    "invalid tool call without a name",
                    "dropped: a function_call item needs a name",
                )
                return None
            name, args = c.name, c.raw_arguments
        d: dict[str, Any] = {"type": "function_call"}
        if isinstance(own, Mapping):
            d.update(_plain(own))
        d["call_id"] = c.id
        d["name"] = name
        d["arguments"] = args
        return d

    def assistant(
        self, m: AssistantMessage, i: int, own: Mapping[str, Any]
    ) -> list[ToolCall | InvalidToolCall]:
        """Append the items of an assistant turn; returns the calls it sent."""
        c = m.content
        # empty text is no part: a layout slot without its text part takes ""
        parts: Sequence[ContentPart] = (
            () if not c else ((TextPart(c),) if isinstance(c, str) else c)
        )
        calls: list[ToolCall | InvalidToolCall] = [*m.tool_calls, *m.invalid_tool_calls]
        items: list[dict[str, Any]] | None = None
        sent: list[ToolCall | InvalidToolCall] = []
        layout = own.get(ITEMS) if own else None
        if isinstance(layout, (list, tuple)):
            noted = len(self.losses.items)
            items = self.laid_out(layout, parts, calls, sent, i)
            if items is None:
                del self.losses.items[noted:]
                sent = []
                self.losses.add(
                    f"messages[{i}]",
                    "output item ids and layout",
                    "dropped: the message no longer matches the items it was parsed from;"
                    " sent as one message and its calls",
                )
        if items is None:
            items = self.plain(parts, calls, sent, i)
        if own and own.get(UNKNOWN):
            _reinsert(items, own)
        self.out.extend(items)
        return sent

    def plain(
        self,
        parts: Sequence[ContentPart],
        calls: Sequence[ToolCall | InvalidToolCall],
        sent: list[ToolCall | InvalidToolCall],
        i: int,
    ) -> list[dict[str, Any]]:
        """An assistant turn without a layout: its text as one message, then its calls."""
        texts: list[str] = []
        for j, p in enumerate(parts):
            if type(p) is TextPart or isinstance(p, TextPart):
                texts.append(p.text)
            elif isinstance(p, ReasoningPart):
                path = f"messages[{i}].content[{j}]"
                if p.provider == self.tag:
                    self.losses.add(
                        path,
                        "reasoning without its item id",
                        "dropped: a reasoning item is sent back with the id it came with",
                    )
                else:
                    self.losses.add(
                        path,
                        f"reasoning from {p.provider or 'an unnamed provider'}",
                        DROP_OTHER_REASONING,
                    )
            else:
                self.losses.add(
                    f"messages[{i}].content[{j}]",
                    f"{type(p).__name__} in an assistant message",
                    "dropped: assistant messages carry text only",
                )
        out: list[dict[str, Any]] = []
        text = "".join(texts)
        if text or not calls:
            out.append({"role": "assistant", "content": text})
        for k, call in enumerate(calls):
            d = self.call(call, i, k)
            if d is not None:
                out.append(d)
                sent.append(call)
        return out

    def laid_out(
        self,
        layout: Sequence[Any],
        parts: Sequence[ContentPart],
        calls: Sequence[ToolCall | InvalidToolCall],
        sent: list[ToolCall | InvalidToolCall],
        i: int,
    ) -> list[dict[str, Any]] | None:
        """The items of a turn laid out as they were parsed; None when they no longer fit."""
        by_id = {c.id: (k, c) for k, c in enumerate(calls)}
        out: list[dict[str, Any]] = []
        pos = 0
        for entry in layout:
            if entry.__class__ is not FrozenDict and not isinstance(entry, Mapping):
                return None
            if "call" in entry:
                found = by_id.pop(entry["call"], None) if isinstance(entry["call"], str) else None
                if found is None:
                    return None
                d = self.call(found[1], i, found[0])
                if d is not None:
                    out.append(d)
                    sent.append(found[1])
            elif "message" in entry:
                head = entry["message"]
                skeleton = entry.get("parts")
                if not isinstance(head, Mapping):
                    return None
                d = _plain(head)
                if skeleton is None:
                    d["content"], pos = _take_text(parts, pos)
                elif isinstance(skeleton, (list, tuple)):
                    content = []
                    for s in skeleton:
                        part = thaw(s)
                        if (
                            isinstance(part, dict)
                            and part.get("type") in TEXT_PARTS
                            and "text" not in part
                        ):
                            part["text"], pos = _take_text(parts, pos)
                        content.append(part)
                    d["content"] = content
                else:
                    return None
                out.append(d)
            elif "reasoning" in entry:
                if pos >= len(parts):
                    return None
                p = parts[pos]
                if not isinstance(p, ReasoningPart) or p.provider != self.tag:
                    return None
                pos += 1
                d = _reasoning(entry, p)
                if d is None:
                    return None
                out.append(d)
            else:
                return None
        if pos != len(parts) or by_id:
            return None
        return out


def _head(own: Mapping[str, Any]) -> dict[str, Any]:
    """A message item's kept keys (``type``, ``id``, ``status``...) as a new dict."""
    item = own.get(ITEM) if own else None
    return _plain(item) if isinstance(item, Mapping) else {}


def _reasoning(entry: Mapping[str, Any], p: ReasoningPart) -> dict[str, Any] | None:
    """A reasoning item: its kept keys, its texts split as they were, its signature."""
    head = entry.get("reasoning")
    if not isinstance(head, Mapping):
        return None
    d: dict[str, Any] = thaw(head)
    slots = [
        part
        for key in d
        if key in ("summary", "content") and isinstance(d[key], list)
        for part in d[key]
        if isinstance(part, dict)
    ]
    split = entry.get("split")
    text = p.text
    if (
        isinstance(split, (list, tuple))
        and len(split) == len(slots)
        and all(type(n) is int and n >= 0 for n in split)
        and sum(split) == len(text)
    ):
        at = 0
        for part, n in zip(slots, split, strict=True):
            part["text"] = text[at : at + n]
            at += n
    elif slots:
        for k, part in enumerate(slots):
            part["text"] = text if k == 0 else ""
    elif text:
        d["summary"] = [{"type": "summary_text", "text": text}]
    if "summary" not in d:
        d["summary"] = []
    if p.signature is not None:
        d["encrypted_content"] = p.signature
    return d


# hot path: the usual messages (exact classes, no name or extras) written inline
_FAST: Final = frozenset((UserMessage, AssistantMessage, ToolCallMessage, ToolResultMessage))


def format_body(
    messages: Sequence[Message],
    tools: Sequence[ToolDefinition | Mapping[str, Any]],
    tag: str,
    previous_response_id: str | bool | None = None,
) -> tuple[dict[str, Any], list[Loss]]:
    """The request body for ``messages`` and every loss."""
    f = Formatter(tag)
    items: Sequence[Any] = cast("Sequence[Any]", messages)
    body: dict[str, Any] = {}
    start = 0
    first = items[0] if items else None
    instructions: str | None = None
    found = None
    if previous_response_id is not None and previous_response_id is not False:
        if not isinstance(previous_response_id, (str, bool)):
            raise ValidationError(
                f"expected a response id or True, got {type(previous_response_id).__name__}",
                "previous_response_id",
            )
        found = _stored(messages, tag, previous_response_id)
    if first is not None and getattr(first, "role", None) in (_SYSTEM, _DEVELOPER):
        own = first.extras.get(tag) if first.extras else None
        # a hinted one goes in ``input`` (instructions take no parts), unless continued
        # from a stored response (then the instructions are sent again, without it)
        if not (isinstance(own, Mapping) and own.get(INPUT)) and (
            first.cache is None or found is not None
        ):
            if first.cache is not None:
                hint_loss(
                    f.losses, 0, "dropped: continued, it is sent as instructions, which take none"
                )
            own = f.own(first, 0) if first.extras else EMPTY
            if first.name is not None:
                f.losses.add(
                    "messages[0].name", "message name", "dropped: instructions have no name"
                )
            instructions = first.text
            start = 1
    if found is not None:
        k, rid = found
        for j in range(start, k + 1):  # the stored response holds them, their hints too
            if items[j].cache is not None:
                hint_loss(f.losses, j, _STORED_RULE)
        start = k + 1
        body["previous_response_id"] = rid
        stored = messages[k]
        f.open_calls = [*stored.tool_calls, *stored.invalid_tool_calls] or None
        f.open_at = k
    out = f.out
    for i in range(start, len(items)):
        m = items[i]
        t = type(m)
        if t in _FAST and m.name is None and not m.extras and m.cache is None:
            c = m.content
            # hot path: string content of the usual classes, no opaque call state
            if t is ToolResultMessage:
                if c.__class__ is str and not m.is_error:
                    cid = m.tool_call_id
                    if f.paired(cid):
                        f.answered.append(cid)
                        out.append({"type": "function_call_output", "call_id": cid, "output": c})
                        continue
            elif c is None or c.__class__ is str:
                if t is UserMessage or t is AssistantMessage:
                    if f.open_calls is not None:
                        if len(f.answered) < len(f.open_calls):
                            f.answer_pending()
                        f.open_calls = None
                    out.append({"role": "user" if t is UserMessage else "assistant", "content": c})
                    continue
                if not m.invalid_tool_calls:
                    calls = m.tool_calls
                    for tc in calls:
                        if tc.extras:
                            break
                    else:
                        if f.open_calls is not None and len(f.answered) < len(f.open_calls):
                            f.answer_pending()
                        if c:
                            out.append({"role": "assistant", "content": c})
                        for tc in calls:
                            out.append(
                                {
                                    "type": "function_call",
                                    "call_id": tc.id,
                                    "name": tc.name,
                                    "arguments": tc.arguments_json,
                                }
                            )
                        f.open_calls, f.open_at, f.answered = calls, i, []
                        continue
        f.message(m, i)
    calls = f.open_calls
    if calls is not None and f.answered and len(f.answered) < len(calls):
        # a last turn with some results: the rest are answered; one with none at all
        # is left pending (a tool may still be running), as repair does
        f.answer_pending()
    if instructions is not None:
        body["instructions"] = instructions
    body["input"] = out
    if len(out) == 1 and out[0] is f.string_input:
        body["input"] = out[0]["content"]
    if tools:
        body["tools"] = format_tools(tools, f.losses)
    return body, f.losses.items
