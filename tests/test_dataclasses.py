"""Value objects are dataclasses a user can extend (API.md, second wave).

Every public value class is a frozen slotted dataclass with its checks in
``__post_init__``; a user's dataclass subclass with fields of its own constructs,
compares, hashes, replaces, pickles, shows its fields in ``repr`` and round-trips
through the registry with its fields under their own names. Lazily formatted fields
(``id``, ``created_at``) read from many threads at once behave as if read from one.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest

import messages
from messages import (
    AssistantMessage,
    DecodeError,
    InvalidToolCall,
    Message,
    MessageRegistry,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
    ValidationError,
    default_registry,
    from_dict,
    from_json,
    to_dict,
    to_json,
)
from messages import providers as providers_pkg
from messages import storage as storage_pkg
from messages._timestamps import iso_utc
from tests.conftest import SECRET

T0 = datetime(2025, 1, 2, 3, 4, 5, 6, tzinfo=UTC)


# -- every public value class is a frozen slotted dataclass -------------------------------

#: Public names that are not value objects (behaviour, state, enums, errors, aliases).
NOT_VALUES = {
    "MessageError",
    "ValidationError",
    "DecodeError",
    "OrderingError",
    "StorageError",
    "LossError",
    "MessageRole",
    "EnvelopeType",
    "FinishReason",
    "LossWarning",
    "MessageRegistry",
    "Messages",
    "MessageStore",
    "ConversationHistory",
    "ToolCallAccumulator",
    "Provider",
    "StreamAccumulator",
    "Toolbox",
    "ChatHistoryStorage",
    "AsyncChatHistoryStorage",
    "MemoryBackend",
    "JsonFileBackend",
    "SQLiteBackend",
    "PostgresBackend",
    "Backend",
    "AppendingBackend",
    "Drop",
    "VersionedBackend",
    "AsyncBackend",
    "ConflictError",
    "Revision",  # an alias of object: an opaque token
    "Message",  # abstract base; checked below with its subclasses
}


def _public_classes() -> Iterator[tuple[str, type]]:
    for module in (messages, providers_pkg, storage_pkg):
        for name in module.__all__:
            value = getattr(module, name)
            if isinstance(value, type) and name not in NOT_VALUES:
                yield f"{module.__name__}.{name}", value


VALUE_CLASSES = sorted(_public_classes())


@pytest.mark.parametrize(("name", "cls"), VALUE_CLASSES, ids=[n for n, _ in VALUE_CLASSES])
def test_every_public_value_class_is_a_frozen_slotted_dataclass(name: str, cls: type) -> None:
    assert dataclasses.is_dataclass(cls), name
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    assert params.frozen, name
    assert "__slots__" in cls.__dict__, name
    assert "__new__" not in cls.__dict__, name
    own_post_init = any("__post_init__" in c.__dict__ for c in cls.__mro__ if c is not object)
    assert own_post_init or not dataclasses.fields(cls), f"{name}: checks live in __post_init__"


def test_the_value_classes_cover_the_contract() -> None:
    names = {n.rsplit(".", 1)[1] for n, _ in VALUE_CLASSES}
    assert {
        "TextPart",
        "ToolCall",
        "InvalidToolCall",
        "ToolResult",
        "ToolDefinition",
        "UserMessage",
        "ToolCallMessage",
        "Envelope",
        "ChatResponse",
        "Usage",
        "Loss",
        "SessionIdentity",
    } <= names


# -- a user's subclass ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TaggedNote(UserMessage):
    tag: str = ""
    score: int = 0


@dataclass(frozen=True, slots=True)
class Checked(UserMessage):
    level: int = 1

    def __post_init__(self) -> None:
        UserMessage.__post_init__(self)  # zero-argument super() fails in slotted dataclasses
        if self.level < 0:
            raise ValidationError("level must be >= 0", "level")


@dataclass(frozen=True, slots=True)
class TracedTurn(ToolCallMessage):
    trace: str = ""


@dataclass(frozen=True, slots=True)
class TaggedCall(ToolCall):
    source: str = "model"


@pytest.fixture
def registry() -> Iterator[MessageRegistry]:
    reg = MessageRegistry()
    reg.register("user", TaggedNote, predicate=lambda d: "tag" in d)
    reg.register("user", Checked, predicate=lambda d: "level" in d)
    reg.register("assistant", TracedTurn, predicate=lambda d: "trace" in d)
    yield reg


_COMMON = ("name", "metadata", "extras", "id", "created_at", "cache")


@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: UserMessage("x", **kw),
        lambda **kw: SystemMessage("x", **kw),
        lambda **kw: AssistantMessage("x", **kw),
        lambda **kw: ToolCallMessage((ToolCall("c", "f", {}),), **kw),
        lambda **kw: ToolResultMessage("c", "x", **kw),
    ],
)
def test_the_common_fields_are_keyword_only_with_their_checks(make: Any) -> None:
    when = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    m = make(name="n", metadata={"a": 1}, extras={"b": 2}, id="i1", created_at=when)
    assert (m.name, m.metadata, m.extras, m.id, m.created_at) == (
        "n",
        {"a": 1},
        {"b": 2},
        "i1",
        when,
    )
    assert make(name=None, id=None).extras == {}  # a keyword given as None: its default
    with pytest.raises(TypeError, match="unexpected keyword argument 'nmae'"):
        make(nmae="n")
    with pytest.raises(ValidationError):
        make(name=5)
    with pytest.raises(ValidationError):
        make(id="")
    params = inspect.signature(type(m)).parameters
    assert [p for p in params if params[p].kind is inspect.Parameter.KEYWORD_ONLY] == list(_COMMON)


def test_a_common_field_cannot_be_given_by_position() -> None:
    with pytest.raises(TypeError):
        UserMessage("x", "n")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        ToolResultMessage("c", "x", False, "t", "n")  # type: ignore[call-arg]


def test_a_subclass_constructs_with_keywords_and_checks_like_its_base() -> None:
    note = TaggedNote("hi", tag="x")
    assert (note.content, note.tag, note.score, note.role.value) == ("hi", "x", 0, "user")
    assert isinstance(note, UserMessage) and len(note.id) == 32
    assert note.created_at.tzinfo is UTC
    # the generated __init__ takes what the base's does (a subclass's signature shows the
    # stored type, so a list of strings needs an ignore there)
    parts = ["a", TextPart("b")]
    assert TaggedNote(parts, tag="y").content == (TextPart("a"), TextPart("b"))  # type: ignore[arg-type]
    with pytest.raises(ValidationError) as info:
        TaggedNote(5, tag="x")  # type: ignore[arg-type]
    assert info.value.path == "content"
    with pytest.raises(ValidationError):
        TaggedNote("hi", metadata={"a": object()})
    with pytest.raises(ValidationError, match="level"):
        Checked("hi", level=-1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        note.tag = "z"  # type: ignore[misc]


def test_a_subclass_compares_hashes_replaces_and_pickles_with_its_fields() -> None:
    a = TaggedNote("hi", tag="x", metadata={"k": [1, 2]})
    assert a == TaggedNote("hi", tag="x", metadata={"k": [1, 2]})
    assert a != TaggedNote("hi", tag="y", metadata={"k": [1, 2]})
    assert hash(a) == hash(TaggedNote("hi", tag="x", metadata={"k": [1, 2]}))
    b = dataclasses.replace(a, tag="z")
    assert (type(b), b.tag, b.id, b.content) == (TaggedNote, "z", a.id, "hi")
    for again in (pickle.loads(pickle.dumps(a)), copy.copy(a), copy.deepcopy(a)):
        assert type(again) is TaggedNote and again == a and again.id == a.id
        assert again.created_at == a.created_at


def test_a_subclass_repr_shows_its_fields_and_never_the_content() -> None:
    text = repr(TaggedNote(SECRET, tag="x", metadata={"m": SECRET}, extras={"e": SECRET}))
    assert "tag='x'" in text and "score=0" in text
    assert SECRET not in text


def test_a_registered_subclass_round_trips_with_its_fields(registry: MessageRegistry) -> None:
    note = TaggedNote("hi", tag="x", score=3, name="n", metadata={"k": 1}, extras={"tag": "e"})
    d = to_dict(note)
    assert (d["tag"], d["score"]) == ("x", 3)
    assert d["extras"] == {"tag": "e"}  # an extras key that names a field is nested
    for back in (from_dict(d, registry=registry), from_json(to_json(note), registry=registry)):
        assert type(back) is TaggedNote and back == note
        assert (back.id, back.created_at, back.extras) == (note.id, note.created_at, note.extras)
    turn = TracedTurn(tool_calls=(ToolCall("c1", "f", {"a": 1}),), trace="t-1")
    back = from_dict(to_dict(turn), registry=registry)
    assert type(back) is TracedTurn and back == turn and back.trace == "t-1"


def test_a_subclass_decoder_runs_the_subclass_checks(registry: MessageRegistry) -> None:
    d = to_dict(Checked("hi", level=2))
    assert from_dict(d, registry=registry) == Checked("hi", level=2, id=d["id"], created_at=T0)
    with pytest.raises(DecodeError) as info:
        from_dict({**d, "level": -1}, registry=registry)
    assert info.value.path == "level"
    with pytest.raises(DecodeError):
        from_dict({**d, "level": "high"}, registry=registry)


def test_a_field_that_json_cannot_write_is_a_validation_error() -> None:
    @dataclass(frozen=True, slots=True)
    class WithObject(UserMessage):
        thing: Any = None

    with pytest.raises(ValidationError) as info:
        to_dict(WithObject("hi", thing=object()))
    assert info.value.path == "thing"


def test_subclasses_of_the_other_value_classes() -> None:
    call = TaggedCall("c1", "get_weather", '{"city": "Paris"}', source="replay")  # type: ignore[arg-type]
    assert (call.arguments, call.arguments_json, call.source) == (
        {"city": "Paris"},
        '{"city": "Paris"}',
        "replay",
    )
    assert pickle.loads(pickle.dumps(call)) == call
    assert dataclasses.replace(call, source="x").arguments == {"city": "Paris"}

    @dataclass(frozen=True, slots=True)
    class Quote(TextPart):
        author: str = ""

    q = Quote("to be", author="W")
    assert q == Quote("to be", author="W") and q != Quote("to be", author="X")
    assert UserMessage([q]).text == "to be"
    with pytest.raises(ValidationError):
        Quote(5)  # type: ignore[arg-type]


def test_the_default_registry_takes_a_subclass() -> None:
    default_registry.register("user", TaggedNote, predicate=lambda d: "tag" in d)
    try:
        note = TaggedNote("hi", tag="x")
        assert type(from_dict(to_dict(note))) is TaggedNote
        assert type(from_dict(to_dict(UserMessage("hi")))) is UserMessage
    finally:
        default_registry.unregister("user", TaggedNote)


# -- invalid calls in the message ------------------------------------------------------------


def test_a_tool_call_message_may_hold_only_invalid_calls() -> None:
    bad = InvalidToolCall("c9", "get weather", '{"city": ', "truncated")
    turn = Message.assistant(invalid_tool_calls=[bad])
    assert type(turn) is ToolCallMessage
    assert (turn.tool_calls, turn.invalid_tool_calls, turn.tool_call_ids) == ((), (bad,), ("c9",))
    assert from_dict(to_dict(turn)) == turn
    with pytest.raises(ValidationError, match="at least one tool call"):
        ToolCallMessage()
    with pytest.raises(ValidationError, match="duplicate tool call id"):
        ToolCallMessage((ToolCall("c9", "f"),), None, (bad,))
    assert UserMessage("x").invalid_tool_calls == ()
    assert AssistantMessage("x").invalid_tool_calls == ()


def test_an_invalid_call_needs_an_id_and_hides_its_text() -> None:
    with pytest.raises(ValidationError):
        InvalidToolCall("", None, "", "e")
    bad = InvalidToolCall("c1", None, SECRET, "invalid JSON", extras={"gemini": {"sig": "s"}})
    assert SECRET not in repr(bad)
    assert bad.extras == {"gemini": {"sig": "s"}}
    assert pickle.loads(pickle.dumps(bad)) == bad


# -- lazy fields are thread-safe --------------------------------------------------------------


def _race(readers: list[Callable[[Any], Any]], objects: list[Any]) -> list[list[Any]]:
    """Each reader function in its own thread over the same objects, started together."""
    start = threading.Barrier(len(readers))
    results: list[list[Any]] = [[] for _ in readers]
    errors: list[BaseException] = []

    def read(k: int) -> None:
        try:
            start.wait()
            results[k] = [readers[k](m) for m in objects]
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=read, args=(k,)) for k in range(len(readers))]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert errors == []
    return results


def _id_first(m: Any) -> Any:
    return (m.id, m.created_at)


def _created_first(m: Any) -> Any:
    created = m.created_at
    return (m.id, created)


def _encode_first(m: Any) -> Any:
    d = m.to_dict()
    return (m.id, m.created_at, d["id"], d["created_at"])


def test_lazy_fields_read_from_many_threads_agree() -> None:
    # 8 threads, half reading the id first and half created_at first, at a 1 us switch
    # interval: the layout this replaced failed here about once in four rounds
    for _ in range(12):
        fresh = [UserMessage(str(i)) for i in range(2_000)]
        readers: list[Callable[[Any], Any]] = [_id_first, _created_first] * 3 + [_encode_first] * 2
        results = _race(readers, fresh)
        pairs = [[r[:2] for r in rs] for rs in results]
        assert all(p == pairs[0] for p in pairs)
        for rs in results[6:]:
            assert all(r[0] == r[2] for r in rs)  # the dict's id is the id


def test_a_lazy_id_and_created_at_agree_on_the_millisecond() -> None:
    m = UserMessage("x")
    ms = int(m.id[:13], 16) // 1000
    assert (
        ms == int(m.created_at.timestamp() * 1000) or abs(ms - m.created_at.timestamp() * 1000) < 1
    )
    n = UserMessage("y")
    _ = n.created_at  # created_at first: the id is still made from the same clock reading
    assert (
        int(n.id[:13], 16) // 1000 == int(n.created_at.timestamp() * 1000)
        or abs(int(n.id[:13], 16) // 1000 - n.created_at.timestamp() * 1000) < 1
    )


@pytest.mark.parametrize("first", ["nothing", "created_at", "id", "both"])
def test_the_first_encode_writes_the_stamps_the_fields_read(first: str) -> None:
    # to_dict of a fresh message makes its id and created_at text in one step (the
    # encoder's fresh path); whatever was read before, the dict says what the fields say
    m = UserMessage("x")
    if first in ("created_at", "both"):
        _ = m.created_at
    if first in ("id", "both"):
        _ = m.id
    d = m.to_dict()
    assert d["id"] == m.id and d["created_at"] == iso_utc(m.created_at)
    assert int(m.id[:13], 16) // 1000 == int(m.created_at.timestamp() * 1000) or (
        abs(int(m.id[:13], 16) // 1000 - m.created_at.timestamp() * 1000) < 1
    )
    assert m.to_dict() == d and UserMessage.from_dict(d) == m


def test_ids_made_in_order_sort_in_order() -> None:
    made = [UserMessage(str(i)) for i in range(1_000)]
    ids = [m.id for m in reversed(made)][::-1]  # read in reverse: the order still holds
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)


# -- the builders fill every field ------------------------------------------------------------


def test_trusted_builders_fill_every_field_of_the_classes_they_build() -> None:
    from messages import _build
    from messages._frozen import EMPTY, FrozenDict
    from messages._streaming import ToolCallDelta
    from messages.providers import ChatResponse, FinishReason, StreamDelta, Usage

    usage = _build.usage(Usage, 1, 2, 3, None, None, 4)
    assert usage == Usage(1, 2, 3, reasoning_tokens=4)
    msg = AssistantMessage("hi")
    resp = _build.chat_response(
        ChatResponse, msg, FinishReason.STOP, usage, "m", (), None, None, "r", None
    )
    assert resp == ChatResponse(msg, FinishReason.STOP, usage, "m", id="r")
    delta = _build.tool_call_delta(ToolCallDelta, 0, "c", "f", "{")
    assert delta == ToolCallDelta(0, "c", "f", "{")
    assert _build.stream_delta(StreamDelta, "tool_call", "", delta) == StreamDelta(
        "tool_call", tool_call=delta
    )
    call = _build.tool_call(ToolCall, "c", "f", FrozenDict({"a": 1}), EMPTY, '{"a":1}')
    assert call == ToolCall("c", "f", {"a": 1}) and call.arguments_json == '{"a":1}'
    built = [
        usage,
        resp,
        delta,
        call,
        _build.message(UserMessage, "x"),
        _build.message(UserMessage, "x", None, EMPTY, EMPTY, "id1"),
        _build.tool_call_message(ToolCallMessage, (call,)),
        _build.tool_result_message(ToolResultMessage, "c", "ok"),
        _build.tool_call_message(ToolCallMessage, (call,), None, (), id="id2"),
        _build.tool_result_message(ToolResultMessage, "c", "ok", True, "f"),
        _build.text_part("t"),
    ]
    for obj in built:
        for f in dataclasses.fields(obj):  # type: ignore[arg-type]
            getattr(obj, f.name)  # every slot is set (an unset slot raises AttributeError)
        assert type(obj).__name__ in {c.__name__ for c in type(obj).__mro__}
        assert type(obj) in {type(x) for x in built}  # the class asked for, no other
