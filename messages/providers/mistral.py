"""Mistral's chat endpoint (``https://api.mistral.ai/v1/chat/completions``).

The OpenAI format with Mistral's rules (docs.mistral.ai: chat completions API,
function calling, vision, document understanding, reasoning; the request
validator of ``mistral-common``, which Mistral's models also enforce when served
by vLLM in Mistral mode):

* Tool-call ids are exactly nine letters and digits (``^[a-zA-Z0-9]{9}$``). A
  call whose id is not (a call made by another provider) is sent with a derived
  id: nine base-62 characters of a hash of its id, the same for the call and the
  results that answer it, different for different ids in one request (a derived
  id that would repeat one already used is derived again, with a counter). Ids
  that are already nine letters and digits are sent as they are, so a Mistral
  response's ids never change. ``MISTRAL.wire_ids(messages)`` gives the ids a
  request changes (original -> sent), and ``parse_messages(body, ids=...)`` maps
  them back, so a conversation formatted for Mistral and read back keeps the ids
  the rest of the conversation uses. The canonical messages are never changed.
* Content is a string or chunks: ``text``, ``image_url`` (a URL string, or
  ``{"url", "detail"}``), ``document_url`` (a URL, with ``document_name``) and,
  on assistant turns, ``thinking`` (magistral models: ``{"type": "thinking",
  "thinking": [{"type": "text", "text": ...}]}``). Stream deltas carry content as
  a string or as an array of chunks. A ``document_url`` holding a ``data:`` URL is
  a FilePart (and a FilePart with inline data goes out as one); one holding a web
  URL is kept as it is and sent back to Mistral only. A file sent by id, audio,
  a message's ``name`` (Mistral rejects unknown keys with 422 ``extra_forbidden``)
  and ``developer`` messages (sent as ``system``) are losses.
* Reasoning is Mistral's own thinking chunks only, sent back in place (a
  ``thinking`` chunk before the text); other providers' reasoning is a Loss.
* After a tool message only an assistant or another tool message may come: a
  user or system message that follows tool results gets an assistant message
  (``"Understood."``) before it, a Loss saying so. Every call must be answered
  before the next assistant message and at the end of the request, so calls left
  without a result (the last turn's too) get error results, each a Loss.
* An assistant message with ``prefix: true`` (the turn the model continues) is
  kept and sent back to Mistral. ``finish_reason`` ``model_length`` is LENGTH,
  ``error`` is ERROR. Cache hints (``Message.cache``) are a Loss: Mistral caches
  prompt prefixes by itself (``prompt_cache_key``) and takes no breakpoints.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Final

from .._message import Message, ToolCallMessage, ToolResultMessage
from .._parts import (
    ContentPart,
    FilePart,
    ImagePart,
    ReasoningPart,
    TextPart,
    data_url,
    parse_data_url,
)
from ..errors import DecodeError, ValidationError
from ._base import FinishReason, Losses, kept_unknown
from ._cache_hints import no_breakpoints
from ._chat_completions import (
    FINISH,
    CallIdMap,
    ChatCompletionsProvider,
    PartDecoder,
    own_reasoning,
    reinsert_unknown,
)
from ._chat_completions._readers import req_str

__all__ = ["PROVIDER", "MistralIds", "MistralProvider", "mistral_id"]

_FINISH: Final = {**FINISH, "model_length": FinishReason.LENGTH, "error": FinishReason.ERROR}
_ALPHABET: Final = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_SPAN: Final = 62**9


@functools.lru_cache(maxsize=4096)
def mistral_id(call_id: str, attempt: int = 0) -> str:
    """The nine-character id derived from ``call_id`` (``attempt`` > 0 after a clash).

    An agent loop sends the same history every turn, so derived ids are cached.
    """
    text = call_id if attempt == 0 else f"{call_id}\x1f{attempt}"
    n = int.from_bytes(hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:8], "big")
    n %= _SPAN
    out = []
    for _ in range(9):
        n, r = divmod(n, 62)
        out.append(_ALPHABET[r])
    return "".join(out)


class MistralIds(CallIdMap):
    """The tool-call ids of one request, as Mistral takes them (see the module doc):
    ``ids[call_id]`` is the id sent."""

    __slots__ = ("_taken",)

    def __init__(self) -> None:
        super().__init__()
        self._taken: set[str] = set()

    def __missing__(self, call_id: str) -> str:
        """An id not seen yet: itself when it is nine letters and digits not used yet,
        else a derived one no other id of the request has."""
        taken = self._taken
        if len(call_id) == 9 and call_id.isalnum() and call_id.isascii() and call_id not in taken:
            sent = call_id
        else:
            attempt = 0
            sent = mistral_id(call_id)
            while sent in taken:
                attempt += 1
                sent = mistral_id(call_id, attempt)
        self[call_id] = sent
        taken.add(sent)
        return sent

    def changed(self) -> dict[str, str]:
        """The ids this map changed: original -> sent."""
        return {k: v for k, v in self.items() if k != v}


def _document(p: Mapping[str, Any], path: str) -> tuple[ContentPart, tuple[str, ...]] | None:
    """A ``document_url`` chunk: a FilePart when it holds inline data (None: a web URL,
    kept as it is); it reads ``document_name`` too."""
    url = req_str(p.get("document_url"), f"{path}.document_url")
    if not url.startswith("data:"):
        return None
    name = p.get("document_name")
    if name is not None and not isinstance(name, str):
        raise DecodeError("expected a string", f"{path}.document_name")
    try:
        media_type, data = parse_data_url(url, f"{path}.document_url")
        return FilePart(data, None, name, media_type), ("document_name",)
    except ValidationError as exc:
        raise DecodeError(exc.message, exc.path or f"{path}.document_url") from None


class MistralProvider(ChatCompletionsProvider):
    """Mistral chat completions."""

    name = "mistral"
    developer_role = False
    reasoning_field = None  # reasoning goes back as thinking chunks (see _assistant_parts)
    audio_input = False
    file_input = True
    strict_tools = False
    message_names = False
    answers_last_turn = True
    bridge_text = "Understood."
    call_ids = MistralIds
    cache_rule = no_breakpoints("mistral", "it caches prompt prefixes by itself")
    finish_reasons = _FINISH
    part_decoders: Mapping[str, PartDecoder] = {"document_url": _document}

    def wire_ids(self, messages: Sequence[Message]) -> dict[str, str]:
        """The tool-call ids a request for ``messages`` sends changed: original -> sent.

        Give it to ``parse_messages(body, ids=...)`` to read such a request back
        with the original ids.
        """
        ids = MistralIds()
        for m in messages:
            if isinstance(m, ToolCallMessage):
                for c in m.tool_calls:
                    ids[c.id]  # works the id out
                for bad in m.invalid_tool_calls:
                    if bad.name is not None or self.tag in bad.extras:
                        ids[bad.id]
        return ids.changed()

    def parse_messages(
        self,
        body_or_list: Mapping[str, Any] | Sequence[Any],
        *,
        ids: Mapping[str, str] | None = None,
    ) -> list[Message]:
        """Import a conversation written as a Mistral request; ``ids`` (from
        ``wire_ids``: original -> sent) maps derived tool-call ids back."""
        messages = super().parse_messages(body_or_list)
        if not ids:
            return messages
        if not isinstance(ids, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in ids.items()
        ):
            raise ValidationError("ids must map original ids to sent ids (str to str)", "ids")
        return _map_back(messages, ids)

    # -- formatting -------------------------------------------------------------------

    def _part(self, p: ContentPart, i: int, j: int, losses: Losses) -> dict[str, Any] | None:
        if isinstance(p, ImagePart):
            if p.detail is None:
                return {"type": "image_url", "image_url": p.data_url}
            return {"type": "image_url", "image_url": {"url": p.data_url, "detail": p.detail}}
        if isinstance(p, FilePart):
            if p.data is not None and p.media_type is not None:
                doc: dict[str, Any] = {
                    "type": "document_url",
                    "document_url": data_url(p.media_type, p.data),
                }
                if p.filename:
                    doc["document_name"] = p.filename
                return doc
            losses.add(
                f"messages[{i}].content[{j}]",
                "file part without inline data and a media type",
                "dropped: mistral takes documents as a URL (document_url)",
            )
            return None
        return super()._part(p, i, j, losses)

    def _assistant_parts(
        self,
        content: Sequence[ContentPart],
        has_calls: bool,
        i: int,
        losses: Losses,
        own: Mapping[str, Any],
    ) -> dict[str, Any]:
        """Text and Mistral's own reasoning as chunks (thinking first, as they came)."""
        tag = self.tag
        chunks: list[dict[str, Any]] = []
        for j, p in enumerate(content):
            if isinstance(p, TextPart):
                if p.text:
                    if chunks and chunks[-1]["type"] == "text":
                        chunks[-1] = {"type": "text", "text": chunks[-1]["text"] + p.text}
                    else:
                        chunks.append({"type": "text", "text": p.text})
            elif isinstance(p, ReasoningPart):
                path = f"messages[{i}].content[{j}]"
                if own_reasoning(p, tag, False, self.name, path, losses):
                    thought = {"type": "text", "text": p.text}
                    chunks.append({"type": "thinking", "thinking": [thought]})
        d: dict[str, Any] = {"role": "assistant"}
        if any(c["type"] == "thinking" for c in chunks):
            d["content"] = chunks
        else:
            text = "".join(c["text"] for c in chunks)
            d["content"] = text or None if has_calls else text
        return d

    def _assistant_state(
        self, d: dict[str, Any], own: Mapping[str, Any], i: int, losses: Losses
    ) -> None:
        """Kept chunks and chunk keys go back in place (Mistral content is chunks)."""
        if kept_unknown(own) or own.get("keys"):
            c = d.get("content")
            chunks = c if isinstance(c, list) else [{"type": "text", "text": c}] if c else []
            d["content"] = reinsert_unknown(chunks, own)
            own = {k: v for k, v in own.items() if k not in ("unknown", "keys")}
        super()._assistant_state(d, own, i, losses)


def _map_back(messages: list[Message], ids: Mapping[str, str]) -> list[Message]:
    """``messages`` with the sent ids in ``ids`` (original -> sent) replaced by the originals."""
    back = {sent: original for original, sent in ids.items()}
    out: list[Message] = []
    for m in messages:
        if isinstance(m, ToolCallMessage):
            calls = tuple(
                dataclasses.replace(c, id=back[c.id]) if c.id in back else c for c in m.tool_calls
            )
            bad = tuple(
                dataclasses.replace(c, id=back[c.id]) if c.id in back else c
                for c in m.invalid_tool_calls
            )
            changed = calls != m.tool_calls or bad != m.invalid_tool_calls
            out.append(
                dataclasses.replace(m, tool_calls=calls, invalid_tool_calls=bad) if changed else m
            )
        elif isinstance(m, ToolResultMessage) and m.tool_call_id in back:
            out.append(dataclasses.replace(m, tool_call_id=back[m.tool_call_id]))
        else:
            out.append(m)
    return out


PROVIDER = MistralProvider()
"""The Mistral provider."""
