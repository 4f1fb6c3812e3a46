"""Anthropic Messages API (``POST /v1/messages``): requests, responses and SSE streams.

The rules this formatter applies, each documented here and in the README table of
what each provider cannot carry (every rule that loses something is a ``Loss``):

* System and developer messages become the top-level ``system``: a string for one
  message, text blocks (one per message) for several. System blocks parsed from a
  request are kept in ``extras["anthropic"]["system"]`` and sent back verbatim (with
  their ``cache_control``) while the message text is unchanged. A system message
  that comes after the conversation started is moved there too (Loss).
* Consecutive messages that map to one wire role are merged into one wire message
  (tool results and the user's text share a user message, ``tool_result`` blocks
  first, as the API requires).
* A tool result whose id is not a ``tool_use`` of the preceding assistant message,
  or that answers a call twice, is dropped (Loss): the API rejects it.
* Empty text is never sent; a message left with no content is omitted (Loss).
* Reasoning is replayed only to the provider that produced it: a
  ``ReasoningPart(provider="anthropic")`` with a signature becomes a ``thinking``
  block, a redacted one a ``redacted_thinking`` block, unchanged and in its
  original position before the ``tool_use`` blocks. Any other reasoning is dropped
  (Loss), never turned into visible text: it was the model's private reasoning.
  Opaque state another provider attached to a tool call is dropped too (Loss).
* Audio cannot be sent (Loss); an image's ``detail`` and a message's ``name`` have
  no Anthropic field (Loss). An image in a tool result goes inside the
  ``tool_result`` block. Files become ``document`` blocks (``file`` source for a
  ``file_id``, ``text`` source for ``text/*`` data, else ``base64``; the filename
  is the document ``title``).
* Unknown block types met while parsing are kept in the message's
  ``extras["anthropic"]["unknown"]`` (index, path, type, the block itself) and are
  re-inserted at their index when the message is formatted for Anthropic again;
  other providers drop them (Loss). Likewise, keys of a known block that the
  canonical model has no field for (``cache_control``, ``citations``, a document's
  ``context``...) are kept in ``extras["anthropic"]["keys"]`` and put back on the
  block at the same index.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._build import message, tool_call, tool_call_message, tool_result_message
from .._fields import _KNOWN_MAX, _NAME_RE
from .._frozen import EMPTY, FrozenDict, freeze, freeze_mapping, thaw
from .._json import json_type, loads
from .._message import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from .._parts import (
    AudioPart,
    ContentPart,
    FilePart,
    ImagePart,
    ReasoningPart,
    TextPart,
    parse_data_url,
)
from .._repair import UNANSWERED_TEXT
from .._streaming import ToolCallDelta
from .._tool_call import _KNOWN_NAMES, InvalidToolCall, ToolCall
from ..errors import DecodeError, MessageError, ValidationError
from ._base import (
    DROP_OTHER_REASONING,
    GUARDED_ERRORS,
    KIND_SYSTEM,
    KIND_TOOL,
    KIND_USER,
    MESSAGE_KINDS,
    ChatResponse,
    Conversion,
    FinishReason,
    Losses,
    Provider,
    StreamAccumulator,
    StreamDelta,
    Usage,
    decode_error,
    fast_list,
    fast_mapping,
    foreign_state_losses,
    format_error,
    freeze_decoded,
    guard_error,
    guarded,
    joined_text,
    kept_unknown,
    key_items,
    kind_of,
    make_response,
    make_text_delta,
    make_usage,
    opt_int,
    opt_str,
    plain_arguments,
    raw_json_text,
    required_str,
    unique_calls,
)

if TYPE_CHECKING:
    from .._tool_definition import ToolDefinition

__all__ = ["PROVIDER", "AnthropicProvider", "AnthropicStream"]

NAME = "anthropic"


#: ``stop_reason`` → FinishReason (MANIFEST conventions); anything else is OTHER.
STOP_REASONS: dict[str, FinishReason] = {
    "end_turn": FinishReason.STOP,
    "stop_sequence": FinishReason.STOP,
    "pause_turn": FinishReason.STOP,
    "max_tokens": FinishReason.LENGTH,
    "model_context_window_exceeded": FinishReason.LENGTH,
    "tool_use": FinishReason.TOOL_CALLS,
    "refusal": FinishReason.CONTENT_FILTER,
}

# Other providers whose opaque state may sit in a message's or a call's extras.
_OTHER_PROVIDERS = frozenset(("openai", "groq", "vllm", "ollama", "gemini", "openai_responses"))


# ---------------------------------------------------------------------------------
# Formatting: canonical messages -> request body
# ---------------------------------------------------------------------------------


class _Builder:
    """Collects wire messages, merging consecutive messages of one role."""

    __slots__ = (
        "answered",
        "blocks",
        "calls",
        "first",
        "keys",
        "losses",
        "out",
        "pieces",
        "results",
        "role",
        "string",
        "unknown",
    )

    def __init__(self, losses: Losses) -> None:
        self.losses = losses
        self.out: list[dict[str, Any]] = []
        self.role: str | None = None
        self.blocks: list[Any] = []
        self.results: list[Any] = []  # tool_result blocks go first in a user message
        self.string: str | None = None
        self.pieces = 0
        self.first = 0
        self.unknown: list[tuple[int, Any]] = []
        self.keys: list[tuple[int, Any]] = []
        # the calls of the latest assistant turn (id -> message and call index) ...
        self.calls: dict[str, tuple[int, int]] = {}
        self.answered: set[str] = set()  # ... and those answered

    def open(self, role: str, index: int) -> None:
        if self.role is not None:
            self.close()
        self.role = role
        self.first = index
        out = self.out
        if out and out[-1]["role"] == role:
            # The message in between was omitted (empty): keep merging.
            content = out.pop()["content"]
            if type(content) is str:
                self.string = content
            else:
                self.blocks = content
            self.pieces = 1
        elif role == "assistant":
            self.calls = {}
            self.answered = set()

    def _flush_string(self) -> None:
        # A second piece turns the first one's string content into a text block.
        if self.string is not None:
            if self.string:
                self.blocks.insert(0, {"type": "text", "text": self.string})
            self.string = None

    def add_string(self, text: str) -> None:
        if self.pieces == 0:
            self.string = text
        else:
            self._flush_string()
            if text:
                self.blocks.append({"type": "text", "text": text})
        self.pieces += 1

    def add_blocks(self, blocks: list[Any]) -> None:
        if self.string is not None:
            self._flush_string()
        self.blocks.extend(blocks)
        self.pieces += 1

    def add_result(self, block: dict[str, Any]) -> None:
        if self.string is not None:
            self._flush_string()
        self.results.append(block)
        self.pieces += 1

    def answer_the_rest(self, index: int) -> None:
        """An error result for each call of the latest assistant turn without one.

        Anthropic rejects a ``tool_use`` whose ``tool_result`` is not in the next
        user turn; the results join that turn (opened here if need be).
        """
        if self.role != "user":
            self.open("user", index)
        for call_id, (i, k) in self.calls.items():
            if call_id not in self.answered:
                self.answered.add(call_id)
                self.add_result(
                    {
                        "type": "tool_result",
                        "tool_use_id": call_id,
                        "content": UNANSWERED_TEXT,
                        "is_error": True,
                    }
                )
                self.losses.add(
                    f"messages[{i}].tool_calls[{k}]", "unanswered tool call", _UNANSWERED_RULE
                )

    def close(self) -> None:
        role = self.role
        if role is None:
            return
        content: Any
        results = self.results
        if results or self.unknown or self.keys:
            self._flush_string()
            blocks = results + self.blocks if results else self.blocks
            if self.unknown:  # hot path: sorted() of nothing cost ~0.1 us per user turn
                for index, block in sorted(self.unknown, key=_first):
                    blocks.insert(min(index, len(blocks)), block)
                self.unknown = []
            if self.keys:
                for index, keys in self.keys:
                    if index < len(blocks):
                        blocks[index] = {**blocks[index], **keys}
                self.keys = []
            content = blocks
            if results:
                self.results = []
        elif self.string is not None:
            content = self.string
            self.string = None
        else:
            content = self.blocks
        if content:
            self.out.append({"role": role, "content": content})
        elif self.pieces:
            self.losses.add(
                f"messages[{self.first}]",
                f"empty {role} message",
                "omitted: Anthropic rejects empty content",
            )
        self.role = None
        self.blocks = []
        self.pieces = 0


_UNANSWERED_RULE = "answered with an error result: Anthropic requires a result for every call"


def _in_wire_order(blocks: list[Any], n_parts: int, order: object) -> list[Any]:
    """A turn's part blocks and call blocks interleaved as the wire had them.

    ``order`` (kept when parsed) holds "p" for a part and "c" for a call, in wire
    order; when it no longer fits the message (edited, or a part not sent) the
    blocks stay parts first, then calls.
    """
    if type(order) is not str or order.count("p") != n_parts or order.strip("pc"):
        return blocks
    if order.count("c") != len(blocks) - n_parts:
        return blocks
    parts, calls = iter(blocks[:n_parts]), iter(blocks[n_parts:])
    return [next(parts) if ch == "p" else next(calls) for ch in order]


def _strip_final(turn: dict[str, Any], path: str, losses: Losses) -> None:
    """Strip the trailing whitespace of a request's final assistant turn (the API rejects it)."""
    content = turn["content"]
    if type(content) is str:
        if content[-1] in _SPACES:
            turn["content"] = content.rstrip()
        else:
            return
    else:
        changed = False
        while content:
            last = content[-1]
            text = last.get("text") if last.get("type") == "text" else None
            if type(text) is not str or not text or text[-1] not in _SPACES:
                break
            changed = True
            stripped = text.rstrip()
            if stripped or len(content) == 1:
                content[-1] = {**last, "text": stripped}
                break
            del content[-1]  # whitespace-only beside other blocks: an empty block is refused
        if not changed:
            return
    losses.add(
        path,
        "trailing whitespace of the final assistant turn",
        "stripped: Anthropic rejects a final assistant turn that ends in whitespace",
    )


def _first(item: tuple[int, Any]) -> int:
    return item[0]


# Every character str.isspace() accepts (a test holds the two equal): the API
# rejects text that has nothing else ("text content blocks must contain
# non-whitespace text") and a final assistant turn that ends in one.
_SPACES = frozenset(
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004"
    "\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_BLANK_RULE = "dropped: Anthropic rejects text with nothing but whitespace"


def _blank(text: str) -> bool:
    """True for text of whitespace only (not for ""): what Anthropic rejects."""
    # hot path: one set lookup decides nearly every text (its last character)
    return bool(text) and text[-1] in _SPACES and text.isspace()


def _text_block(p: TextPart, path: str, losses: Losses) -> Any:
    text = p.text
    if not text:
        return None
    if _blank(text):
        losses.add(path, "whitespace-only text", _BLANK_RULE)
        return None
    return {"type": "text", "text": text}


def _image_block(p: ImagePart, path: str, losses: Losses) -> Any:
    if p.detail is not None:
        losses.add(f"{path}.detail", "image detail", "dropped: Anthropic images have no detail")
    if p.data is not None:
        source: dict[str, Any] = {"type": "base64", "media_type": p.media_type, "data": p.data}
    else:
        url = p.url or ""
        source = {"type": "url", "url": url}
        if url.startswith("data:"):
            try:
                media_type, data = parse_data_url(url, path)
                source = {"type": "base64", "media_type": media_type, "data": data}
            except ValidationError:
                pass  # not a base64 data: URL; send it as a URL and let the API judge
    return {"type": "image", "source": source}


def _file_block(p: FilePart, path: str, losses: Losses) -> Any:
    source: dict[str, Any] | None = None
    fid = p.file_id
    if fid:
        if "://" not in fid:
            source = {"type": "file", "file_id": fid}
        elif fid.startswith(("https://", "http://")) and not fid.startswith(_GOOGLE_FILES):
            source = {"type": "url", "url": fid}  # a public URL
        else:
            # a Gemini Files API or Cloud Storage URI: of no use to Anthropic
            losses.add(
                f"{path}.file_id",
                "file reference of another provider",
                "dropped: Anthropic reads its own file ids and public URLs"
                + ("; the inline data is sent" if p.data else ""),
            )
            if not p.data:
                return None
    if source is None:
        data = p.data or ""
        media_type = p.media_type or "application/pdf"
        source = {"type": "base64", "media_type": media_type, "data": data}
        if media_type.startswith("text/"):
            try:
                text = base64.b64decode(data, validate=True).decode("utf-8")
                source = {"type": "text", "media_type": "text/plain", "data": text}
            except (binascii.Error, ValueError):
                pass  # not decodable as UTF-8 text: keep base64
    block: dict[str, Any] = {"type": "document", "source": source}
    if p.filename:
        block["title"] = p.filename
    return block


_GOOGLE_FILES = "https://generativelanguage.googleapis.com/"


def _audio_block(p: AudioPart, path: str, losses: Losses) -> Any:
    losses.add(path, "audio part", "dropped: Anthropic does not accept audio input")
    return None


def _reasoning_block(p: ReasoningPart, path: str, losses: Losses) -> Any:
    if p.provider == NAME:
        if p.redacted:
            return {"type": "redacted_thinking", "data": p.text}
        if p.signature is not None:
            return {"type": "thinking", "thinking": p.text, "signature": p.signature}
        losses.add(
            path, "reasoning without a signature", "dropped: Anthropic needs signed thinking"
        )
        return None
    who = p.provider or "an unnamed provider"
    losses.add(path, f"reasoning from {who}", DROP_OTHER_REASONING)
    return None


def _reasoning_in_user(p: ReasoningPart, path: str, losses: Losses) -> Any:
    losses.add(path, "reasoning part in a non-assistant message", "dropped")
    return None


_USER_BLOCKS: dict[type, Callable[[Any, str, Losses], Any]] = {
    TextPart: _text_block,
    ImagePart: _image_block,
    FilePart: _file_block,
    AudioPart: _audio_block,
    ReasoningPart: _reasoning_in_user,
}
_ASSISTANT_BLOCKS: dict[type, Callable[[Any, str, Losses], Any]] = {
    TextPart: _text_block,
    ReasoningPart: _reasoning_block,
    ImagePart: _image_block,
    FilePart: _file_block,
    AudioPart: _audio_block,
}


def _part_fn(table: dict[type, Callable[[Any, str, Losses], Any]], p: object) -> Any:
    fn = table.get(type(p))
    if fn is None:
        for base in type(p).__mro__:
            fn = table.get(base)
            if fn is not None:
                break
        else:
            raise ValidationError(f"cannot format a part of type {type(p).__name__}", "")
    return fn


def _blocks(
    parts: Sequence[ContentPart],
    table: dict[type, Callable[[Any, str, Losses], Any]],
    path: str,
    losses: Losses,
) -> list[Any]:
    out: list[Any] = []
    keep_blank: bool | None = None  # known once a whitespace-only text is met
    for j, p in enumerate(parts):
        if type(p) is TextPart:
            # Whitespace-only text is refused alone but accepted beside real text
            # (a response may carry "\n\n" before a server tool block): kept then.
            text = p.text
            if not text:
                continue
            if _blank(text):
                if keep_blank is None:
                    keep_blank = any(
                        type(q) is TextPart and not _blank(q.text) and q.text for q in parts
                    )
                if not keep_blank:
                    losses.add(f"{path}.content[{j}]", "whitespace-only text", _BLANK_RULE)
                    continue
            out.append({"type": "text", "text": text})
            continue
        fn = table.get(type(p)) or _part_fn(table, p)
        block = fn(p, f"{path}.content[{j}]", losses)
        if block is not None:
            out.append(block)
    return out


def _own_extras(extras: Mapping[str, Any], path: str, losses: Losses) -> Mapping[str, Any]:
    """This provider's extras; another provider's kept blocks are losses."""
    for key, value in extras.items():
        if key in _OTHER_PROVIDERS and isinstance(value, Mapping):
            foreign_state_losses(key, value, path, losses)
    own = extras.get(NAME)
    return own if isinstance(own, Mapping) else EMPTY


def _unknown_items(own: Mapping[str, Any], nested: bool) -> list[tuple[int, Any]]:
    items = []
    for item in kept_unknown(own):
        if bool(item.get("within")) != nested:
            continue
        index = item.get("index")
        if type(index) is int and isinstance(item.get("value"), Mapping):
            items.append((index, thaw(item["value"])))
    return items


def _fast_body(messages: Sequence[Message]) -> tuple[list[str], list[dict[str, Any]]] | None:
    """The system texts and wire messages of a plain conversation; None for anything else.

    Hot path: most conversations are text turns, tool calls without extras and
    paired text results, one message per turn. Those are formatted here with
    locals only (no builder, no per-turn open/close): ~0.75 -> ~0.45 us per
    message. Anything this does not handle exactly as ``convert``'s general path
    would (a name or extras, parts, empty or whitespace-only text, a final
    assistant turn ending in whitespace, two messages in one turn, a system
    message after the first turn, an unpaired result, a subclass) returns
    None, and the general path formats the whole conversation instead; so the
    result is always the general path's, and tests hold the two to that.
    """
    system: list[str] = []
    out: list[dict[str, Any]] = []
    role = ""  # the role of out[-1]
    results: list[Any] | None = None  # the tool_result blocks of an open user turn
    calls: set[str] = set()  # the calls of the last assistant turn ...
    answered: set[str] = set()  # ... and those already answered
    open_n = 0  # how many of those calls have no result yet
    for m in messages:
        if m.name is not None or m.extras:
            return None
        t = type(m)
        if t is ToolResultMessage:
            content = m.content  # type: ignore[attr-defined]
            call_id = m.tool_call_id  # type: ignore[attr-defined]
            if (
                type(content) is not str
                or not content
                or call_id not in calls
                or call_id in answered
            ):
                return None
            answered.add(call_id)
            open_n -= 1
            block = {"type": "tool_result", "tool_use_id": call_id, "content": content}
            if m.is_error:  # type: ignore[attr-defined]
                block["is_error"] = True
            if role != "user":
                results = [block]
                out.append({"role": "user", "content": results})
                role = "user"
            elif results is None:  # the user turn holds a text message
                return None
            else:
                results.append(block)
        elif t is ToolCallMessage:
            content = m.content  # type: ignore[attr-defined]
            if role == "assistant" or (content is not None and type(content) is not str):
                return None
            if open_n:
                return None  # unanswered calls: answered with a Loss
            if content and content[-1] in _SPACES and content.isspace():
                return None
            blocks: list[Any] = [{"type": "text", "text": content}] if content else []
            calls = set()
            answered = set()
            for c in m.tool_calls:
                if c.extras:
                    return None
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": c.id,
                        "name": c.name,
                        "input": plain_arguments(c.arguments),
                    }
                )
                calls.add(c.id)
            open_n = len(calls)
            out.append({"role": "assistant", "content": blocks})
            role = "assistant"
        elif t is UserMessage or t is AssistantMessage:
            content = m.content  # type: ignore[attr-defined]
            r = "user" if t is UserMessage else "assistant"
            if type(content) is not str or not content or role == r:
                return None
            if open_n:
                return None  # unanswered calls: answered with a Loss
            if content[-1] in _SPACES and content.isspace():
                return None
            out.append({"role": r, "content": content})
            role = r
            results = None
        elif t is SystemMessage or t is DeveloperMessage:
            if out:
                return None  # after the first turn: moved, with a Loss
            text = m.content  # type: ignore[attr-defined]
            if text:
                if text[-1] in _SPACES and text.isspace():
                    return None
                system.append(text)
        else:
            return None
    if role == "user" and open_n:
        return None  # the calls' turn is followed by some results: the rest are answered
    if role == "assistant":
        last = out[-1]["content"]
        if type(last) is str and last[-1] in _SPACES:
            return None  # the general path strips it, with a Loss
    return system, out


class AnthropicProvider(Provider):
    """The Anthropic Messages API wire format."""

    name = NAME

    # -- requests ---------------------------------------------------------------------

    def convert(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] = ()
    ) -> Conversion:
        """Format ``messages`` (and ``tools``) as a Messages API body; list every loss."""
        try:
            fast = _fast_body(messages)
            return self._convert(messages, tools) if fast is None else self._fast(fast, tools)
        except MessageError:
            raise
        except GUARDED_ERRORS as exc:
            raise format_error(exc) from None

    def _fast(
        self, fast: tuple[list[str], list[dict[str, Any]]], tools: Sequence[ToolDefinition]
    ) -> Conversion:
        """The body of a conversation ``_fast_body`` formatted (no losses)."""
        system_texts, out = fast
        body: dict[str, Any] = {}
        if system_texts:
            body["system"] = (
                system_texts[0]
                if len(system_texts) == 1
                else [{"type": "text", "text": text} for text in system_texts]
            )
        body["messages"] = out
        if tools:
            body["tools"] = self.format_tools(tools)
        return Conversion(body, ())

    def _convert(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] = ()
    ) -> Conversion:
        """The general path of ``convert``: any conversation, with its losses."""
        losses = Losses()
        b = _Builder(losses)
        system: list[Any] = []
        system_texts = 0  # system messages sent as plain text (one alone may be a string)
        system_kept = False  # blocks kept from a parsed request force the block form
        started = False
        last_assistant = 0  # the last assistant message (a final turn's trailing space)
        # hot path: the bound get, hoisted; a method call on an imported name
        # compiles to LOAD_ATTR (a bound method made per call) in Python 3.11
        kind_get = MESSAGE_KINDS.get
        for i, m in enumerate(messages):
            # hot path: exact-type dispatch, one read of the name/metadata/extras slot
            t = type(m)
            kind = kind_get(t)
            if kind is None:
                kind = kind_of(m, i)
            own: Mapping[str, Any] = EMPTY
            if m.name is not None:
                losses.add(
                    f"messages[{i}].name",
                    "message name",
                    "dropped: Anthropic messages have no name",
                )
            if m.extras:
                own = _own_extras(m.extras, f"messages[{i}]", losses)
            if kind == KIND_SYSTEM:
                if started:
                    losses.add(
                        f"messages[{i}]",
                        f"{m.role.value} message after the first turn",
                        "moved to the top-level system prompt",
                    )
                text: str = m.content  # type: ignore[attr-defined]
                kept = own.get("system")
                if kept and joined_text(kept) == text:
                    system.extend(thaw(kept))
                    system_kept = True
                elif _blank(text):
                    losses.add(f"messages[{i}].content", "whitespace-only text", _BLANK_RULE)
                elif text:
                    system.append({"type": "text", "text": text})
                    system_texts += 1
                continue
            started = True
            if kind == KIND_TOOL:
                self._tool_result(m, i, b, own)  # type: ignore[arg-type]
                continue
            content = m.content  # type: ignore[attr-defined]
            if type(content) is str and content and content[-1] in _SPACES and content.isspace():
                losses.add(f"messages[{i}].content", "whitespace-only text", _BLANK_RULE)
                content = ""
            if kind == KIND_USER:
                if b.role != "user":
                    b.open("user", i)
                if type(content) is str:
                    if b.pieces == 0:  # hot path: b.add_string's first-piece case inline
                        b.string = content
                        b.pieces = 1
                    else:
                        b.add_string(content)
                else:
                    b.add_blocks(_blocks(content, _USER_BLOCKS, f"messages[{i}]", losses))
            else:
                last_assistant = i
                if len(b.answered) < len(b.calls):
                    b.answer_the_rest(i)  # the calls before this turn need results
                if b.role != "assistant":
                    b.open("assistant", i)
                calls = m.tool_calls
                if not calls and type(content) is str:
                    if b.pieces == 0:  # hot path: b.add_string's first-piece case inline
                        b.string = content
                        b.pieces = 1
                    else:
                        b.add_string(content)
                else:
                    if not content:
                        blocks: list[Any] = []
                    elif type(content) is str:
                        blocks = [{"type": "text", "text": content}]
                    else:
                        blocks = _blocks(content, _ASSISTANT_BLOCKS, f"messages[{i}]", losses)
                    n_parts = len(blocks)
                    for k, c in enumerate(calls):
                        # hot path: a call without extras is written inline
                        blocks.append(
                            {
                                "type": "tool_use",
                                "id": c.id,
                                "name": c.name,
                                "input": plain_arguments(c.arguments),
                            }
                            if not c.extras
                            else _tool_use(c, i, k, losses)
                        )
                        b.calls[c.id] = (i, k)
                    if own and calls:
                        blocks = _in_wire_order(blocks, n_parts, own.get("order"))
                    b.add_blocks(blocks)
            if own:
                self._add_unknown(b, own)
        if b.role == "user" and len(b.answered) < len(b.calls):
            # the calls' turn is followed by results or text: the rest need results
            # too; a last turn of calls with nothing after it is left pending
            b.answer_the_rest(len(messages))
        b.close()
        if b.out and b.out[-1]["role"] == "assistant":
            _strip_final(b.out[-1], f"messages[{last_assistant}].content", losses)
        body: dict[str, Any] = {}
        if system:
            body["system"] = (
                system[0]["text"]
                if system_texts == 1 and len(system) == 1 and not system_kept
                else system
            )
        body["messages"] = b.out
        if tools:
            body["tools"] = self.format_tools(tools)
        return Conversion(body, tuple(losses.items))

    @staticmethod
    def _add_unknown(b: _Builder, own: Mapping[str, Any]) -> None:
        if "unknown" in own:
            b.unknown.extend(_unknown_items(own, nested=False))
        if "keys" in own:
            b.keys.extend(key_items(own))

    def _tool_result(
        self, m: ToolResultMessage, i: int, b: _Builder, own: Mapping[str, Any]
    ) -> None:
        call_id = m.tool_call_id
        if b.role != "user":
            b.open("user", i)
        if call_id not in b.calls or call_id in b.answered:
            path = f"messages[{i}]"
            why = (
                "a second result for the call" if call_id in b.answered else "no matching tool_use"
            )
            b.losses.add(
                path, f"tool result with {why}", "dropped: Anthropic rejects unpaired results"
            )
            return
        b.answered.add(call_id)
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id}
        content = m.content
        if type(content) is str:
            if content:
                block["content"] = content
        else:
            inner = _blocks(content, _USER_BLOCKS, f"messages[{i}]", b.losses)  # type: ignore[arg-type]
            if own:
                for index, value in sorted(_unknown_items(own, nested=True), key=_first):
                    inner.insert(min(index, len(inner)), value)
            if inner:
                block["content"] = inner
        if m.is_error:
            block["is_error"] = True
        if own and isinstance(own.get("defaults"), Mapping):
            # Keys the parsed block spelled out with their default value; only
            # where the message leaves the key out, so they never override it.
            for key, value in own["defaults"].items():
                if key not in block:
                    block[key] = thaw(value)
        # hot path: b.add_result(block) written out
        if b.string is not None:
            b._flush_string()
        b.results.append(block)
        b.pieces += 1
        if own:
            self._add_unknown(b, own)

    def format_tools(self, tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
        """``tools`` entries: name, description and ``input_schema`` (closed when strict)."""
        return [
            {"name": d.name, "description": d.description, "input_schema": d.wire_parameters()}
            for d in tools
        ]

    def parse_tools(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[ToolDefinition]:
        """The tool definitions of a request body (or a ``tools`` list), ``strict=False``.

        ``input_schema`` is kept exactly as given, so formatting gives it back. A
        missing description becomes the tool's name (ToolDefinition requires one).
        """
        return _parse_tools(body_or_list)

    # -- import a conversation ----------------------------------------------------------

    @guarded("messages")
    def parse_messages(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[Message]:
        """Import a conversation written as a Messages API request body (or its ``messages``)."""
        out: list[Message] = []
        if isinstance(body_or_list, Mapping):
            prefix = "messages"
            raw = fast_list(body_or_list.get("messages"), "messages")
            system = body_or_list.get("system")
            if system is not None:
                out.append(_parse_system(system))
        elif isinstance(body_or_list, (list, tuple)):
            prefix = ""
            raw = body_or_list
        else:
            raise DecodeError(
                f"expected a request body object or a list of messages, got {json_type(body_or_list)}",
                "",
            )
        for i, item in enumerate(raw):
            path = f"{prefix}[{i}]"
            wire = fast_mapping(item, path)
            role = wire.get("role")
            content = wire.get("content")
            if content is None:
                raise DecodeError("missing", f"{path}.content")
            if role == "user":
                _parse_user(content, path, out)
            elif role == "assistant":
                out.append(_parse_assistant_message(content, path))
            else:
                raise DecodeError("expected role 'user' or 'assistant'", f"{path}.role")
        return out

    # -- responses ---------------------------------------------------------------------

    def parse_response(self, body: Mapping[str, Any]) -> ChatResponse:
        """Parse a Messages API response body (an ``error`` body gives an ERROR response)."""
        # hot path: the guard decorator written out (~90 ns less per parse)
        try:
            return self._parse_response(body)
        except DecodeError:
            raise
        except GUARDED_ERRORS as exc:
            raise guard_error(exc) from None

    def _parse_response(self, body: Mapping[str, Any]) -> ChatResponse:
        if body.__class__ is not dict:
            body = fast_mapping(body, "")
        if body.get("type") == "error":
            return _error_response(body.get("error"), "error")
        role = body.get("role")
        if role is not None and role != "assistant":
            raise DecodeError("expected role 'assistant'", "role")
        blocks = body.get("content")
        if type(blocks) is not list:
            blocks = fast_list(blocks, "content")
        parsed = _parse_assistant_blocks(blocks, "content", lenient=True)
        if parsed.layout:  # rare: read again, keeping the blocks' order and keys
            parsed = _parse_assistant_blocks(blocks, "content", lenient=True, layout=True)
        usage = _usage(body.get("usage"), "usage")
        # hot path: opt_str only when the value is not a str (it then reports or passes None)
        stop = body.get("stop_reason")
        if stop.__class__ is not str:
            stop = opt_str(stop, "stop_reason")
        model = body.get("model")
        if model.__class__ is not str:
            model = opt_str(model, "model")
        message = _response_message(parsed, usage)
        finish = (
            STOP_REASONS.get(stop, FinishReason.OTHER) if stop is not None else FinishReason.OTHER
        )
        resp_id = body.get("id")
        if resp_id.__class__ is not str:
            resp_id = opt_str(resp_id, "id")
        return make_response(
            message,
            finish,
            usage,
            model,
            tuple(parsed.invalid),
            stop,
            None,
            resp_id,
        )

    def stream(self) -> AnthropicStream:
        """A fresh accumulator for one SSE stream (feed each ``data:`` payload)."""
        return AnthropicStream()


def _tool_use(c: ToolCall, i: int, k: int, losses: Losses) -> dict[str, Any]:
    if c.extras:
        for key in c.extras:
            if key in _OTHER_PROVIDERS:
                losses.add(
                    f"messages[{i}].tool_calls[{k}].extras.{key}",
                    f"{key} state of the tool call",
                    "dropped: only re-sent to its provider",
                )
    return {"type": "tool_use", "id": c.id, "name": c.name, "input": plain_arguments(c.arguments)}


def _parse_tools(body_or_list: Any) -> list[ToolDefinition]:
    from .._tool_definition import ToolDefinition

    if isinstance(body_or_list, Mapping):
        prefix = "tools"
        raw = body_or_list.get("tools")
        if raw is None:
            return []
        raw = fast_list(raw, "tools")
    else:
        prefix = ""
        raw = fast_list(body_or_list, "")
    out = []
    for i, item in enumerate(raw):
        path = f"{prefix}[{i}]"
        t = fast_mapping(item, path)
        if "input_schema" not in t:
            continue  # a server tool (web search, code execution...): not a function
        name = required_str(t, "name", path)
        description = opt_str(t.get("description"), f"{path}.description") or name
        try:
            out.append(ToolDefinition(name, description, t["input_schema"], strict=False))
        except ValidationError as exc:
            raise decode_error(exc, path) from None
    return out


# ---------------------------------------------------------------------------------
# Parsing: wire -> canonical
# ---------------------------------------------------------------------------------


def _parse_system(system: Any) -> SystemMessage:
    if type(system) is str:
        return SystemMessage(system)
    blocks = fast_list(system, "system")
    texts = []
    for j, item in enumerate(blocks):
        path = f"system[{j}]"
        blk = fast_mapping(item, path)
        if blk.get("type") != "text":
            raise DecodeError("system blocks must be text blocks", f"{path}.type")
        texts.append(required_str(blk, "text", path))
    extras = FrozenDict({NAME: FrozenDict({"system": freeze_decoded(blocks, "system")})})
    return message(SystemMessage, "".join(texts), None, EMPTY, extras)


def _image_part(blk: Mapping[str, Any], path: str) -> ImagePart | None:
    source = fast_mapping(blk.get("source"), f"{path}.source")
    kind = source.get("type")
    try:
        if kind == "base64":
            return ImagePart(
                data=required_str(source, "data", f"{path}.source"),
                media_type=required_str(source, "media_type", f"{path}.source"),
            )
        if kind == "url":
            return ImagePart(url=required_str(source, "url", f"{path}.source"))
    except ValidationError as exc:
        raise decode_error(exc, f"{path}.source") from None
    return None  # another source kind (e.g. "file"): kept as an unknown block


def _document_part(blk: Mapping[str, Any], path: str) -> FilePart | None:
    source = fast_mapping(blk.get("source"), f"{path}.source")
    kind = source.get("type")
    title = opt_str(blk.get("title"), f"{path}.title")
    spath = f"{path}.source"
    if kind == "base64":
        return FilePart(
            data=required_str(source, "data", spath),
            media_type=opt_str(source.get("media_type"), f"{spath}.media_type"),
            filename=title,
        )
    if kind == "text":
        text = required_str(source, "data", spath)
        data = base64.b64encode(text.encode("utf-8", "surrogatepass")).decode("ascii")
        media_type = opt_str(source.get("media_type"), f"{spath}.media_type") or "text/plain"
        return FilePart(data=data, media_type=media_type, filename=title)
    if kind == "file":
        file_id = required_str(source, "file_id", spath)
        if not file_id:
            raise DecodeError("must not be empty", f"{spath}.file_id")
        return FilePart(file_id=file_id, filename=title)
    return None  # url / content sources: kept as an unknown block


def _unknown(blk: Mapping[str, Any], index: int, path: str, within: bool = False) -> FrozenDict:
    kind = blk.get("type")
    item = {
        "index": index,
        "path": path,
        "type": kind if type(kind) is str else "",
        "value": freeze_decoded(blk, path),
    }
    if within:
        item["within"] = "tool_result"
    return FrozenDict(item)


#: The keys of each known block type that the canonical parts carry.
_KNOWN_KEYS: dict[str, frozenset[str]] = {
    "text": frozenset(("type", "text")),
    "image": frozenset(("type", "source")),
    "document": frozenset(("type", "source", "title")),
    "tool_result": frozenset(("type", "tool_use_id", "content", "is_error")),
    "tool_use": frozenset(("type", "id", "name", "input")),
    "thinking": frozenset(("type", "thinking", "signature")),
    "redacted_thinking": frozenset(("type", "data")),
}


def _extra_keys(
    blk: Mapping[str, Any], kind: str, index: int, path: str, out: list[FrozenDict]
) -> None:
    known = _KNOWN_KEYS[kind]
    if len(blk) > len(known) or any(k not in known for k in blk):
        extra = {k: v for k, v in blk.items() if k not in known}
        if extra:
            out.append(FrozenDict({"index": index, "keys": freeze_decoded(extra, path)}))


def _own(
    unknown: Sequence[FrozenDict], keys: Sequence[FrozenDict], seq: Sequence[str] = ()
) -> FrozenDict:
    """This provider's extras of an assistant turn: kept unknown blocks, kept keys,
    and the wire order of its parts and calls when a call came before a part (the
    formatter writes parts first, then calls; ``order`` puts them back)."""
    order = "".join(seq)
    interleaved = "cp" in order
    if not unknown and not keys and not interleaved:
        return EMPTY
    inner: dict[str, Any] = {}
    if unknown:
        inner["unknown"] = tuple(unknown)
    if keys:
        inner["keys"] = tuple(keys)
    if interleaved:
        inner["order"] = order
    return FrozenDict({NAME: FrozenDict(inner)})


def _user_part(blk: Mapping[str, Any], kind: Any, path: str) -> ContentPart | None:
    if kind == "text":
        return TextPart(required_str(blk, "text", path))
    if kind == "image":
        return _image_part(blk, path)
    if kind == "document":
        return _document_part(blk, path)
    if kind in ("tool_use", "thinking", "redacted_thinking"):
        raise DecodeError(f"a {kind} block is not allowed in a user message", f"{path}.type")
    return None


def _parse_user(content: Any, path: str, out: list[Message]) -> None:
    if type(content) is str:
        out.append(UserMessage(content))
        return
    blocks = fast_list(content, f"{path}.content")
    parts: list[ContentPart] = []
    unknown: list[FrozenDict] = []
    keys: list[FrozenDict] = []
    produced = 0
    for j, item in enumerate(blocks):
        bpath = f"{path}.content[{j}]"
        blk = fast_mapping(item, bpath)
        kind = blk.get("type")
        if type(kind) is not str:
            raise DecodeError("expected a block type string", f"{bpath}.type")
        if kind == "tool_result":
            own_keys: list[FrozenDict] = []
            _extra_keys(blk, kind, j, bpath, own_keys)
            out.append(_parse_tool_result(blk, bpath, own_keys))
            produced += 1
            continue
        part = _user_part(blk, kind, bpath)
        if part is None:
            unknown.append(_unknown(blk, j, bpath))
        else:
            parts.append(part)
            _extra_keys(blk, kind, j, bpath, keys)
    if parts or not produced:
        out.append(message(UserMessage, tuple(parts), None, EMPTY, _own(unknown, keys)))
    elif unknown:
        last = out[-1]
        out[-1] = last.with_extras(_merge_unknown(last.extras, unknown))


def _merge_unknown(extras: Mapping[str, Any], unknown: list[FrozenDict]) -> FrozenDict:
    own = extras.get(NAME)
    before = kept_unknown(own) if isinstance(own, Mapping) else ()
    merged = dict(extras)
    inner = dict(own) if isinstance(own, Mapping) else {}
    inner["unknown"] = tuple(before) + tuple(unknown)
    merged[NAME] = FrozenDict(inner)
    return FrozenDict(merged)


def _parse_tool_result(
    blk: Mapping[str, Any], path: str, keys: Sequence[FrozenDict] = ()
) -> ToolResultMessage:
    call_id = required_str(blk, "tool_use_id", path)
    if not call_id:
        raise DecodeError("must not be empty", f"{path}.tool_use_id")
    is_error = blk.get("is_error", False)
    if is_error is None:
        is_error = False
    if type(is_error) is not bool:
        raise DecodeError(f"expected a boolean, got {json_type(is_error)}", f"{path}.is_error")
    raw = blk.get("content")
    content: str | tuple[ContentPart, ...]
    unknown: list[FrozenDict] = []
    if raw is None:
        content = ""
    elif type(raw) is str:
        content = raw
    else:
        inner = fast_list(raw, f"{path}.content")
        parts: list[ContentPart] = []
        for j, item in enumerate(inner):
            spath = f"{path}.content[{j}]"
            sub = fast_mapping(item, spath)
            kind = sub.get("type")
            if type(kind) is not str:
                raise DecodeError("expected a block type string", f"{spath}.type")
            part = _user_part(sub, kind, spath) if kind != "tool_result" else None
            if part is None:
                unknown.append(_unknown(sub, j, spath, within=True))
            else:
                parts.append(part)
        content = tuple(parts)
    extras = _own(unknown, keys)
    if ("is_error" in blk and not is_error) or raw in ("", []):
        extras = _with_defaults(extras, blk, is_error, raw)
    return tool_result_message(ToolResultMessage, call_id, content, is_error, None, extras=extras)


def _with_defaults(
    extras: FrozenDict, blk: Mapping[str, Any], is_error: bool, raw: Any
) -> FrozenDict:
    """``extras`` plus the default-valued keys the block spelled out (``is_error: false``,
    empty ``content``), so that formatting gives the block back as it was."""
    defaults: dict[str, Any] = {}
    if "is_error" in blk and not is_error:
        defaults["is_error"] = blk["is_error"]
    if raw in ("", []):
        defaults["content"] = "" if raw == "" else ()
    own = extras.get(NAME)
    inner = dict(own) if isinstance(own, Mapping) else {}
    inner["defaults"] = FrozenDict(defaults)
    return FrozenDict({**extras, NAME: FrozenDict(inner)})


class _Parsed:
    """The blocks of one assistant turn, in order."""

    __slots__ = ("calls", "invalid", "keys", "layout", "parts", "seq", "texts", "unknown")

    def __init__(self) -> None:
        self.parts: list[ContentPart] = []
        self.texts: list[str] = []  # response text (a request keeps TextParts in parts)
        self.calls: list[ToolCall] = []
        self.invalid: list[InvalidToolCall] = []
        self.unknown: list[FrozenDict] = []
        self.keys: list[FrozenDict] = []
        # a response whose layout must be kept (unknown blocks, keys such as
        # citations): text blocks stay separate parts in wire order
        self.layout = False
        # in layout mode, the wire order of the known blocks: "p" a part, "c" a call
        self.seq: list[str] = []


def _tool_call(blk: Mapping[str, Any], path: str, parsed: _Parsed, lenient: bool) -> None:
    call_id = required_str(blk, "id", path)
    if not call_id:
        raise DecodeError("must not be empty", f"{path}.id")
    name = required_str(blk, "name", path)
    if not name:
        raise DecodeError("must not be empty", f"{path}.name")
    args = blk.get("input")
    problem: tuple[str, str] | None = None
    if _NAME_RE.fullmatch(name) is None:
        problem = (f"{path}.name", f"invalid tool name (length {len(name)})")
    elif args.__class__ is not dict and not isinstance(args, Mapping):
        problem = (f"{path}.input", f"expected an object, got {json_type(args)}")
    if problem is not None:
        if not lenient:
            raise DecodeError(problem[1], problem[0])
        raw = args if type(args) is str else _dumps_or_empty(args)
        parsed.invalid.append(InvalidToolCall(call_id, name, raw, f"{problem[0]}: {problem[1]}"))
        return
    try:
        frozen = freeze(args, f"{path}.input")
    except ValidationError as exc:
        if not lenient:
            raise DecodeError(exc.message, exc.path) from None
        # an object holding what JSON cannot (NaN from a lenient decoder), as the
        # stream treats the same input: an invalid call, the rest still parses
        parsed.invalid.append(
            InvalidToolCall(call_id, name, raw_json_text(args), f"{exc.path}: {exc.message}")
        )
        return
    if len(_KNOWN_NAMES) < _KNOWN_MAX:  # so that the next call of this tool takes the fast path
        _KNOWN_NAMES.add(name)
    parsed.calls.append(tool_call(ToolCall, call_id, name, frozen, EMPTY, None))


def _dumps_or_empty(value: Any) -> str:
    if value is None:
        return ""
    from .._json import dumps_compact

    try:
        return dumps_compact(value)
    except (TypeError, ValueError):
        return ""


def _parse_assistant_blocks(
    blocks: Sequence[Any], prefix: str, *, lenient: bool, layout: bool | None = None
) -> _Parsed:
    """The blocks of an assistant turn. ``lenient`` (a response): bad calls are invalid
    calls. ``layout`` (a request, or a response with unknown blocks or extra keys):
    text blocks stay separate parts and extra keys are kept, so formatting gives the
    blocks back in their order; else a response's texts are joined."""
    if layout is None:
        layout = not lenient
    parsed = _Parsed()
    parsed.layout = layout
    parts = parsed.parts
    # kept keys and unknown blocks are placed by their index among the blocks sent
    # back; an invalid call is not sent back, so it shifts the ones after it
    shift = 0
    for j, blk in enumerate(blocks):
        if blk.__class__ is not dict and not isinstance(blk, Mapping):
            raise DecodeError(f"expected an object, got {json_type(blk)}", f"{prefix}[{j}]")
        kind = blk.get("type")
        # hot path: the common block types first, by string equality; their paths
        # are formatted only when needed (~0.1 us per block)
        if kind == "text":
            text = blk.get("text")
            if text.__class__ is not str:
                text = required_str(blk, "text", f"{prefix}[{j}]")
            if layout:
                parts.append(TextPart(text))
                parsed.seq.append("p")
                _extra_keys(blk, kind, j - shift, f"{prefix}[{j}]", parsed.keys)
            else:
                parsed.texts.append(text)
                if len(blk) > 2:  # citations or other keys: keep the layout
                    parsed.layout = True
            continue
        if kind == "tool_use":
            # hot path: a well-formed call with a known name is built inline, with no
            # path strings and no regex (~1.2 us less per call); anything else goes to
            # _tool_call, which checks it all again and reports the spot.
            call_id = blk.get("id")
            name = blk.get("name")
            args = blk.get("input")
            call: Any = None
            if (
                call_id.__class__ is str
                and call_id
                and name.__class__ is str
                and name in _KNOWN_NAMES
                and args.__class__ is dict
            ):
                try:
                    frozen = freeze_mapping(args, "")
                except ValidationError:
                    pass
                else:
                    call = tool_call(ToolCall, call_id, name, frozen, EMPTY, None)
                    parsed.calls.append(call)
            if call is None:
                n = len(parsed.calls)
                _tool_call(blk, f"{prefix}[{j}]", parsed, lenient)
                if len(parsed.calls) == n:
                    shift += 1
                    continue  # an invalid call: not in the message
            if layout:
                parsed.seq.append("c")
                _extra_keys(blk, kind, j - shift, f"{prefix}[{j}]", parsed.keys)
            continue
        path = f"{prefix}[{j}]"
        if kind == "thinking":
            text = required_str(blk, "thinking", path)
            sig = opt_str(blk.get("signature"), f"{path}.signature")
            parts.append(ReasoningPart(text, sig or None, False, NAME))
        elif kind == "redacted_thinking":
            parts.append(ReasoningPart(required_str(blk, "data", path), None, True, NAME))
        elif type(kind) is not str:
            raise DecodeError("expected a block type string", f"{path}.type")
        elif kind in ("image", "document", "tool_result"):
            raise DecodeError(
                f"a {kind} block is not allowed in an assistant message", f"{path}.type"
            )
        else:
            parsed.unknown.append(_unknown(blk, j - shift, path))
            parsed.layout = True
            continue
        if layout:
            parsed.seq.append("p")
            _extra_keys(blk, kind, j - shift, path, parsed.keys)
    return parsed


def _parse_assistant_message(content: Any, path: str) -> AssistantMessage:
    if type(content) is str:
        return AssistantMessage(content)
    blocks = fast_list(content, f"{path}.content")
    parsed = _parse_assistant_blocks(blocks, f"{path}.content", lenient=False)
    extras = _own(parsed.unknown, parsed.keys, parsed.seq)
    parts = tuple(parsed.parts)
    if parsed.calls:
        ids = set()
        for k, c in enumerate(parsed.calls):
            if c.id in ids:
                raise DecodeError(
                    "duplicate tool_use id within the message", f"{path}.content.tool_use[{k}].id"
                )
            ids.add(c.id)
        return tool_call_message(
            ToolCallMessage, tuple(parsed.calls), parts or None, (), None, EMPTY, extras
        )
    return message(AssistantMessage, parts, None, EMPTY, extras)


def _response_message(parsed: _Parsed, usage: Usage | None) -> AssistantMessage:
    """The response's message: reasoning parts first, then the joined text."""
    calls = parsed.calls
    if len(calls) > 1:
        # a repeated id cannot be answered apart: an invalid call, the rest parses
        kept, repeated = unique_calls(calls, "content")
        if repeated:
            calls = list(kept)
            parsed.invalid.extend(repeated)
    texts = parsed.texts
    text = texts[0] if len(texts) == 1 else "".join(texts)
    # hot path: every value here is checked and frozen already, so the trusted
    # builders skip a second validation (build_assistant would redo it).
    metadata = FrozenDict({"usage": FrozenDict(usage.to_dict())}) if usage is not None else EMPTY
    extras = _own(parsed.unknown, parsed.keys, parsed.seq) if parsed.layout else EMPTY
    content: str | tuple[ContentPart, ...] = text
    if parsed.parts:  # reasoning (a response keeps no other part here)
        content = (*parsed.parts, TextPart(text)) if text else tuple(parsed.parts)
    if calls or parsed.invalid:
        return tool_call_message(
            ToolCallMessage,
            tuple(calls),
            content if content != "" else None,
            tuple(parsed.invalid),
            None,
            metadata,
            extras,
        )
    return message(AssistantMessage, content, None, metadata, extras)


def _count(usage: Mapping[str, Any], key: str) -> int | None:
    value = usage.get(key)
    # hot path: a plain non-negative int needs no further checks
    if type(value) is int and value >= 0:
        return value
    return opt_int(value, f"usage.{key}")


def _usage(raw: Any, path: str) -> Usage | None:
    if raw is None:
        return None
    u = raw if raw.__class__ is dict else fast_mapping(raw, path)
    # hot path: plain non-negative ints need no call (_count checks the rest)
    inp = u.get("input_tokens")
    if inp.__class__ is not int or inp < 0:
        inp = _count(u, "input_tokens")
    out = u.get("output_tokens")
    if out.__class__ is not int or out < 0:
        out = _count(u, "output_tokens")
    creation = u.get("cache_creation_input_tokens")
    if creation.__class__ is not int or creation < 0:
        creation = _count(u, "cache_creation_input_tokens")
    read = u.get("cache_read_input_tokens")
    if read.__class__ is not int or read < 0:
        read = _count(u, "cache_read_input_tokens")
    return _usage_from(inp, out, creation, read)


def _usage_from(inp: int | None, out: int | None, creation: int | None, read: int | None) -> Usage:
    total_in = (inp or 0) + (creation or 0) + (read or 0)
    output = out or 0
    return make_usage(total_in, output, total_in + output, read, creation)


def _error_response(error: Any, path: str) -> ChatResponse:
    detail = None
    if isinstance(error, Mapping):
        kind = opt_str(error.get("type"), f"{path}.type")
        msg = opt_str(error.get("message"), f"{path}.message")
        detail = ": ".join(x for x in (kind, msg) if x) or None
    elif error is not None:
        detail = opt_str(error, path)
    return ChatResponse(
        AssistantMessage(""), FinishReason.ERROR, None, None, error=detail or "error"
    )


# ---------------------------------------------------------------------------------
# Streaming
# ---------------------------------------------------------------------------------


class _Block:
    __slots__ = ("call", "chunks", "extra", "kind", "raw", "signature", "start_input")

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.extra: dict[str, Any] | None = None  # a text block's other keys (citations)
        self.chunks: list[str] = []
        self.signature: str | None = None
        self.call: tuple[str, str, int] | None = None
        self.start_input: Any = None
        self.raw: Any = None


_EMPTY_DELTAS: tuple[StreamDelta, ...] = ()


class AnthropicStream(StreamAccumulator):
    """Accumulates Messages API stream events into a ChatResponse.

    Input tokens come from ``message_start``; ``output_tokens`` in ``message_delta``
    is cumulative (the last value wins). ``ping`` and unknown event types are
    ignored. A stream that ends without ``message_stop`` (and without an ``error``
    event) is truncated: ``finish()`` raises DecodeError naming ``message_stop``.
    An ``error`` event gives finish reason ERROR with the partial text kept.
    """

    __slots__ = (
        "_blocks",
        "_calls",
        "_error",
        "_id",
        "_model",
        "_n",
        "_started",
        "_stop",
        "_stopped",
        "_usage",
    )

    def __init__(self) -> None:
        self._blocks: dict[int, _Block] = {}
        self._calls = 0
        self._n = 0
        self._started = False
        self._stopped = False
        self._stop: str | None = None
        self._error: str | None = None
        self._id: str | None = None
        self._model: str | None = None
        self._usage: list[int | None] = [None, None, None, None]

    @guarded("events")
    def feed(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        """Consume one event (the SSE ``data:`` payload, decoded)."""
        n = self._n
        self._n = n + 1
        if not isinstance(event, Mapping):
            raise DecodeError(f"expected an event object, got {json_type(event)}", f"events[{n}]")
        kind = event.get("type")
        # hot path: deltas are nearly every event
        if kind == "content_block_delta":
            return self._delta(event, n)
        handler = _EVENTS.get(kind)  # type: ignore[arg-type]
        if handler is None:
            if type(kind) is not str:
                raise DecodeError("expected an event type string", f"events[{n}].type")
            return _EMPTY_DELTAS  # ping and event types added later are ignored
        return handler(self, event, n)

    def _delta(self, event: Mapping[str, Any], n: int) -> tuple[StreamDelta, ...]:
        index = event.get("index")
        block = self._blocks.get(index) if type(index) is int else None
        if block is None:
            raise DecodeError("delta for a block that was not started", f"events[{n}].index")
        delta = event.get("delta")
        if not isinstance(delta, Mapping):
            raise DecodeError(f"expected an object, got {json_type(delta)}", f"events[{n}].delta")
        dkind = delta.get("type")
        if dkind == "text_delta":
            text = delta.get("text")
            if type(text) is not str:
                raise DecodeError("expected a string", f"events[{n}].delta.text")
            if block.kind != "text":
                raise DecodeError("text_delta for a non-text block", f"events[{n}].delta.type")
            block.chunks.append(text)
            return (make_text_delta("text", text),)
        if dkind == "input_json_delta":
            part = delta.get("partial_json")
            if type(part) is not str:
                raise DecodeError("expected a string", f"events[{n}].delta.partial_json")
            if block.kind == "tool_use":
                block.chunks.append(part)
                if not part:
                    return _EMPTY_DELTAS
                assert block.call is not None
                return (
                    StreamDelta(
                        "tool_call", tool_call=ToolCallDelta(block.call[2], arguments_delta=part)
                    ),
                )
            if block.kind == "unknown":
                block.chunks.append(part)
                return _EMPTY_DELTAS
            raise DecodeError(
                "input_json_delta for a block without input", f"events[{n}].delta.type"
            )
        if dkind == "thinking_delta":
            text = delta.get("thinking")
            if type(text) is not str:
                raise DecodeError("expected a string", f"events[{n}].delta.thinking")
            if block.kind != "thinking":
                raise DecodeError(
                    "thinking_delta for a non-thinking block", f"events[{n}].delta.type"
                )
            block.chunks.append(text)
            return (make_text_delta("reasoning", text),)
        if dkind == "signature_delta":
            sig = delta.get("signature")
            if type(sig) is not str:
                raise DecodeError("expected a string", f"events[{n}].delta.signature")
            if block.kind != "thinking":
                raise DecodeError(
                    "signature_delta for a non-thinking block", f"events[{n}].delta.type"
                )
            block.signature = (block.signature or "") + sig
            return _EMPTY_DELTAS
        if dkind == "citations_delta":
            if block.kind == "text":
                extra = block.extra if block.extra is not None else {}
                block.extra = extra
                cited = extra.get("citations")
                extra["citations"] = (
                    [*cited, delta.get("citation")]
                    if isinstance(cited, list)
                    else [delta.get("citation")]
                )
            return _EMPTY_DELTAS
        if type(dkind) is not str:
            raise DecodeError("expected a delta type string", f"events[{n}].delta.type")
        return _EMPTY_DELTAS  # later delta kinds: nothing to accumulate

    def _message_start(self, event: Mapping[str, Any], n: int) -> tuple[StreamDelta, ...]:
        path = f"events[{n}].message"
        message = fast_mapping(event.get("message"), path)
        self._started = True
        self._id = opt_str(message.get("id"), f"{path}.id")
        self._model = opt_str(message.get("model"), f"{path}.model")
        self._take_usage(message.get("usage"), f"{path}.usage")
        return _EMPTY_DELTAS

    def _take_usage(self, raw: Any, path: str) -> None:
        if raw is None:
            return
        u = fast_mapping(raw, path)
        for k, key in enumerate(
            (
                "input_tokens",
                "output_tokens",
                "cache_creation_input_tokens",
                "cache_read_input_tokens",
            )
        ):
            value = opt_int(u.get(key), f"{path}.{key}")
            if value is not None:
                self._usage[k] = value

    def _block_start(self, event: Mapping[str, Any], n: int) -> tuple[StreamDelta, ...]:
        index = event.get("index")
        if type(index) is not int or index < 0:
            raise DecodeError("expected a non-negative integer", f"events[{n}].index")
        if index in self._blocks:
            raise DecodeError("block index started twice", f"events[{n}].index")
        path = f"events[{n}].content_block"
        cb = fast_mapping(event.get("content_block"), path)
        kind = cb.get("type")
        if kind == "text":
            block = _Block("text")
            text = opt_str(cb.get("text"), f"{path}.text") or ""
            if len(cb) > 2:  # e.g. "citations": [] that citations_delta events fill
                block.extra = {k: v for k, v in cb.items() if k not in {"type", "text"}}
            self._blocks[index] = block
            if text:
                block.chunks.append(text)
                return (make_text_delta("text", text),)
            return _EMPTY_DELTAS
        if kind == "tool_use":
            call_id = required_str(cb, "id", path)
            name = required_str(cb, "name", path)
            if not call_id:
                raise DecodeError("must not be empty", f"{path}.id")
            if not name:
                raise DecodeError("must not be empty", f"{path}.name")
            block = _Block("tool_use")
            ordinal = self._calls
            self._calls += 1
            block.call = (call_id, name, ordinal)
            block.start_input = cb.get("input")
            self._blocks[index] = block
            return (StreamDelta("tool_call", tool_call=ToolCallDelta(ordinal, call_id, name)),)
        if kind == "thinking":
            block = _Block("thinking")
            text = opt_str(cb.get("thinking"), f"{path}.thinking") or ""
            block.signature = opt_str(cb.get("signature"), f"{path}.signature") or None
            self._blocks[index] = block
            if text:
                block.chunks.append(text)
                return (make_text_delta("reasoning", text),)
            return _EMPTY_DELTAS
        if kind == "redacted_thinking":
            block = _Block("redacted_thinking")
            block.chunks.append(required_str(cb, "data", path))
            self._blocks[index] = block
            return _EMPTY_DELTAS
        if type(kind) is not str:
            raise DecodeError("expected a block type string", f"{path}.type")
        block = _Block("unknown")
        block.raw = freeze_decoded(cb, path)
        self._blocks[index] = block
        return _EMPTY_DELTAS

    def _block_stop(self, event: Mapping[str, Any], n: int) -> tuple[StreamDelta, ...]:
        index = event.get("index")
        if type(index) is not int or index not in self._blocks:
            raise DecodeError("stop for a block that was not started", f"events[{n}].index")
        return _EMPTY_DELTAS

    def _message_delta(self, event: Mapping[str, Any], n: int) -> tuple[StreamDelta, ...]:
        delta = event.get("delta")
        if delta is not None:
            delta = fast_mapping(delta, f"events[{n}].delta")
            stop = opt_str(delta.get("stop_reason"), f"events[{n}].delta.stop_reason")
            if stop is not None:
                self._stop = stop
        self._take_usage(event.get("usage"), f"events[{n}].usage")
        return _EMPTY_DELTAS

    def _message_stop(self, event: Mapping[str, Any], n: int) -> tuple[StreamDelta, ...]:
        self._stopped = True
        return _EMPTY_DELTAS

    def _error_event(self, event: Mapping[str, Any], n: int) -> tuple[StreamDelta, ...]:
        error = event.get("error")
        detail = "error"
        if isinstance(error, Mapping):
            kind = opt_str(error.get("type"), f"events[{n}].error.type")
            msg = opt_str(error.get("message"), f"events[{n}].error.message")
            detail = ": ".join(x for x in (kind, msg) if x) or "error"
        self._error = detail
        return _EMPTY_DELTAS

    @guarded("events")
    def finish(self) -> ChatResponse:
        """The response assembled from every event fed so far."""
        if self._error is None:
            if not self._started:
                raise DecodeError("stream ended before message_start (missing)", "message_start")
            if not self._stopped:
                raise DecodeError("stream ended before message_stop (truncated)", "message_stop")
        parsed = _Parsed()
        # with unknown blocks or a text block's keys (citations) the layout is kept:
        # text blocks stay separate parts, as the non-streaming response has them
        layout = parsed.layout = any(
            b.kind == "unknown" or b.extra is not None for b in self._blocks.values()
        )
        shift = 0  # invalid calls before a block: not sent back (see _parse_assistant_blocks)
        for index in sorted(self._blocks):
            block = self._blocks[index]
            kind = block.kind
            if kind == "text":
                if not layout:
                    parsed.texts.append("".join(block.chunks))
                    continue
                parsed.parts.append(TextPart("".join(block.chunks)))
                parsed.seq.append("p")
                if block.extra:
                    keys = freeze_decoded(block.extra, f"content[{index}]")
                    parsed.keys.append(FrozenDict({"index": index - shift, "keys": keys}))
            elif kind == "thinking":
                parsed.parts.append(
                    ReasoningPart("".join(block.chunks), block.signature, False, NAME)
                )
                parsed.seq.append("p")
            elif kind == "redacted_thinking":
                parsed.parts.append(ReasoningPart(block.chunks[0], None, True, NAME))
                parsed.seq.append("p")
            elif kind == "tool_use":
                n = len(parsed.calls)
                _finish_call(block, index, parsed)
                if len(parsed.calls) > n:
                    parsed.seq.append("c")
                else:
                    shift += 1
            else:
                value = _streamed_block(block)
                kind_name = value.get("type")
                parsed.unknown.append(
                    FrozenDict(
                        {
                            "index": index - shift,
                            "path": f"content[{index}]",
                            "type": kind_name,
                            "value": value,
                        }
                    )
                )
        if self._error is not None:
            message = _response_message(parsed, None)
            return ChatResponse(
                message,
                FinishReason.ERROR,
                None,
                self._model,
                tuple(parsed.invalid),
                provider_finish_reason=self._stop,
                id=self._id,
                error=self._error,
            )
        u = self._usage
        usage = None if all(v is None for v in u) else _usage_from(u[0], u[1], u[2], u[3])
        message = _response_message(parsed, usage)
        stop = self._stop
        finish = (
            STOP_REASONS.get(stop, FinishReason.OTHER) if stop is not None else FinishReason.OTHER
        )
        return ChatResponse(
            message,
            finish,
            usage,
            self._model,
            tuple(parsed.invalid),
            provider_finish_reason=stop,
            id=self._id,
        )


def _streamed_block(block: _Block) -> FrozenDict:
    """An unknown block as the non-streaming response would carry it.

    A block with input (``server_tool_use``, ``mcp_tool_use`` and those added later)
    streams it as ``input_json_delta`` fragments; they are joined and parsed into
    ``input``, so the block goes back to the API as it came (after ``pause_turn``
    it must). Fragments that are not a JSON object are kept as ``partial_json``
    beside the start's input: nothing is guessed, nothing dropped.
    """
    value: FrozenDict = block.raw
    if not block.chunks:
        return value
    text = "".join(block.chunks)
    if not text.strip():
        return value
    try:
        parsed = loads(text)
        if type(parsed) is dict:
            return FrozenDict({**value, "input": freeze(parsed, "input")})
    except MessageError:
        pass
    return FrozenDict({**value, "partial_json": text})


def _finish_call(block: _Block, index: int, parsed: _Parsed) -> None:
    assert block.call is not None
    call_id, name, _ = block.call
    raw = "".join(block.chunks)
    path = f"content[{index}].input"
    if not raw.strip():
        start = block.start_input
        value: Any = start if isinstance(start, Mapping) else {}
    else:
        try:
            value = loads(raw, path)
        except DecodeError as exc:
            parsed.invalid.append(InvalidToolCall(call_id, name, raw, f"{path}: {exc.message}"))
            return
    if _NAME_RE.fullmatch(name) is None:
        parsed.invalid.append(
            InvalidToolCall(call_id, name, raw, f"content[{index}].name: invalid tool name")
        )
        return
    if type(value) is not dict and not isinstance(value, Mapping):
        parsed.invalid.append(
            InvalidToolCall(
                call_id, name, raw, f"{path}: expected an object, got {json_type(value)}"
            )
        )
        return
    try:
        frozen = freeze(value, path)
    except ValidationError as exc:
        parsed.invalid.append(InvalidToolCall(call_id, name, raw, f"{path}: {exc.message}"))
        return
    parsed.calls.append(tool_call(ToolCall, call_id, name, frozen, EMPTY, raw or None))


_EVENTS: dict[str, Callable[[AnthropicStream, Mapping[str, Any], int], tuple[StreamDelta, ...]]] = {
    "message_start": AnthropicStream._message_start,
    "content_block_start": AnthropicStream._block_start,
    "content_block_delta": AnthropicStream._delta,
    "content_block_stop": AnthropicStream._block_stop,
    "message_delta": AnthropicStream._message_delta,
    "message_stop": AnthropicStream._message_stop,
    "error": AnthropicStream._error_event,
}

PROVIDER = AnthropicProvider()
"""The Anthropic provider object ``get_provider("anthropic")`` returns."""
