"""Batch-API lines: OpenAI ``/v1/batches``, Anthropic Message Batches, Gemini batch mode.

Each line is one request with its id: the request's conversation and tools are read
and written by the provider (``parse_messages``, ``parse_tools``, ``convert``); its
other options (model, max_tokens, temperature, ...) are kept in the record's extras
under the line's own key (``body``, ``params``, ``request``) and written back into
lines of the same format. Built-in tools the provider has no ToolDefinition for stay
with those options.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from .._frozen import EMPTY, FrozenDict, freeze, thaw
from ..errors import DecodeError, ident
from ..providers._base import Loss
from ._common import (
    Encoded,
    Options,
    foreign_extras,
    formatted,
    frozen,
    key_at,
    list_at,
    object_at,
    parsed,
    provider,
    split_tools,
    weight_losses,
)
from ._record import Record, trusted_record

if TYPE_CHECKING:
    from ..providers._base import Provider

__all__ = [
    "ANTHROPIC",
    "CHAT_URL",
    "GEMINI",
    "RESPONSES_URL",
    "URLS",
    "read_batch",
    "read_openai",
    "write_batch",
    "write_openai",
]

CHAT_URL = "/v1/chat/completions"
RESPONSES_URL = "/v1/responses"

#: The urls of an OpenAI batch line that carry a conversation, and the provider of each.
URLS: dict[str, str] = {CHAT_URL: "openai", RESPONSES_URL: "openai_responses"}


class Batch(NamedTuple):
    """Where a batch format keeps the id and the request, and which keys hold the conversation."""

    name: str
    id_key: str
    container: str
    provider: str
    conversation: frozenset[str]


ANTHROPIC = Batch(
    "anthropic-batch",
    "custom_id",
    "params",
    "anthropic",
    frozenset(("messages", "system", "tools")),
)
GEMINI = Batch(
    "gemini-batch",
    "key",
    "request",
    "gemini",
    frozenset(("contents", "systemInstruction", "system_instruction", "tools")),
)
_CONVERSATION = {
    CHAT_URL: frozenset(("messages", "tools")),
    RESPONSES_URL: frozenset(("input", "instructions", "tools")),
}
_OPENAI_LINE = frozenset(("custom_id", "method", "url", "body"))
#: Options that an OpenAI fine-tuning line holds at its top and a request in its body.
FT_BODY_KEYS = ("parallel_tool_calls",)


def _request(
    wire: Provider, body: Mapping[str, Any], path: str, conversation: frozenset[str]
) -> tuple[tuple[Any, ...], tuple[Any, ...], FrozenDict]:
    """A request body's messages, function tools, and its other options (frozen)."""
    messages = parsed(wire, body, path)
    tools: tuple[Any, ...] = ()
    options = frozen(body, conversation, path)
    listed = list_at(body, "tools", required=False) if "tools" in body else None
    if listed:
        tools, kept = split_tools(wire, listed, f"{path}.tools")
        if kept:
            options = freeze({**options, "tools": kept}, path)
    return messages, tools, options


def read_batch(obj: Mapping[str, Any], batch: Batch) -> Record:
    """An Anthropic or Gemini batch line as a Record."""
    key = key_at(obj, batch.id_key)
    body = object_at(obj, batch.container)
    assert body is not None
    wire = provider(batch.provider)
    messages, tools, options = _request(wire, body, batch.container, batch.conversation)
    extras = dict(frozen(obj, frozenset((batch.id_key, batch.container))))
    if options:
        extras[batch.container] = options
    return trusted_record(key, messages, tools, FrozenDict(extras) if extras else EMPTY)


def read_openai(obj: Mapping[str, Any]) -> Record:
    """An OpenAI batch line (chat completions or Responses) as a Record."""
    key = key_at(obj, "custom_id")
    method = obj.get("method", "POST")
    if method != "POST":
        raise DecodeError(f"expected POST, got {ident(method)}", "method")
    url = obj.get("url", CHAT_URL)
    if url not in URLS:
        raise DecodeError(f"url {ident(url)} is not one of {', '.join(URLS)}", "url")
    body = object_at(obj, "body")
    assert body is not None
    wire = provider(URLS[url])
    messages, tools, options = _request(wire, body, "body", _CONVERSATION[url])
    extras = dict(frozen(obj, _OPENAI_LINE))
    if options:
        extras["body"] = options
    if url != CHAT_URL:
        extras["url"] = url
    return trusted_record(key, messages, tools, FrozenDict(extras) if extras else EMPTY)


def _body(
    record: Record, wire: Provider, options: Mapping[str, Any], losses: list[Loss]
) -> dict[str, Any]:
    """The request body: the kept options, then the conversation and tools the provider wrote."""
    written, found = formatted(wire, record)
    losses.extend(found)
    body = thaw(options) if options else {}
    kept = body.pop("tools", None)
    body.update(written)
    if kept:
        body["tools"] = [*body.get("tools", ()), *kept]
    return body


def write_batch(record: Record, n: int, batch: Batch) -> Encoded:
    """A Record as an Anthropic or Gemini batch line (a key made from ``n`` when it has none)."""
    losses: list[Loss] = []
    options = record.extras.get(batch.container, EMPTY)
    body = _body(
        record, provider(batch.provider), _mapping(options, batch.container, losses), losses
    )
    foreign_extras(record, batch.name, frozenset((batch.container,)), losses)
    weight_losses(record, batch.name, losses)
    key = record.key if record.key is not None else f"request-{n}"
    return {batch.id_key: key, batch.container: body}, losses


def write_openai(record: Record, n: int, options: Options) -> Encoded:
    """A Record as an OpenAI batch line, to ``options.url``, the record's url, or chat completions."""
    extras = record.extras
    key = record.key if record.key is not None else f"request-{n}"
    if not extras:  # a conversation without request options (most datasets): the body only
        url = options.url or CHAT_URL
        body, found = formatted(provider(URLS[url]), record)
        losses = list(found)
        weight_losses(record, "openai-batch", losses)
        return {"custom_id": key, "method": "POST", "url": url, "body": body}, losses
    losses = []
    came_from = extras.get("url", CHAT_URL)
    url = options.url or (came_from if came_from in URLS else CHAT_URL)
    body_options = dict(_mapping(extras.get("body", EMPTY), "body", losses))
    if came_from != url:
        for name in [k for k in body_options if k != "model"]:
            del body_options[name]
            losses.append(
                Loss(f"body.{name}", f"a request option of {came_from}", f"not carried to {url}")
            )
    for name in FT_BODY_KEYS:
        if name in extras and name not in body_options:
            body_options[name] = extras[name]
    body = _body(record, provider(URLS[url]), body_options, losses)
    foreign_extras(record, "openai-batch", frozenset(("body", "url", *FT_BODY_KEYS)), losses)
    weight_losses(record, "openai-batch", losses)
    return {"custom_id": key, "method": "POST", "url": url, "body": body}, losses


def _mapping(value: object, where: str, losses: list[Loss]) -> Mapping[str, Any]:
    """The kept request options (a user's extras may hold anything there: a loss then)."""
    if isinstance(value, Mapping):
        return value
    losses.append(Loss(where, "request options that are not an object", "not carried"))
    return EMPTY
