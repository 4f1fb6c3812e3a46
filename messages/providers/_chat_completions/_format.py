"""Formatting canonical messages as a chat-completions request.

``ChatCompletionsFormat`` holds the rules a dialect sets (developer role, the
reasoning field, audio and file input, OpenAI strict tools, pairing of tool
results) and how one message looks on the wire; ``_Request`` writes a request,
one small writer per message kind, and keeps what the order of a chat request
needs between messages (pairing results with calls). What a dialect cannot carry is converted or dropped, and every such case is a Loss;
``metadata`` and ``extras`` are never sent; paths in losses name positions in
the canonical message list (``messages[3].content[1]``). Opaque state (kept
parts and keys, a refusal, an audio answer, custom tool calls) goes back only to
the provider whose ``tag`` it carries.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from ..._frozen import EMPTY, thaw
from ..._kinds import ASSISTANT, DEVELOPER, SYSTEM, TOOL_CALL, TOOL_RESULT, USER
from ..._message import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from ..._parts import AudioPart, ContentPart, FilePart, ImagePart, TextPart, data_url
from ..._tool_call import InvalidToolCall, ToolCall
from .._base import (
    Loss,
    Losses,
    LossWarning,
    kept_unknown,
    key_items,
)
from .._cache_hints import (
    BREAKPOINT_KEY,
    CONTROL_KEY,
    NOT_SENT,
    breakpoint_ttl_rule,
    control,
    hint_loss,
    input_only_rule,
    mark_last,
    missed,
    no_breakpoints,
    no_part_rule,
    openai_breakpoint,
)
from .._losses import part_words
from ._readers import (
    ERROR_PREFIX,
    IS_ERROR_RULE,
    UNANSWERED,
    FormattingProvider,
    call_state_losses,
    error_prefixed,
    kind_at,
    own_extras,
    put_call_keys,
    reasoning_to_send,
    reinsert_unknown,
    says_error,
)
from ._tools import function_tools

if TYPE_CHECKING:
    from ..._cache import CacheHint
    from ...tools import ToolDefinition

_NO_PART: Final = no_part_rule("content part")

__all__ = ["CallIdMap", "ChatCompletionsFormat"]


class CallIdMap(dict[str, str]):
    """The tool-call ids of one request, mapped to the ids a wire allows.

    ``ids[call_id]`` gives the same wire id for a call and for every result that
    answers it, and different wire ids for different ids: a dialect's subclass
    works an id out in ``__missing__`` (Mistral: nine letters and digits) and keeps
    it (a dict, so an id seen before is one lookup); this base sends every id as it is.
    """

    __slots__ = ()

    def __missing__(self, call_id: str) -> str:
        return call_id


_TOOL_NAME_RULE: Final = "dropped: tool messages carry no name (the call is named by its id)"


class ChatCompletionsFormat(FormattingProvider):
    """The chat-completions request format; a dialect sets the rules below."""

    name = "openai"
    #: Sends ``developer`` messages as such (else as ``system``, a loss).
    developer_role: bool = True
    #: Key carrying this provider's own reasoning text on assistant messages (None:
    #: the wire takes none, and reasoning is a loss).
    reasoning_field: str | None = None
    #: Accepts ``image_url`` parts.
    image_input: bool = True
    #: Accepts ``input_audio`` parts.
    audio_input: bool = True
    #: Accepts ``file`` parts.
    file_input: bool = True
    #: Sends ``strict`` tool definitions with OpenAI's strict-mode schema rules.
    strict_tools: bool = True
    #: Rejects a request whose tool calls and tool messages do not pair up: a call
    #: left without a result before the next user or assistant message (or at the
    #: end, when its turn has other results) gets an error result, a result that
    #: answers no call is dropped (each a Loss); a last turn with no result at all
    #: is left pending. Off for servers that take any sequence (vLLM).
    pairs_tool_results: bool = True
    #: A last turn whose calls have no result at all gets error results too (the server
    #: wants every call answered in every request: Mistral); off, it is left pending.
    answers_last_turn: bool = False
    #: Text of an assistant message put between tool results and a user or system message
    #: that follows them (Mistral takes only an assistant or tool message after a tool
    #: message); None: such messages follow the results directly.
    bridge_text: str | None = None
    #: An assistant message with tool calls always carries ``reasoning_field``: ``""``
    #: when it has no reasoning of this provider (DeepSeek's thinking mode rejects it else).
    reasoning_with_calls: bool = False
    #: The key that carries a message's cache hint (``Message.cache``) on its last
    #: content part: ``cache_control`` (OpenRouter, any message) or
    #: ``prompt_cache_breakpoint`` (OpenAI, input messages only); None: the wire has
    #: no breakpoints and each hint is a Loss with ``cache_rule``.
    cache_key: str | None = None
    #: The rule of that Loss (None: "takes no cache breakpoints").
    cache_rule: str | None = None
    #: Sends a message's ``name`` (the participant) on system, user and assistant
    #: messages; off (Mistral rejects the key), each name is a Loss.
    message_names: bool = True
    #: Maps tool-call ids to the ids the wire allows (one map per request, calls and
    #: results alike); None: ids are sent as they are.
    call_ids: type[CallIdMap] | None = None

    def format_tools(self, tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
        """The ``tools`` part of a request (each loss warns, as in ``format_request``)."""
        losses = Losses()
        out = function_tools(tools, self.strict_tools, losses)
        for loss in losses.items:
            warnings.warn(LossWarning(f"{self.name}: {loss}"), stacklevel=2)
        return out

    def _format(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] = ()
    ) -> tuple[dict[str, Any], list[Loss]]:
        request = _Request(self)
        request.write(messages)
        body: dict[str, Any] = {"messages": request.out}
        if tools:
            body["tools"] = function_tools(tools, self.strict_tools, request.losses)
        return body, request.losses.items

    def _name(self, d: dict[str, Any], name: str, i: int, losses: Losses) -> None:
        """A message's participant name, where the wire takes one (``message_names``)."""
        if self.message_names:
            d["name"] = name
        else:
            losses.add(
                f"messages[{i}].name", "message name", f"dropped: {self.name} messages take no name"
            )

    def _limit_hints(
        self, out: list[dict[str, Any]], marks: list[tuple[int, Any]], losses: Losses
    ) -> None:
        """The wire's rules on the hints sent (``marks``) in the whole request (none by
        default; OpenRouter applies Anthropic's)."""

    # -- the parts of one message ------------------------------------------------------

    def _user_parts(
        self, content: Sequence[ContentPart], i: int, losses: Losses, own: Mapping[str, Any]
    ) -> list[dict[str, Any]] | str:
        parts: list[dict[str, Any]] = []
        for j, p in enumerate(content):
            enc = self._part(p, i, j, losses)
            if enc is not None:
                parts.append(enc)
        if own:
            reinsert_unknown(parts, own)
        # An empty parts array is rejected by the API; "" says the same thing.
        return parts or ""

    def _part(self, p: ContentPart, i: int, j: int, losses: Losses) -> dict[str, Any] | None:
        """One part of a user or tool message; None (and a loss) when this wire cannot
        carry it."""
        if isinstance(p, TextPart):
            return {"type": "text", "text": p.text}
        if isinstance(p, ImagePart) and self.image_input:
            url: dict[str, Any] = {"url": p.data_url}
            if p.detail is not None:
                url["detail"] = p.detail
            return {"type": "image_url", "image_url": url}
        if isinstance(p, AudioPart) and self.audio_input:
            return {"type": "input_audio", "input_audio": {"data": p.data, "format": p.format}}
        if isinstance(p, FilePart) and self.file_input:
            return {"type": "file", "file": _file(p)}
        path = f"messages[{i}].content[{j}]"
        for cls, what in _INPUTS:
            if isinstance(p, cls):
                rule = f"dropped: {self.name} chat messages take no {what} input"
                losses.add(path, f"{what} part", rule)
                return None
        what = f"{type(p).__name__} in a user or tool message"
        losses.add(path, what, "dropped: not a content part this wire carries")
        return None

    def _system(
        self,
        m: SystemMessage | DeveloperMessage,
        developer: bool,
        i: int,
        losses: Losses,
        own: Mapping[str, Any],
    ) -> dict[str, Any]:
        """A system or developer message (``developer``): its text, split into the parts it
        was parsed from when this provider kept their lengths."""
        role = "system"
        if developer:
            if self.developer_role:
                role = "developer"
            else:
                rule = f"sent as a system message: {self.name} has no developer role"
                losses.add(f"messages[{i}]", "developer role", rule)
        content: str | list[dict[str, Any]] = m.content
        if own and ("lengths" in own or "keys" in own):
            content = _split_text(m.content, own, i, losses)
        return {"role": role, "content": content}

    def _assistant_parts(
        self,
        content: Sequence[ContentPart],
        has_calls: bool,
        i: int,
        losses: Losses,
        own: Mapping[str, Any],
    ) -> dict[str, Any]:
        """An assistant message whose content is parts: the text joined, reasoning to
        its field (only this provider's own, where the dialect has one). ``own`` is
        this provider's kept state of the message (a dialect may place it here)."""
        text = "".join([p.text for p in content if isinstance(p, TextPart)])
        d: dict[str, Any] = {"role": "assistant", "content": text or None if has_calls else text}
        field = self.reasoning_field
        reasoning = reasoning_to_send(self.tag, self.name, field, content, i, losses)
        if reasoning and field is not None:
            d[field] = reasoning
        return d

    def _assistant_state(
        self, d: dict[str, Any], own: Mapping[str, Any], i: int, losses: Losses
    ) -> None:
        """This provider's kept state of an assistant turn: refusal, audio answer, prefix."""
        if isinstance(own.get("refusal"), str):
            d["refusal"] = own["refusal"]
        audio = own.get("audio")
        if isinstance(audio, Mapping) and isinstance(audio.get("id"), str):
            # a previous audio answer is referred to by its id (no content needed)
            d["audio"] = {"id": audio["id"]}
            if d["content"] == "":
                del d["content"]
        prefix = own.get("prefix")
        if isinstance(prefix, bool):
            d["prefix"] = prefix  # Mistral: the turn the model continues
        rule = "dropped: assistant content is sent as one string"
        for item in kept_unknown(own):
            kind = item.get("type")
            losses.add(f"messages[{i}]", f"{self.name} {kind or 'unknown'} block", rule)
        for _, keys in key_items(own):
            losses.add(f"messages[{i}]", f"{self.name} part keys {', '.join(keys)}", rule)

    def _invalid_calls(
        self, d: dict[str, Any], invalid: Sequence[InvalidToolCall], i: int, losses: Losses
    ) -> list[InvalidToolCall]:
        """Invalid calls as the model wrote them (raw name, raw arguments text), after the
        valid ones; a kept entry of another call type verbatim to its own provider. A call
        without a name cannot be sent (a loss). Returns the calls sent."""
        tag = self.tag
        wire = d.setdefault("tool_calls", [])
        sent: list[InvalidToolCall] = []
        for k, c in enumerate(invalid):
            state = c.extras.get(tag) if c.extras else None
            kept = state.get("tool_call") if isinstance(state, Mapping) else None
            if isinstance(kept, Mapping):
                wire.append({**thaw(kept), "id": c.id})
                sent.append(c)
                continue
            if c.extras:
                call_state_losses((c,), tag, i, losses, "invalid_tool_calls", k)
            if c.name is None:
                losses.add(
                    f"messages[{i}].invalid_tool_calls[{k}]",
                    "invalid tool call without a name",
                    f"dropped: {self.name} needs a function name",
                )
                continue
            fn = {"name": c.name, "arguments": c.raw_arguments}
            wire.append({"id": c.id, "type": "function", "function": fn})
            if c.extras:
                put_call_keys(wire[-1], c.extras, tag)
            sent.append(c)
        if not wire:
            del d["tool_calls"]
        return sent

    def _tool(
        self, m: ToolResultMessage, i: int, losses: Losses, own: Mapping[str, Any]
    ) -> tuple[str | list[dict[str, Any]], list[dict[str, Any]] | None]:
        """A tool result's content that is parts or an error: its text parts (a tool
        message carries text only), and the other parts it had, moved out to a user
        message that follows the results (None: there are none)."""
        c = m.content
        moved: list[dict[str, Any]] | None = None
        content: str | list[dict[str, Any]]
        if isinstance(c, str):
            content = c
        else:
            texts, moved = self._tool_parts(m, c, i, losses)
            if own:
                reinsert_unknown(texts, own)
            content = texts or ""
        if m.is_error:
            losses.add(f"messages[{i}].is_error", "is_error flag", IS_ERROR_RULE)
            if isinstance(content, str):
                content = error_prefixed(content)
            elif not content or not says_error(content[0]):
                content = [{"type": "text", "text": ERROR_PREFIX}, *content]
        return content, moved

    def _tool_parts(
        self, m: ToolResultMessage, content: Sequence[ContentPart], i: int, losses: Losses
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
        """The text parts of a tool result, and its other parts (each a loss) to move to a
        user message after the results, under a line naming the result."""
        texts: list[dict[str, Any]] = []
        moved: list[dict[str, Any]] | None = None
        for j, p in enumerate(content):
            if isinstance(p, TextPart):
                texts.append({"type": "text", "text": p.text})
                continue
            enc = self._part(p, i, j, losses)
            if enc is None:  # this provider cannot send it at all: _part reported it
                continue
            losses.add(
                f"messages[{i}].content[{j}]",
                f"{part_words(p)} in a tool result",
                "moved to a user message after the tool results: tool messages carry text only",
            )
            if moved is None:
                moved = [{"type": "text", "text": f"[content of tool result {m.tool_call_id}]"}]
            moved.append(enc)
        if not texts and moved is not None:
            texts.append({"type": "text", "text": "[non-text content follows in a user message]"})
        return texts, moved


class _Request:
    """One request being written: the wire messages, the losses, and what the order of
    a chat request needs kept between messages (the turn of calls that results answer,
    what waits for those results, the cache hint of the message just written)."""

    __slots__ = (
        "answered",
        "fmt",
        "held",
        "hinted",
        "ids",
        "losses",
        "marks",
        "moved",
        "open_at",
        "open_calls",
        "open_ids",
        "open_invalid",
        "out",
        "tag",
    )

    def __init__(self, fmt: ChatCompletionsFormat) -> None:
        self.fmt = fmt
        self.tag = fmt.tag
        self.losses = Losses()
        self.out: list[dict[str, Any]] = []
        # the calls of the last assistant turn while some still wait for a result (None
        # once all are answered; only when the dialect pairs results), where the turn is,
        # the ids of its calls, valid and invalid, and the ids answered so far
        self.open_calls: Sequence[ToolCall] | None = None
        self.open_invalid: Sequence[InvalidToolCall] = ()
        self.open_at = 0
        self.open_ids: list[str] = []
        self.answered: list[str] = []
        # parts moved out of tool results, sent in a user message after them; system and
        # developer messages met between a call and its results, sent after them
        self.moved: list[dict[str, Any]] | None = None
        self.held: list[dict[str, Any]] | None = None
        # the cache hint of the message being written: (index, hint, len(out), len(held))
        # before its wire message; and (index, the value sent) of each hint placed
        self.hinted: tuple[int, CacheHint, int, int] | None = None
        self.marks: list[tuple[int, Any]] = []
        self.ids = fmt.call_ids() if fmt.call_ids is not None else None

    def write(self, messages: Sequence[Message]) -> None:
        """Write every message, then close the request."""
        for i, m in enumerate(messages):
            _WRITERS[kind_at(m, i)](self, m, i)
            if self.hinted is not None:
                self.place_hint(*self.hinted)
                self.hinted = None
        if self.open_calls is not None and (self.answered or self.fmt.answers_last_turn):
            # a last turn with some results: the rest are answered; one with none at all
            # is left pending (a tool may still be running), as repair does, unless the
            # server wants every call answered
            self.answer_pending()
        if self.waiting():
            self.flush(len(messages) - 1)
        if self.marks:
            self.fmt._limit_hints(self.out, self.marks, self.losses)

    # -- one writer per message kind -------------------------------------------------

    def system(self, m: SystemMessage, i: int) -> None:
        self.instruction(m, False, i)

    def developer(self, m: DeveloperMessage, i: int) -> None:
        self.instruction(m, True, i)

    def instruction(self, m: SystemMessage | DeveloperMessage, developer: bool, i: int) -> None:
        """A system or developer message; between a call and its results it waits for them
        (the API wants the tool messages right after the call)."""
        if self.open_calls is None and self.waiting():
            self.flush(i)
        own = self.begin(m, i)
        d = self.fmt._system(m, developer, i, self.losses, own)
        if m.name is not None:
            self.fmt._name(d, m.name, i, self.losses)
        if self.open_calls is None:
            self.bridge_before(i, f"{d['role']} message")
            self.out.append(d)
            return
        self.losses.add(
            f"messages[{i}]",
            f"{d['role']} message between a tool call and its results",
            f"moved after the results: {self.fmt.name} wants them right after the call",
        )
        if self.held is None:
            self.held = []
        self.held.append(d)

    def user(self, m: UserMessage, i: int) -> None:
        self.close_turn(i)
        own = self.begin(m, i)
        self.bridge_before(i, "user message")
        c = m.content
        content = c if isinstance(c, str) else self.fmt._user_parts(c, i, self.losses, own)
        self.append({"role": "user", "content": content}, m.name, i)

    def assistant(self, m: AssistantMessage, i: int) -> None:
        self.close_turn(i)
        own = self.begin(m, i)
        c = m.content
        if c is None or isinstance(c, str):
            d: dict[str, Any] = {"role": "assistant", "content": c}
        else:
            d = self.fmt._assistant_parts(c, False, i, self.losses, own)
        if own:
            self.fmt._assistant_state(d, own, i, self.losses)
        self.append(d, m.name, i)

    def tool_calls(self, m: ToolCallMessage, i: int) -> None:
        self.close_turn(i)
        own = self.begin(m, i)
        fmt = self.fmt
        c = m.content
        if c is None or isinstance(c, str):
            d: dict[str, Any] = {"role": "assistant", "content": c or None}
        else:
            d = fmt._assistant_parts(c, True, i, self.losses, own)
        if own:
            fmt._assistant_state(d, own, i, self.losses)
        calls = m.tool_calls
        if calls:
            d["tool_calls"] = self.call_entries(calls, i)
        bad: Sequence[InvalidToolCall] = m.invalid_tool_calls
        if bad:
            bad = fmt._invalid_calls(d, bad, i, self.losses)
            for entry in d.get("tool_calls", ())[len(calls) :]:
                entry["id"] = self.wire_id(entry["id"])
        field = fmt.reasoning_field if fmt.reasoning_with_calls else None
        if field is not None and field not in d and (calls or bad):
            d[field] = ""
        self.append(d, m.name, i)
        if fmt.pairs_tool_results and (calls or bad):
            self.open_calls, self.open_invalid, self.open_at = calls, bad, i
            self.open_ids = [c.id for c in calls] + [c.id for c in bad]
            self.answered = []

    def tool_result(self, m: ToolResultMessage, i: int) -> None:
        own = self.begin(m, i)
        fmt = self.fmt
        if fmt.pairs_tool_results and not self.pair(m.tool_call_id):
            rule = f"dropped: {fmt.name} rejects a tool message without its call"
            self.losses.add(f"messages[{i}]", "tool result that answers no open call", rule)
            return
        if m.name is not None:
            self.losses.add(f"messages[{i}].name", "message name", _TOOL_NAME_RULE)
        cid = self.wire_id(m.tool_call_id)
        if isinstance(m.content, str) and not m.is_error:
            self.out.append({"role": "tool", "tool_call_id": cid, "content": m.content})
            return
        content, moved = fmt._tool(m, i, self.losses, own)
        self.out.append({"role": "tool", "tool_call_id": cid, "content": content})
        if moved:
            if self.moved is None:
                self.moved = []
            self.moved.extend(moved)

    # -- what the writers share ---------------------------------------------------------

    def begin(self, m: Message, i: int) -> Mapping[str, Any]:
        """This provider's kept state of ``m`` (another provider's is a loss); notes its
        cache hint, placed once its wire message is written."""
        own = own_extras(m, self.tag, i, self.losses) if m.extras else EMPTY
        if m.cache is not None:
            self.hinted = (i, m.cache, len(self.out), len(self.held) if self.held else 0)
        return own

    def append(self, d: dict[str, Any], name: str | None, i: int) -> None:
        """A wire message, with the participant's name (on every role but tool)."""
        self.out.append(d)
        if name is not None:
            self.fmt._name(d, name, i, self.losses)

    def call_entries(self, calls: Sequence[ToolCall], i: int) -> list[dict[str, Any]]:
        """The ``tool_calls`` entries of valid calls, with their kept keys."""
        entries = [
            {
                "id": self.wire_id(c.id),
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments_json},
            }
            for c in calls
        ]
        if any(c.extras for c in calls):
            call_state_losses(calls, self.tag, i, self.losses)
            for entry, c in zip(entries, calls, strict=True):
                put_call_keys(entry, c.extras, self.tag)
        return entries

    def wire_id(self, call_id: str) -> str:
        """The id a call (and every result answering it) is sent with (``call_ids``)."""
        return call_id if self.ids is None else self.ids[call_id]

    # -- pairing calls and results ------------------------------------------------------

    def pair(self, call_id: str) -> bool:
        """Whether ``call_id`` answers a call of the open turn not answered yet; if so it
        is noted, and the turn closes with its last result."""
        if self.open_calls is None or call_id not in self.open_ids or call_id in self.answered:
            return False
        self.answered.append(call_id)
        if len(self.answered) == len(self.open_ids):
            self.open_calls = None
        return True

    def close_turn(self, i: int) -> None:
        """Before a user or assistant message: the calls still open get error results, then
        what waited for the results follows them."""
        if self.open_calls is not None:
            self.answer_pending()
            self.open_calls = None
        if self.waiting():
            self.flush(i)

    def answer_pending(self) -> None:
        """An error result for each call of the open turn left unanswered (the API rejects
        the request else)."""
        groups: tuple[tuple[str, Sequence[ToolCall | InvalidToolCall]], ...] = (
            ("tool_calls", self.open_calls or ()),
            ("invalid_tool_calls", self.open_invalid),
        )
        rule = f"answered with an error result: {self.fmt.name} requires a result for every call"
        for group, calls in groups:
            for k, call in enumerate(calls):
                if call.id in self.answered:
                    continue
                cid = self.wire_id(call.id)
                self.out.append({"role": "tool", "tool_call_id": cid, "content": UNANSWERED})
                self.losses.add(
                    f"messages[{self.open_at}].{group}[{k}]", "unanswered tool call", rule
                )

    def waiting(self) -> bool:
        """Whether parts moved out of tool results or held system messages wait for the
        results of a turn to end."""
        return self.moved is not None or self.held is not None

    def flush(self, i: int) -> None:
        """After the results of a turn: the parts moved out of them, then the system
        messages held back, in their order."""
        self.bridge_before(i, "message moved")
        if self.moved is not None:
            self.out.append({"role": "user", "content": self.moved})
            self.moved = None
        if self.held is not None:
            self.out.extend(self.held)
            self.held = None

    def bridge_before(self, i: int, what: str) -> None:
        """An assistant message between tool results and what follows them, where the
        dialect wants one (``bridge_text``)."""
        text = self.fmt.bridge_text
        if text is None or not self.out or self.out[-1]["role"] != "tool":
            return
        self.out.append({"role": "assistant", "content": text})
        self.losses.add(
            f"messages[{i}]",
            f"{what} right after tool results",
            f"an assistant message {text!r} is put before it:"
            f" {self.fmt.name} takes only an assistant or tool message after a tool message",
        )

    # -- cache hints ---------------------------------------------------------------------

    def place_hint(self, i: int, hint: CacheHint, before: int, held_before: int) -> None:
        """Put message ``i``'s cache hint on the last content part of its wire message
        (``cache_key``; ``before`` and ``held_before``: the lengths of ``out`` and ``held``
        before it), noted in ``marks``, or report it. A part that already has the key
        (kept from a parsed request) keeps its own value: one key, never two (a Loss when
        it says something else)."""
        fmt, losses = self.fmt, self.losses
        key = fmt.cache_key
        if key is None:
            hint_loss(losses, i, fmt.cache_rule or no_breakpoints(fmt.name))
            return
        if len(self.out) > before:
            d = self.out[-1]
        elif self.held and len(self.held) > held_before:
            d = self.held[-1]
        else:
            hint_loss(losses, i, NOT_SENT)
            return
        if key == BREAKPOINT_KEY and d["role"] == "assistant":
            hint_loss(losses, i, input_only_rule(fmt.name))
            return
        value = control(hint) if key == CONTROL_KEY else openai_breakpoint()
        c = d.get("content")
        placed = None
        if isinstance(c, (str, list)):
            d["content"], placed = mark_last(c, key, value, "text")
        if missed(losses, i, placed, value, key, _NO_PART):
            return
        self.marks.append((i, value))
        if hint.ttl is not None and key == BREAKPOINT_KEY:
            losses.add(f"messages[{i}].cache.ttl", "cache hint ttl", breakpoint_ttl_rule(fmt.name))


_Writer = Callable[[_Request, Any, int], None]

#: The writer of each message kind.
_WRITERS: Final[dict[int, _Writer]] = {
    SYSTEM: _Request.system,
    DEVELOPER: _Request.developer,
    USER: _Request.user,
    ASSISTANT: _Request.assistant,
    TOOL_CALL: _Request.tool_calls,
    TOOL_RESULT: _Request.tool_result,
}


def _split_text(
    text: str, own: Mapping[str, Any], i: int, losses: Losses
) -> str | list[dict[str, Any]]:
    """System or developer text as the text parts it was parsed from, with their kept
    keys (e.g. a ``prompt_cache_breakpoint`` that is not on the last part); a text
    edited since is sent as a string, its keys (if any) a loss."""
    lengths = own.get("lengths")
    if (
        isinstance(lengths, (list, tuple))
        and all(type(n) is int and n >= 0 for n in lengths)
        and sum(lengths) == len(text)
    ):
        parts: list[dict[str, Any]] = []
        start = 0
        for n in lengths:
            parts.append({"type": "text", "text": text[start : start + n]})
            start += n
        return reinsert_unknown(parts, own)
    if "keys" not in own:
        return text  # only the parts' lengths were kept: nothing is lost
    losses.add(
        f"messages[{i}]",
        "kept part keys",
        "dropped: the text is no longer the one they were kept for",
    )
    return text


def _file(p: FilePart) -> dict[str, Any]:
    """The ``file`` object of a file part: inline data (a data URL when the media type
    is known), file id, filename."""
    f: dict[str, Any] = {}
    if p.data is not None:
        f["file_data"] = data_url(p.media_type, p.data) if p.media_type else p.data
    if p.file_id:
        f["file_id"] = p.file_id
    if p.filename:
        f["filename"] = p.filename
    return f


#: The part classes a dialect may not take as input, and how a loss names them.
_INPUTS: Final = ((ImagePart, "image"), (AudioPart, "audio"), (FilePart, "file"))
