"""Formatting canonical messages as a Cohere v2 chat request (``messages``, ``documents``).

One writer per message kind, and the pairing of tool results with the calls of the
turn before them (the API rejects a result that answers no call, and a call left
without a result once the conversation goes on). Every rule that loses something
is a Loss; the rules are listed in the package docstring.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from ..._frozen import EMPTY, thaw
from ..._json import loads
from ..._kinds import ASSISTANT, DEVELOPER, SYSTEM, TOOL_CALL, TOOL_RESULT, USER
from ..._message import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
)
from ..._parts import ContentPart, ImagePart, ReasoningPart, TextPart
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import MessageError
from .._base import Losses, kind_at
from .._cache_hints import hint_loss, no_breakpoints
from .._chat_completions._readers import (
    IS_ERROR_RULE,
    UNANSWERED,
    call_state_losses,
    error_prefixed,
    own_reasoning,
    put_call_keys,
    reinsert_unknown,
)
from ._common import NAME, own_state

__all__ = ["format_messages"]

_USER_PARTS: Final = "dropped: cohere user messages take text and images only"
_ASSISTANT_PARTS: Final = "dropped: cohere assistant messages take text and thinking only"
_TOOL_PARTS: Final = "dropped: cohere tool results take text and documents only"


def format_messages(messages: Sequence[Message], tag: str) -> tuple[dict[str, Any], Losses]:
    """The request body's ``messages`` (and ``documents`` when a message kept some)."""
    request = _Request(tag)
    request.write(messages)
    body: dict[str, Any] = {"messages": request.out}
    if request.documents:
        body["documents"] = request.documents
    return body, request.losses


class _Request:
    """One request being written: the wire messages, the losses, the open tool turn."""

    __slots__ = ("answered", "documents", "losses", "open", "open_at", "out", "tag")

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.losses = Losses()
        self.out: list[dict[str, Any]] = []
        self.documents: list[Any] = []
        # the calls of the last assistant turn still waiting for a result: (group, k, id)
        self.open: list[tuple[str, int, str]] = []
        self.open_at = 0
        self.answered = 0

    def write(self, messages: Sequence[Message]) -> None:
        """Write every message; a last turn with some results gets the rest answered (one
        with none is left pending: its tools may still be running)."""
        for i, m in enumerate(messages):
            kind = kind_at(m, i)
            own = own_state(m, self.tag, i, self.losses) if m.extras else EMPTY
            self.common(m, i, own)
            _WRITERS[kind](self, m, i, own)
        if self.open and self.answered:
            self.answer_pending()

    def common(self, m: Message, i: int, own: Mapping[str, Any]) -> None:
        """What every message shares: its name and cache hint (lost), kept documents."""
        if m.name is not None:
            self.losses.add(
                f"messages[{i}].name", "message name", "dropped: cohere messages take no name"
            )
        if m.cache is not None:
            hint_loss(self.losses, i, no_breakpoints(NAME, "it caches prompt prefixes by itself"))
        docs = own.get("documents")
        if isinstance(docs, (list, tuple)):
            self.documents.extend(thaw(docs))

    # -- one writer per message kind -----------------------------------------------------

    def system(self, m: Message, i: int, own: Mapping[str, Any]) -> None:
        self.close_turn()
        if isinstance(m, DeveloperMessage):
            rule = "sent as a system message: cohere has no developer role"
            self.losses.add(f"messages[{i}]", "developer role", rule)
        text = m.content if isinstance(m, (SystemMessage, DeveloperMessage)) else m.text
        self.out.append({"role": "system", "content": _split_text(text, own)})

    def user(self, m: Message, i: int, own: Mapping[str, Any]) -> None:
        self.close_turn()
        c = m.content if isinstance(m, UserMessage) else ""
        content: Any = c
        if not isinstance(c, str):
            blocks = reinsert_unknown(self.user_blocks(c, i), own)
            content = blocks if blocks else ""
        self.out.append({"role": "user", "content": content})

    def assistant(self, m: Message, i: int, own: Mapping[str, Any]) -> None:
        self.close_turn()
        assert isinstance(m, AssistantMessage)
        d = self.assistant_turn(m, i, own)
        calls: Sequence[ToolCall] = m.tool_calls
        bad: Sequence[InvalidToolCall] = m.invalid_tool_calls
        if calls or bad:
            d["tool_calls"] = self.call_entries(calls, bad, i)
            self.open = [("tool_calls", k, c.id) for k, c in enumerate(calls)]
            self.open += [("invalid_tool_calls", k, c.id) for k, c in enumerate(bad)]
            self.open_at, self.answered = i, 0
        self.out.append(d)

    def tool_result(self, m: Message, i: int, own: Mapping[str, Any]) -> None:
        assert isinstance(m, ToolResultMessage)
        if not self.pair(m.tool_call_id):
            rule = "dropped: cohere rejects a tool message without its call"
            self.losses.add(f"messages[{i}]", "tool result that answers no open call", rule)
            return
        c = m.content
        content: Any = c if isinstance(c, str) else self.tool_blocks(c, i, own)
        if m.is_error:
            content = _error_marked(content)
            self.losses.add(f"messages[{i}].is_error", "error flag", IS_ERROR_RULE)
        self.out.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": content})

    # -- content ------------------------------------------------------------------------

    def user_blocks(self, parts: Sequence[ContentPart], i: int) -> list[dict[str, Any]]:
        """``text`` and ``image_url`` blocks; anything else is a loss."""
        out: list[dict[str, Any]] = []
        for j, p in enumerate(parts):
            if isinstance(p, TextPart):
                out.append({"type": "text", "text": p.text})
            elif isinstance(p, ImagePart):
                image: dict[str, Any] = {"url": p.data_url}
                if p.detail is not None:
                    image["detail"] = p.detail
                out.append({"type": "image_url", "image_url": image})
            else:
                self.losses.add(f"messages[{i}].content[{j}]", _part_name(p), _USER_PARTS)
        return out

    def assistant_turn(self, m: AssistantMessage, i: int, own: Mapping[str, Any]) -> dict[str, Any]:
        """An assistant message without its calls: ``content`` (a string, or text and
        thinking blocks), ``tool_plan`` (the reasoning part read from one), citations."""
        d: dict[str, Any] = {"role": "assistant"}
        calls = bool(m.tool_calls or m.invalid_tool_calls)
        c = m.content
        if c is None or isinstance(c, str):
            if c or not calls:
                d["content"] = "" if c is None else c
            return self.citations(d, own)
        plan_at = own.get("plan")
        blocks, plan = self.assistant_blocks(c, i, plan_at if type(plan_at) is int else -1)
        if plan is not None:
            d["tool_plan"] = plan
        blocks = reinsert_unknown(blocks, own)
        if own.get("string") is True and len(blocks) <= 1 and _text_only(blocks):
            d["content"] = blocks[0]["text"] if blocks else ""  # read from a string
            return self.citations(d, own)
        if blocks:
            d["content"] = blocks
        elif not (calls or plan is not None):
            d["content"] = ""  # nothing to send: an empty answer
        return self.citations(d, own)

    def citations(self, d: dict[str, Any], own: Mapping[str, Any]) -> dict[str, Any]:
        """``d`` with the citations this provider kept for the turn."""
        citations = own.get("citations")
        if isinstance(citations, (list, tuple)) and citations:
            d["citations"] = thaw(citations)
        return d

    def assistant_blocks(
        self, parts: Sequence[ContentPart], i: int, plan_at: int
    ) -> tuple[list[dict[str, Any]], str | None]:
        """The ``text`` and ``thinking`` blocks of an assistant turn, and its tool plan:
        the reasoning part at ``plan_at`` when it is this provider's."""
        blocks: list[dict[str, Any]] = []
        plan: str | None = None
        for j, p in enumerate(parts):
            path = f"messages[{i}].content[{j}]"
            if isinstance(p, TextPart):
                blocks.append({"type": "text", "text": p.text})
            elif isinstance(p, ReasoningPart):
                if own_reasoning(p, self.tag, False, NAME, path, self.losses):
                    if j == plan_at:
                        plan = p.text
                    else:
                        blocks.append({"type": "thinking", "thinking": p.text})
            else:
                self.losses.add(path, _part_name(p), _ASSISTANT_PARTS)
        return blocks, plan

    def tool_blocks(
        self, parts: Sequence[ContentPart], i: int, own: Mapping[str, Any]
    ) -> list[dict[str, Any]] | str:
        """``text`` and ``document`` blocks (a text part that was a document goes back as
        one); anything else is a loss."""
        documents = _document_entries(own)
        out: list[dict[str, Any]] = []
        for j, p in enumerate(parts):
            path = f"messages[{i}].content[{j}]"
            if not isinstance(p, TextPart):
                self.losses.add(path, _part_name(p), _TOOL_PARTS)
            elif j in documents:
                out.append(_document(p.text, documents[j], path, self.losses))
            else:
                out.append({"type": "text", "text": p.text})
        out = reinsert_unknown(out, own)
        return out if out else ""

    # -- tool calls and their results ----------------------------------------------------

    def call_entries(
        self, calls: Sequence[ToolCall], bad: Sequence[InvalidToolCall], i: int
    ) -> list[dict[str, Any]]:
        """The ``tool_calls`` entries: valid calls, then invalid ones as the model wrote them
        (the wire takes the arguments as a string)."""
        entries = [_entry(c.id, c.name, c.arguments_json) for c in calls]
        entries += [_entry(c.id, c.name or "", c.raw_arguments) for c in bad]
        if any(c.extras for c in calls):
            call_state_losses(calls, self.tag, i, self.losses)
            for entry, c in zip(entries, calls, strict=False):
                put_call_keys(entry, c.extras, self.tag)
        if any(c.extras for c in bad):
            call_state_losses(bad, self.tag, i, self.losses, "invalid_tool_calls")
        return entries

    def pair(self, call_id: str) -> bool:
        """Whether ``call_id`` answers an open call (noted as answered if so)."""
        for k, (_, _, cid) in enumerate(self.open):
            if cid == call_id:
                del self.open[k]
                self.answered += 1
                return True
        return False

    def close_turn(self) -> None:
        """Before any message but a tool result: the calls still open get error results."""
        if self.open:
            self.answer_pending()
        self.open = []

    def answer_pending(self) -> None:
        rule = "answered with an error result: cohere requires a result for every call"
        for group, k, cid in self.open:
            self.out.append({"role": "tool", "tool_call_id": cid, "content": UNANSWERED})
            self.losses.add(f"messages[{self.open_at}].{group}[{k}]", "unanswered tool call", rule)
        self.open = []


def _entry(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


def _text_only(blocks: Sequence[Mapping[str, Any]]) -> bool:
    return all(b.get("type") == "text" for b in blocks)


def _part_name(p: ContentPart) -> str:
    return type(p).__name__.removesuffix("Part").lower() + " part"


def _split_text(text: str, own: Mapping[str, Any]) -> str | list[dict[str, Any]]:
    """A system text, split into the text blocks it was read from when their lengths are
    kept and still add up to it."""
    lengths = own.get("lengths")
    if not isinstance(lengths, (list, tuple)) or not all(type(n) is int for n in lengths):
        return text
    if sum(lengths) != len(text):
        return text
    out, start = [], 0
    for n in lengths:
        out.append({"type": "text", "text": text[start : start + n]})
        start += n
    return out


def _document_entries(own: Mapping[str, Any]) -> dict[int, Mapping[str, Any]]:
    """The kept document blocks of a tool result, by content index."""
    kept = own.get("document_blocks")
    out: dict[int, Mapping[str, Any]] = {}
    for item in kept if isinstance(kept, (list, tuple)) else ():
        if isinstance(item, Mapping) and type(item.get("index")) is int:
            out[item["index"]] = item
    return out


def _document(text: str, entry: Mapping[str, Any], path: str, losses: Losses) -> dict[str, Any]:
    """A ``document`` block: its data (the object again when it was one), its kept keys."""
    data: Any = text
    if entry.get("object") is True:
        try:
            data = loads(text)
        except MessageError:
            data = None
        if not isinstance(data, dict):
            rule = "sent as a text block: its text is no longer a JSON object"
            losses.add(path, "document data", rule)
            return {"type": "text", "text": text}
    keys = entry.get("keys")
    document = dict(thaw(keys)) if isinstance(keys, Mapping) else {}
    document["data"] = data
    return {"type": "document", "document": document}


def _error_marked(content: str | list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """A failed result's content, its text marked as an error."""
    if isinstance(content, str):
        return error_prefixed(content)
    if content and content[0].get("type") == "text":
        return [{"type": "text", "text": error_prefixed(content[0]["text"])}, *content[1:]]
    return [{"type": "text", "text": error_prefixed("")}, *content]


_Writer = Callable[[_Request, Message, int, Mapping[str, Any]], None]
_WRITERS: Final[dict[int, _Writer]] = {
    SYSTEM: _Request.system,
    DEVELOPER: _Request.system,
    USER: _Request.user,
    ASSISTANT: _Request.assistant,
    TOOL_CALL: _Request.assistant,
    TOOL_RESULT: _Request.tool_result,
}
