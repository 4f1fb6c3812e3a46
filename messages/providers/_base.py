"""What every provider offers, and the pieces they share.

A provider is a pure transformation at the boundary: canonical messages to the
provider's request body, and the provider's responses, streams and stored
conversations back to canonical messages. No provider module imports another.
"""

from __future__ import annotations

import enum
import functools
import threading
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeGuard, TypeVar, cast

from .. import _build
from .._fields import check_tool_name
from .._frozen import EMPTY, SCALARS, FrozenDict, freeze, thaw
from .._ids import DERIVED_ID_PREFIX, derive_call_id
from .._kinds import kind_of, kind_or_none
from .._message import AssistantMessage, Message, ToolCallMessage
from .._parts import ContentPart, ReasoningPart, TextPart
from .._streaming import ToolCallDelta
from .._tool_call import InvalidToolCall, ToolCall
from ..errors import DecodeError, MessageError, ValidationError
from ._arguments import OnLoss, conversation_of, on_loss_of, tools_of
from ._losses import (
    DROP_OTHER_REASONING,
    Conversion,
    Loss,
    Losses,
    LossWarning,
    foreign_state_losses,
    kept_unknown,
    key_items,
    loss_error,
)
from ._warned import WarnedLosses

if TYPE_CHECKING:
    from ..tools import Toolbox, ToolDefinition

__all__ = [
    "DROP_OTHER_REASONING",
    "ChatResponse",
    "Conversion",
    "FinishReason",
    "Loss",
    "LossWarning",
    "Losses",
    "Provider",
    "StreamAccumulator",
    "StreamDelta",
    "Usage",
    "build_assistant",
    "derive_call_id",
    "foreign_state_losses",
    "key_items",
    "kept_unknown",
]


class FinishReason(enum.Enum):
    """Why the model stopped, normalised across providers."""

    STOP = "stop"
    TOOL_CALLS = "tool_calls"
    LENGTH = "length"
    CONTENT_FILTER = "content_filter"
    ERROR = "error"
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one response, normalised (see MANIFEST conventions).

    ``input_tokens`` includes cached and cache-creation tokens; the breakdowns are
    optional details when the wire carries them.
    """

    input_tokens: int
    output_tokens: int
    total_tokens: int
    cached_input_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    reasoning_tokens: int | None = None

    def __post_init__(self) -> None:
        for f in _USAGE_FIELDS:
            value = getattr(self, f)
            if value is None and f in _OPTIONAL_USAGE:
                continue
            if type(value) is not int or value < 0:
                raise ValidationError(f"expected an int >= 0, got {type(value).__name__}", f)

    def to_dict(self) -> dict[str, int]:
        """The usage as a plain dict (optional breakdowns only when known)."""
        d = {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
        }
        if self.cached_input_tokens is not None:
            d["cached_input_tokens"] = self.cached_input_tokens
        if self.cache_creation_input_tokens is not None:
            d["cache_creation_input_tokens"] = self.cache_creation_input_tokens
        if self.reasoning_tokens is not None:
            d["reasoning_tokens"] = self.reasoning_tokens
        return d


_USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "cached_input_tokens",
    "cache_creation_input_tokens",
    "reasoning_tokens",
)
_OPTIONAL_USAGE = frozenset(_USAGE_FIELDS[3:])


@dataclass(frozen=True, slots=True)
class ChatResponse:
    """One parsed model response.

    ``message`` is an AssistantMessage (a ToolCallMessage when the model called
    tools, valid or not); its ``metadata["usage"]`` holds the usage as a dict.
    ``invalid_tool_calls`` is the message's: the calls whose arguments are not a
    JSON object or whose name breaks the name rule, kept as the model wrote them.
    """

    message: AssistantMessage
    finish_reason: FinishReason
    usage: Usage | None
    model: str | None
    invalid_tool_calls: tuple[InvalidToolCall, ...] = ()
    provider_finish_reason: str | None = None
    refusal: str | None = None
    id: str | None = None
    error: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.message, AssistantMessage):
            raise ValidationError(
                f"expected an AssistantMessage, got {type(self.message).__name__}", "message"
            )
        if not isinstance(self.finish_reason, FinishReason):
            raise ValidationError(
                f"expected a FinishReason, got {type(self.finish_reason).__name__}", "finish_reason"
            )
        if self.usage is not None and not isinstance(self.usage, Usage):
            raise ValidationError(f"expected a Usage, got {type(self.usage).__name__}", "usage")
        for name in ("model", "provider_finish_reason", "refusal", "id", "error"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise ValidationError(f"expected str or None, got {type(value).__name__}", name)
        given = tuple(self.invalid_tool_calls)
        own = self.message.invalid_tool_calls
        if given and given != own:
            raise ValidationError(
                "invalid_tool_calls must be the message's (build the message with them)",
                "invalid_tool_calls",
            )
        object.__setattr__(self, "invalid_tool_calls", own)

    @property
    def text(self) -> str:
        """The answer text (never reasoning or refusal)."""
        return self.message.text

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The valid tool calls of the answer."""
        return self.message.tool_calls

    @property
    def reasoning(self) -> str | None:
        """All reasoning text joined, or None when there is none."""
        text = "".join([p.text for p in self.message.reasoning if not p.redacted])
        return text or None

    def __repr__(self) -> str:
        return (
            f"ChatResponse(message={self.message!r}, finish_reason={self.finish_reason.value}, "
            f"usage={self.usage!r}, model={self.model!r}, invalid_tool_calls={len(self.invalid_tool_calls)})"
        )


@dataclass(frozen=True, slots=True)
class StreamDelta:
    """One increment of a streamed response: text, reasoning or a tool-call fragment."""

    kind: Literal["text", "reasoning", "tool_call"]
    text: str = field(default="", repr=False)
    tool_call: ToolCallDelta | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("text", "reasoning", "tool_call"):
            raise ValidationError("kind must be text, reasoning or tool_call", "kind")
        if not isinstance(self.text, str):
            raise ValidationError(f"expected str, got {type(self.text).__name__}", "text")
        if (self.tool_call is None) != (self.kind != "tool_call"):
            raise ValidationError("a tool_call delta (only) has kind tool_call", "tool_call")
        if self.tool_call is not None and not isinstance(self.tool_call, ToolCallDelta):
            raise ValidationError(
                f"expected a ToolCallDelta, got {type(self.tool_call).__name__}", "tool_call"
            )

    def __repr__(self) -> str:
        if self.tool_call is not None:
            return f"StreamDelta(kind={self.kind!r}, tool_call={self.tool_call!r})"
        return f"StreamDelta(kind={self.kind!r}, len={len(self.text)})"


class StreamAccumulator(ABC):
    """Feeds a provider's stream events and assembles the final ChatResponse."""

    @abstractmethod
    def feed(self, event: Mapping[str, Any]) -> tuple[StreamDelta, ...]:
        """Consume one decoded event (an SSE ``data:`` payload or NDJSON line)."""

    @abstractmethod
    def finish(self) -> ChatResponse:
        """Assemble the response from everything fed so far."""

    def feed_all(self, events: Iterable[Mapping[str, Any]]) -> ChatResponse:
        """Feed every event, then finish."""
        for event in events:
            self.feed(event)
        return self.finish()


class CountingStream(StreamAccumulator):
    """A stream accumulator that counts the events fed (``self._events``)."""

    __slots__ = ()
    _events: int

    @property
    def event_count(self) -> int:
        """How many events (chunks or lines) were fed."""
        return self._events


_ORIGIN_RE = None  # compiled on first use
_WARNED_LOCK = threading.Lock()  # makes each provider object's WarnedLosses once
_F = TypeVar("_F", bound=Callable[..., Any])
_P = TypeVar("_P", bound="Provider")


class Provider(ABC):
    """A provider's wire format, in both directions.

    ``tag`` names where opaque state (signatures, encrypted reasoning, item ids,
    kept blocks) came from: the provider's ``name``, or ``name@origin`` for a provider
    got with an origin (``get_provider("anthropic", origin="bedrock")``, or
    ``provider.at("bedrock")``). Parsing tags state with ``tag``; formatting replays
    only state whose tag is its own, exactly, and reports the rest as a Loss. The
    same model family behind different endpoints (Anthropic direct, Bedrock,
    Vertex; OpenAI organisations) rejects each other's signatures, so give each
    endpoint its own origin when a conversation may move between them.
    """

    name: str = ""
    origin: str | None = None
    #: Whether ``tools`` may also hold tool mappings in this provider's own wire shape
    #: (built-in tools such as ``{"type": "web_search"}``), passed through as they are.
    tool_mappings: bool = False
    #: The losses this provider object warned about (made on first use, see ``_warn``).
    _warned: WarnedLosses | None = None

    @property
    def tag(self) -> str:
        """The tag of the state this provider produces and replays (``name`` or ``name@origin``)."""
        return self.name if self.origin is None else f"{self.name}@{self.origin}"

    def at(self: _P, origin: str | None) -> _P:
        """This provider for the endpoint ``origin`` (None: the provider's own, untagged)."""
        import copy
        import re

        global _ORIGIN_RE
        if origin is not None:
            if _ORIGIN_RE is None:
                _ORIGIN_RE = re.compile(r"[A-Za-z0-9._:/-]{1,64}")
            if not isinstance(origin, str) or _ORIGIN_RE.fullmatch(origin) is None:
                from ..errors import ident

                raise ValidationError(
                    f"origin {ident(origin)} must match ^[A-Za-z0-9._:/-]{{1,64}}$", "origin"
                )
        other = copy.copy(self)
        other.origin = origin
        other._warned = None  # another endpoint: its losses are its own
        return other

    @abstractmethod
    def format_tools(self, tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
        """The ``tools`` part of a request."""

    @abstractmethod
    def parse_tools(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[ToolDefinition]:
        """The tool definitions of a request body (or its ``tools`` list), to carry them on."""

    @abstractmethod
    def parse_response(self, body: Mapping[str, Any]) -> ChatResponse:
        """Parse a non-streaming response body."""

    @abstractmethod
    def parse_messages(self, body_or_list: Mapping[str, Any] | Sequence[Any]) -> list[Message]:
        """Import a conversation written in this provider's request format."""

    @abstractmethod
    def stream(self) -> StreamAccumulator:
        """A fresh accumulator for one streamed response."""

    @abstractmethod
    def _format(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition]
    ) -> tuple[dict[str, Any], Sequence[Loss]]:
        """The request body and every loss: the one method a provider writes to format.

        ``messages`` and ``tools`` are checked already (``format_request`` and
        ``convert`` normalise what they are given); an exception other than a
        MessageError that escapes becomes the ValidationError of ``format_error``.
        """

    def format_request(
        self,
        conversation: Iterable[Message] | None = None,
        tools: Iterable[ToolDefinition] | Toolbox | None = (),
        *,
        strict: bool = False,
        on_loss: OnLoss = "warn",
        messages: Iterable[Message] | None = None,
    ) -> dict[str, Any]:
        """The message part of a request body, ready to merge with the model and options.

        ``conversation`` is a ConversationHistory, a stored session
        (ChatHistoryStorage), ``Messages`` or any iterable of messages (``messages=``
        is its older name); ``tools`` a Toolbox or an iterable of ToolDefinition.
        Anything else is a ValidationError whose path names the argument.

        ``on_loss`` says what to do with what the provider cannot carry: ``"warn"``
        issues a LossWarning for each loss this provider object has not warned about
        before (an agent loop that formats its growing history every turn hears of
        each loss once), ``"ignore"`` says nothing, ``"raise"`` raises LossError and
        returns nothing. ``strict=True`` is the older spelling of ``"raise"``.
        """
        how = on_loss_of(on_loss, strict)
        given = conversation_given(conversation, messages)
        return self._request(given, tools, how, self._format, "format_request")[0]

    def convert(
        self,
        conversation: Iterable[Message] | None = None,
        tools: Iterable[ToolDefinition] | Toolbox | None = (),
        *,
        on_loss: OnLoss = "warn",
        messages: Iterable[Message] | None = None,
    ) -> Conversion:
        """The body ``format_request`` makes, with every loss listed in the Conversion.

        Takes what ``format_request`` takes, ``on_loss`` included (a caller that reads
        the list rather than warnings passes ``"ignore"``). Its warnings are counted
        apart from ``format_request``'s: looking at the losses here does not silence
        the warnings of the request sent afterwards.
        """
        how = on_loss_of(on_loss, False)
        given = conversation_given(conversation, messages)
        return Conversion(*self._request(given, tools, how, self._format, "convert"))

    def _request(
        self,
        conversation: object,
        tools: object,
        on_loss: OnLoss,
        formatter: Callable[
            [Sequence[Message], Sequence[Any]], tuple[dict[str, Any], Sequence[Loss]]
        ],
        caller: str,
    ) -> tuple[dict[str, Any], tuple[Loss, ...]]:
        """What ``format_request`` and ``convert`` share: check the arguments, run
        ``formatter`` (``_format``, or a provider's with its own options) under the
        guard, then act on the losses as ``on_loss`` says (``caller``, the method,
        keeps its own memory of the losses it warned about). The body and the losses,
        which ``convert`` returns as a Conversion."""
        checked = conversation_of(conversation)
        definitions = tools_of(tools, self.tool_mappings)
        try:
            body, found = formatter(checked, definitions)
        except MessageError:
            raise
        except GUARDED_ERRORS as exc:
            raise format_error(exc) from None
        losses = tuple(found)
        if losses and on_loss != "ignore":
            if on_loss == "raise":
                raise loss_error(self.name, losses)
            self._warn(losses, checked, caller)
        return body, losses

    def _warn(
        self, losses: Sequence[Loss], messages: Sequence[Message], caller: str, stacklevel: int = 4
    ) -> None:
        """A LossWarning for each of ``losses`` that ``caller`` (``format_request``,
        ``convert``, ...) has not warned about before, issued at its caller (``stacklevel``
        frames up: through ``_request`` by default)."""
        memory = self._warned
        if memory is None:
            with _WARNED_LOCK:
                memory = self._warned
                if memory is None:
                    memory = self._warned = WarnedLosses()
        for loss in memory.new(losses, messages, caller):
            warnings.warn(LossWarning(f"{self.name}: {loss}"), stacklevel=stacklevel)

    def forget_warned_losses(self) -> None:
        """Forget which losses this provider object warned about: each warns again."""
        memory = self._warned
        if memory is not None:
            memory.clear()

    def __repr__(self) -> str:
        return f"<provider {self.tag}>"


def build_assistant(
    text: str | Sequence[str],
    reasoning: Sequence[ReasoningPart] = (),
    tool_calls: Sequence[ToolCall] = (),
    *,
    metadata: Mapping[str, Any] | None = None,
    extras: Mapping[str, Any] | None = None,
) -> AssistantMessage:
    """The canonical assistant message of a response: reasoning parts first, then text.

    With tool calls it is a ToolCallMessage (content None when there is no text
    and no reasoning); otherwise an AssistantMessage (content ``""`` when empty).
    """
    joined = text if isinstance(text, str) else "".join(text)
    content: str | tuple[ContentPart, ...] | None
    if reasoning:
        parts: list[ContentPart] = list(reasoning)
        if joined:
            parts.append(TextPart(joined))
        content = tuple(parts)
    else:
        content = joined
    meta = metadata or None
    ext = extras or None
    if tool_calls:
        return ToolCallMessage(
            tuple(tool_calls), content if content != "" else None, metadata=meta, extras=ext
        )
    return AssistantMessage(content, metadata=meta, extras=ext)


def is_mapping(value: object) -> TypeGuard[Mapping[str, Any]]:
    """Whether ``value`` is a JSON object: a dict (the usual case, tested first: the
    ``Mapping`` ABC's check runs Python code) or another Mapping."""
    return isinstance(value, (dict, Mapping))


def tool_name_valid(name: str) -> bool:
    """Whether ``name`` follows the tool name rule (``check_tool_name``, which
    remembers the names it found valid)."""
    try:
        check_tool_name(name)
    except ValidationError:
        return False
    return True


def as_mapping(value: object, path: str) -> Mapping[str, Any]:
    """``value`` if it is a JSON object, else DecodeError at ``path``."""
    if is_mapping(value):
        return value
    raise DecodeError(f"expected an object, got {_type(value)}", path)


def request_messages(body_or_list: object) -> tuple[Sequence[Any], str]:
    """The ``messages`` of a chat request body (or the list itself) and their path prefix."""
    if isinstance(body_or_list, Mapping):
        return as_list(body_or_list.get("messages"), "messages"), "messages"
    if isinstance(body_or_list, (list, tuple)):
        return body_or_list, ""
    raise DecodeError("expected a request body or a list of messages", "")


def as_list(value: object, path: str) -> Sequence[Any]:
    """``value`` if it is a JSON array, else DecodeError at ``path``."""
    if isinstance(value, (list, tuple)):
        return value
    raise DecodeError(f"expected an array, got {_type(value)}", path)


def opt_str(value: object, path: str) -> str | None:
    """``value`` if it is a string or null, else DecodeError."""
    if value is None or isinstance(value, str):
        return value
    raise DecodeError(f"expected a string, got {_type(value)}", path)


def opt_int(value: object, path: str) -> int | None:
    """``value`` if it is a non-negative integer or null, else DecodeError."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer() and value >= 0:
            return int(value)
        raise DecodeError(f"expected an integer, got {_type(value)}", path)
    if value < 0:
        raise DecodeError("expected a non-negative integer", path)
    return value


def opt_str_at(obj: Mapping[str, Any], key: str, *where: str) -> str | None:
    """``obj[key]`` when it is a string or absent (None); else DecodeError at the path
    ``where.key`` (built only then)."""
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    raise DecodeError(f"expected a string, got {_type(value)}", ".".join((*where, key)))


def count_at(obj: Mapping[str, Any], key: str, *where: str) -> int | None:
    """``obj[key]`` when it is a count (an integer >= 0) or absent (None); else what
    ``opt_int`` makes of it at the path ``where.key`` (built only then)."""
    value = obj.get(key)
    if value is None or (type(value) is int and value >= 0):
        return value
    return opt_int(value, ".".join((*where, key)))


def frozen_extras(value: Mapping[str, Any], path: str) -> FrozenDict:
    """Freeze provider data to keep in ``extras``; DecodeError when it is not JSON."""
    try:
        return freeze(dict(value), path) if value else EMPTY
    except MessageError as exc:
        raise DecodeError(exc.message, exc.path or path) from None


def _type(value: object) -> str:
    from .._json import json_type

    return json_type(value)


#: What ``guard`` turns into DecodeError (a DecodeError itself passes unchanged).
GUARDED_ERRORS: tuple[type[BaseException], ...] = (
    MessageError,
    RecursionError,
    KeyError,
    TypeError,
    AttributeError,
    ValueError,
    IndexError,
    UnicodeError,
    OverflowError,
)


def guard_error(exc: BaseException, path: str = "") -> DecodeError:
    """The DecodeError ``guard`` raises for ``exc`` (one of GUARDED_ERRORS, not a DecodeError)."""
    if isinstance(exc, MessageError):
        return DecodeError(exc.message, exc.path or path)
    if isinstance(exc, RecursionError):
        return DecodeError("input nested too deeply", path)
    return DecodeError(f"malformed input ({type(exc).__name__})", path)


def conversation_given(conversation: object, messages: object) -> object:
    """The conversation of a ``format_request`` or ``convert`` call, given as its first
    argument or by its older keyword name ``messages`` (not both)."""
    if messages is None:
        return conversation
    if conversation is not None:
        raise ValidationError("give the conversation once: conversation or messages", "messages")
    return messages


def format_error(exc: BaseException) -> ValidationError:
    """The ValidationError a formatter raises for ``exc`` (one of GUARDED_ERRORS).

    Messages are validated when built, so what can still trip a formatter is
    provider state kept in ``extras`` that was edited by hand or stored corrupt.
    For formatters that write the guard out::

        try:
            ...
        except MessageError:
            raise
        except GUARDED_ERRORS as exc:
            raise format_error(exc) from None
    """
    if isinstance(exc, RecursionError):
        return ValidationError("nested too deeply to format", "messages")
    return ValidationError(
        f"cannot format: malformed provider state in extras ({type(exc).__name__})", "messages"
    )


def parser(fn: _F) -> _F:
    """Decorator for a parser entry point: it raises DecodeError and nothing else.

    Parsers check what they read; this is the last line of defence, so that a
    missed case, a hostile ``Mapping`` whose methods raise, or input nested too
    deeply gives a DecodeError naming only the exception type, never its text.
    """

    @functools.wraps(fn)
    def inner(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except DecodeError:
            raise
        except Exception as exc:
            raise guard_error(exc) from None

    return cast("_F", inner)


def guard(path: str = "") -> Any:
    """Decorator turning any non-MessageError escape of a parser into DecodeError.

    Parsers validate as they go; this is the last line of defence so that a
    missed case yields DecodeError (naming where), never KeyError or TypeError.
    """

    def wrap(fn: Any) -> Any:
        import functools

        @functools.wraps(fn)
        def inner(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except DecodeError:
                raise
            except GUARDED_ERRORS as exc:
                raise guard_error(exc, path) from None

        return inner

    return wrap


_field = field  # re-exported for provider modules that declare dataclasses


# -- trusted builders (see _build) --------------------------------------------------------


def make_usage(
    input_tokens: int,
    output_tokens: int,
    total_tokens: int,
    cached: int | None = None,
    created: int | None = None,
    reasoning: int | None = None,
) -> Usage:
    """A Usage from checked counts, without re-validation."""
    return _build.usage(
        Usage, input_tokens, output_tokens, total_tokens, cached, created, reasoning
    )


def make_response(
    message: AssistantMessage,
    finish: FinishReason,
    usage: Usage | None,
    model: str | None,
    invalid: tuple[InvalidToolCall, ...] = (),
    provider_finish_reason: str | None = None,
    refusal: str | None = None,
    response_id: str | None = None,
    error: str | None = None,
) -> ChatResponse:
    """A ChatResponse from checked values, without re-validation.

    ``invalid`` must be the message's invalid calls (they travel with the message).
    """
    return _build.chat_response(
        ChatResponse,
        message,
        finish,
        usage,
        model,
        message.invalid_tool_calls,
        provider_finish_reason,
        refusal,
        response_id,
        error,
    )


# -- small readers and helpers shared by the provider modules ------------------------------


def guarded(path: str = "") -> Callable[[_F], _F]:
    """The ``guard`` decorator with its type kept (for mypy)."""
    return cast("Callable[[_F], _F]", guard(path))


def kind_at(m: object, i: int) -> int:
    """The kind of ``messages[i]`` (see ``messages._kinds``); ValidationError when it is
    not a message."""
    kind = kind_or_none(m)
    return kind_of(m, f"messages[{i}]") if kind is None else kind


def is_derived_id(call_id: str) -> bool:
    """True when ``call_id`` was made up by this package (the wire carried none)."""
    return len(call_id) == len(DERIVED_ID_PREFIX) + 24 and call_id.startswith(DERIVED_ID_PREFIX)


#: Other names of ``as_mapping`` and ``as_list``, kept for the provider modules that use them.
fast_mapping = as_mapping
fast_list = as_list


def decode_error(exc: ValidationError, path: str) -> DecodeError:
    """``exc`` as a DecodeError whose path is ``exc.path`` placed under ``path``."""
    sub = exc.path
    if not sub:
        where = path
    elif sub.startswith("["):
        where = path + sub
    else:
        where = f"{path}.{sub}" if path else sub
    return DecodeError(exc.message, where)


def with_state(extras: Mapping[str, Any], tag: str, **more: Any) -> FrozenDict:
    """``extras`` with ``more`` added to the state of ``tag``."""
    own = extras.get(tag)
    inner = dict(own) if isinstance(own, Mapping) else {}
    inner.update(more)
    return FrozenDict({**extras, tag: FrozenDict(inner)})


def freeze_decoded(value: Any, path: str) -> Any:
    """``freeze(value, path)``, raising DecodeError instead of ValidationError."""
    try:
        return freeze(value, path)
    except ValidationError as exc:
        raise DecodeError(exc.message, exc.path or path) from None


def required_str(obj: Mapping[str, Any], key: str, path: str) -> str:
    """``obj[key]`` when it is a string, else DecodeError at ``path.key``."""
    value = obj.get(key)
    if type(value) is not str:
        what = "missing" if value is None else f"expected a string, got {_type(value)}"
        raise DecodeError(what, f"{path}.{key}")
    return value


def joined_text(items: Any) -> str | None:
    """The texts of a list of ``{"text": ...}`` objects joined, or None when any is not one."""
    if not isinstance(items, (list, tuple)):
        return None
    out = []
    for item in items:
        if not isinstance(item, Mapping) or type(item.get("text")) is not str:
            return None
        out.append(item["text"])
    return "".join(out)


def raw_json_text(value: Any) -> str:
    """Compact JSON text of a decoded value, as an invalid call's raw arguments.

    ``NaN`` and ``Infinity`` (which a lenient decoder lets through) are written as
    such; a value JSON cannot write at all gives ``""``.
    """
    import json

    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return ""


def unique_calls(
    calls: Sequence[ToolCall], path: str
) -> tuple[Sequence[ToolCall], list[InvalidToolCall]]:
    """``calls`` without the ones that repeat an earlier call's id, and those as invalid calls.

    For responses: a repeated id cannot be answered apart from the first, so the
    repeat goes to ``invalid_tool_calls`` (with its path) and the rest still parses.
    """
    seen: set[str] = set()
    kept: list[ToolCall] = []
    repeated: list[InvalidToolCall] = []
    for c in calls:
        if c.id in seen:
            repeated.append(
                InvalidToolCall(c.id, c.name, c.arguments_json, f"{path}: a repeated tool call id")
            )
        else:
            seen.add(c.id)
            kept.append(c)
    return kept, repeated


FLAT_VALUES = SCALARS
"""The JSON scalar types (``messages._frozen.SCALARS``), kept for the modules that use the name."""


def plain_dict(value: Mapping[str, Any]) -> dict[str, Any]:
    """A frozen mapping (tool arguments, kept keys) as a new plain dict for a request body."""
    if all(type(v) in SCALARS for v in value.values()):
        return dict(value)  # flat, the usual case: one copy, nothing to thaw
    plain: dict[str, Any] = thaw(value)
    return plain


plain_arguments = plain_dict  # the name the formatters of tool calls use
