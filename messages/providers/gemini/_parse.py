"""Parsing model turns: the parts of a candidate (or of an imported model content), and
``generateContent`` response bodies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._build import chat_response, message, text_part, tool_call, tool_call_message, trusted
from ..._fields import _KNOWN_MAX, _NAME_RE, known_tool_name
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
    as_mapping,
    fast_list,
    fast_mapping,
    opt_str,
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

    One reader for every part: a plain text part (one key) and a call with a known
    name and an object of plain values are read inline, with no path string made
    (paths are built only for an error or a kept part); anything else goes to a
    small helper that reads it or raises.
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
        "sent",
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
        self.sent = False  # ... whether the wire sent one of them (the rest are derived)
        self.candidate: FrozenDict | None = None  # the candidate's other fields

    def part(self, part: Any, prefix: str, pi: int) -> None:
        """Read the part ``prefix[pi]``."""
        if part.__class__ is not dict:
            part = as_mapping(part, f"{prefix}[{pi}]")
        # hot path: the fields a model part usually has are read inline and counted
        # off; a path is made, and the part's other fields looked at, only when some
        # are left (or for an error). Parsing a response of two calls runs ~1,380
        # bytecodes (~98k instructions), where the old fast reader beside a general
        # one ran ~1,250 (~91k).
        n = len(part)
        sig = None
        if n > 1:
            sig = part.get("thoughtSignature")
            if sig is None:
                sig = part.get("thought_signature")
            if sig is not None:
                if sig.__class__ is not str:
                    signature(part, f"{prefix}[{pi}]")  # raises, naming the field
                n -= 1
                sig = sig or None
        text = part.get("text")
        if text is not None:
            if text.__class__ is not str:
                raise DecodeError(
                    f"expected a string, got {json_type(text)}", f"{prefix}[{pi}].text"
                )
            if n == 1:  # hot path: plain text (a signature counted off)
                self.parts.append(text)
                if sig is not None:
                    self.text_signature = sig
            else:
                self.text(part, text, sig, n, prefix, pi)
            return
        key = "functionCall"
        fc = part.get(key)
        if fc is None:
            key = "function_call"
            fc = part.get(key)
        if fc is not None:
            self.function_call(fc, prefix, pi, key, sig)
            if n > 1:
                self.keep(part, key, prefix, pi)
            return
        if part_kind(part) == "" and ("thoughtSignature" in part or "thought_signature" in part):
            sig = signature(part, f"{prefix}[{pi}]")  # a signature on its own: the text's
            if sig is not None:
                self.text_signature = sig
            return
        self.unknown.append(unknown_item(part, pi, f"{prefix}[{pi}]"))

    def text(
        self, part: Mapping[str, Any], text: str, sig: str | None, n: int, prefix: str, pi: int
    ) -> None:
        """A text part with more than its text (and signature): a thought, other fields."""
        thought = part.get("thought")
        if thought is True:
            self.parts.append(trusted(ReasoningPart, text, sig, False, self.tag))
        else:
            self.parts.append(text)
            if sig is not None:
                self.text_signature = sig
        if thought is not None:
            n -= 1
        if n > 1:
            self.keep(part, "text", prefix, pi)

    def keep(self, part: Mapping[str, Any], key: str, prefix: str, pi: int) -> None:
        """Keep the fields of a part the canonical model has no place for."""
        extra = extra_keys(part, key)
        if extra:
            self.keys.append(keys_item(extra, pi, f"{prefix}[{pi}]"))

    def function_call(self, fc: Any, prefix: str, pi: int, key: str, sig: str | None) -> None:
        """A ``functionCall``: a ToolCall, or an InvalidToolCall when its name breaks the
        name rule or its arguments are not a JSON object (the rest still parses).

        Hot path: a name already seen valid is one set lookup (the regex ~120 ns) and
        an object of arguments is frozen inline; anything else goes to ``_name`` /
        ``_arguments``, which normalise or report it.
        """
        if fc.__class__ is not dict:
            fc = as_mapping(fc, f"{prefix}[{pi}].{key}")
        name = fc.get("name")
        args = fc.get("args")
        wire_id = fc.get("id")
        if wire_id is not None and wire_id.__class__ is not str:
            wire_id = opt_str(wire_id, f"{prefix}[{pi}].{key}.id")
        ordinal = self.ordinal
        self.ordinal = ordinal + 1
        problem = None if name in known_tool_name else _name(name, prefix, pi, key)
        if args.__class__ is dict and problem is None:
            try:
                frozen = freeze_mapping(args, "")
            except ValidationError as exc:
                frozen, problem = EMPTY, _not_json(exc, prefix, pi, key)
        else:
            frozen, problem = _arguments(args, problem, prefix, pi, key)
        if wire_id:
            call_id = wire_id
            self.sent = True
        else:
            call_id = derived_id(self.id_seed, ordinal, name, args)
        self.ids.append(call_id)
        extras = EMPTY if sig is None else call_extras(sig, self.tag)
        if problem is None:
            if args is None and "args" not in fc:
                self.no_args.append(call_id)  # written without ``args``: formatted back so
            self.calls.append(tool_call(ToolCall, call_id, name, frozen, extras))
        else:
            raw = args if args.__class__ is str else raw_json_text({} if args is None else args)
            self.invalid.append(InvalidToolCall(call_id, name, raw, problem, extras))

    def message(self, usage: Usage | None) -> AssistantMessage:
        """The turn as a response message: reasoning parts first, then the joined text.

        When the turn kept unknown parts (code execution, ...) or part fields, its
        parts stay as the wire ordered them instead, one per part: the unknown parts
        go back between them, at their index, when the message is formatted for
        Gemini again (``text`` is the joined text either way).
        """
        texts: list[str] = []
        reasoning: list[ContentPart] = []
        for p in self.parts:
            if p.__class__ is str:
                texts.append(p)
            else:
                reasoning.append(p)  # type: ignore[arg-type]
        text = texts[0] if len(texts) == 1 else "".join(texts)
        own: dict[str, Any] = {}
        if self.text_signature is not None:
            own["text_signature"] = self.text_signature
        if self.invalid:
            self.keep_order(own)
        # hot path: every value here is checked and frozen already (trusted builders)
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
        calls = self.calls
        invalid = self.invalid
        if calls or invalid:
            if self.sent:  # hot path: see check_ids (the call alone ~340 instructions)
                self.check_ids("candidates[0]")
            return tool_call_message(
                ToolCallMessage,
                tuple(calls),
                content if content != "" else None,
                tuple(invalid),
                None,
                metadata,
                extras,
            )
        return message(AssistantMessage, content, None, metadata, extras)

    def content_parts(self) -> tuple[ContentPart, ...]:
        """The turn's parts, in wire order, a text as a TextPart."""
        return tuple(text_part(p) if p.__class__ is str else p for p in self.parts)  # type: ignore[misc]

    def keep_order(self, own: dict[str, Any]) -> None:
        """Keep the wire order of the calls when an invalid one came before a valid one
        (the message has the valid ones first): formatting puts them back in it, so
        the signature stays on the first call part, where Gemini looks for it."""
        ids = self.ids
        if ids != [c.id for c in self.calls] + [c.id for c in self.invalid]:
            own["call_order"] = tuple(ids)

    def check_ids(self, path: str) -> None:
        """Two calls of one turn with one id cannot be answered apart: a DecodeError."""
        ids = self.ids
        # hot path: derived ids differ by construction (each hashes its call's ordinal),
        # so only a turn with an id from the wire is looked at (the set of two derived
        # ids cost ~2.2k of a parse's ~102k instructions)
        if self.sent and len(ids) > 1 and len(set(ids)) != len(ids):
            seen: set[str] = set()
            for call_id in ids:
                if call_id in seen:
                    raise duplicate_id(call_id, path)
                seen.add(call_id)


def _name(name: Any, prefix: str, pi: int, key: str) -> str | None:
    """A call name not seen valid yet: None when valid (now known), else what is wrong.
    A missing name (or one that is not a string) fails the part: it names no call."""
    if name.__class__ is not str or not name:
        what = (
            "missing" if name is None or name == "" else f"expected a string, got {json_type(name)}"
        )
        raise DecodeError(what, f"{prefix}[{pi}].{key}.name")
    if _NAME_RE.fullmatch(name) is None:
        return f"{prefix}[{pi}].{key}.name: invalid tool name {ident(name)}"
    if len(known_tool_name) < _KNOWN_MAX:
        known_tool_name.add(name)
    return None


def _arguments(
    args: Any, problem: str | None, prefix: str, pi: int, key: str
) -> tuple[FrozenDict, str | None]:
    """Arguments that are not a plain dict (or of a call already found invalid): frozen,
    or what is wrong with them."""
    if problem is not None:
        return EMPTY, problem
    if args is None:
        return EMPTY, None
    if isinstance(args, Mapping):
        try:
            return freeze_mapping(args, ""), None
        except ValidationError as exc:
            return EMPTY, _not_json(exc, prefix, pi, key)
    return EMPTY, f"{prefix}[{pi}].{key}.args: expected an object, got {json_type(args)}"


def _not_json(exc: ValidationError, prefix: str, pi: int, key: str) -> str:
    """An object holding what JSON cannot (NaN from a lenient decoder, nesting over the
    limit): an invalid call, as the other providers make it."""
    where = f"{prefix}[{pi}].{key}.args"
    return f"{where}{'.' if exc.path else ''}{exc.path}: {exc.message}"


# -- response bodies -------------------------------------------------------------------------


def parse_response(body: Any, tag: str) -> ChatResponse:
    """Parse a generateContent response body (either field spelling).

    A body with no candidates is a blocked prompt (CONTENT_FILTER) when
    ``promptFeedback.blockReason`` says so, else a DecodeError at ``candidates``.
    """
    # hot path: the keys of the usual REST body read by subscript (a get is a call),
    # by get when one is missing (an error body, the proto spelling); the exact-type
    # checks written out (fast_mapping's frame ~500 instructions)
    if body.__class__ is not dict:
        body = fast_mapping(body, "")
    if "error" in body:
        error = body["error"]
        if error is not None and isinstance(error, Mapping):
            return ChatResponse(
                AssistantMessage(""),
                FinishReason.ERROR,
                None,
                None,
                error=error_text(error, "error"),
            )
    try:
        candidates = body["candidates"]
        usage = body["usageMetadata"]
        model = body["modelVersion"]
        response_id = body["responseId"]
    except KeyError:
        candidates, usage = body.get("candidates"), body.get("usageMetadata")
        model, response_id = body.get("modelVersion"), body.get("responseId")
    key = "usageMetadata"
    if usage is None:
        key = "usage_metadata"
        usage = body.get(key)
    if usage is not None:
        usage = read_usage(usage, key)
    # a string in the REST spelling is taken as it is; anything else (absent, the
    # proto spelling, not a string) goes to opt_field
    if model.__class__ is not str:
        model = opt_field(body, "modelVersion", "")
    if response_id.__class__ is not str:
        response_id = opt_field(body, "responseId", "")
    if candidates is not None and candidates.__class__ is not list:
        candidates = fast_list(candidates, "candidates")
    if not candidates:
        return _blocked(body, usage, model, response_id)
    cand = candidates[0]
    if cand.__class__ is not dict:
        cand = fast_mapping(cand, "candidates[0]")
    raw_finish = cand.get("finishReason")
    if raw_finish.__class__ is not str:
        raw_finish = opt_field(cand, "finishReason", "candidates[0]")
    acc = Collector(response_id or "", tag)
    # hot path: three key tests tell a candidate of content, finishReason and index
    # from one with more (groundingMetadata, safetyRatings...), kept in metadata
    if len(cand) > ("content" in cand) + (raw_finish is not None) + ("index" in cand):
        acc.candidate = candidate_rest(cand, "candidates[0]")
    content = cand.get("content")
    if content is not None:
        if content.__class__ is not dict:
            content = fast_mapping(content, "candidates[0].content")
        parts = content.get("parts")
        if parts is not None:
            prefix = "candidates[0].content.parts"
            if parts.__class__ is not list:
                parts = fast_list(parts, prefix)
            for pi, part in enumerate(parts):
                acc.part(part, prefix, pi)
    message = acc.message(usage)
    # hot path: the builder called as it is (make_response's frame ~500 instructions),
    # and a plain turn's invalid_tool_calls (a property there) not read
    return chat_response(
        ChatResponse, message, finish_reason(raw_finish, acc.ordinal > 0), usage, model,
        message.invalid_tool_calls if acc.invalid else (), raw_finish, None, response_id,
        None,
    )  # fmt: skip


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
