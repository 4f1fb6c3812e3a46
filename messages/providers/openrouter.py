"""OpenRouter's chat endpoint (``https://openrouter.ai/api/v1/chat/completions``).

The OpenAI format with OpenRouter's additions (openrouter.ai/docs: API reference,
reasoning tokens, prompt caching, usage accounting, errors):

* Reasoning comes as ``reasoning`` (text) and ``reasoning_details``: an array of
  blocks of type ``reasoning.text`` (``text``, ``signature``), ``reasoning.summary``
  (``summary``) and ``reasoning.encrypted`` (``data``), each with ``id``,
  ``format`` (``anthropic-claude-v1``, ``openai-responses-v1``,
  ``google-gemini-v1``, ...) and ``index``. The array is kept verbatim in
  ``extras[tag]["reasoning_details"]`` and sent back unchanged on the assistant
  turn (Claude and Gemini models behind OpenRouter fail without it); each block
  is also a ``ReasoningPart`` tagged with this provider's tag (text or summary;
  the signature as its signature; encrypted data as a redacted part), so its
  text reads like any reasoning and other providers report it as a Loss. A
  message without ``reasoning_details`` sends its own plain reasoning back as
  ``reasoning``. OpenRouter routes to many model families; its tag is the origin
  (use ``get_provider("openrouter", origin=...)`` to keep families apart).
* Streams carry ``delta.reasoning_details`` fragments: fragments with the same
  ``index`` (and type) are one block, its ``text``, ``summary`` and ``data``
  joined and its other keys (``signature``, ``id``, ``format``) taken as they
  arrive; a chunk's ``delta.reasoning`` repeats the text of its fragments and is
  read only when the chunk has none. An ``error`` object on a chunk (with or
  without choices; ``finish_reason: "error"``) ends the stream with ERROR.
* A message's cache hint (``Message.cache``) is ``cache_control``
  (``{"type": "ephemeral"}``, with ``ttl`` when set) on its last content part (a
  string becomes one text part), on any message with content; parsing a request
  reads a ``cache_control`` on a message's last part back as its hint. Other
  content-part keys (a ``cache_control`` on another part among them) are kept and
  get back on their part when sent to OpenRouter; elsewhere they are a Loss.
  Claude models are the reason to send ``cache_control`` through OpenRouter, so
  Anthropic's rules apply (``_cache_hints.limit_controls``): OpenRouter's prompt
  caching guide (openrouter.ai/docs/guides/best-practices/prompt-caching, "Anthropic
  Claude") says "There is a limit of four breakpoints", and Anthropic answers 400
  beyond four. At most four a request, the kept keys counted: the earliest hints
  are dropped (a Loss each); a 1h hint after a shorter breakpoint is sent with the
  default ttl (a Loss). The order is the message order.
* Usage: the chat counts, ``prompt_tokens_details.cached_tokens`` and
  ``cache_write_tokens`` as cached and cache-creation input tokens;
  ``metadata["cost"]`` holds ``usage.cost`` (credits) and ``metadata["cost_details"]``
  its ``cost_details`` when present.
* ``developer`` messages are sent as ``system`` (OpenRouter's message roles are
  system, user, assistant and tool); tool definitions carry no ``strict`` flag.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from .._build import stream_delta
from .._frozen import FrozenList, thaw
from .._json import json_type
from .._parts import ContentPart, ReasoningPart, TextPart
from ..errors import DecodeError
from ._base import (
    FinishReason,
    Losses,
    StreamDelta,
    Usage,
    as_list,
    as_mapping,
    count_at,
    freeze_decoded,
    make_usage,
    opt_str_at,
)
from ._cache_hints import CONTROL_KEY, collect_control, limit_controls
from ._chat_completions import (
    FINISH,
    ChatCompletionsProvider,
    ChatCompletionsStream,
    chat_usage,
    own_reasoning,
)

__all__ = ["PROVIDER", "OpenRouterProvider", "OpenRouterStream", "detail_parts", "openrouter_usage"]

_FINISH: Final = {**FINISH, "error": FinishReason.ERROR}

#: Block type -> the key holding its text (joined when a stream sends it in pieces).
_TEXT_KEYS: Final = {
    "reasoning.text": "text",
    "reasoning.summary": "summary",
    "reasoning.encrypted": "data",
}


def _number(value: object, path: str) -> float | int:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    raise DecodeError(f"expected a number, got {json_type(value)}", path)


def openrouter_usage(raw: object, path: str) -> tuple[Usage | None, Mapping[str, Any] | None]:
    """OpenRouter usage: the chat counts with cache writes, and the cost as metadata."""
    usage = chat_usage(raw, path)
    if usage is None:
        return None, None
    u = as_mapping(raw, path)
    details = u.get("prompt_tokens_details")  # checked by chat_usage
    write = (
        count_at(details, "cache_write_tokens", path, "prompt_tokens_details") if details else None
    )
    if write is not None:
        usage = make_usage(
            usage.input_tokens,
            usage.output_tokens,
            usage.total_tokens,
            usage.cached_input_tokens,
            write,
            usage.reasoning_tokens,
        )
    cost = u.get("cost")
    cost_details = u.get("cost_details")
    if cost is None and cost_details is None:
        return usage, None
    more: dict[str, Any] = {}
    if cost is not None:
        more["cost"] = _number(cost, f"{path}.cost")
    if cost_details is not None:
        where = f"{path}.cost_details"
        more["cost_details"] = freeze_decoded(as_mapping(cost_details, where), where)
    return usage, more


def _check_block(block: object, where: str) -> Mapping[str, Any]:
    """A ``reasoning_details`` block at ``where`` (a stream fragment too), checked: an
    object with a string ``type`` whose text key (if any) and ``signature`` hold a
    string or null."""
    b = as_mapping(block, where)
    kind = b.get("type")
    if not isinstance(kind, str):
        raise DecodeError("reasoning block type is required (a string)", f"{where}.type")
    key = _TEXT_KEYS.get(kind)
    if key is not None:
        opt_str_at(b, key, where)
    opt_str_at(b, "signature", where)
    return b


def detail_parts(blocks: Sequence[Mapping[str, Any]], tag: str) -> list[ReasoningPart]:
    """The reasoning parts of checked ``reasoning_details`` blocks, in order: text (with
    its signature) and summaries as text, encrypted data as a redacted part; blocks of
    other types have no part (they stay in the kept array)."""
    parts: list[ReasoningPart] = []
    for b in blocks:
        kind = b.get("type")
        if kind == "reasoning.text":
            parts.append(ReasoningPart(b.get("text") or "", b.get("signature"), False, tag))
        elif kind == "reasoning.summary":
            parts.append(ReasoningPart(b.get("summary") or "", None, False, tag))
        elif kind == "reasoning.encrypted":
            parts.append(ReasoningPart(b.get("data") or "", None, True, tag))
    return parts


class OpenRouterStream(ChatCompletionsStream):
    """A chat-completions stream that reassembles ``reasoning_details`` and reads an
    ``error`` object on any chunk."""

    __slots__ = ("_assembled", "_at")

    vendor_key = "error"
    blocks_key = "reasoning_details"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._assembled: list[dict[str, Any]] = []
        self._at: dict[int, int] = {}

    def _vendor(self, value: object) -> None:
        self._set_error(value, "error")

    def _blocks(self, details: object) -> tuple[StreamDelta, ...]:
        path = "choices[0].delta.reasoning_details"
        out: list[StreamDelta] = []
        blocks = self._assembled
        for k, item in enumerate(as_list(details, path)):
            f = _check_block(item, f"{path}[{k}]")
            kind = f["type"]
            index = f.get("index")
            if index is not None and (type(index) is not int or index < 0):
                raise DecodeError("index must be an integer >= 0", f"{path}[{k}].index")
            if index is not None:
                at = self._at.get(index)
                block = blocks[at] if at is not None else None
            else:
                block = blocks[-1] if blocks else None
            if block is None or block["type"] != kind:
                block = {}
                blocks.append(block)
                if index is not None:
                    self._at[index] = len(blocks) - 1
            key = _TEXT_KEYS.get(kind)
            for name, value in f.items():
                if name == key and isinstance(value, str):
                    block[name] = block.get(name, "") + value
                elif value is not None or name not in block:
                    block[name] = value
            if key is not None and kind != "reasoning.encrypted":
                piece = f.get(key)
                if isinstance(piece, str) and piece:
                    self._reasoning.append(piece)
                    out.append(stream_delta(StreamDelta, "reasoning", piece, None))
        return tuple(out)

    def _reasoning_parts(self, own: dict[str, Any]) -> str | Sequence[ReasoningPart] | None:
        if not self._assembled:
            return super()._reasoning_parts(own)
        kept = freeze_decoded(self._assembled, "choices[0].delta.reasoning_details")
        own["reasoning_details"] = kept
        return detail_parts(kept, self._tag) or None


class OpenRouterProvider(ChatCompletionsProvider):
    """OpenRouter chat completions."""

    name = "openrouter"
    developer_role = False
    reasoning_field = "reasoning"
    audio_input = True
    file_input = True
    strict_tools = False
    cache_key = CONTROL_KEY
    reasoning_blocks = True
    finish_reasons = _FINISH
    stream_class = OpenRouterStream

    def _usage(self, raw: object, path: str) -> tuple[Usage | None, Mapping[str, Any] | None]:
        return openrouter_usage(raw, path)

    def _details(
        self, msg: Mapping[str, Any], path: str, own: dict[str, Any], reasoning: str | None
    ) -> str | Sequence[ReasoningPart] | None:
        raw = msg.get("reasoning_details")
        if raw is None:
            return reasoning
        where = f"{path}.reasoning_details"
        kept = []
        for k, b in enumerate(as_list(raw, where)):
            block = _check_block(b, f"{where}[{k}]")
            kept.append(freeze_decoded(block, f"{where}[{k}]"))
        if not kept:
            return reasoning
        own["reasoning_details"] = FrozenList(kept)  # frozen already: respond keeps it as is
        tag = self.tag
        parts = detail_parts(kept, tag)
        if reasoning and all(p.redacted for p in parts):
            # the plain text is not among the blocks (only encrypted ones): keep it too
            parts.insert(0, ReasoningPart(reasoning, provider=tag))
        return parts

    # -- formatting -------------------------------------------------------------------

    def _limit_hints(
        self, out: list[dict[str, Any]], marks: list[tuple[int, Any]], losses: Losses
    ) -> None:
        """Anthropic's rules on ``cache_control`` (at most four, 1h first), applied to
        the hints in ``out`` (the kept keys counted)."""
        owner = {id(value): i for i, value in marks}
        found: list[tuple[dict[str, Any], int | None]] = []
        for d in out:
            content = d.get("content")
            if isinstance(content, list):
                for part in content:
                    collect_control(part, owner, found)
        limit_controls(found, losses, self.name, " (Anthropic's rule)")

    def _assistant_parts(
        self,
        content: Sequence[ContentPart],
        has_calls: bool,
        i: int,
        losses: Losses,
        own: Mapping[str, Any],
    ) -> dict[str, Any]:
        """The text joined; this provider's reasoning goes back in the kept
        ``reasoning_details`` (see ``_assistant_state``) or, without them, as ``reasoning``."""
        if not isinstance(own.get("reasoning_details"), (list, tuple)):
            return super()._assistant_parts(content, has_calls, i, losses, own)
        tag = self.tag
        texts: list[str] = []
        for j, p in enumerate(content):
            if isinstance(p, TextPart):
                texts.append(p.text)
            elif isinstance(p, ReasoningPart):
                # this provider's own, signed or not, is carried by the kept blocks
                own_reasoning(p, tag, True, self.name, f"messages[{i}].content[{j}]", losses)
        text = "".join(texts)
        return {"role": "assistant", "content": text or None if has_calls else text}

    def _assistant_state(
        self, d: dict[str, Any], own: Mapping[str, Any], i: int, losses: Losses
    ) -> None:
        details = own.get("reasoning_details")
        if isinstance(details, (list, tuple)):
            d["reasoning_details"] = thaw(details)
        elif details is not None:
            losses.add(
                f"messages[{i}]",
                "malformed reasoning details kept from openrouter",
                "dropped: not an array",
            )
        super()._assistant_state(d, own, i, losses)


PROVIDER = OpenRouterProvider()
"""The OpenRouter provider."""
