"""Canonical messages to a Responses request: ``{"input": [...], "instructions"?, "tools"?}``.

Rules (each that loses something is a Loss):

* The first message, when it is a system or developer message, is
  ``instructions`` (unless it was read from ``input``, then it goes back there);
  later ones are ``system`` / ``developer`` message items in place.
* User parts: text ``input_text``; images ``input_image`` (URL or data URL, with
  ``detail``, ``"auto"`` when the part has none); files ``input_file`` (data URL, file id, filename), an image file
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

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from ..._build import text_part
from ..._frozen import EMPTY, thaw
from ..._kinds import ASSISTANT, DEVELOPER, SYSTEM, TOOL_CALL, TOOL_RESULT, USER, kind_or_none
from ..._message import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
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
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import ValidationError, ident
from .._base import (
    DROP_OTHER_REASONING,
    Loss,
    Losses,
    foreign_state_losses,
    is_mapping,
    kind_at,
    plain_dict,
)
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

_UNANSWERED: Final = "Error: " + UNANSWERED_TEXT

#: The parts a ``prompt_cache_breakpoint`` may go on.
_MARKABLE: Final = frozenset(("input_text", "input_image", "input_file"))
#: The detail of an image without one: the API's default, and required by the SDK's type.
_AUTO: Final = "auto"
_NO_PART: Final = no_part_rule("input part")
_ASSISTANT_RULE: Final = input_only_rule("openai_responses")
_TTL_RULE: Final = breakpoint_ttl_rule("openai_responses")
_STORED_RULE: Final = "dropped: continued from a stored response, which holds it"
_IS_ERROR_RULE: Final = (
    "the wire has no error flag: the text is sent, prefixed 'Error: ' unless it already starts so"
)


def format_body(
    messages: Sequence[Message],
    tools: Sequence[ToolDefinition | Mapping[str, Any]],
    tag: str,
    previous_response_id: str | bool | None = None,
) -> tuple[dict[str, Any], list[Loss]]:
    """The request body for ``messages`` and every loss."""
    f = Formatter(tag)
    body: dict[str, Any] = {}
    found = _continued(messages, tag, previous_response_id)
    instructions = f.instructions(messages, found is not None)
    start = 0 if instructions is None else 1
    if found is not None:
        k, body["previous_response_id"] = found
        f.continue_after(messages, start, k)
        start = k + 1
    for i in range(start, len(messages)):
        f.message(messages[i], i)
    calls = f.open_calls
    if calls is not None and f.answered and len(f.answered) < len(calls):
        # a last turn with some results: the rest are answered; one with none at all
        # is left pending (a tool may still be running), as repair does
        f.answer_pending()
    if instructions is not None:
        body["instructions"] = instructions
    body["input"] = f.out
    if len(f.out) == 1 and f.out[0] is f.string_input:
        body["input"] = f.out[0]["content"]
    if tools:
        body["tools"] = format_tools(tools, f.losses)
    return body, f.losses.items


def _continued(
    messages: Sequence[Message], tag: str, wanted: str | bool | None
) -> tuple[int, str] | None:
    """The position and id of the stored response to continue from (None: replay all)."""
    if wanted is None or wanted is False:
        return None
    if not isinstance(wanted, (str, bool)):
        raise ValidationError(
            f"expected a response id or True, got {type(wanted).__name__}", "previous_response_id"
        )
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


class Formatter:
    """One request being formatted (a provider's tag, the items and the losses)."""

    __slots__ = (
        "answered",
        "losses",
        "open_at",
        "open_calls",
        "open_ids",
        "out",
        "string_input",
        "tag",
    )

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.losses = Losses()
        self.out: list[dict[str, Any]] = []
        # the calls of the last assistant turn, where it is, their ids and the ids answered
        self.open_calls: Sequence[ToolCall | InvalidToolCall] | None = None
        self.open_at = 0
        self.open_ids: list[str] = []
        self.answered: list[str] = []
        # a user message read from a string ``input``: alone, it goes back as one
        self.string_input: dict[str, Any] | None = None

    # -- the request around the messages ------------------------------------------

    def instructions(self, messages: Sequence[Message], continued: bool) -> str | None:
        """The text of a leading system or developer message sent as ``instructions``.

        One read from ``input`` goes back there; so does a hinted one (instructions take
        no parts), unless the request is continued from a stored response: then the
        instructions are sent again, without the hint."""
        first = messages[0] if messages else None
        if first is None or kind_or_none(first) not in (SYSTEM, DEVELOPER):
            return None
        own = first.extras.get(self.tag) if first.extras else None
        if isinstance(own, Mapping) and own.get(INPUT):
            return None
        if first.cache is not None:
            if not continued:
                return None
            rule = "dropped: continued, it is sent as instructions, which take none"
            hint_loss(self.losses, 0, rule)
        if first.extras:
            self.own(first, 0)  # the state of other providers is a loss
        if first.name is not None:
            rule = "dropped: instructions have no name"
            self.losses.add("messages[0].name", "message name", rule)
        return first.text

    def continue_after(self, messages: Sequence[Message], start: int, k: int) -> None:
        """Continue from the stored response of ``messages[k]``: what it holds is not sent
        (their hints are a loss), and its calls are the open turn."""
        for j in range(start, k + 1):
            if messages[j].cache is not None:
                hint_loss(self.losses, j, _STORED_RULE)
        stored = messages[k]
        self.open([*stored.tool_calls, *stored.invalid_tool_calls], k)

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

    def open(self, calls: Sequence[ToolCall | InvalidToolCall], i: int) -> None:
        """The calls of the assistant turn ``messages[i]`` wait for their results."""
        self.open_calls, self.open_at, self.answered = calls or None, i, []
        self.open_ids = [c.id for c in calls]

    def close_turn(self) -> None:
        """Before a user or assistant message: each call of the last turn left without a
        result gets an error result."""
        calls = self.open_calls
        if calls is not None and len(self.answered) < len(calls):
            self.answer_pending()
        self.open_calls = None

    def answer_pending(self) -> None:
        """An error result for each call of the last turn left without one."""
        calls = self.open_calls or ()
        rule = "answered with an error result: openai_responses requires a result for every call"
        for k, call in enumerate(calls):
            if call.id in self.answered:
                continue
            self.out.append(
                {"type": "function_call_output", "call_id": call.id, "output": _UNANSWERED}
            )
            self.losses.add(
                f"messages[{self.open_at}].tool_calls[{k}]", "unanswered tool call", rule
            )
        self.open_calls = None

    def paired(self, call_id: str) -> bool:
        """True when ``call_id`` answers a call of the last turn not answered yet."""
        if self.open_calls is None or call_id in self.answered:
            return False
        return call_id in self.open_ids

    # -- one writer per message kind ----------------------------------------------

    def message(self, m: Message, i: int) -> None:
        """Append the items of one message."""
        kind = kind_at(m, i)
        own = self.own(m, i) if m.extras else EMPTY
        if m.name is not None:
            rule = "dropped: Responses input items have no name"
            self.losses.add(f"messages[{i}].name", "message name", rule)
        _WRITERS[kind](self, m, i, own)

    def system(self, m: SystemMessage, i: int, own: Mapping[str, Any]) -> None:
        self.instruction(m, "system", i, own)

    def developer(self, m: DeveloperMessage, i: int, own: Mapping[str, Any]) -> None:
        self.instruction(m, "developer", i, own)

    def instruction(self, m: Message, role: str, i: int, own: Mapping[str, Any]) -> None:
        """A system or developer message item (its text split as it was read, if it was)."""
        d = _head(own)
        d["role"] = role
        d["content"] = _split(m.text, own)
        self.out.append(d)
        if m.cache is not None:
            self.hint(d, "content", m.cache, i)

    def user(self, m: UserMessage, i: int, own: Mapping[str, Any]) -> None:
        """A user message item."""
        self.close_turn()
        c = m.content
        d = _head(own)
        d["role"] = "user"
        if isinstance(c, str):
            d["content"] = c
            if own and own.get(INPUT) is True:
                self.string_input = d
        else:
            d["content"] = self.parts(c, i, own, "messages") or ""
        self.out.append(d)
        if m.cache is not None:
            self.hint(d, "content", m.cache, i)

    def assistant(self, m: AssistantMessage, i: int, own: Mapping[str, Any]) -> None:
        """The items of an assistant turn (with tool calls or not)."""
        self.close_turn()
        sent = self.turn(m, i, own)
        if sent:
            self.open(sent, i)
        if m.cache is not None:
            hint_loss(self.losses, i, _ASSISTANT_RULE)

    def tool_result(self, m: ToolResultMessage, i: int, own: Mapping[str, Any]) -> None:
        """A ``function_call_output`` item, when it answers a call of the last turn."""
        if not self.paired(m.tool_call_id):
            rule = "dropped: openai_responses rejects an output without its call"
            self.losses.add(f"messages[{i}]", "tool result that answers no open call", rule)
            if m.cache is not None:
                hint_loss(self.losses, i, NOT_SENT)
            return
        self.answered.append(m.tool_call_id)
        c = m.content
        output: Any = c if isinstance(c, str) else (self.parts(c, i, own, "outputs") or "")
        if m.is_error:
            self.losses.add(f"messages[{i}].is_error", "is_error flag", _IS_ERROR_RULE)
            output = _error_output(output)
        d = _head(own)
        d["type"] = "function_call_output"
        d["call_id"] = m.tool_call_id
        d["output"] = output
        self.out.append(d)
        if m.cache is not None:
            self.hint(d, "output", m.cache, i)

    # -- the pieces of an item ------------------------------------------------------

    def hint(self, d: dict[str, Any], key: str, hint: CacheHint, i: int) -> None:
        """Put a message's cache hint on the last input part of its item (``d[key]``); a
        part that kept its own breakpoint keeps it (a Loss when it differs)."""
        value = openai_breakpoint()
        d[key], placed = mark_last(d[key], BREAKPOINT_KEY, value, "input_text", _input_part)
        if d is self.string_input and isinstance(d[key], list):
            self.string_input = None  # a list of parts now: sent as an item
        if missed(self.losses, i, placed, value, BREAKPOINT_KEY, _NO_PART):
            return
        if hint.ttl is not None:
            self.losses.add(f"messages[{i}].cache.ttl", "cache hint ttl", _TTL_RULE)

    def part(self, p: ContentPart, i: int, j: int, where: str) -> dict[str, Any] | None:
        """One user or tool-output content part; None (and a loss) when it cannot go."""
        if isinstance(p, TextPart):
            return {"type": "input_text", "text": p.text}
        if isinstance(p, ImagePart):
            return {"type": "input_image", "image_url": p.data_url, "detail": p.detail or _AUTO}
        if isinstance(p, FilePart):
            return _file_item(p)
        what, rule = _unsendable(p, where)
        self.losses.add(f"messages[{i}].content[{j}]", what, rule)
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
        for d in sent:  # the SDK's ResponseInputImageParam requires a detail
            if d.get("type") == "input_image":
                d.setdefault("detail", _AUTO)
        return sent

    def call(self, c: ToolCall | InvalidToolCall, i: int, k: int) -> dict[str, Any] | None:
        """A ``function_call`` item (an invalid call as the model wrote it)."""
        own = self.call_state(c, i, k) if c.extras else None
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
        if own is not None:
            d.update(plain_dict(own))
        d["call_id"] = c.id
        d["name"] = name
        d["arguments"] = args
        return d

    def call_state(self, c: ToolCall | InvalidToolCall, i: int, k: int) -> Mapping[str, Any] | None:
        """This tag's state on a call (its item keys); other providers' state is a loss."""
        own = None
        for key, value in c.extras.items():
            if key == self.tag:
                own = value if is_mapping(value) else None
            else:
                self.losses.add(
                    f"messages[{i}].tool_calls[{k}]",
                    f"opaque state from {key} on a tool call",
                    f"dropped: only re-sent to {key}",
                )
        return own

    def turn(
        self, m: AssistantMessage, i: int, own: Mapping[str, Any]
    ) -> list[ToolCall | InvalidToolCall]:
        """Append the items of an assistant turn; returns the calls it sent."""
        calls: list[ToolCall | InvalidToolCall] = [*m.tool_calls, *m.invalid_tool_calls]
        items: list[dict[str, Any]] | None = None
        sent: list[ToolCall | InvalidToolCall] = []
        layout = own.get(ITEMS) if own else None
        if isinstance(layout, (list, tuple)):
            noted = len(self.losses.items)
            items = self.laid_out(layout, _parts(m.content), calls, sent, i)
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
            items = self.plain(m.content, calls, sent, i)
        if own and own.get(UNKNOWN):
            _reinsert(items, own)
        self.out.extend(items)
        return sent

    def plain(
        self,
        content: str | Sequence[ContentPart] | None,
        calls: Sequence[ToolCall | InvalidToolCall],
        sent: list[ToolCall | InvalidToolCall],
        i: int,
    ) -> list[dict[str, Any]]:
        """An assistant turn without a layout: its text as one message, then its calls."""
        if content is None or isinstance(content, str):
            text = content or ""
        else:
            text = self.text_of(content, i)
        out: list[dict[str, Any]] = []
        if text or not calls:
            out.append({"role": "assistant", "content": text})
        for k, call in enumerate(calls):
            d = self.call(call, i, k)
            if d is not None:
                out.append(d)
                sent.append(call)
        return out

    def text_of(self, parts: Sequence[ContentPart], i: int) -> str:
        """The text of an assistant turn's parts; its reasoning and other parts are a loss
        (this provider's reasoning goes back only with its item id, in a layout)."""
        texts: list[str] = []
        for j, p in enumerate(parts):
            if isinstance(p, TextPart):
                texts.append(p.text)
                continue
            path = f"messages[{i}].content[{j}]"
            if isinstance(p, ReasoningPart) and p.provider == self.tag:
                rule = "dropped: a reasoning item is sent back with the id it came with"
                self.losses.add(path, "reasoning without its item id", rule)
            elif isinstance(p, ReasoningPart):
                what = f"reasoning from {p.provider or 'an unnamed provider'}"
                self.losses.add(path, what, DROP_OTHER_REASONING)
            else:
                what = f"{type(p).__name__} in an assistant message"
                self.losses.add(path, what, "dropped: assistant messages carry text only")
        return "".join(texts)

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
        taken = _Parts(parts)
        out: list[dict[str, Any]] = []
        for entry in layout:
            d: dict[str, Any] | None
            if not isinstance(entry, Mapping):
                return None
            if "call" in entry:
                call_id = entry["call"]
                found = by_id.pop(call_id, None) if isinstance(call_id, str) else None
                if found is None:
                    return None
                d = self.call(found[1], i, found[0])
                if d is not None:
                    sent.append(found[1])
            elif "message" in entry:
                d = _message_item(entry, taken)
                if d is None:
                    return None
            elif "reasoning" in entry:
                p = taken.reasoning(self.tag)
                d = None if p is None else _reasoning(entry, p)
                if d is None:
                    return None
            else:
                return None
            if d is not None:
                out.append(d)
        if not taken.done() or by_id:
            return None
        return out


_Writer = Callable[[Formatter, Any, int, Mapping[str, Any]], None]

#: The writer of each message kind.
_WRITERS: Final[dict[int, _Writer]] = {
    SYSTEM: Formatter.system,
    DEVELOPER: Formatter.developer,
    USER: Formatter.user,
    ASSISTANT: Formatter.assistant,
    TOOL_CALL: Formatter.assistant,
    TOOL_RESULT: Formatter.tool_result,
}


class _Parts:
    """The parts of an assistant turn, taken in order as its layout places them."""

    __slots__ = ("at", "parts")

    def __init__(self, parts: Sequence[ContentPart]) -> None:
        self.parts = parts
        self.at = 0

    def text(self) -> str:
        """The text of the next part when it is a text part (taken), else ``""``."""
        if self.at < len(self.parts):
            p = self.parts[self.at]
            if isinstance(p, TextPart):
                self.at += 1
                return p.text
        return ""

    def reasoning(self, tag: str) -> ReasoningPart | None:
        """The next part (taken) when it is reasoning of ``tag``, else None."""
        if self.at < len(self.parts):
            p = self.parts[self.at]
            if isinstance(p, ReasoningPart) and p.provider == tag:
                self.at += 1
                return p
        return None

    def done(self) -> bool:
        """Whether every part was taken."""
        return self.at == len(self.parts)


def _parts(content: str | Sequence[ContentPart] | None) -> Sequence[ContentPart]:
    """An assistant turn's content as parts (empty text is no part: a layout slot without
    its text part takes "")."""
    if not content:
        return ()
    return (text_part(content),) if isinstance(content, str) else content


def _message_item(entry: Mapping[str, Any], taken: _Parts) -> dict[str, Any] | None:
    """A message item of a layout: its kept keys and parts, its texts taken in order."""
    head = entry["message"]
    skeleton = entry.get("parts")
    if not isinstance(head, Mapping):
        return None
    d = plain_dict(head)
    if skeleton is None:
        d["content"] = taken.text()
    elif isinstance(skeleton, (list, tuple)):
        content = []
        for s in skeleton:
            part = thaw(s)
            if isinstance(part, dict) and part.get("type") in TEXT_PARTS and "text" not in part:
                part["text"] = taken.text()
            content.append(part)
        d["content"] = content
    else:
        return None
    return d


def _head(own: Mapping[str, Any]) -> dict[str, Any]:
    """A message item's kept keys (``type``, ``id``, ``status``...) as a new dict."""
    item = own.get(ITEM) if own else None
    return {} if item is None or not is_mapping(item) else plain_dict(item)


def _split(text: str, own: Mapping[str, Any]) -> str | list[dict[str, Any]]:
    """System or developer text, as the ``input_text`` parts it was read from (with their
    kept keys) when their lengths were kept."""
    split = own.get(SPLIT)
    if not (
        isinstance(split, (list, tuple)) and split and all(type(n) is int and n >= 0 for n in split)
    ):
        return text
    if sum(split) != len(text):
        return [{"type": "input_text", "text": text}]
    content, at = [], 0
    for n in split:
        content.append({"type": "input_text", "text": text[at : at + n]})
        at += n
    for record in _kept(own, KEYS):  # e.g. a breakpoint on another part
        j, keys = record["index"], record.get("keys")
        if j < len(content) and isinstance(keys, Mapping):
            content[j].update(thaw(keys))
    return content


def _error_output(output: str | list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """A tool output marked as a failure: ``Error: `` in front unless it already says so."""
    if isinstance(output, str):
        return output if output[:5].lower() == "error" else "Error: " + output
    first = output[0]
    if first.get("type") == "input_text" and str(first.get("text", ""))[:5].lower() == "error":
        return output
    return [{"type": "input_text", "text": "Error: "}, *output]


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


def _file_item(p: FilePart) -> dict[str, Any]:
    """An ``input_file`` part, or an ``input_image`` for a file that is an image."""
    if p.media_type is not None and p.media_type.startswith("image/"):
        if p.data is not None:
            return {"type": "input_image", "image_url": data_url(p.media_type, p.data)}
        return {"type": "input_image", "file_id": p.file_id}
    d: dict[str, Any] = {"type": "input_file"}
    if p.data is not None:
        d["file_data"] = data_url(p.media_type, p.data) if p.media_type else p.data
    if p.file_id:
        d["file_id"] = p.file_id
    if p.filename:
        d["filename"] = p.filename
    return d


def _unsendable(p: object, where: str) -> tuple[str, str]:
    """What a loss says of a part that user or tool-output parts (``where``) cannot carry,
    and its rule."""
    if isinstance(p, AudioPart):
        return "audio part", f"dropped: Responses {where} take no audio"
    if isinstance(p, ReasoningPart):
        return "reasoning in a user or tool message", "dropped: not sent as text"
    what = f"{type(p).__name__} in a user or tool message"
    return what, "dropped: not a content part this wire carries"


def _input_part(part: Mapping[str, Any]) -> bool:
    """Whether a part may carry a ``prompt_cache_breakpoint``."""
    return part.get("type") in _MARKABLE


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
