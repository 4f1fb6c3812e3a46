"""Formatting canonical messages as a chat-completions request.

``ChatCompletionsFormat`` holds the rules a dialect sets (developer role, the
reasoning field, audio and file input, OpenAI strict tools, pairing of tool
results) and writes each message once: the usual shape (string content, calls
without opaque state) inline, and everything else in small helpers. What a
dialect cannot carry is converted or dropped, and every such case is a Loss;
``metadata`` and ``extras`` are never sent; paths in losses name positions in
the canonical message list (``messages[3].content[1]``). Opaque state (kept
parts and keys, a refusal, an audio answer, custom tool calls) goes back only to
the provider whose ``tag`` it carries.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, cast

from ..._cache import CacheHint
from ..._frozen import EMPTY, thaw
from ..._message import Message, ToolResultMessage
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
from ._readers import (
    ERROR_PREFIX,
    IS_ERROR_RULE,
    KIND_CALLS,
    KIND_RESULT,
    KIND_SYSTEM,
    KIND_TEXT,
    KIND_USER,
    KINDS,
    UNANSWERED,
    FormattingProvider,
    call_state_losses,
    error_prefixed,
    kind_of,
    own_extras,
    put_call_keys,
    reasoning_to_send,
    reinsert_unknown,
    says_error,
)
from ._tools import function_tools

if TYPE_CHECKING:
    from ..._tool_definition import ToolDefinition

_NO_PART: Final = no_part_rule("content part")

__all__ = ["CallIdMap", "ChatCompletionsFormat"]


class CallIdMap(dict[str, str]):
    """The tool-call ids of one request, mapped to the ids a wire allows.

    ``ids[call_id]`` gives the same wire id for a call and for every result that
    answers it, and different wire ids for different ids: a dialect's subclass
    works an id out in ``__missing__`` (Mistral: nine letters and digits) and keeps
    it. hot path: a dict, so an id seen before costs one C lookup (~40 ns; a
    method call ~120 ns); this base sends every id as it is.
    """

    __slots__ = ()

    def __missing__(self, call_id: str) -> str:
        return call_id


_USER, _TEXT, _CALLS, _RESULT, _SYSTEM = KIND_USER, KIND_TEXT, KIND_CALLS, KIND_RESULT, KIND_SYSTEM

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
        losses = Losses()
        out: list[dict[str, Any]] = []
        tag = self.tag
        moved: list[dict[str, Any]] | None = None
        pairs = self.pairs_tool_results
        # the calls of the last assistant turn while some still wait for a result
        # (None once all are answered), where the turn is, and the ids answered
        open_calls: Sequence[ToolCall] | None = None
        open_invalid: Sequence[InvalidToolCall] = ()
        open_count = 0  # how many calls the turn has (valid and invalid)
        open_at = 0
        answered: list[str] = []
        # system/developer messages met between a call and its results: sent after
        # the results (the API wants the tool messages right after the call)
        held: list[dict[str, Any]] | None = None
        d: dict[str, Any]
        # the rules read once (most are off for most dialects: one local test each)
        bridge = self.bridge_text
        with_calls = self.reasoning_field if self.reasoning_with_calls else None
        ids = self.call_ids() if self.call_ids is not None else None
        wire_id = None if ids is None else ids.__getitem__  # hot path: bound once
        # a message's cache hint, applied once its wire message is written:
        # (index, hint, len(out), len(held)) before it
        hinted: tuple[int, CacheHint, int, int] | None = None
        marks: list[tuple[int, Any]] = []  # (message, the value sent) of each hint
        # hot path: one cast for the loop; no per-message cast() call.
        items: Sequence[Any] = cast("Sequence[Any]", messages)
        for i, m in enumerate(items):
            if hinted is not None:
                self._cache_hint(out, held, hinted, marks, losses)
                hinted = None
            # hot path: the message class picks the writer (a dict subscript by type(m),
            # ~5 ns more than reading the role, which would still leave text and call
            # turns apart; m.__class__ costs ~10 ns more on a slotted dataclass)
            try:
                kind = KINDS[type(m)]
            except KeyError:
                kind = kind_of(m, i)
            # hot path: results first, the most frequent messages of a tool loop (two
            # branch tests less each: format_request ~3% less on the benchmark loop).
            # Each kind's branch opens with the same four lines reading the message's
            # name, extras and cache hint: there the loads see one class and stay
            # specialised (read once above the branches, for four classes in turn, they
            # cost ~420 instructions a message: 548k -> 506k a request)
            if kind is _RESULT:
                name = m.name
                own = own_extras(m, tag, i, losses) if m.extras else EMPTY
                if m.cache is not None:
                    hinted = (i, m.cache, len(out), len(held) if held else 0)
                cid = m.tool_call_id
                if pairs:
                    # hot path: results usually come in the calls' order; no set, no dict
                    k = len(answered)
                    if open_calls is None or cid in answered:
                        paired = False
                    elif k < len(open_calls) and open_calls[k].id == cid:
                        paired = True
                    else:
                        paired = _is_open(cid, open_calls, open_invalid)
                    if not paired:
                        losses.add(
                            f"messages[{i}]",
                            "tool result that answers no open call",
                            f"dropped: {self.name} rejects a tool message without its call",
                        )
                        continue
                    answered.append(cid)
                    if k + 1 == open_count:  # the last of the turn's results
                        open_calls = None
                if name is not None:
                    losses.add(f"messages[{i}].name", "message name", _TOOL_NAME_RULE)
                c = m.content
                if wire_id is not None:
                    cid = wire_id(cid)
                if c.__class__ is str and not m.is_error:
                    out.append({"role": "tool", "tool_call_id": cid, "content": c})
                    continue
                d, extra = self._tool(m, i, losses, own)
                d["tool_call_id"] = cid
                out.append(d)
                if extra:
                    moved = extra if moved is None else moved + extra
                continue
            if open_calls is not None and kind < _RESULT:
                # a user or assistant turn: the calls left waiting get error results
                self._answer_pending(out, open_calls, open_invalid, open_at, answered, losses, ids)
                open_calls = None
            if open_calls is None and (moved is not None or held is not None):
                # the results are complete: the media moved out of them, then the
                # system messages held back, in their order
                if bridge is not None and out[-1]["role"] == "tool":
                    self._bridge(out, i, "message moved", losses)
                if moved is not None:
                    out.append({"role": "user", "content": moved})
                    moved = None
                if held is not None:
                    out.extend(held)
                    held = None
            # string content is written here, parts and opaque state in the helpers
            if kind is _USER:
                name = m.name
                own = own_extras(m, tag, i, losses) if m.extras else EMPTY
                if m.cache is not None:
                    hinted = (i, m.cache, len(out), len(held) if held else 0)
                if bridge is not None and out and out[-1]["role"] == "tool":
                    self._bridge(out, i, "user message", losses)
                c = m.content
                if c.__class__ is str:
                    out.append({"role": "user", "content": c})
                else:
                    out.append({"role": "user", "content": self._user_parts(c, i, losses, own)})
            elif kind is _CALLS:
                name = m.name
                own = own_extras(m, tag, i, losses) if m.extras else EMPTY
                if m.cache is not None:
                    hinted = (i, m.cache, len(out), len(held) if held else 0)
                c = m.content
                if c is None or c.__class__ is str:
                    d = {"role": "assistant", "content": c or None}
                else:
                    d = self._assistant_parts(c, True, i, losses, own)
                if own:
                    self._assistant_state(d, own, i, losses)
                calls: Sequence[ToolCall] = m.tool_calls
                if calls:
                    # hot path: one loop (a comprehension is a function call in 3.11:
                    # with the loop over the extras it cost ~110 ns more a turn)
                    wire: list[dict[str, Any]] = []
                    state = False
                    for tc in calls:
                        if tc.extras:
                            state = True
                        fn = {"name": tc.name, "arguments": tc.arguments_json}
                        cid = tc.id if wire_id is None else wire_id(tc.id)
                        wire.append({"id": cid, "type": "function", "function": fn})
                    if state:
                        call_state_losses(calls, tag, i, losses)
                        for entry, tc in zip(wire, calls, strict=True):
                            put_call_keys(entry, tc.extras, tag)
                    d["tool_calls"] = wire
                bad: Sequence[InvalidToolCall] = m.invalid_tool_calls
                if bad:
                    bad = self._invalid_calls(d, bad, i, losses)
                    if wire_id is not None:
                        for entry in d.get("tool_calls", ())[len(calls) :]:
                            entry["id"] = wire_id(entry["id"])
                if with_calls is not None and with_calls not in d and (calls or bad):
                    d[with_calls] = ""
                out.append(d)
                if pairs and (calls or bad):
                    open_calls, open_invalid, open_at, answered = calls, bad, i, []
                    open_count = len(calls) + len(bad) if bad else len(calls)
            elif kind is _TEXT:
                name = m.name
                own = own_extras(m, tag, i, losses) if m.extras else EMPTY
                if m.cache is not None:
                    hinted = (i, m.cache, len(out), len(held) if held else 0)
                c = m.content
                if c.__class__ is str:
                    d = {"role": "assistant", "content": c}
                else:
                    d = self._assistant_parts(c, False, i, losses, own)
                if own:
                    self._assistant_state(d, own, i, losses)
                out.append(d)
            else:  # system or developer
                name = m.name
                own = own_extras(m, tag, i, losses) if m.extras else EMPTY
                if m.cache is not None:
                    hinted = (i, m.cache, len(out), len(held) if held else 0)
                d = self._system(m, kind, i, losses, own)
                if name is not None:
                    self._name(d, name, i, losses)
                if open_calls is not None:
                    losses.add(
                        f"messages[{i}]",
                        f"{d['role']} message between a tool call and its results",
                        f"moved after the results: {self.name} wants them right after the call",
                    )
                    held = [d] if held is None else [*held, d]
                else:
                    if bridge is not None and out and out[-1]["role"] == "tool":
                        self._bridge(out, i, f"{d['role']} message", losses)
                    out.append(d)
                continue
            if name is not None:
                # chat completions carry a participant name on every role but tool
                self._name(out[-1], name, i, losses)
        if hinted is not None:
            self._cache_hint(out, held, hinted, marks, losses)
        if open_calls is not None and (answered or self.answers_last_turn):
            # a last turn with some results: the rest are answered; one with none
            # at all is left pending (a tool may still be running), as repair does,
            # unless the server wants every call answered
            self._answer_pending(out, open_calls, open_invalid, open_at, answered, losses, ids)
        if (
            (moved is not None or held is not None)
            and bridge is not None
            and out[-1]["role"] == "tool"
        ):
            self._bridge(out, len(items) - 1, "message moved", losses)
        if moved is not None:
            out.append({"role": "user", "content": moved})
        if held is not None:
            out.extend(held)
        if marks:
            self._limit_hints(out, marks, losses)
        body: dict[str, Any] = {"messages": out}
        if tools:
            body["tools"] = function_tools(tools, self.strict_tools, losses)
        return body, losses.items

    def _answer_pending(
        self,
        out: list[dict[str, Any]],
        calls: Sequence[ToolCall],
        invalid: Sequence[InvalidToolCall],
        i: int,
        answered: list[str],
        losses: Losses,
        ids: CallIdMap | None = None,
    ) -> None:
        """An error result for each call left unanswered (the API rejects the request else)."""
        groups: tuple[tuple[str, Sequence[ToolCall | InvalidToolCall]], ...] = (
            ("tool_calls", calls),
            ("invalid_tool_calls", invalid),
        )
        for group, items in groups:
            for k, call in enumerate(items):
                if call.id in answered:
                    continue
                cid = call.id if ids is None else ids[call.id]
                out.append({"role": "tool", "tool_call_id": cid, "content": UNANSWERED})
                losses.add(
                    f"messages[{i}].{group}[{k}]",
                    "unanswered tool call",
                    f"answered with an error result: {self.name} requires a result for every call",
                )

    def _name(self, d: dict[str, Any], name: str, i: int, losses: Losses) -> None:
        """A message's participant name, where the wire takes one (``message_names``)."""
        if self.message_names:
            d["name"] = name
        else:
            losses.add(
                f"messages[{i}].name", "message name", f"dropped: {self.name} messages take no name"
            )

    def _bridge(self, out: list[dict[str, Any]], i: int, what: str, losses: Losses) -> None:
        """An assistant message between tool results and what follows them (``bridge_text``)."""
        out.append({"role": "assistant", "content": self.bridge_text})
        losses.add(
            f"messages[{i}]",
            f"{what} right after tool results",
            f"an assistant message {self.bridge_text!r} is put before it:"
            f" {self.name} takes only an assistant or tool message after a tool message",
        )

    def _cache_hint(
        self,
        out: list[dict[str, Any]],
        held: list[dict[str, Any]] | None,
        hinted: tuple[int, CacheHint, int, int],
        marks: list[tuple[int, Any]],
        losses: Losses,
    ) -> None:
        """Put message ``hinted[0]``'s cache hint on the last content part of its wire
        message (``cache_key``), noted in ``marks``, or report it. A part that already
        has the key (kept from a parsed request) keeps its own value: one key, never
        two (a Loss when it says something else)."""
        i, hint, before, held_before = hinted
        key = self.cache_key
        if key is None:
            hint_loss(losses, i, self.cache_rule or no_breakpoints(self.name))
            return
        if len(out) > before:
            d = out[-1]
        elif held and len(held) > held_before:
            d = held[-1]
        else:
            hint_loss(losses, i, NOT_SENT)
            return
        if key == BREAKPOINT_KEY and d["role"] == "assistant":
            hint_loss(losses, i, input_only_rule(self.name))
            return
        value = control(hint) if key == CONTROL_KEY else openai_breakpoint()
        c = d.get("content")
        if c.__class__ is str or c.__class__ is list:
            d["content"], placed = mark_last(c, key, value, "text")
        else:
            placed = None
        if missed(losses, i, placed, value, key, _NO_PART):
            return
        marks.append((i, value))
        if hint.ttl is not None and key == BREAKPOINT_KEY:
            losses.add(f"messages[{i}].cache.ttl", "cache hint ttl", breakpoint_ttl_rule(self.name))

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
        t = type(p)
        if t is TextPart:
            return {"type": "text", "text": cast("TextPart", p).text}
        if t is ImagePart or isinstance(p, ImagePart):
            if not self.image_input:
                losses.add(
                    f"messages[{i}].content[{j}]",
                    "image part",
                    f"dropped: {self.name} chat messages take no image input",
                )
                return None
            img = cast("ImagePart", p)
            url: dict[str, Any] = {"url": img.data_url}
            if img.detail is not None:
                url["detail"] = img.detail
            return {"type": "image_url", "image_url": url}
        if isinstance(p, TextPart):
            return {"type": "text", "text": p.text}
        if isinstance(p, AudioPart):
            if self.audio_input:
                return {"type": "input_audio", "input_audio": {"data": p.data, "format": p.format}}
            losses.add(
                f"messages[{i}].content[{j}]",
                "audio part",
                f"dropped: {self.name} chat messages take no audio input",
            )
            return None
        if isinstance(p, FilePart):
            if self.file_input:
                f: dict[str, Any] = {}
                if p.data is not None:
                    f["file_data"] = data_url(p.media_type, p.data) if p.media_type else p.data
                if p.file_id:
                    f["file_id"] = p.file_id
                if p.filename:
                    f["filename"] = p.filename
                return {"type": "file", "file": f}
            losses.add(
                f"messages[{i}].content[{j}]",
                "file part",
                f"dropped: {self.name} chat messages take no file input",
            )
            return None
        losses.add(
            f"messages[{i}].content[{j}]",
            f"{t.__name__} in a user or tool message",
            "dropped: not a content part this wire carries",
        )
        return None

    def _system(
        self, m: Any, kind: int, i: int, losses: Losses, own: Mapping[str, Any]
    ) -> dict[str, Any]:
        if kind is _SYSTEM:
            d: dict[str, Any] = {"role": "system", "content": m.content}  # always a str
        elif self.developer_role:
            d = {"role": "developer", "content": m.content}
        else:
            d = {"role": "system", "content": m.content}
            losses.add(
                f"messages[{i}]",
                "developer role",
                f"sent as a system message: {self.name} has no developer role",
            )
        if own and ("lengths" in own or "keys" in own):
            d["content"] = _split_text(d["content"], own, i, losses)
        return d

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
        text = "".join([p.text for p in content if type(p) is TextPart or isinstance(p, TextPart)])
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
    ) -> tuple[dict[str, Any], list[dict[str, Any]] | None]:
        c = m.content
        moved: list[dict[str, Any]] | None = None
        content: str | list[dict[str, Any]]
        if isinstance(c, str):
            content = c
        else:
            texts: list[dict[str, Any]] = []
            for j, p in enumerate(c):
                if type(p) is TextPart or isinstance(p, TextPart):
                    texts.append({"type": "text", "text": p.text})
                    continue
                enc = self._part(p, i, j, losses)
                if enc is None:  # this provider cannot send it at all: _part reported it
                    continue
                losses.add(
                    f"messages[{i}].content[{j}]",
                    f"{type(p).__name__} in a tool result",
                    "moved to a user message after the tool results: tool messages carry text only",
                )
                if moved is None:
                    moved = [{"type": "text", "text": f"[content of tool result {m.tool_call_id}]"}]
                moved.append(enc)
            if not texts and moved is not None:
                texts.append(
                    {"type": "text", "text": "[non-text content follows in a user message]"}
                )
            if own:
                reinsert_unknown(texts, own)
            content = texts or ""
        if m.is_error:
            losses.add(f"messages[{i}].is_error", "is_error flag", IS_ERROR_RULE)
            if isinstance(content, str):
                content = error_prefixed(content)
            elif not content or not says_error(content[0]):
                content = [{"type": "text", "text": ERROR_PREFIX}, *content]
        d = {"role": "tool", "tool_call_id": m.tool_call_id, "content": content}
        return d, moved


def _is_open(cid: str, calls: Sequence[ToolCall], invalid: Sequence[InvalidToolCall]) -> bool:
    """Whether ``cid`` is one of the open calls (results out of the calls' order)."""
    for c in calls:
        if c.id == cid:
            return True
    return any(c.id == cid for c in invalid)


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
