"""Parsing model turns: the parts of a candidate (or of an imported model content), and
``generateContent`` response bodies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._build import message, text_part, tool_call, tool_call_message, trusted
from ..._fields import tool_name_ok
from ..._frozen import EMPTY, FrozenDict, freeze_mapping
from ..._json import json_type
from ..._message import AssistantMessage, ToolCallMessage
from ..._parts import ContentPart, ReasoningPart
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import DecodeError, ValidationError, ident
from .._base import (
    ChatResponse,
    FinishReason,
    Usage,
    as_list,
    as_mapping,
    make_response,
    raw_json_text,
)
from ._wire import (
    block_reason,
    call_extras,
    derived_id,
    duplicate_id,
    error_text,
    extra_keys,
    field,
    finish_reason,
    keys_item,
    opt_field,
    own_state,
    part_kind,
    read_usage,
    signature,
    spelled,
    unknown_item,
)


class Collector:
    """The parts of one model turn (a response candidate, a stream, or a request content).

    One reader for every part; paths are built only for an error or a kept part.
    """

    __slots__ = (
        "calls",
        "candidate",
        "id_seed",
        "ids",
        "invalid",
        "keys",
        "no_args",
        "ordinal",
        "parts",
        "tag",
        "text_signature",
        "unknown",
    )

    def __init__(self, id_seed: Any, tag: str) -> None:
        self.id_seed = id_seed
        self.tag = tag
        # the turn's parts in wire order; a text part as its str (made a TextPart only
        # where parts are kept: a plain text turn is its joined text)
        self.parts: list[str | ContentPart] = []
        self.calls: list[ToolCall] = []
        self.invalid: list[InvalidToolCall] = []
        self.unknown: list[FrozenDict] = []
        self.keys: list[FrozenDict] = []
        self.text_signature: str | None = None
        self.ordinal = 0
        self.no_args: list[str] = []  # ids of calls written without ``args``
        self.ids: list[str] = []  # the ids of every call, valid or not, in wire order
        self.candidate: FrozenDict | None = None  # the candidate's other fields

    def part(self, part: Any, prefix: str, pi: int) -> None:
        """Read the part ``prefix[pi]``."""
        if not isinstance(part, (dict, Mapping)):
            raise DecodeError(f"expected an object, got {json_type(part)}", f"{prefix}[{pi}]")
        sig = _signature(part, prefix, pi)
        text = part.get("text")
        if text is not None:
            self.text(part, text, sig, prefix, pi)
            return
        key = "functionCall" if part.get("functionCall") is not None else "function_call"
        fc = part.get(key)
        if fc is not None:
            self.function_call(fc, prefix, pi, key, sig)
            self.keep(part, key, prefix, pi)
        elif part_kind(part) == "" and ("thoughtSignature" in part or "thought_signature" in part):
            if sig is not None:  # a signature on its own: the text's
                self.text_signature = sig
        else:
            self.unknown.append(unknown_item(part, pi, f"{prefix}[{pi}]"))

    def text(
        self, part: Mapping[str, Any], text: Any, sig: str | None, prefix: str, pi: int
    ) -> None:
        """A text part: a thought, or answer text (whose signature is the message's)."""
        if type(text) is not str:
            raise DecodeError(f"expected a string, got {json_type(text)}", f"{prefix}[{pi}].text")
        if part.get("thought") is True:
            self.parts.append(trusted(ReasoningPart, text, sig, False, self.tag))
        else:
            self.parts.append(text)
            if sig is not None:
                self.text_signature = sig
        self.keep(part, "text", prefix, pi)

    def keep(self, part: Mapping[str, Any], key: str, prefix: str, pi: int) -> None:
        """Keep the fields of a part the canonical model has no place for."""
        if len(part) > 1:  # more than its data
            extra = extra_keys(part, key)
            if extra:
                self.keys.append(keys_item(extra, pi, f"{prefix}[{pi}]"))

    def function_call(
        self, fc: Any, prefix: str, pi: int, key: str, sig: str | None
    ) -> ToolCall | InvalidToolCall:
        """A ``functionCall``: a ToolCall, or an InvalidToolCall when its name breaks the
        name rule or its arguments are not a JSON object (the rest still parses)."""
        if not isinstance(fc, (dict, Mapping)):
            raise DecodeError(f"expected an object, got {json_type(fc)}", f"{prefix}[{pi}].{key}")
        name = _name(fc.get("name"), prefix, pi, key)
        args = fc.get("args")
        wire_id = fc.get("id")
        if wire_id is not None and not isinstance(wire_id, str):
            what = f"expected a string, got {json_type(wire_id)}"
            raise DecodeError(what, f"{prefix}[{pi}].{key}.id")
        ordinal = self.ordinal
        self.ordinal = ordinal + 1
        frozen = EMPTY
        if tool_name_ok(name):
            frozen, problem = _arguments(args, prefix, pi, key)
        else:
            problem = f"{prefix}[{pi}].{key}.name: invalid tool name {ident(name)}"
        call_id = wire_id or derived_id(self.id_seed, ordinal, name, args)
        self.ids.append(call_id)
        extras = call_extras(sig, self.tag)
        if problem is None:
            if args is None and "args" not in fc:
                self.no_args.append(call_id)  # written without ``args``: formatted back so
            call = tool_call(ToolCall, call_id, name, frozen, extras)
            self.calls.append(call)
            return call
        raw = args if type(args) is str else raw_json_text({} if args is None else args)
        bad = InvalidToolCall(call_id, name, raw, problem, extras)
        self.invalid.append(bad)
        return bad

    def message(self, usage: Usage | None) -> AssistantMessage:
        """The turn as a response message: reasoning parts first, then the joined text.

        When the turn kept unknown parts (code execution, ...) or part fields, its
        parts stay as the wire ordered them instead, one per part: the unknown parts
        go back between them, at their index, when the message is formatted for
        Gemini again (``text`` is the joined text either way).
        """
        text = "".join([p for p in self.parts if isinstance(p, str)])
        reasoning = [p for p in self.parts if not isinstance(p, str)]
        own: dict[str, Any] = {}
        if self.text_signature is not None:
            own["text_signature"] = self.text_signature
        if self.invalid:
            self.keep_order(own)
        extras = own_state(own, self.unknown, self.keys, self.tag)
        metadata = (
            FrozenDict({"usage": FrozenDict(usage.to_dict())}) if usage is not None else EMPTY
        )
        if self.candidate:
            metadata = FrozenDict({**metadata, "candidate": self.candidate})
        content: str | tuple[ContentPart, ...] = text
        if (self.unknown or self.keys) and len(self.parts) > 1:
            content = self.content_parts()
        elif reasoning:
            content = (*reasoning, text_part(text)) if text else tuple(reasoning)
        if not self.calls and not self.invalid:
            return message(AssistantMessage, content, None, metadata, extras)
        self.check_ids("candidates[0]")
        return tool_call_message(
            ToolCallMessage,
            tuple(self.calls),
            content or None,
            tuple(self.invalid),
            None,
            metadata,
            extras,
        )

    def content_parts(self) -> tuple[ContentPart, ...]:
        """The turn's parts, in wire order, a text as a TextPart."""
        return tuple([text_part(p) if isinstance(p, str) else p for p in self.parts])

    def keep_order(self, own: dict[str, Any]) -> None:
        """Keep the wire order of the calls when an invalid one came before a valid one
        (the message has the valid ones first): formatting puts them back in it, so
        the signature stays on the first call part, where Gemini looks for it."""
        ids = self.ids
        if ids != [c.id for c in self.calls] + [c.id for c in self.invalid]:
            own["call_order"] = tuple(ids)

    def check_ids(self, path: str) -> None:
        """Two calls of one turn with one id cannot be answered apart: a DecodeError.
        (Derived ids differ: each hashes its call's position.)"""
        seen: set[str] = set()
        for call_id in self.ids:
            if call_id in seen:
                raise duplicate_id(call_id, path)
            seen.add(call_id)


def _signature(part: Mapping[str, Any], prefix: str, pi: int) -> str | None:
    """The part's ``thoughtSignature`` (either spelling); an empty one is none."""
    sig = part.get("thoughtSignature")
    if sig is None:
        sig = part.get("thought_signature")
    if sig is None or type(sig) is str:
        return sig or None
    return signature(part, f"{prefix}[{pi}]")  # raises, naming the field


def _name(name: Any, prefix: str, pi: int, key: str) -> str:
    """A call's name; a missing name (or one that is not a string) fails the part: it
    names no call."""
    if type(name) is not str or not name:
        what = (
            "missing" if name is None or name == "" else f"expected a string, got {json_type(name)}"
        )
        raise DecodeError(what, f"{prefix}[{pi}].{key}.name")
    return name


def _arguments(args: Any, prefix: str, pi: int, key: str) -> tuple[FrozenDict, str | None]:
    """A call's arguments frozen, or what is wrong with them."""
    if args is None:
        return EMPTY, None
    if not isinstance(args, (dict, Mapping)):
        return EMPTY, f"{prefix}[{pi}].{key}.args: expected an object, got {json_type(args)}"
    try:
        return freeze_mapping(args, ""), None
    except ValidationError as exc:
        # an object holding what JSON cannot (NaN from a lenient decoder, nesting over
        # the limit): an invalid call, as the other providers make it
        where = f"{prefix}[{pi}].{key}.args"
        return EMPTY, f"{where}{'.' if exc.path else ''}{exc.path}: {exc.message}"


# -- response bodies -------------------------------------------------------------------------


def parse_response(body: Any, tag: str) -> ChatResponse:
    """Parse a generateContent response body (either field spelling).

    A body with no candidates is a blocked prompt (CONTENT_FILTER) when
    ``promptFeedback.blockReason`` says so, else a DecodeError at ``candidates``.
    """
    body = as_mapping(body, "")
    error = body.get("error")
    if isinstance(error, Mapping):
        return ChatResponse(
            AssistantMessage(""), FinishReason.ERROR, None, None, error=error_text(error, "error")
        )
    key = "usageMetadata" if body.get("usageMetadata") is not None else "usage_metadata"
    raw_usage = body.get(key)
    usage = read_usage(raw_usage, key) if raw_usage is not None else None
    model = opt_field(body, "modelVersion", "")
    response_id = opt_field(body, "responseId", "")
    candidates = body.get("candidates")
    if candidates is not None:
        candidates = as_list(candidates, "candidates")
    if not candidates:
        return _blocked(body, usage, model, response_id)
    cand = as_mapping(candidates[0], "candidates[0]")
    raw_finish = opt_field(cand, "finishReason", "candidates[0]")
    acc = Collector(response_id or "", tag)
    if not CANDIDATE_FIELDS.issuperset(cand):
        acc.candidate = candidate_rest(cand, "candidates[0]") or None
    content = cand.get("content")
    if content is not None:
        parts = as_mapping(content, "candidates[0].content").get("parts")
        if parts is not None:
            prefix = "candidates[0].content.parts"
            for pi, part in enumerate(as_list(parts, prefix)):
                acc.part(part, prefix, pi)
    finish = finish_reason(raw_finish, acc.ordinal > 0)
    return make_response(
        acc.message(usage), finish, usage, model, (), raw_finish, None, response_id
    )


#: The fields of a response candidate the message is made of (both spellings).
CANDIDATE_FIELDS = frozenset(("content", "finishReason", "finish_reason", "index"))


def candidate_rest(cand: Mapping[str, Any], path: str) -> FrozenDict:
    """A candidate's other fields (``groundingMetadata``, ``citationMetadata``,
    ``safetyRatings``, ``urlContextMetadata``, ``finishMessage``, ``avgLogprobs``...),
    as Gemini sent them: the message keeps them in ``metadata["candidate"]`` (response
    information, never sent back)."""
    rest = {k: v for k, v in cand.items() if k not in CANDIDATE_FIELDS}
    try:
        return freeze_mapping(rest, "")
    except ValidationError as exc:
        raise DecodeError(exc.message, f"{path}.{exc.path}" if exc.path else path) from None


def _blocked(
    body: Mapping[str, Any], usage: Usage | None, model: str | None, response_id: str | None
) -> ChatResponse:
    """A body without candidates: a blocked prompt, or a DecodeError."""
    reason = block_reason(field(body, "promptFeedback"), spelled(body, "promptFeedback"))
    if reason is None:
        raise DecodeError("no candidates and no promptFeedback.blockReason", "candidates")
    return blocked_response(reason, usage, model, response_id)


def blocked_response(
    reason: str, usage: Usage | None, model: str | None, response_id: str | None
) -> ChatResponse:
    """The response to a blocked prompt: empty, CONTENT_FILTER, the reason in metadata."""
    metadata: dict[str, Any] = {"prompt_block_reason": reason}
    if usage is not None:
        metadata["usage"] = usage.to_dict()
    return ChatResponse(
        AssistantMessage("", metadata=metadata),
        FinishReason.CONTENT_FILTER,
        usage,
        model,
        id=response_id,
    )
