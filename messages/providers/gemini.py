"""Google Gemini API (``generateContent`` / ``streamGenerateContent?alt=sse``), REST camelCase JSON.

The rules this formatter applies, each documented here and in the README table of
what each provider cannot carry (every rule that loses something is a ``Loss``):

* System and developer messages become ``systemInstruction`` (one text part per
  message; parts parsed from a request are kept in ``extras["gemini"]["system"]``
  and re-sent verbatim). A system message after the conversation started is moved
  there too (Loss).
* ``contents`` alternate ``user`` / ``model``; consecutive messages of one role are
  merged into one content. Tool results become ``functionResponse`` parts of a
  user content, one per call, ordered like the calls they answer (Gemini pairs by
  id when present, else by name and order), so the answering turn has as many
  ``functionResponse`` parts as the model turn had ``functionCall`` parts. A result
  with no call in the preceding model turn, or a second result for one call, is
  dropped (Loss). A call left without a result when the next content starts (or
  the conversation ends after some of its results) is answered with an error
  response (``messages._repair.UNANSWERED_TEXT``, Loss); calls with no result at all
  at the very end are left pending (a tool may still be running).
* Tool-call ids: a wire id is kept and echoed on the ``functionResponse``. A call
  that came without one gets a stable derived id (``call_derived_`` + 24 hex
  digits, the prefix every provider here uses for ids the wire did not carry),
  keyed by the ``responseId``, the call's position and name; without a
  ``responseId`` (and for imported requests) also by its arguments (canonical JSON,
  sorted keys), so different calls never share one. Streaming and
  ``parse_response`` give a call the same id. A derived id is never sent to Gemini.
* Tool results: text goes as ``{"output": text}``, an error as ``{"error": text}``
  (parsing maps ``{"error": ...}`` back to ``is_error=True``). An object response
  that is neither is imported as its compact JSON text (``extras["gemini"]
  ["response"] = "object"``) and sent back as the object. Images, audio and files
  in a tool result are moved to parts after the function responses (Loss).
* Signatures: ``thoughtSignature`` on a ``functionCall`` part is kept in the
  call's ``extras["gemini"]["thought_signature"]`` and sent back on that exact
  part; on a thought part it is the ReasoningPart's signature; on an answer text
  part it is kept in the message's ``extras["gemini"]["text_signature"]`` and sent
  back on the last text part. Reasoning is replayed only to the provider that
  produced it: ``ReasoningPart(provider="gemini")`` becomes a ``thought: true``
  part, any other reasoning (and another provider's opaque call state) is dropped
  (Loss), never turned into visible text.
* Calls Gemini did not make (an id of their own, no Gemini state: another
  provider's calls) get the documented dummy ``thoughtSignature``
  ``"skip_thought_signature_validator"`` on the first ``functionCall`` part of each
  model content of the current turn (after the last user content that is not only
  function responses), which Gemini 3 validates. Nothing is lost, so no Loss. Calls
  Gemini sent without an id (derived ids) or without a signature in an imported
  request (``extras["gemini"]["calls_unsigned"]``) go back as they came.
* Empty text is never sent; a content left empty is omitted (Loss). Image
  ``detail`` and file names have no Gemini field (Loss). Images by URL go as
  ``fileData`` (Gemini fetches Files API / Cloud Storage URIs, public and signed
  https URLs); a URL without a media type gets one from its extension, else
  ``image/jpeg``. A file id that is not a URI (another provider's, e.g.
  ``file_011...``) is dropped (Loss); its inline data, if any, is sent instead.
* Tool schemas: Gemini accepts an OpenAPI subset. ``type: [x, "null"]`` and
  ``anyOf``/``oneOf`` with a null branch become ``nullable``; a single-branch
  ``anyOf`` is inlined; ``oneOf`` becomes ``anyOf`` (Loss); a string ``const``
  becomes a one-value ``enum``; local ``$ref`` are inlined (a recursive one
  becomes ``{"type": "object"}``, Loss); annotations (``$schema``, ``examples``...)
  are dropped silently; every other keyword Gemini rejects (``additionalProperties``,
  ``exclusiveMinimum``, ``multipleOf``, ``patternProperties``, unsupported
  ``format`` values, non-string ``enum``...) is dropped (Loss). Gemini has no strict
  mode: ``additionalProperties: false`` (what ``strict`` adds) is omitted without a
  Loss, as the ``strict`` flag is for Groq and vLLM; it narrows only what the model may
  send, and ``ToolDefinition.validate_arguments`` still enforces it on the calls that
  come back. A tool without properties is sent
  without ``parameters`` (Gemini rejects an empty object schema). A schema with
  a free-form object (a map such as ``dict[str, str]``: an object without
  properties below the root, or a root with ``additionalProperties`` and no
  properties), which ``parameters`` cannot express ("properties: should be
  non-empty for OBJECT type"), is sent whole and unchanged as
  ``parametersJsonSchema`` (JSON Schema; generateContent, not the Live API).
  An ``enum`` holding ``null`` keeps its strings and becomes ``nullable``.
* Unknown part kinds met while parsing are kept in ``extras["gemini"]["unknown"]``
  (index, path, type, the part) and re-inserted at their index when formatting for
  Gemini again; other providers drop them (Loss). A response with unknown parts
  keeps its text and thought parts separate and in wire order (a stream: one part
  per run of fragments) so they go back around the unknown ones as they came. Keys of a known part that the
  canonical model has no field for (``videoMetadata``, ``partMetadata``...) are kept
  in ``extras["gemini"]["keys"]`` and put back on the part at the same index.
"""

from __future__ import annotations

import mimetypes
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from .._build import message, tool_call, tool_call_message, tool_result_message
from .._fields import _KNOWN_MAX, _NAME_RE
from .._frozen import EMPTY, FrozenDict, freeze, freeze_mapping, thaw
from .._ids import DERIVED_ID_PREFIX, derive_call_id
from .._json import dumps_compact, json_type, loads
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
    LossWarning,
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
    is_derived_id,
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
)

if TYPE_CHECKING:
    from .._tool_definition import ToolDefinition

__all__ = ["PROVIDER", "GeminiProvider", "GeminiStream"]

NAME = "gemini"


#: ``finishReason`` → FinishReason (MANIFEST conventions). ``STOP`` becomes
#: TOOL_CALLS when the candidate has function calls; ``IMAGE_*`` is CONTENT_FILTER;
#: any other value (MALFORMED_FUNCTION_CALL, OTHER, LANGUAGE, ...) is ERROR.
FINISH_REASONS: dict[str, FinishReason] = {
    "STOP": FinishReason.STOP,
    "MAX_TOKENS": FinishReason.LENGTH,
    "SAFETY": FinishReason.CONTENT_FILTER,
    "RECITATION": FinishReason.CONTENT_FILTER,
    "BLOCKLIST": FinishReason.CONTENT_FILTER,
    "PROHIBITED_CONTENT": FinishReason.CONTENT_FILTER,
    "SPII": FinishReason.CONTENT_FILTER,
}

_OTHER_PROVIDERS = frozenset(("openai", "groq", "vllm", "ollama", "anthropic", "openai_responses"))

# Keys of a Part that describe it rather than being its data.
_PART_META = frozenset(
    ("thought", "thoughtSignature", "partMetadata", "videoMetadata", "mediaResolution")
)


def _finish_reason(raw: str | None, has_calls: bool) -> FinishReason:
    if raw is None:
        return FinishReason.OTHER
    reason = FINISH_REASONS.get(raw)
    if reason is None:
        return FinishReason.CONTENT_FILTER if raw.startswith("IMAGE_") else FinishReason.ERROR
    if reason is FinishReason.STOP and has_calls:
        return FinishReason.TOOL_CALLS
    return reason


def _sig(part: Mapping[str, Any], path: str) -> str | None:
    sig = part.get("thoughtSignature")
    if sig is None:
        return None
    if type(sig) is not str:
        raise DecodeError(f"expected a string, got {json_type(sig)}", f"{path}.thoughtSignature")
    return sig or None


def _part_kind(part: Mapping[str, Any]) -> str:
    for key in part:
        if key not in _PART_META:
            return str(key)
    return ""


# ---------------------------------------------------------------------------------
# Formatting: canonical messages -> request body
# ---------------------------------------------------------------------------------


class _Builder:
    """Collects ``contents``, merging consecutive messages of one role."""

    __slots__ = (
        "answered",
        "calls",
        "first",
        "keys",
        "losses",
        "moved",
        "out",
        "parts",
        "pieces",
        "responses",
        "role",
        "unknown",
        "unsigned",
    )

    def __init__(self, losses: Losses) -> None:
        self.losses = losses
        self.out: list[dict[str, Any]] = []
        self.role: str | None = None
        self.parts: list[Any] = []
        # A user content: function responses first, in call order, then media moved
        # out of tool results, then everything else in its original order.
        self.responses: list[tuple[int, Any]] = []
        self.moved: list[Any] = []
        self.unknown: list[tuple[int, Any]] = []
        self.keys: list[tuple[int, Any]] = []
        self.pieces = 0
        self.first = 0
        # the calls of the latest model content: id -> (position, call, message, index)
        self.calls: dict[str, tuple[int, ToolCall, int, int]] = {}
        self.answered: set[str] = set()
        # ids of functionCall parts the model did not make (another provider's calls)
        # that come first in their message: they get a dummy signature if they open a
        # model content of the current turn (see _sign_current_turn)
        self.unsigned: set[int] = set()

    def open(self, role: str, index: int) -> None:
        self.close()
        self.role = role
        self.first = index
        out = self.out
        if out and out[-1]["role"] == role:
            # The content in between was omitted (empty): keep merging.
            self.parts = out.pop()["parts"]
            self.pieces = 1
        elif role == "model":
            self.calls = {}
            self.answered = set()

    def close(self) -> None:
        role = self.role
        if role is None:
            return
        if role == "user" and len(self.answered) < len(self.calls):
            self.answer_the_rest()
        parts = self.parts
        if self.responses:
            self.responses.sort(key=_item0)  # a C key function: ~50 ns less per response
            parts = [p for _, p in self.responses] + self.moved + parts
            self.responses = []
            self.moved = []
        elif self.moved:
            parts = self.moved + parts
            self.moved = []
        if self.unknown or self.keys:
            for index, part in sorted(self.unknown, key=_first):
                parts.insert(min(index, len(parts)), part)
            for index, keys in self.keys:
                if index < len(parts):
                    parts[index] = {**parts[index], **keys}
            self.unknown = []
            self.keys = []
        if parts:
            self.out.append({"role": role, "parts": parts})
        elif self.pieces:
            self.losses.add(
                f"messages[{self.first}]",
                f"empty {role} content",
                "omitted: Gemini rejects empty content",
            )
        self.role = None
        self.parts = []
        self.pieces = 0

    def answer_the_rest(self) -> None:
        """Answer each call of the model content before this user content that has no
        result: Gemini rejects a turn with fewer responses than calls."""
        from .._repair import UNANSWERED_TEXT  # rare: not loaded by every convert

        answered = self.answered
        for call_id, (position, call, i, k) in self.calls.items():
            if call_id in answered:
                continue
            answered.add(call_id)
            fr: dict[str, Any] = {}
            if not is_derived_id(call_id):
                fr["id"] = call_id
            fr["name"] = call.name
            fr["response"] = {"error": UNANSWERED_TEXT}
            self.responses.append((position, {"functionResponse": fr}))
            self.losses.add(
                f"messages[{i}].tool_calls[{k}]",
                "unanswered tool call",
                "answered with an error result: Gemini requires a response for every call",
            )


#: Gemini's documented stand-in for the thought signature of a function call it did not
#: generate (https://ai.google.dev/gemini-api/docs/thought-signatures, FAQ).
DUMMY_SIGNATURE = "skip_thought_signature_validator"


def _sign_current_turn(out: list[dict[str, Any]], unsigned: set[int]) -> None:
    """Give the calls of the current turn that Gemini did not make its dummy signature.

    Gemini 3 validates the current turn only: the model contents after the last user
    content with anything but function responses. The first functionCall part of
    each must carry a signature ("Function call is missing a thought_signature").
    """
    for content in reversed(out):
        parts = content["parts"]
        if content["role"] != "model":
            for part in parts:
                if "functionResponse" not in part:
                    return
            continue
        for part in parts:
            if "functionCall" in part:
                if id(part) in unsigned and "thoughtSignature" not in part:
                    part["thoughtSignature"] = DUMMY_SIGNATURE
                break


def _made_elsewhere(c: ToolCall) -> bool:
    """Whether Gemini did not make this call: it has an id of its own (a call Gemini
    sent without one has a derived id) and no Gemini state (a signature)."""
    cid = c.id
    if cid.startswith(DERIVED_ID_PREFIX) and len(cid) == _DERIVED_LEN:
        return False
    extras = c.extras
    return not extras or not isinstance(extras.get(NAME), Mapping)


def _first(item: tuple[Any, Any]) -> Any:
    return item[0]


_item0 = itemgetter(0)


def _guess_media_type(url: str, default: str) -> str:
    guessed, _ = mimetypes.guess_type(url.split("?", 1)[0], strict=False)
    return guessed or default


def _text_part(p: TextPart, path: str, losses: Losses) -> Any:
    return {"text": p.text} if p.text else None


def _image_part(p: ImagePart, path: str, losses: Losses) -> Any:
    if p.detail is not None:
        losses.add(f"{path}.detail", "image detail", "dropped: Gemini parts have no detail")
    if p.data is not None:
        return {"inlineData": {"mimeType": p.media_type, "data": p.data}}
    url = p.url or ""
    if url.startswith("data:"):
        try:
            media_type, data = parse_data_url(url, path)
            return {"inlineData": {"mimeType": media_type, "data": data}}
        except ValidationError:
            pass  # not a base64 data: URL: send it as a URI and let the API judge
    media_type = p.media_type or _guess_media_type(url, "image/jpeg")
    return {"fileData": {"mimeType": media_type, "fileUri": url}}


def _audio_part(p: AudioPart, path: str, losses: Losses) -> Any:
    return {"inlineData": {"mimeType": f"audio/{p.format}", "data": p.data}}


#: A file reference Gemini can fetch is a URI: Files API (``https://generativelanguage
#: .googleapis.com/...``), Cloud Storage (``gs://``), a public or signed ``https://`` URL.
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def _file_part(p: FilePart, path: str, losses: Losses) -> Any:
    if p.file_id:
        if _URI.match(p.file_id) is None:
            # another provider's file id (Anthropic's "file_...", OpenAI's "file-..."):
            # Gemini would take it for a URI and reject the request
            if p.data:
                losses.add(
                    f"{path}.file_id",
                    "file id of another provider",
                    "dropped: Gemini fileData takes a URI; the inline data is sent",
                )
            else:
                losses.add(
                    path,
                    "file id of another provider",
                    "dropped: Gemini fileData takes a URI (Files API, gs:// or https://)",
                )
                return None
        else:
            if p.filename:
                losses.add(
                    f"{path}.filename", "file name", "dropped: Gemini parts have no file name"
                )
            media_type = p.media_type or _guess_media_type(p.file_id, "application/pdf")
            return {"fileData": {"mimeType": media_type, "fileUri": p.file_id}}
    if p.filename:
        losses.add(f"{path}.filename", "file name", "dropped: Gemini parts have no file name")
    return {"inlineData": {"mimeType": p.media_type or "application/pdf", "data": p.data or ""}}


def _reasoning_part(p: ReasoningPart, path: str, losses: Losses) -> Any:
    if p.provider == NAME and not p.redacted:
        part: dict[str, Any] = {"text": p.text, "thought": True}
        if p.signature is not None:
            part["thoughtSignature"] = p.signature
        return part
    who = p.provider or "an unnamed provider"
    losses.add(path, f"reasoning from {who}", DROP_OTHER_REASONING)
    return None


def _reasoning_elsewhere(p: ReasoningPart, path: str, losses: Losses) -> Any:
    losses.add(path, "reasoning part in a non-assistant message", "dropped")
    return None


_PartFn = Callable[[Any, str, Losses], Any]

_USER_PARTS: dict[type, _PartFn] = {
    TextPart: _text_part,
    ImagePart: _image_part,
    AudioPart: _audio_part,
    FilePart: _file_part,
    ReasoningPart: _reasoning_elsewhere,
}
_MODEL_PARTS: dict[type, _PartFn] = {
    TextPart: _text_part,
    ReasoningPart: _reasoning_part,
    ImagePart: _image_part,
    AudioPart: _audio_part,
    FilePart: _file_part,
}


def _part_fn(table: dict[type, _PartFn], p: object) -> _PartFn:
    for base in type(p).__mro__:
        fn = table.get(base)
        if fn is not None:
            return fn
    raise ValidationError(f"cannot format a part of type {type(p).__name__}", "")


def _parts(content: Any, table: dict[type, _PartFn], path: str, losses: Losses) -> list[Any]:
    if type(content) is str or isinstance(content, str):
        return [{"text": content}] if content else []
    out: list[Any] = []
    for j, p in enumerate(content or ()):
        fn = table.get(type(p)) or _part_fn(table, p)
        part = fn(p, f"{path}.content[{j}]", losses)
        if part is not None:
            out.append(part)
    return out


def _own_extras(extras: Mapping[str, Any], path: str, losses: Losses) -> Mapping[str, Any]:
    for key, value in extras.items():
        if key in _OTHER_PROVIDERS and isinstance(value, Mapping):
            foreign_state_losses(key, value, path, losses)
    own = extras.get(NAME)
    return own if isinstance(own, Mapping) else EMPTY


def _kept(state: Mapping[str, Any], key: str) -> Sequence[Any]:
    """A list kept in provider state; anything else (edited by hand, corrupt) is none."""
    items = state.get(key)
    return items if isinstance(items, (list, tuple)) else ()


def _unknown_items(own: Mapping[str, Any]) -> list[tuple[int, Any]]:
    items = []
    for item in kept_unknown(own):
        if type(item.get("index")) is int:
            value = item.get("value")
            if isinstance(value, Mapping):
                items.append((item["index"], thaw(value)))
    return items


def _function_call(c: ToolCall, i: int, k: int, losses: Losses) -> dict[str, Any]:
    fc: dict[str, Any] = {}
    if not is_derived_id(c.id):
        fc["id"] = c.id
    fc["name"] = c.name
    fc["args"] = plain_arguments(c.arguments)
    part: dict[str, Any] = {"functionCall": fc}
    extras = c.extras
    if extras:
        for key in extras:
            if key in _OTHER_PROVIDERS:
                losses.add(
                    f"messages[{i}].tool_calls[{k}].extras.{key}",
                    f"{key} state of the tool call",
                    "dropped: only re-sent to its provider",
                )
        own = extras.get(NAME)
        if isinstance(own, Mapping):
            sig = own.get("thought_signature")
            if type(sig) is str:
                part["thoughtSignature"] = sig
    return part


_DERIVED_LEN = len(DERIVED_ID_PREFIX) + 24


def _response_object(m: ToolResultMessage, own: Mapping[str, Any]) -> dict[str, Any]:
    text = m.text
    shape = own.get("response")
    if m.is_error:
        if shape == "error" and own.get("json") is True:
            try:
                return {"error": loads(text)}
            except DecodeError:
                pass  # edited since it was imported: send the text
        return {"error": text}
    if shape == "object":
        try:
            value = loads(text)
            if type(value) is dict:
                return value
        except DecodeError:
            pass
    elif shape == "output" and own.get("json") is True:
        try:
            return {"output": loads(text)}
        except DecodeError:
            pass
    return {"output": text}


# Gemini's Schema object (an OpenAPI 3.0 subset) keeps these keywords as they are.
_SCHEMA_KEEP = frozenset(
    (
        "description",
        "title",
        "nullable",
        "maxItems",
        "minItems",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "example",
        "propertyOrdering",
        "default",
        "minimum",
        "maximum",
    )
)
# Annotations with no effect on what the model may produce: dropped without a Loss.
_SCHEMA_SILENT = frozenset(
    (
        "$schema",
        "$id",
        "$comment",
        "$anchor",
        "$defs",
        "definitions",
        "examples",
        "readOnly",
        "writeOnly",
        "deprecated",
    )
)
_FORMATS: dict[str, frozenset[str]] = {
    "string": frozenset(("enum", "date-time")),
    "number": frozenset(("float", "double")),
    "integer": frozenset(("int32", "int64")),
}
_MAX_SCHEMA_DEPTH = 64


class _SchemaConverter:
    """Rewrites a JSON Schema into the subset Gemini's ``parameters`` accepts."""

    __slots__ = ("free_form", "losses", "root", "strict")

    def __init__(self, root: Mapping[str, Any], losses: Losses, strict: bool) -> None:
        self.root = root
        self.losses = losses
        self.strict = strict
        # an object with no properties (a map: ``dict[str, X]``) met below the root:
        # Gemini's Schema rejects it ("properties: should be non-empty for OBJECT type")
        self.free_form = False

    def drop(self, path: str, key: str, rule: str = "") -> None:
        self.losses.add(
            f"{path}.{key}",
            f"schema keyword {key}",
            rule or "dropped: Gemini's schema subset rejects it",
        )

    def convert(
        self, node: Any, path: str, refs: tuple[str, ...] = (), depth: int = 0
    ) -> dict[str, Any]:
        if not isinstance(node, Mapping):
            if node is not True:
                self.losses.add(path, "boolean schema", "replaced by an unconstrained schema")
            return {}
        if depth > _MAX_SCHEMA_DEPTH:
            self.losses.add(path, "schema nested too deeply", "replaced by an object schema")
            return {"type": "object"}
        ref = node.get("$ref")
        if type(ref) is str:
            if ref in refs:
                self.losses.add(path, "recursive $ref", "replaced by an object schema")
                out: dict[str, Any] = {"type": "object"}
                if type(node.get("description")) is str:
                    out["description"] = node["description"]
                return out
            target = _resolve(ref, self.root)
            if target is None:
                self.losses.add(f"{path}.$ref", "unresolvable $ref", "replaced by an object schema")
                return {"type": "object"}
            merged = dict(target) if isinstance(target, Mapping) else {}
            for key, value in node.items():
                if key != "$ref":
                    merged[key] = value
            return self.convert(merged, path, (*refs, ref), depth + 1)
        out = {}
        nullable = False
        t = node.get("type")
        if isinstance(t, (list, tuple)):
            kinds = [k for k in t if k != "null"]
            nullable = len(kinds) < len(t)
            if len(kinds) == 1:
                out["type"] = kinds[0]
            elif kinds:
                out["anyOf"] = [{"type": k} for k in kinds]
        elif t is not None:
            out["type"] = t
        kind = out.get("type")
        for key, value in node.items():
            if key in ("type", "$ref"):
                continue
            if key in _SCHEMA_KEEP:
                out[key] = thaw(value)
            elif key == "properties" and isinstance(value, Mapping):
                out[key] = {
                    name: self.convert(sub, f"{path}.properties.{name}", refs, depth + 1)
                    for name, sub in value.items()
                }
            elif key == "items":
                if isinstance(value, Mapping):
                    out[key] = self.convert(value, f"{path}.items", refs, depth + 1)
                else:
                    self.drop(path, key, "dropped: Gemini has no tuple items")
            elif key in ("anyOf", "oneOf") and isinstance(value, (list, tuple)):
                branches = []
                for j, sub in enumerate(value):
                    if isinstance(sub, Mapping) and sub.get("type") == "null" and len(sub) == 1:
                        nullable = True
                    else:
                        branches.append(self.convert(sub, f"{path}.{key}[{j}]", refs, depth + 1))
                if key == "oneOf" and len(branches) > 1:
                    self.losses.add(f"{path}.oneOf", "schema keyword oneOf", "converted to anyOf")
                if len(branches) == 1:
                    for k, v in branches[0].items():
                        out.setdefault(k, v)
                elif branches:
                    out["anyOf"] = out.get("anyOf", []) + branches
            elif key == "allOf" and isinstance(value, (list, tuple)) and len(value) == 1:
                for k, v in self.convert(value[0], f"{path}.allOf[0]", refs, depth + 1).items():
                    out.setdefault(k, v)
            elif key == "const":
                if type(value) is str:
                    out["enum"] = [value]
                    out.setdefault("type", "string")
                else:
                    self.drop(path, key, "dropped: Gemini enums hold strings only")
            elif key == "enum":
                if isinstance(value, (list, tuple)) and all(type(v) is str for v in value):
                    out[key] = list(value)
                elif (
                    isinstance(value, (list, tuple))
                    and any(type(v) is str for v in value)
                    and all(type(v) is str or v is None for v in value)
                ):
                    # ["a", null] is what nullable says: the strings stay the enum
                    out[key] = [v for v in value if v is not None]
                    nullable = True
                else:
                    self.drop(path, key, "dropped: Gemini enums hold strings only")
            elif key == "format":
                allowed = _FORMATS.get(kind) if type(kind) is str else None
                if allowed is not None and value in allowed:
                    out[key] = value
                else:
                    self.drop(path, key, "dropped: Gemini does not support this format here")
            elif key == "additionalProperties":
                if value is True or value == {}:
                    continue  # what an open object means anyway
                if value is False:
                    continue  # no strict mode on Gemini: see the module docstring
                self.drop(path, key)
            elif key in _SCHEMA_SILENT:
                continue
            else:
                self.drop(path, key)
        if nullable:
            out["nullable"] = True
        if kind == "object" and not out.get("properties"):
            self.free_form = True
        return out


def _resolve(ref: str, root: Mapping[str, Any]) -> Any:
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    node: Any = root
    for raw in ref[2:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, (list, tuple)) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node if isinstance(node, Mapping) else None


def _declarations(tools: Sequence[ToolDefinition], losses: Losses) -> list[dict[str, Any]]:
    decls = []
    for k, d in enumerate(tools):
        path = f"tools[0].functionDeclarations[{k}]"
        decl: dict[str, Any] = {"name": d.name, "description": d.description}
        params = d.parameters
        if params.get("properties"):
            found = Losses()
            converter = _SchemaConverter(params, found, d.strict)
            schema = converter.convert(params, f"{path}.parameters")
            if converter.free_form:
                decl["parametersJsonSchema"] = thaw(params)
            else:
                decl["parameters"] = schema
                losses.items.extend(found.items)
        elif _is_map(params.get("additionalProperties")):
            decl["parametersJsonSchema"] = thaw(params)
        decls.append(decl)
    return decls


def _is_map(additional: Any) -> bool:
    """Whether a root schema's ``additionalProperties`` lets the model send any keys."""
    return additional is True or isinstance(additional, Mapping)


def _fast_contents(messages: Sequence[Message]) -> tuple[list[Any], list[dict[str, Any]]] | None:
    """The system parts and ``contents`` of a plain conversation; None for anything else.

    Hot path: most conversations are text turns, tool calls without extras and
    text results, one message per turn. Those are formatted here with locals only
    (no builder, no per-turn open/close): ~1.1 -> ~0.5 us per message. Anything
    this does not handle exactly as ``convert``'s general path would (a name or
    extras, parts, empty text, two messages in one turn, a system message after
    the first turn, an unpaired result, a derived call id, a subclass) returns
    None, and the general path formats the whole conversation instead; so the
    result is always the general path's, and tests hold the two to that.
    """
    system: list[Any] = []
    out: list[dict[str, Any]] = []
    role = ""  # the role of out[-1]
    # the function responses of an open user content, the call position of the
    # last one, and whether they arrived out of call order (then they are sorted,
    # as the general path does)
    responses: list[Any] | None = None
    last = 0
    unsorted = False
    calls: dict[str, tuple[int, ToolCall]] = {}  # the calls of the last model content ...
    answered: set[str] = set()  # ... and those already answered
    pending = 0  # ... and how many are not: the general path answers them, with a Loss
    turn = 0  # where the current turn starts in ``out`` (after the last user text)
    for m in messages:
        if m.name is not None or m.extras:
            return None
        t = type(m)
        if t is ToolResultMessage:
            content = m.content  # type: ignore[attr-defined]
            call_id = m.tool_call_id  # type: ignore[attr-defined]
            found = calls.get(call_id)
            if type(content) is not str or found is None or call_id in answered:
                return None
            answered.add(call_id)
            pending -= 1
            position, call = found
            part = {
                "functionResponse": {
                    "id": call_id,
                    "name": call.name,
                    "response": {"error": content}
                    if m.is_error  # type: ignore[attr-defined]
                    else {"output": content},
                }
            }
            if role != "user":
                responses = [part]
                unsorted = False
                out.append({"role": "user", "parts": responses})
                role = "user"
            elif responses is None:  # the user content holds a text message
                return None
            else:
                if position < last:
                    unsorted = True
                responses.append(part)
            last = position
            continue
        if unsorted:
            _sort_responses(responses, calls)  # type: ignore[arg-type]
            unsorted = False
        responses = None
        if pending:
            return None  # a call of the last model content has no result
        if t is ToolCallMessage:
            content = m.content  # type: ignore[attr-defined]
            if role == "model" or (content is not None and type(content) is not str):
                return None
            parts: list[Any] = [{"text": content}] if content else []
            calls = {}
            answered = set()
            for c in m.tool_calls:
                cid = c.id
                if c.extras or (cid.startswith(DERIVED_ID_PREFIX) and len(cid) == _DERIVED_LEN):
                    return None
                parts.append(
                    {
                        "functionCall": {
                            "id": cid,
                            "name": c.name,
                            "args": plain_arguments(c.arguments),
                        }
                    }
                )
                calls[cid] = (len(calls), c)
            pending = len(calls)
            out.append({"role": "model", "parts": parts})
            role = "model"
        elif t is UserMessage or t is AssistantMessage:
            content = m.content  # type: ignore[attr-defined]
            r = "user" if t is UserMessage else "model"
            if type(content) is not str or not content or role == r:
                return None
            out.append({"role": r, "parts": [{"text": content}]})
            role = r
            if t is UserMessage:
                turn = len(out)
        elif t is SystemMessage or t is DeveloperMessage:
            if out:
                return None  # after the first turn: moved, with a Loss
            if m.content:  # type: ignore[attr-defined]
                system.append({"text": m.content})  # type: ignore[attr-defined]
        else:
            return None
    if pending and role == "user":
        return None  # answered in part when the conversation ends
    if unsorted:
        _sort_responses(responses, calls)  # type: ignore[arg-type]
    # every call here is another provider's (no extras, an id of its own): the first
    # call of each model content of the current turn gets the dummy signature
    for content in out[turn:]:
        if content["role"] == "model":
            for first in content["parts"]:
                if "functionCall" in first:
                    first["thoughtSignature"] = DUMMY_SIGNATURE
                    break
    return system, out


def _sort_responses(responses: list[Any], calls: dict[str, tuple[int, ToolCall]]) -> None:
    """Put the function responses of a user content in call order (the sort is stable)."""
    responses.sort(key=lambda part: calls[part["functionResponse"]["id"]][0])


class GeminiProvider(Provider):
    """The Gemini API wire format (``contents`` / ``parts``, REST camelCase)."""

    name = NAME

    # -- requests ---------------------------------------------------------------------

    def convert(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] = ()
    ) -> Conversion:
        """Format ``messages`` (and ``tools``) as a generateContent body; list every loss."""
        try:
            fast = _fast_contents(messages)
            if fast is None:
                return self._convert(messages, tools)
            system, contents = fast
            body: dict[str, Any] = {}
            if system:
                body["systemInstruction"] = {"parts": system}
            body["contents"] = contents
            if not tools:
                return Conversion(body)
            losses = Losses()
            body["tools"] = [{"functionDeclarations": _declarations(tools, losses)}]
            return Conversion(body, tuple(losses.items))
        except MessageError:
            raise
        except GUARDED_ERRORS as exc:
            raise format_error(exc) from None

    def _convert(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition] = ()
    ) -> Conversion:
        """The general path of ``convert``: any conversation, with its losses."""
        losses = Losses()
        b = _Builder(losses)
        system: list[Any] = []
        system_role: Any = None  # the role a parsed systemInstruction spelled out
        started = False
        # hot path: the bound get, hoisted; a method call on an imported name
        # compiles to LOAD_ATTR (a bound method made per call) in Python 3.11
        kind_get = MESSAGE_KINDS.get
        for i, m in enumerate(messages):
            # hot path: exact-type dispatch, one read of the name/metadata/extras slot
            kind = kind_get(type(m))
            if kind is None:
                kind = kind_of(m, i)
            own: Mapping[str, Any] = EMPTY
            if m.name is not None:
                losses.add(
                    f"messages[{i}].name", "message name", "dropped: Gemini contents have no name"
                )
            if m.extras:
                own = _own_extras(m.extras, f"messages[{i}]", losses)
            if kind == KIND_SYSTEM:
                if started:
                    losses.add(
                        f"messages[{i}]",
                        f"{m.role.value} message after the first turn",
                        "moved to systemInstruction",
                    )
                text: str = m.content  # type: ignore[attr-defined]
                kept = own.get("system")
                if kept and joined_text(kept) == text:
                    system.extend(thaw(kept))
                    if "system_role" in own:
                        system_role = own["system_role"]
                elif text:
                    system.append({"text": text})
                continue
            started = True
            if kind == KIND_TOOL:
                self._tool_result(m, i, b, own)  # type: ignore[arg-type]
            elif kind == KIND_USER:
                if b.role != "user":
                    b.open("user", i)
                content = m.content  # type: ignore[attr-defined]
                if type(content) is str:
                    if content:
                        b.parts.append({"text": content})
                else:
                    b.parts.extend(_parts(content, _USER_PARTS, f"messages[{i}]", losses))
                b.pieces += 1
            else:
                if b.role != "model":
                    b.open("model", i)
                content = m.content  # type: ignore[attr-defined]
                parts: list[Any]
                if type(content) is str:
                    parts = [{"text": content}] if content else []
                elif content is None:  # a ToolCallMessage without text
                    parts = []
                else:
                    parts = _parts(content, _MODEL_PARTS, f"messages[{i}]", losses)
                sig = own.get("text_signature") if own else None
                if type(sig) is str:
                    _attach_text_signature(parts, sig)
                calls = b.calls
                # ids of imported calls written without ``args``: formatted back without
                no_args = _kept(own, "no_args") if own else ()
                start = len(parts)
                tool_calls = m.tool_calls
                for k, c in enumerate(tool_calls):
                    cid = c.id
                    if c.extras or (cid.startswith(DERIVED_ID_PREFIX) and len(cid) == _DERIVED_LEN):
                        parts.append(_function_call(c, i, k, losses))
                    else:  # hot path: a plain call written inline
                        parts.append(
                            {
                                "functionCall": {
                                    "id": cid,
                                    "name": c.name,
                                    "args": plain_arguments(c.arguments),
                                }
                            }
                        )
                    calls[cid] = (len(calls), c, i, k)
                    if no_args and cid in no_args and not c.arguments:
                        parts[-1]["functionCall"].pop("args", None)
                if (
                    tool_calls
                    and _made_elsewhere(tool_calls[0])
                    and not (own and own.get("calls_unsigned") is True)
                ):
                    b.unsigned.add(id(parts[start]))
                b.parts.extend(parts)
                b.pieces += 1
            if own:
                if "unknown" in own:
                    b.unknown.extend(_unknown_items(own))
                if "keys" in own and kind != KIND_TOOL:
                    b.keys.extend(key_items(own))
        b.close()
        if b.unsigned:
            _sign_current_turn(b.out, b.unsigned)
        body: dict[str, Any] = {}
        if system:
            body["systemInstruction"] = (
                {"parts": system} if system_role is None else {"role": system_role, "parts": system}
            )
        body["contents"] = b.out
        if tools:
            body["tools"] = [{"functionDeclarations": _declarations(tools, losses)}]
        return Conversion(body, tuple(losses.items))

    def _tool_result(
        self, m: ToolResultMessage, i: int, b: _Builder, own: Mapping[str, Any]
    ) -> None:
        call_id = m.tool_call_id
        if b.role != "user":
            b.open("user", i)
        found = b.calls.get(call_id)
        if found is None or call_id in b.answered:
            path = f"messages[{i}]"
            why = (
                "a second result for the call"
                if call_id in b.answered
                else "no matching functionCall"
            )
            b.losses.add(
                path, f"tool result with {why}", "dropped: Gemini rejects unpaired responses"
            )
            return
        b.answered.add(call_id)
        position, call, _, _ = found
        fr: dict[str, Any] = {}
        if not is_derived_id(call.id):
            fr["id"] = call.id
        fr["name"] = call.name
        if own:
            fr["response"] = _response_object(m, own)
        else:  # hot path: _response_object with nothing kept from an import
            fr["response"] = {"error": m.text} if m.is_error else {"output": m.text}
        kept = own.get("function_response") if own else None
        if isinstance(kept, Mapping):
            for key, value in kept.items():
                if key not in fr:
                    fr[key] = thaw(value)
        b.responses.append((position, {"functionResponse": fr}))
        if "keys" in own:
            b.keys.extend(key_items(own))
        content = m.content
        if type(content) is not str:
            path = f"messages[{i}]"
            for j, p in enumerate(content):
                if type(p) is TextPart:
                    continue
                part = (_USER_PARTS.get(type(p)) or _part_fn(_USER_PARTS, p))(
                    p, f"{path}.content[{j}]", b.losses
                )
                if part is not None:
                    b.losses.add(
                        f"{path}.content[{j}]",
                        f"{type(p).__name__} in a tool result",
                        "moved to a user part after the function responses",
                    )
                    b.moved.append(part)
        b.pieces += 1

    def format_tools(self, tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
        """``[{"functionDeclarations": [...]}]``; each schema loss warns (LossWarning)."""
        if not tools:
            return []
        losses = Losses()
        out = [{"functionDeclarations": _declarations(tools, losses)}]
        for loss in losses.items:
            warnings.warn(LossWarning(f"{self.name}: {loss}"), stacklevel=2)
        return out

    def parse_tools(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[ToolDefinition]:
        """The function declarations of a request body (or its ``tools`` list), ``strict=False``.

        Schemas are kept as given except that type names are lower-cased (the REST
        API also accepts ``"OBJECT"``). A missing description becomes the tool's name.
        """
        return _parse_tools(body_or_list)

    # -- import a conversation ----------------------------------------------------------

    @guarded("contents")
    def parse_messages(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[Message]:
        """Import a conversation written as a generateContent body (or its ``contents``)."""
        out: list[Message] = []
        if isinstance(body_or_list, Mapping):
            prefix = "contents"
            raw = fast_list(body_or_list.get("contents"), "contents")
            system = body_or_list.get("systemInstruction", body_or_list.get("system_instruction"))
            if system is not None:
                out.append(_parse_system(system))
        elif isinstance(body_or_list, (list, tuple)):
            prefix = ""
            raw = body_or_list
        else:
            raise DecodeError(
                f"expected a request body object or a list of contents, got {json_type(body_or_list)}",
                "",
            )
        pending: list[list[Any]] = []  # [call id, name, answered] of the latest model content
        for ci, item in enumerate(raw):
            path = f"{prefix}[{ci}]"
            content = fast_mapping(item, path)
            role = content.get("role", "user")
            parts = fast_list(content.get("parts", ()), f"{path}.parts")
            if role == "model":
                message, calls = _parse_model_content(parts, path, ci)
                out.append(message)
                if calls:
                    pending = [[c.id, c.name, False] for c in calls]
            elif role in ("user", "function"):
                _parse_user_content(parts, path, ci, pending, out)
            else:
                raise DecodeError("expected role 'user' or 'model'", f"{path}.role")
        return out

    # -- responses ---------------------------------------------------------------------

    def parse_response(self, body: Mapping[str, Any]) -> ChatResponse:
        """Parse a generateContent response body.

        A body with no candidates is a blocked prompt (CONTENT_FILTER) when
        ``promptFeedback.blockReason`` says so, else a DecodeError at ``candidates``.
        """
        # hot path: the guard decorator written out (~90 ns less per parse)
        try:
            return self._parse_response(body)
        except DecodeError:
            raise
        except GUARDED_ERRORS as exc:
            raise guard_error(exc) from None

    def _parse_response(self, body: Mapping[str, Any]) -> ChatResponse:
        body = fast_mapping(body, "")
        error = body.get("error")
        if error is not None and isinstance(error, Mapping):
            return _error_response(error, "error")
        usage = _usage(body.get("usageMetadata"), "usageMetadata")
        # hot path: opt_str only when the value is not a str (it then reports or passes None)
        model = body.get("modelVersion")
        if model.__class__ is not str:
            model = opt_str(model, "modelVersion")
        response_id = body.get("responseId")
        if response_id.__class__ is not str:
            response_id = opt_str(response_id, "responseId")
        candidates = body.get("candidates")
        if candidates is not None:
            candidates = fast_list(candidates, "candidates")
        if not candidates:
            block = _block_reason(body.get("promptFeedback"))
            if block is None:
                raise DecodeError("no candidates and no promptFeedback.blockReason", "candidates")
            metadata: dict[str, Any] = {"prompt_block_reason": block}
            if usage is not None:
                metadata["usage"] = usage.to_dict()
            return ChatResponse(
                AssistantMessage("", metadata=metadata),
                FinishReason.CONTENT_FILTER,
                usage,
                model,
                id=response_id,
            )
        cand = fast_mapping(candidates[0], "candidates[0]")
        raw_finish = cand.get("finishReason")
        if raw_finish.__class__ is not str:
            raw_finish = opt_str(raw_finish, "candidates[0].finishReason")
        acc = _Collector(response_id or "")
        content = cand.get("content")
        if content is not None:
            content = fast_mapping(content, "candidates[0].content")
            parts = content.get("parts")
            if parts is not None:
                prefix = "candidates[0].content.parts"
                for pi, part in enumerate(fast_list(parts, prefix)):
                    # hot path: plain text and functionCall parts are read with no path
                    # strings or regex (~1.7 us less per call, ~0.4 us per text part);
                    # any other part (and any doubt) goes to acc.part
                    if not (part.__class__ is dict and _fast_part(acc, part)):
                        acc.part(part, f"{prefix}[{pi}]", pi)
        message = acc.message(usage)
        return make_response(
            message,
            _finish_reason(raw_finish, acc.ordinal > 0),
            usage,
            model,
            tuple(acc.invalid),
            raw_finish,
            None,
            response_id,
        )

    def stream(self) -> GeminiStream:
        """A fresh accumulator for one ``streamGenerateContent?alt=sse`` stream."""
        return GeminiStream()


def _attach_text_signature(parts: list[Any], sig: str) -> None:
    for part in reversed(parts):
        if "text" in part and not part.get("thought"):
            part["thoughtSignature"] = sig
            return
    parts.append({"text": "", "thoughtSignature": sig})


def _lower_types(schema: Any) -> Any:
    if isinstance(schema, Mapping):
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key == "type" and type(value) is str:
                out[key] = value.lower()
            elif key == "type" and isinstance(value, (list, tuple)):
                out[key] = [v.lower() if type(v) is str else v for v in value]
            elif key in ("properties", "$defs", "definitions") and isinstance(value, Mapping):
                out[key] = {k: _lower_types(v) for k, v in value.items()}
            elif key in ("items", "anyOf", "oneOf", "allOf", "additionalProperties", "not"):
                out[key] = _lower_types(value)
            else:
                out[key] = value
        return out
    if isinstance(schema, (list, tuple)):
        return [_lower_types(v) for v in schema]
    return schema


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
        tool = fast_mapping(item, path)
        decls = tool.get("functionDeclarations", tool.get("function_declarations"))
        if decls is None:
            continue  # googleSearch, codeExecution...: not functions
        for k, d in enumerate(fast_list(decls, f"{path}.functionDeclarations")):
            dpath = f"{path}.functionDeclarations[{k}]"
            decl = fast_mapping(d, dpath)
            name = required_str(decl, "name", dpath)
            description = opt_str(decl.get("description"), f"{dpath}.description") or name
            params = decl.get("parameters", decl.get("parametersJsonSchema"))
            if params is None:
                params = {"type": "object", "properties": {}}
            try:
                out.append(ToolDefinition(name, description, _lower_types(params), strict=False))
            except ValidationError as exc:
                raise decode_error(exc, dpath) from None
    return out


# ---------------------------------------------------------------------------------
# Parsing: wire -> canonical
# ---------------------------------------------------------------------------------


def _parse_system(system: Any) -> SystemMessage:
    if type(system) is str:
        return SystemMessage(system)
    sysmap = fast_mapping(system, "systemInstruction")
    parts = fast_list(sysmap.get("parts", ()), "systemInstruction.parts")
    texts = []
    plain = True
    for j, item in enumerate(parts):
        path = f"systemInstruction.parts[{j}]"
        part = fast_mapping(item, path)
        texts.append(required_str(part, "text", path))
        plain = plain and len(part) == 1
    text = "".join(texts)
    role = opt_str(sysmap.get("role"), "systemInstruction.role")
    if plain and len(parts) == 1 and role is None:
        return message(SystemMessage, text)
    own: dict[str, Any] = {"system": freeze_decoded(parts, "systemInstruction.parts")}
    if role is not None:
        own["system_role"] = role  # the SDKs send role "user"; formatted back as given
    extras = FrozenDict({NAME: FrozenDict(own)})
    return message(SystemMessage, text, None, EMPTY, extras)


def _audio_format(media_type: str) -> str:
    sub = media_type.partition("/")[2]
    return sub or media_type


def _media_part(part: Mapping[str, Any], kind: str, path: str) -> ContentPart:
    blob = fast_mapping(part[kind], f"{path}.{kind}")
    bpath = f"{path}.{kind}"
    media_type = required_str(blob, "mimeType", bpath)
    try:
        if kind == "inlineData":
            data = required_str(blob, "data", bpath)
            if media_type.startswith("image/"):
                return ImagePart(data=data, media_type=media_type)
            if media_type.startswith("audio/"):
                return AudioPart(data, _audio_format(media_type))
            return FilePart(data=data, media_type=media_type)
        uri = required_str(blob, "fileUri", bpath)
        if not uri:
            raise DecodeError("must not be empty", f"{bpath}.fileUri")
        if media_type.startswith("image/"):
            return ImagePart(url=uri, media_type=media_type)
        return FilePart(file_id=uri, media_type=media_type)
    except ValidationError as exc:
        raise decode_error(exc, bpath) from None


_HANDLED_META = frozenset(("thought", "thoughtSignature"))


def _part_keys(
    part: Mapping[str, Any], data_key: str, index: int, path: str, out: list[FrozenDict]
) -> None:
    if len(part) > 1:
        extra = {k: v for k, v in part.items() if k != data_key and k not in _HANDLED_META}
        if extra:
            out.append(FrozenDict({"index": index, "keys": freeze_decoded(extra, path)}))


def _own(
    inner: dict[str, Any], unknown: Sequence[FrozenDict], keys: Sequence[FrozenDict]
) -> FrozenDict:
    if unknown:
        inner["unknown"] = tuple(unknown)
    if keys:
        inner["keys"] = tuple(keys)
    return FrozenDict({NAME: FrozenDict(inner)}) if inner else EMPTY


def _unknown(part: Mapping[str, Any], index: int, path: str) -> FrozenDict:
    return FrozenDict(
        {
            "index": index,
            "path": path,
            "type": _part_kind(part),
            "value": freeze_decoded(part, path),
        }
    )


def _with_unknown(extras: Mapping[str, Any], unknown: list[FrozenDict]) -> FrozenDict:
    own = extras.get(NAME)
    inner = dict(own) if isinstance(own, Mapping) else {}
    inner["unknown"] = tuple(inner.get("unknown", ())) + tuple(unknown)
    merged = dict(extras)
    merged[NAME] = FrozenDict(inner)
    return FrozenDict(merged)


def _tool_message(
    fr: Mapping[str, Any],
    path: str,
    ci: int,
    pi: int,
    pending: list[list[Any]],
    keys: Sequence[FrozenDict] = (),
) -> ToolResultMessage:
    name = required_str(fr, "name", path)
    if not name:
        raise DecodeError("must not be empty", f"{path}.name")
    wire_id = opt_str(fr.get("id"), f"{path}.id") or None
    response = fast_mapping(fr.get("response"), f"{path}.response")
    call_id = None
    if wire_id is not None:
        call_id = wire_id
        for entry in pending:
            if entry[0] == wire_id:
                entry[2] = True
                break
    else:
        for entry in pending:
            if not entry[2] and entry[1] == name:
                entry[2] = True
                call_id = entry[0]
                break
    if call_id is None:
        call_id = derive_call_id(DERIVED_ID_PREFIX, NAME, ci, pi, name)
    text, is_error, shape, is_json = _result_text(response, f"{path}.response")
    own: dict[str, Any] = {}
    if len(fr) > 2 and any(k not in _FR_KNOWN for k in fr):
        # willContinue, scheduling, multimodal parts...: kept and formatted back
        extra = {k: v for k, v in fr.items() if k not in _FR_KNOWN}
        own["function_response"] = freeze_decoded(extra, path)
    if shape != ("error" if is_error else "output"):
        own["response"] = shape
    if is_json:
        own["response"] = shape
        own["json"] = True
    return tool_result_message(
        ToolResultMessage, call_id, text, is_error, name, extras=_own(own, (), keys)
    )


_FR_KNOWN = frozenset(("id", "name", "response"))


def _result_text(response: Mapping[str, Any], path: str) -> tuple[str, bool, str, bool]:
    """(text, is_error, shape, whether the text is JSON made from a non-string value)."""
    if len(response) == 1:
        key = next(iter(response))
        if key in ("output", "error"):
            value = response[key]
            if type(value) is str:
                return value, key == "error", key, False
            return _dump(value, f"{path}.{key}"), key == "error", key, True
    return _dump(response, path), False, "object", False


def _dump(value: Any, path: str) -> str:
    try:
        return dumps_compact(value)
    except (TypeError, ValueError, RecursionError):
        raise DecodeError("not a JSON value", path) from None


def _parse_user_content(
    parts: Sequence[Any], path: str, ci: int, pending: list[list[Any]], out: list[Message]
) -> None:
    user_parts: list[ContentPart] = []
    unknown: list[FrozenDict] = []
    keys: list[FrozenDict] = []
    produced = 0
    for pi, item in enumerate(parts):
        ppath = f"{path}.parts[{pi}]"
        part = fast_mapping(item, ppath)
        if "text" in part:
            user_parts.append(TextPart(required_str(part, "text", ppath)))
            _part_keys(part, "text", pi, ppath, keys)
        elif "functionResponse" in part:
            fr = fast_mapping(part["functionResponse"], f"{ppath}.functionResponse")
            own_keys: list[FrozenDict] = []
            _part_keys(part, "functionResponse", pi, ppath, own_keys)
            out.append(_tool_message(fr, f"{ppath}.functionResponse", ci, pi, pending, own_keys))
            produced += 1
        elif "inlineData" in part:
            user_parts.append(_media_part(part, "inlineData", ppath))
            _part_keys(part, "inlineData", pi, ppath, keys)
        elif "fileData" in part:
            user_parts.append(_media_part(part, "fileData", ppath))
            _part_keys(part, "fileData", pi, ppath, keys)
        elif "functionCall" in part:
            raise DecodeError(
                "a functionCall part is not allowed in a user content", f"{ppath}.functionCall"
            )
        else:
            unknown.append(_unknown(part, pi, ppath))
    extras = _own({}, unknown, keys)
    if user_parts or not produced:
        content: str | tuple[ContentPart, ...] = (
            user_parts[0].text
            if len(user_parts) == 1 and type(user_parts[0]) is TextPart
            else tuple(user_parts)
        )
        out.append(message(UserMessage, content, None, EMPTY, extras))
    elif unknown:
        out[-1] = out[-1].with_extras(_with_unknown(out[-1].extras, unknown))


class _Collector:
    """The parts of one model turn (a response candidate, a stream, or a request content)."""

    __slots__ = (
        "calls",
        "id_seed",
        "invalid",
        "keys",
        "no_args",
        "ordinal",
        "parts",
        "text_signature",
        "unknown",
    )

    def __init__(self, id_seed: Any) -> None:
        self.id_seed = id_seed
        self.parts: list[ContentPart] = []
        self.calls: list[ToolCall] = []
        self.invalid: list[InvalidToolCall] = []
        self.unknown: list[FrozenDict] = []
        self.text_signature: str | None = None
        self.ordinal = 0
        self.keys: list[FrozenDict] = []
        self.no_args: list[str] = []  # ids of imported calls written without ``args``

    def part(self, item: Any, path: str, pi: int, *, lenient: bool = True) -> None:
        part = fast_mapping(item, path)
        text = part.get("text")
        if text is not None:
            if type(text) is not str:
                raise DecodeError(f"expected a string, got {json_type(text)}", f"{path}.text")
            sig = _sig(part, path)
            if part.get("thought") is True:
                self.parts.append(ReasoningPart(text, sig, False, NAME))
            else:
                self.parts.append(TextPart(text))
                if sig is not None:
                    self.text_signature = sig
            if not lenient:
                _part_keys(part, "text", pi, path, self.keys)
        elif "functionCall" in part:
            fc = fast_mapping(part["functionCall"], f"{path}.functionCall")
            self.function_call(fc, f"{path}.functionCall", _sig(part, path), lenient)
            if not lenient:
                _part_keys(part, "functionCall", pi, path, self.keys)
        elif "thoughtSignature" in part and _part_kind(part) == "":
            self.text_signature = _sig(part, path)
        else:
            self.unknown.append(_unknown(part, pi, path))

    def function_call(
        self, fc: Mapping[str, Any], path: str, sig: str | None, lenient: bool
    ) -> None:
        name = fc.get("name")
        if type(name) is not str or not name:
            what = (
                "missing"
                if name is None or name == ""
                else f"expected a string, got {json_type(name)}"
            )
            raise DecodeError(what, f"{path}.name")
        wire_id = opt_str(fc.get("id"), f"{path}.id") or None
        ordinal = self.ordinal
        self.ordinal = ordinal + 1
        args = fc.get("args", {})
        if args is None:
            args = {}
        problem = None
        if _NAME_RE.fullmatch(name) is None:
            problem = f"{path}.name: invalid tool name (length {len(name)})"
        elif not isinstance(args, Mapping):
            problem = f"{path}.args: expected an object, got {json_type(args)}"
        if problem is not None:
            if not lenient:
                where, _, what = problem.partition(": ")
                raise DecodeError(what, where)
            raw = args if type(args) is str else _dump_or_empty(args)
            call_id = wire_id or _derived_id(self.id_seed, ordinal, name, raw)
            self.invalid.append(InvalidToolCall(call_id, name, raw, problem))
            return
        try:
            frozen = freeze(args, f"{path}.args")
        except ValidationError as exc:
            if not lenient:
                raise DecodeError(exc.message, exc.path) from None
            # an object holding what JSON cannot (NaN from a lenient decoder): an
            # invalid call, as the other providers make it; the rest still parses
            raw = raw_json_text(args)
            call_id = wire_id or _derived_id(self.id_seed, ordinal, name, raw)
            self.invalid.append(InvalidToolCall(call_id, name, raw, f"{exc.path}: {exc.message}"))
            return
        call_id = wire_id or _derived_id(self.id_seed, ordinal, name, args)
        if len(_KNOWN_NAMES) < _KNOWN_MAX:  # so that the next call of this tool is read inline
            _KNOWN_NAMES.add(name)
        if not lenient and "args" not in fc:
            self.no_args.append(call_id)  # written without ``args``: formatted back so
        self.calls.append(tool_call(ToolCall, call_id, name, frozen, _call_extras(sig), None))

    def message(self, usage: Usage | None) -> AssistantMessage:
        """The turn as a response message: reasoning parts first, then the joined text.

        When the turn kept unknown parts (code execution, ...), its parts stay as
        the wire ordered them instead, one per part: the unknown parts go back
        between them, at their index, when the message is formatted for Gemini
        again (``text`` is the joined text either way).
        """
        texts: list[str] = []
        reasoning: list[ContentPart] = []
        for p in self.parts:
            if type(p) is TextPart:
                texts.append(p.text)
            else:
                reasoning.append(p)
        text = texts[0] if len(texts) == 1 else "".join(texts)
        own: dict[str, Any] = {}
        if self.text_signature is not None:
            own["text_signature"] = self.text_signature
        # hot path: every value here is checked and frozen already, so the trusted
        # builders skip a second validation (build_assistant would redo it).
        extras = _own(own, self.unknown, ())
        metadata = (
            FrozenDict({"usage": FrozenDict(usage.to_dict())}) if usage is not None else EMPTY
        )
        content: str | tuple[ContentPart, ...] = text
        if self.unknown and len(self.parts) > 1:
            content = tuple(self.parts)
        elif reasoning:
            content = (*reasoning, TextPart(text)) if text else tuple(reasoning)
        calls = self.calls
        invalid = self.invalid
        if calls or invalid:
            ids = [c.id for c in calls] + [c.id for c in invalid]
            if len(set(ids)) != len(ids):
                raise DecodeError("duplicate functionCall id within the candidate", "candidates[0]")
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


def _fast_part(acc: _Collector, part: dict[str, Any]) -> bool:
    """Add a response part that is plain text or a plain functionCall to ``acc`` as
    ``_Collector.part`` would; False (and nothing done) for anything else, which
    ``_Collector.part`` then reads."""
    sig = part.get("thoughtSignature")
    if sig is not None and sig.__class__ is not str:
        return False
    text = part.get("text")
    if text is not None:
        if text.__class__ is not str:
            return False
        if part.get("thought") is True:
            acc.parts.append(ReasoningPart(text, sig or None, False, NAME))
        else:
            acc.parts.append(TextPart(text))
            if sig:
                acc.text_signature = sig
        return True
    fc = part.get("functionCall")
    if fc.__class__ is not dict:
        return False
    name = fc.get("name")
    wire_id = fc.get("id")
    args = fc.get("args")
    if not (
        name.__class__ is str
        and name in _KNOWN_NAMES
        and (wire_id is None or wire_id.__class__ is str)
        and (args is None or args.__class__ is dict)
    ):
        return False
    if args is None:
        frozen = EMPTY
    else:
        try:
            frozen = freeze_mapping(args, "")
        except ValidationError:
            return False
    ordinal = acc.ordinal
    acc.ordinal = ordinal + 1
    call_id = wire_id or _derived_id(acc.id_seed, ordinal, name, args)
    acc.calls.append(tool_call(ToolCall, call_id, name, frozen, _call_extras(sig or None), None))
    return True


def _call_extras(sig: str | None) -> FrozenDict:
    if sig is None:
        return EMPTY
    return FrozenDict({NAME: FrozenDict({"thought_signature": sig})})


def _dump_or_empty(value: Any) -> str:
    try:
        return dumps_compact(value)
    except (TypeError, ValueError, RecursionError):
        return ""


def _derived_id(seed: Any, ordinal: int, name: str, args: Any) -> str:
    """The id of a call the wire sent without one: the same call always gets the same id.

    A response's ``responseId`` (the seed) tells its calls from any other
    response's, so they are keyed by it, their position and name. Without one (and
    for a request's contents, seeded by their index), two different calls would
    collide, so the arguments are part of the key: the exact wire text when the
    arguments came as a string, else canonical compact JSON with sorted keys (the
    streamed ``partialArgs`` of a call, assembled, give the same text as its
    ``args`` object in a whole response).
    """
    if seed.__class__ is str and seed:
        return derive_call_id(DERIVED_ID_PREFIX, NAME, seed, ordinal, name)
    return derive_call_id(DERIVED_ID_PREFIX, NAME, seed, ordinal, name, _canonical(args))


def _canonical(args: Any) -> str:
    """``args`` as canonical JSON text (sorted keys, compact); a string as it is."""
    if args.__class__ is str:
        return args
    if args is None:
        return "{}"
    global _canonical_encode
    if _canonical_encode is None:
        import json  # not at import time: only calls without a responseId need it

        _canonical_encode = json.JSONEncoder(
            separators=(",", ":"), sort_keys=True, check_circular=False, default=_plain
        ).encode
    try:
        return _canonical_encode(args)
    except (TypeError, ValueError, RecursionError):
        return _dump_or_empty(args)


_canonical_encode: Callable[[Any], str] | None = None


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(type(value).__name__)


def _parse_model_content(
    parts: Sequence[Any], path: str, ci: int
) -> tuple[AssistantMessage, list[ToolCall]]:
    acc = _Collector(("content", ci))
    for pi, item in enumerate(parts):
        acc.part(item, f"{path}.parts[{pi}]", pi, lenient=False)
    own: dict[str, Any] = {}
    if acc.text_signature is not None:
        own["text_signature"] = acc.text_signature
    if acc.no_args:
        own["no_args"] = tuple(acc.no_args)
    calls = acc.calls
    if calls and _made_elsewhere(calls[0]):
        # the content's first call came with an id and no signature: sent back as it
        # came, not taken for another provider's call (which gets a dummy signature)
        own["calls_unsigned"] = True
    extras = _own(own, acc.unknown, acc.keys)
    content_parts = tuple(acc.parts)
    if calls:
        if len({c.id for c in calls}) != len(calls):
            raise DecodeError("duplicate functionCall id within the content", f"{path}.parts")
        return (
            tool_call_message(
                ToolCallMessage, tuple(calls), content_parts or None, (), None, EMPTY, extras
            ),
            calls,
        )
    content: str | tuple[ContentPart, ...] = content_parts
    if len(content_parts) == 1 and type(content_parts[0]) is TextPart:
        content = content_parts[0].text
    return message(AssistantMessage, content, None, EMPTY, extras), calls


def _count(u: Mapping[str, Any], key: str, path: str) -> int | None:
    value = u.get(key)
    # hot path: a plain non-negative int needs no further checks
    if type(value) is int and value >= 0:
        return value
    return opt_int(value, f"{path}.{key}")


def _usage(raw: Any, path: str) -> Usage | None:
    if raw is None:
        return None
    u = fast_mapping(raw, path)
    # hot path: plain non-negative ints (or absent counts) need no call
    prompt = u.get("promptTokenCount")
    if prompt.__class__ is not int or prompt < 0:
        prompt = _count(u, "promptTokenCount", path) or 0
    candidates = u.get("candidatesTokenCount")
    if candidates.__class__ is not int or candidates < 0:
        candidates = _count(u, "candidatesTokenCount", path) or 0
    thoughts = u.get("thoughtsTokenCount")
    if thoughts is not None and (thoughts.__class__ is not int or thoughts < 0):
        thoughts = _count(u, "thoughtsTokenCount", path)
    total = u.get("totalTokenCount")
    if total is not None and (total.__class__ is not int or total < 0):
        total = _count(u, "totalTokenCount", path)
    output = candidates + (thoughts or 0)
    cached = u.get("cachedContentTokenCount")
    if cached is not None and (cached.__class__ is not int or cached < 0):
        cached = _count(u, "cachedContentTokenCount", path)
    if total is None:
        total = prompt + output + (_count(u, "toolUsePromptTokenCount", path) or 0)
    return make_usage(prompt, output, total, cached, None, thoughts)


def _block_reason(feedback: Any) -> str | None:
    if feedback is None:
        return None
    fb = fast_mapping(feedback, "promptFeedback")
    return opt_str(fb.get("blockReason"), "promptFeedback.blockReason") or None


def _error_response(error: Mapping[str, Any], path: str) -> ChatResponse:
    status = opt_str(error.get("status"), f"{path}.status")
    msg = opt_str(error.get("message"), f"{path}.message")
    detail = ": ".join(x for x in (status, msg) if x) or "error"
    return ChatResponse(AssistantMessage(""), FinishReason.ERROR, None, None, error=detail)


# ---------------------------------------------------------------------------------
# Streaming
# ---------------------------------------------------------------------------------

_PATH_TOKEN = re.compile(
    r"\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[\"((?:[^\"\\]|\\.)*)\"\]|\['((?:[^'\\]|\\.)*)'\]"
)


def _json_path(path: str, where: str) -> list[str | int]:
    """Split a partialArgs ``jsonPath`` (``$.a.b[0]``, ``$["a b"]``) into keys."""
    if not path.startswith("$"):
        raise DecodeError("jsonPath must start with '$'", where)
    keys: list[str | int] = []
    pos = 1
    while pos < len(path):
        m = _PATH_TOKEN.match(path, pos)
        if m is None:
            raise DecodeError("unsupported jsonPath syntax", where)
        name, index, dq, sq = m.groups()
        if name is not None:
            keys.append(name)
        elif index is not None:
            keys.append(int(index))
        else:
            keys.append(dq if dq is not None else sq)
        pos = m.end()
    if not keys:
        raise DecodeError("jsonPath must name a member", where)
    return keys


class _PartialCall:
    __slots__ = ("announced", "args", "continuing", "id", "name", "ordinal", "sig")

    def __init__(self, name: str, wire_id: str | None, sig: str | None, ordinal: int) -> None:
        self.name = name
        self.id = wire_id
        self.sig = sig
        self.ordinal = ordinal
        self.announced: str | None = None  # a derived id already sent in a delta
        self.args: dict[str, Any] = {}
        self.continuing: set[str] = set()

    def apply(self, fragment: Mapping[str, Any], where: str) -> None:
        json_path = fragment.get("jsonPath")
        if type(json_path) is not str:
            raise DecodeError("expected a string", f"{where}.jsonPath")
        keys = _json_path(json_path, f"{where}.jsonPath")
        if "stringValue" in fragment:
            value: Any = fragment["stringValue"]
            if type(value) is not str:
                raise DecodeError("expected a string", f"{where}.stringValue")
            if json_path in self.continuing:
                value = _get(self.args, keys, where) + value
        elif "numberValue" in fragment:
            value = fragment["numberValue"]
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise DecodeError("expected a number", f"{where}.numberValue")
        elif "boolValue" in fragment:
            value = fragment["boolValue"]
            if type(value) is not bool:
                raise DecodeError("expected a boolean", f"{where}.boolValue")
        elif "nullValue" in fragment:
            value = None
        else:
            raise DecodeError("fragment has no value", where)
        _set(self.args, keys, value, where)
        if fragment.get("willContinue") is True and type(value) is str:
            self.continuing.add(json_path)
        else:
            self.continuing.discard(json_path)


def _get(root: Any, keys: list[str | int], where: str) -> str:
    node = root
    for key in keys:
        if type(key) is int:
            node = node[key] if type(node) is list and key < len(node) else None
        else:
            node = node.get(key) if type(node) is dict else None
    if type(node) is not str:
        raise DecodeError("continued value is not a string", where)
    return node


def _set(root: dict[str, Any], keys: list[str | int], value: Any, where: str) -> None:
    node: Any = root
    for k, key in enumerate(keys):
        last = k == len(keys) - 1
        nxt = None if last else keys[k + 1]
        fresh: Any = None if last else ([] if type(nxt) is int else {})
        if type(key) is int:
            if type(node) is not list:
                raise DecodeError("jsonPath indexes a non-array", f"{where}.jsonPath")
            if key == len(node):
                node.append(value if last else fresh)
            elif key < len(node):
                if last:
                    node[key] = value
                elif node[key] is None:
                    node[key] = fresh
            else:
                raise DecodeError("jsonPath skips array elements", f"{where}.jsonPath")
            if not last:
                node = node[key]
        else:
            if type(node) is not dict:
                raise DecodeError("jsonPath names a member of a non-object", f"{where}.jsonPath")
            if last:
                node[key] = value
            else:
                if key not in node or node[key] is None:
                    node[key] = fresh
                node = node[key]


class GeminiStream(StreamAccumulator):
    """Accumulates streamed GenerateContentResponse chunks into a ChatResponse.

    Chunks carry only new parts (text is concatenated; consecutive thought
    fragments form one reasoning part); ``usageMetadata`` is a running snapshot (the
    last one wins). Function calls arrive whole, except on Vertex AI with
    ``streamFunctionCallArguments``, where a call opens with its name and
    ``willContinue``, receives ``partialArgs`` addressed by JSON path, and closes
    with an empty ``functionCall``. A stream that ends without a ``finishReason``
    (and without an error or a blocked prompt) is truncated: ``finish()`` raises
    DecodeError.
    """

    __slots__ = (
        "_acc",
        "_block",
        "_candidates",
        "_error",
        "_finish",
        "_id",
        "_model",
        "_n",
        "_open",
        "_reasoning",
        "_reasoning_sig",
        "_text",
        "_usage_raw",
    )

    def __init__(self) -> None:
        self._n = 0
        self._acc = _Collector("")
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._reasoning_sig: str | None = None
        self._open: _PartialCall | None = None
        self._finish: str | None = None
        self._usage_raw: tuple[Any, str] | None = None
        self._model: str | None = None
        self._id: str | None = None
        self._block: str | None = None
        self._error: str | None = None
        self._candidates = False

    @guarded("events")
    def feed(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        """Consume one chunk (the SSE ``data:`` payload, decoded)."""
        n = self._n
        self._n = n + 1
        if not isinstance(event, Mapping):
            raise DecodeError(f"expected a chunk object, got {json_type(event)}", f"events[{n}]")
        base = f"events[{n}]"
        error = event.get("error")
        if error is not None:
            err = fast_mapping(error, f"{base}.error")
            status = opt_str(err.get("status"), f"{base}.error.status")
            msg = opt_str(err.get("message"), f"{base}.error.message")
            self._error = ": ".join(x for x in (status, msg) if x) or "error"
            return ()
        usage = event.get("usageMetadata")
        if usage is not None:
            # A running snapshot: only the last one counts, so it is checked once, at finish.
            self._usage_raw = (usage, f"{base}.usageMetadata")
        response_id = event.get("responseId")
        if response_id is not None:
            self._id = opt_str(response_id, f"{base}.responseId")
            if self._acc.id_seed == "":
                self._acc.id_seed = self._id
        model = event.get("modelVersion")
        if model is not None:
            self._model = opt_str(model, f"{base}.modelVersion")
        feedback = event.get("promptFeedback")
        if feedback is not None:
            fb = fast_mapping(feedback, f"{base}.promptFeedback")
            reason = opt_str(fb.get("blockReason"), f"{base}.promptFeedback.blockReason")
            if reason:
                self._block = reason
        candidates = event.get("candidates")
        if not candidates:
            if candidates is not None:
                fast_list(candidates, f"{base}.candidates")
            return ()
        cand = fast_mapping(fast_list(candidates, f"{base}.candidates")[0], f"{base}.candidates[0]")
        self._candidates = True
        deltas: list[StreamDelta] = []
        content = cand.get("content")
        if content is not None:
            content = fast_mapping(content, f"{base}.candidates[0].content")
            parts = content.get("parts")
            if parts is not None:
                prefix = f"{base}.candidates[0].content.parts"
                for pi, item in enumerate(fast_list(parts, prefix)):
                    self._part(item, f"{prefix}[{pi}]", deltas)
        finish = cand.get("finishReason")
        if finish is not None:
            self._finish = opt_str(finish, f"{base}.candidates[0].finishReason")
        return tuple(deltas)

    def _part(self, item: Any, path: str, deltas: list[StreamDelta]) -> None:
        part = fast_mapping(item, path)
        text = part.get("text")
        # hot path: text fragments are nearly every part
        if type(text) is str:
            if part.get("thought") is True:
                if self._text:
                    self._close_text()
                self._reasoning.append(text)
                sig = _sig(part, path)
                if sig is not None:
                    self._reasoning_sig = sig
                if text:
                    deltas.append(make_text_delta("reasoning", text))
                return
            self._close_reasoning()
            if "thoughtSignature" in part:
                self._acc.text_signature = _sig(part, path)
            if text:
                self._text.append(text)
                deltas.append(make_text_delta("text", text))
            return
        if text is not None:
            raise DecodeError(f"expected a string, got {json_type(text)}", f"{path}.text")
        self._close_reasoning()
        fc = part.get("functionCall")
        if fc is None:
            if "thoughtSignature" in part and _part_kind(part) == "":
                self._acc.text_signature = _sig(part, path)
                return
            if self._text:
                self._close_text()
            acc = self._acc
            # its index among the parts of the whole turn as one response would have
            # them (each run of text fragments one part), where formatting puts it back
            index = len(acc.parts) + len(acc.calls) + len(acc.invalid) + len(acc.unknown)
            if self._open is not None:
                index += 1
            acc.unknown.append(_unknown(part, index, path))
            return
        fc = fast_mapping(fc, f"{path}.functionCall")
        self._function_call(fc, f"{path}.functionCall", _sig(part, path), deltas)

    def _close_text(self) -> None:
        self._acc.parts.append(TextPart("".join(self._text)))
        self._text = []

    def _close_reasoning(self) -> None:
        if self._reasoning:
            self._acc.parts.append(
                ReasoningPart("".join(self._reasoning), self._reasoning_sig, False, NAME)
            )
            self._reasoning = []
            self._reasoning_sig = None

    def _function_call(
        self, fc: Mapping[str, Any], path: str, sig: str | None, deltas: list[StreamDelta]
    ) -> None:
        acc = self._acc
        partial = fc.get("partialArgs")
        cont = fc.get("willContinue") is True
        name = fc.get("name")
        if partial is None and not cont and name is None and "args" not in fc:
            if self._open is None:
                raise DecodeError("empty functionCall with no call open", path)
            self._close_partial(deltas)
            return
        if partial is None and not cont:
            self._close_partial(deltas)
            before = len(acc.calls)
            acc.function_call(fc, path, sig, lenient=True)
            if len(acc.calls) > before:
                c = acc.calls[-1]
                deltas.append(
                    StreamDelta(
                        "tool_call",
                        tool_call=ToolCallDelta(acc.ordinal - 1, c.id, c.name, c.arguments_json),
                    )
                )
            return
        if name is not None:
            if type(name) is not str or not name:
                raise DecodeError("expected a non-empty string", f"{path}.name")
            self._close_partial(deltas)
            wire_id = opt_str(fc.get("id"), f"{path}.id") or None
            ordinal = acc.ordinal
            opened = self._open = _PartialCall(name, wire_id, sig, ordinal)
            acc.ordinal += 1
            call_id = wire_id
            if call_id is None and acc.id_seed.__class__ is str and acc.id_seed:
                # keyed by the responseId: known now; else by the arguments, at the end
                call_id = opened.announced = _derived_id(acc.id_seed, ordinal, name, None)
            deltas.append(StreamDelta("tool_call", tool_call=ToolCallDelta(ordinal, call_id, name)))
        call = self._open
        if call is None:
            raise DecodeError("partialArgs with no call open", f"{path}.partialArgs")
        if sig is not None and call.sig is None:
            call.sig = sig
        if partial is not None:
            for j, fragment in enumerate(fast_list(partial, f"{path}.partialArgs")):
                where = f"{path}.partialArgs[{j}]"
                call.apply(fast_mapping(fragment, where), where)
        if not cont:
            self._close_partial(deltas)

    def _close_partial(self, deltas: list[StreamDelta]) -> None:
        call = self._open
        if call is None:
            return
        self._open = None
        acc = self._acc
        call_id = call.id or _derived_id(acc.id_seed, call.ordinal, call.name, call.args)
        if _NAME_RE.fullmatch(call.name) is None:
            acc.invalid.append(
                InvalidToolCall(
                    call_id,
                    call.name,
                    raw_json_text(call.args),
                    "functionCall.name: invalid tool name",
                )
            )
            return
        try:
            frozen = freeze(call.args, "functionCall.args")
        except ValidationError as exc:  # what JSON cannot hold: an invalid call
            acc.invalid.append(
                InvalidToolCall(
                    call_id, call.name, raw_json_text(call.args), f"{exc.path}: {exc.message}"
                )
            )
            return
        raw = dumps_compact(call.args)
        acc.calls.append(
            tool_call(ToolCall, call_id, call.name, frozen, _call_extras(call.sig), raw)
        )
        # the id goes with the arguments when it could not be announced with the name
        late_id = None if call.id or call.announced == call_id else call_id
        deltas.append(
            StreamDelta(
                "tool_call", tool_call=ToolCallDelta(call.ordinal, late_id, arguments_delta=raw)
            )
        )

    @guarded("events")
    def finish(self) -> ChatResponse:
        """The response assembled from every chunk fed so far."""
        if self._n == 0:
            raise DecodeError("stream ended before any chunk", "candidates")
        self._close_reasoning()
        self._close_partial([])
        acc = self._acc
        if self._text:
            self._close_text()
        if self._error is not None:
            return ChatResponse(
                acc.message(None),
                FinishReason.ERROR,
                None,
                self._model,
                tuple(acc.invalid),
                provider_finish_reason=self._finish,
                id=self._id,
                error=self._error,
            )
        usage = _usage(*self._usage_raw) if self._usage_raw is not None else None
        if not self._candidates and self._block is not None:
            metadata: dict[str, Any] = {"prompt_block_reason": self._block}
            if usage is not None:
                metadata["usage"] = usage.to_dict()
            return ChatResponse(
                AssistantMessage("", metadata=metadata),
                FinishReason.CONTENT_FILTER,
                usage,
                self._model,
                id=self._id,
            )
        if self._finish is None:
            raise DecodeError(
                "stream ended before a finishReason (truncated)", "candidates[0].finishReason"
            )
        return ChatResponse(
            acc.message(usage),
            _finish_reason(self._finish, acc.ordinal > 0),
            usage,
            self._model,
            tuple(acc.invalid),
            provider_finish_reason=self._finish,
            id=self._id,
        )


PROVIDER = GeminiProvider()
"""The Gemini provider object ``get_provider("gemini")`` returns."""
