"""Streaming: ``streamGenerateContent?alt=sse`` chunks accumulated into a ChatResponse."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..._build import stream_delta, tool_call, tool_call_delta, trusted
from ..._fields import tool_name_ok
from ..._frozen import FrozenDict, freeze
from ..._json import dumps_compact, json_type
from ..._parts import ReasoningPart
from ..._streaming import ToolCallDelta
from ..._tool_call import InvalidToolCall, ToolCall
from ...errors import DecodeError, ValidationError, ident
from .._base import (
    ChatResponse,
    FinishReason,
    StreamAccumulator,
    StreamDelta,
    as_list,
    as_mapping,
    make_response,
    opt_str,
    raw_json_text,
)
from .._sse import is_done
from ._parse import CANDIDATE_FIELDS, Collector, blocked_response, candidate_rest
from ._wire import (
    NAME,
    block_reason,
    call_extras,
    decode_failure,
    derived_id,
    error_text,
    field,
    finish_reason,
    opt_field,
    part_kind,
    read_usage,
    signature,
    spelled,
    unknown_item,
)

# -- foreign streams ----------------------------------------------------------------------

#: Top-level fields of other providers' stream events, none of which a Gemini chunk has:
#: OpenAI chat chunks (``choices``, ``object``), Anthropic and OpenAI Responses events
#: (``type``), Ollama lines (``message``, ``done``).
_FOREIGN = ("choices", "type", "object", "message", "done")
#: Fields only a Gemini chunk has (``error`` is everyone's).
_GEMINI_ONLY = frozenset(
    (
        "usageMetadata",
        "usage_metadata",
        "promptFeedback",
        "prompt_feedback",
        "modelVersion",
        "model_version",
        "responseId",
        "response_id",
        "createTime",
        "create_time",
    )
)


def foreign_field(event: Mapping[str, Any]) -> str | None:
    """The field that marks ``event`` (which has no candidates) as another provider's, if any."""
    for key in _FOREIGN:
        if event.get(key) is not None:
            if any(k in event for k in _GEMINI_ONLY):
                return None
            return key
    return None


# -- Vertex AI partialArgs -----------------------------------------------------------------

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
    """A call streamed in ``partialArgs`` fragments (Vertex AI ``streamFunctionCallArguments``)."""

    __slots__ = ("announced", "args", "continuing", "id", "name", "ordinal", "sig", "where")

    def __init__(
        self, name: str, wire_id: str | None, sig: str | None, ordinal: int, where: str
    ) -> None:
        self.name = name
        self.id = wire_id
        self.sig = sig
        self.ordinal = ordinal
        self.where = where
        self.announced: str | None = None  # a derived id already sent in a delta
        self.args: dict[str, Any] = {}
        self.continuing: set[str] = set()

    def apply(self, fragment: Mapping[str, Any], where: str) -> None:
        json_path = field(fragment, "jsonPath")
        if type(json_path) is not str:
            raise DecodeError("expected a string", f"{where}.{spelled(fragment, 'jsonPath')}")
        keys = _json_path(json_path, f"{where}.{spelled(fragment, 'jsonPath')}")
        value: Any
        if (value := field(fragment, "stringValue")) is not None:
            if type(value) is not str:
                raise DecodeError(
                    "expected a string", f"{where}.{spelled(fragment, 'stringValue')}"
                )
            if json_path in self.continuing:
                value = _get(self.args, keys, where) + value
        elif (value := field(fragment, "numberValue")) is not None:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise DecodeError(
                    "expected a number", f"{where}.{spelled(fragment, 'numberValue')}"
                )
        elif (value := field(fragment, "boolValue")) is not None:
            if type(value) is not bool:
                raise DecodeError("expected a boolean", f"{where}.{spelled(fragment, 'boolValue')}")
        elif "nullValue" in fragment or "null_value" in fragment:
            value = None
        else:
            raise DecodeError("fragment has no value", where)
        _set(self.args, keys, value, where)
        if field(fragment, "willContinue") is True and type(value) is str:
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


# -- the stream -----------------------------------------------------------------------------------


class GeminiStream(StreamAccumulator):
    """Accumulates streamed GenerateContentResponse chunks into a ChatResponse.

    Chunks carry only new parts (text is concatenated; consecutive thought
    fragments form one reasoning part); ``usageMetadata`` is a running snapshot (the
    last one wins). Function calls arrive whole, except on Vertex AI with
    ``streamFunctionCallArguments``, where a call opens with its name and
    ``willContinue``, receives ``partialArgs`` addressed by JSON path, and closes
    with an empty ``functionCall``. A stream that ends without a ``finishReason``
    (and without an error or a blocked prompt) is truncated: ``finish()`` raises
    DecodeError. A chunk of another provider's stream (OpenAI ``choices``, an
    Anthropic or OpenAI Responses ``type``) is refused with a DecodeError.
    """

    __slots__ = (
        "_acc",
        "_block",
        "_candidate",
        "_candidates",
        "_error",
        "_finish",
        "_id",
        "_model",
        "_n",
        "_open",
        "_reasoning",
        "_reasoning_sig",
        "_tag",
        "_text",
        "_usage",
    )

    def __init__(self, tag: str = NAME) -> None:
        self._tag = tag
        self._n = 0
        self._acc = Collector("", tag)
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._reasoning_sig: str | None = None
        self._open: _PartialCall | None = None
        self._finish: str | None = None
        self._usage: tuple[Any, int, str] | None = None  # the last snapshot and where it was
        self._model: str | None = None
        self._id: str | None = None
        self._block: str | None = None
        self._error: str | None = None
        self._candidates = False
        self._candidate: dict[str, Any] = {}  # other candidate fields; a later chunk's win

    def feed(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        """Consume one chunk (the SSE ``data:`` payload, decoded)."""
        if is_done(event):  # the SSE end marker, if a caller passes it on
            return ()
        n = self._n
        self._n = n + 1
        try:
            return self._feed(event, n)
        except Exception as exc:  # any input: only DecodeError leaves a parser
            raise decode_failure(exc, f"events[{n}]") from None

    def _feed(self, event: Any, n: int) -> tuple[StreamDelta, ...]:
        if not isinstance(event, (dict, Mapping)):
            raise DecodeError(f"expected a chunk object, got {json_type(event)}", f"events[{n}]")
        error = event.get("error")
        if error is not None:
            if event.get("type") is not None:
                raise self._foreign("type", n)
            self._error = error_text(error, f"events[{n}].error")
            return ()
        candidates = event.get("candidates")
        if candidates is None:
            key = foreign_field(event)
            if key is not None:
                raise self._foreign(key, n)
        base = f"events[{n}]"
        self._header(event, n, base)
        if candidates is None:
            return ()
        return self._candidate_chunk(candidates, n, base)

    def _header(self, event: Mapping[str, Any], n: int, base: str) -> None:
        """The fields of a chunk beside its candidates: usage, ids, prompt feedback."""
        key = "usageMetadata" if event.get("usageMetadata") is not None else "usage_metadata"
        usage = event.get(key)
        if usage is not None:
            # a running snapshot: only the last one counts, so it is read once, at finish
            self._usage = (usage, n, key)
        response_id = opt_field(event, "responseId", base)
        if response_id is not None and response_id != self._id:
            self._set_id(response_id)
        model = opt_field(event, "modelVersion", base)
        if model is not None:
            self._model = model
        feedback = field(event, "promptFeedback")
        if feedback is not None:
            self._feedback(feedback, event, n)

    def _candidate_chunk(self, candidates: Any, n: int, base: str) -> tuple[StreamDelta, ...]:
        """The new parts of the first candidate, and its finish reason."""
        if not _array(candidates, base, ".candidates"):
            return ()
        cand = _object(candidates[0], base, ".candidates[0]")
        self._candidates = True
        deltas: list[StreamDelta] = []
        content = cand.get("content")
        if content is not None:
            parts = _object(content, base, ".candidates[0].content").get("parts")
            if parts is not None:
                for pi, part in enumerate(_array(parts, base, ".candidates[0].content.parts")):
                    self._part(part, n, pi, deltas)
        finish = opt_field(cand, "finishReason", base + ".candidates[0]")
        if finish is not None:
            self._finish = finish
        if not CANDIDATE_FIELDS.issuperset(cand):  # a later chunk's fields win
            self._candidate.update(candidate_rest(cand, base + ".candidates[0]"))
        return tuple(deltas)

    @staticmethod
    def _foreign(key: str, n: int) -> DecodeError:
        return DecodeError(
            f"not a Gemini streamGenerateContent chunk: it has {ident(key)}, "
            "as another provider's events do",
            f"events[{n}]",
        )

    def _set_id(self, response_id: str | None) -> None:
        self._id = response_id
        if self._acc.id_seed == "" and response_id:
            self._acc.id_seed = response_id

    def _feedback(self, feedback: Any, event: Mapping[str, Any], n: int) -> None:
        reason = block_reason(feedback, f"events[{n}].{spelled(event, 'promptFeedback')}")
        if reason:
            self._block = reason

    def _part(self, part: Any, n: int, pi: int, deltas: list[StreamDelta]) -> None:
        if not isinstance(part, (dict, Mapping)):
            raise DecodeError(f"expected an object, got {json_type(part)}", self._where(n, pi))
        text = part.get("text")
        if text is not None:
            if type(text) is not str:
                raise DecodeError(
                    f"expected a string, got {json_type(text)}", f"{self._where(n, pi)}.text"
                )
            self._text_part(part, text, n, pi, deltas)
            return
        self._close_reasoning()
        key = "functionCall" if part.get("functionCall") is not None else "function_call"
        fc = part.get(key)
        if fc is not None:
            self._function_call(fc, part, n, pi, key, deltas)
            return
        path = self._where(n, pi)
        if part_kind(part) == "":
            sig = signature(part, path)
            if sig is not None:
                self._acc.text_signature = sig
                return
        if self._text:
            self._close_text()
        acc = self._acc
        # its index among the parts of the whole turn as one response would have them
        # (each run of text fragments one part), where formatting puts it back
        index = len(acc.parts) + len(acc.calls) + len(acc.invalid) + len(acc.unknown)
        if self._open is not None:
            index += 1
        acc.unknown.append(unknown_item(part, index, path))

    @staticmethod
    def _where(n: int, pi: int) -> str:
        return f"events[{n}].candidates[0].content.parts[{pi}]"

    def _text_part(
        self, part: Mapping[str, Any], text: str, n: int, pi: int, deltas: list[StreamDelta]
    ) -> None:
        """A text fragment: answer text, or a thought (its signature the last one's)."""
        sig = None
        if len(part) > 1:  # more than its text: a signature, a thought flag
            sig = signature(part, self._where(n, pi))
        if part.get("thought") is True:
            if self._text:
                self._close_text()
            self._reasoning.append(text)
            if sig is not None:
                self._reasoning_sig = sig
            if text:
                deltas.append(stream_delta(StreamDelta, "reasoning", text, None))
            return
        self._close_reasoning()
        if sig is not None:
            self._acc.text_signature = sig
        if text:
            self._text.append(text)
            deltas.append(stream_delta(StreamDelta, "text", text, None))

    def _close_text(self) -> None:
        self._acc.parts.append("".join(self._text))
        self._text = []

    def _close_reasoning(self) -> None:
        if self._reasoning:
            self._acc.parts.append(
                trusted(
                    ReasoningPart, "".join(self._reasoning), self._reasoning_sig, False, self._tag
                )
            )
            self._reasoning = []
            self._reasoning_sig = None

    def _function_call(
        self,
        fc: Any,
        part: Mapping[str, Any],
        n: int,
        pi: int,
        key: str,
        deltas: list[StreamDelta],
    ) -> None:
        """A whole call, or a piece of one streamed in ``partialArgs`` (Vertex AI)."""
        prefix = f"events[{n}].candidates[0].content.parts"
        sig = signature(part, f"{prefix}[{pi}]")
        where = f"{prefix}[{pi}].{key}"
        fc = as_mapping(fc, where)
        partial = field(fc, "partialArgs")
        cont = field(fc, "willContinue") is True
        if partial is not None or cont:
            self._partial_call(fc, partial, cont, where, sig, deltas)
            return
        if fc.get("name") is None and "args" not in fc:  # the end of a streamed call
            if self._open is None:
                raise DecodeError("empty functionCall with no call open", where)
            self._close_partial(deltas)
            return
        # a whole call: read by the one reader every response part goes through
        self._close_partial(deltas)
        acc = self._acc
        call = acc.function_call(fc, prefix, pi, key, sig)
        raw = call.arguments_json if isinstance(call, ToolCall) else call.raw_arguments
        deltas.append(_call_delta(acc.ordinal - 1, call.id, call.name, raw))

    def _partial_call(
        self,
        fc: Mapping[str, Any],
        partial: Any,
        cont: bool,
        where: str,
        sig: str | None,
        deltas: list[StreamDelta],
    ) -> None:
        """A call opened with its name, or fragments of its arguments (``partialArgs``);
        it closes when ``willContinue`` is not set."""
        if fc.get("name") is not None:
            self._open_partial(fc, where, sig, deltas)
        call = self._open
        if call is None:
            raise DecodeError(
                "partialArgs with no call open", f"{where}.{spelled(fc, 'partialArgs')}"
            )
        if sig is not None and call.sig is None:
            call.sig = sig
        if partial is not None:
            ppath = f"{where}.{spelled(fc, 'partialArgs')}"
            for j, fragment in enumerate(as_list(partial, ppath)):
                fpath = f"{ppath}[{j}]"
                call.apply(as_mapping(fragment, fpath), fpath)
        if not cont:
            self._close_partial(deltas)

    def _open_partial(
        self, fc: Mapping[str, Any], where: str, sig: str | None, deltas: list[StreamDelta]
    ) -> None:
        """Open a call streamed in fragments (the one open before closes)."""
        name = fc.get("name")
        if type(name) is not str or not name:
            raise DecodeError("expected a non-empty string", f"{where}.name")
        self._close_partial(deltas)
        wire_id = opt_str(fc.get("id"), f"{where}.id") or None
        acc = self._acc
        ordinal = acc.ordinal
        opened = self._open = _PartialCall(name, wire_id, sig, ordinal, where)
        acc.ordinal += 1
        call_id = wire_id
        if call_id is None and type(acc.id_seed) is str and acc.id_seed:
            # keyed by the responseId: known now; else by the arguments, at the end
            call_id = opened.announced = derived_id(acc.id_seed, ordinal, name, None)
        deltas.append(_call_delta(ordinal, call_id, name, None))

    def _close_partial(self, deltas: list[StreamDelta]) -> None:
        call = self._open
        if call is None:
            return
        self._open = None
        acc = self._acc
        call_id = call.id or derived_id(acc.id_seed, call.ordinal, call.name, call.args)
        # the id goes with the arguments when it could not be announced with the name
        late_id = None if call.id or call.announced == call_id else call_id
        extras = call_extras(call.sig, self._tag)
        acc.ids.append(call_id)
        problem = None
        if not tool_name_ok(call.name):
            problem = f"{call.where}.name: invalid tool name {ident(call.name)}"
        else:
            try:
                frozen = freeze(call.args, f"{call.where}.args")
            except ValidationError as exc:  # what JSON cannot hold: an invalid call
                problem = f"{exc.path}: {exc.message}"
        if problem is not None:
            raw = raw_json_text(call.args)
            acc.invalid.append(InvalidToolCall(call_id, call.name, raw, problem, extras))
            deltas.append(_call_delta(call.ordinal, late_id, None, raw))
            return
        raw = dumps_compact(call.args)
        acc.calls.append(tool_call(ToolCall, call_id, call.name, frozen, extras, raw))
        deltas.append(_call_delta(call.ordinal, late_id, None, raw))

    def finish(self) -> ChatResponse:
        """The response assembled from every chunk fed so far."""
        try:
            return self._finish_response()
        except Exception as exc:  # any input: only DecodeError leaves a parser
            raise decode_failure(exc, "events") from None

    def _finish_response(self) -> ChatResponse:
        if self._n == 0:
            raise DecodeError("stream ended before any chunk", "candidates")
        self._close_reasoning()
        self._close_partial([])
        acc = self._acc
        if self._text:
            self._close_text()
        if self._error is not None:
            return make_response(
                acc.message(None),
                FinishReason.ERROR,
                None,
                self._model,
                (),
                self._finish,
                None,
                self._id,
                self._error,
            )
        usage = None
        if self._usage is not None:
            raw, n, key = self._usage
            usage = read_usage(raw, f"events[{n}].{key}")
        if not self._candidates and self._block is not None:
            return blocked_response(self._block, usage, self._model, self._id)
        if self._finish is None:
            raise DecodeError(
                "stream ended before a finishReason (truncated)", "candidates[0].finishReason"
            )
        if self._candidate:
            acc.candidate = FrozenDict(self._candidate)
        return make_response(
            acc.message(usage),
            finish_reason(self._finish, acc.ordinal > 0),
            usage,
            self._model,
            (),
            self._finish,
            None,
            self._id,
        )


def _object(value: Any, base: str, where: str) -> Mapping[str, Any]:
    """``value`` when it is a JSON object, else DecodeError at ``base + where`` (the path
    is made only then)."""
    if isinstance(value, (dict, Mapping)):
        return value
    raise DecodeError(f"expected an object, got {json_type(value)}", base + where)


def _array(value: Any, base: str, where: str) -> Sequence[Any]:
    """``value`` when it is a JSON array, else DecodeError at ``base + where``."""
    if isinstance(value, (list, tuple)):
        return value
    raise DecodeError(f"expected an array, got {json_type(value)}", base + where)


def _call_delta(index: int, call_id: str | None, name: str | None, args: str | None) -> StreamDelta:
    return stream_delta(
        StreamDelta, "tool_call", "", tool_call_delta(ToolCallDelta, index, call_id, name, args)
    )
