"""``Toolbox``: holding tools and running calls (API.md, "Toolbox: running calls").

The sync side: building a toolbox (functions, pairs, the fit check, duplicates),
``run`` / ``run_all`` and every way a call can fail, how a return value becomes
the result's content, and that no error this package writes quotes an argument
value. The async side is in ``test_toolbox_async.py``.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import gc
import json
import subprocess
import sys
import threading
import warnings
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, NamedTuple, TypedDict

import pytest
from hypothesis import given
from hypothesis import strategies as st

import messages
from messages import (
    ConversationHistory,
    ImagePart,
    InvalidToolCall,
    Message,
    ReasoningPart,
    TextPart,
    Toolbox,
    ToolCall,
    ToolDefinition,
    ToolResult,
    ToolResultMessage,
    ValidationError,
)
from messages.tools._toolbox import MAX_REASON
from tests.conftest import SECRET
from tests.strategies import json_values, texts


def get_weather(city: str, unit: str = "celsius", *, days: int | None = None) -> str:
    """Current weather for a city.

    Args:
        city: The city.
        unit: celsius or fahrenheit.
        days: How many days ahead.
    """
    return f"{city}|{unit}|{days}"


def echo(value: Any) -> Any:
    """Return what it is given."""
    return value


def call(name: str, arguments: Mapping[str, Any] | str = "{}", id: str = "call_1") -> ToolCall:
    return ToolCall(id, name, arguments)


def returning(value: Any) -> Toolbox:
    """A toolbox whose one tool, ``give``, returns ``value``."""

    def give() -> Any:
        """Give the value."""
        return value

    return Toolbox([give])


def _id(value: Any) -> str:
    """A test id for a value (a huge int has no repr: over the digit limit)."""
    if type(value) is int and value > 10**100:
        return "huge int"
    return repr(value)[:40]


def result_of(value: Any) -> ToolResult:
    return returning(value).run(call("give"))


# ------------------------------------------------------------------ building


def test_functions_and_pairs_in_the_order_added() -> None:
    lookup = ToolDefinition(
        "lookup",
        "Look a word up.",
        {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]},
    )

    def find(word: str) -> str:
        return word.upper()

    box = Toolbox([get_weather, (lookup, find)])
    assert [d.name for d in box.definitions] == ["get_weather", "lookup"]
    assert box.definitions[0] == ToolDefinition.from_function(get_weather)
    assert box.get("lookup") is lookup
    assert box.get("nothing") is None
    assert "lookup" in box and "nothing" not in box and len(box) == 2
    assert box.run(call("lookup", {"word": "hi"})).content == "HI"


def test_add_returns_the_definition_and_extends_definitions() -> None:
    box = Toolbox()
    empty = box.definitions
    assert empty == () and len(box) == 0
    made = box.add(get_weather)
    assert made == ToolDefinition.from_function(get_weather)
    assert list(box.definitions) == [made]
    definition = ToolDefinition("shout", "Shout.", {"type": "object", "properties": {}})
    assert box.add(definition, lambda: "HEY") is definition
    assert list(box.definitions) == [made, definition]
    assert box.run(call("shout")).content == "HEY"


def test_repr_names_the_tools_only() -> None:
    assert repr(Toolbox([get_weather, echo])) == "Toolbox(['get_weather', 'echo'])"
    many = Toolbox()
    for i in range(25):
        many.add(ToolDefinition(f"t{i}", "T.", {"type": "object", "properties": {}}), lambda: "x")
    assert repr(many).endswith("'t19', ... 5 more])")


def test_a_duplicate_name_is_refused_and_changes_nothing() -> None:
    box = Toolbox([get_weather])
    before = box.definitions
    again = ToolDefinition("get_weather", "Other.", {"type": "object", "properties": {}})
    with pytest.raises(ValidationError, match="a tool named 'get_weather' is already") as err:
        box.add(again, lambda: "x")
    assert err.value.path == "name"
    assert box.definitions is before
    with pytest.raises(ValidationError) as err:
        Toolbox([get_weather, get_weather])
    assert err.value.path == "tools[1].name"


@pytest.mark.parametrize(
    ("tools", "path", "message"),
    [
        (get_weather, "tools", "expected a list of tools"),
        ({"get_weather": get_weather}, "tools", "got dict"),
        ("get_weather", "tools", "got str"),
        (ToolDefinition.from_function(get_weather), "tools", "got ToolDefinition"),
        (7, "tools", "got int"),
        ([ToolDefinition.from_function(get_weather)], "tools[0].fn", "needs the function"),
        ([(ToolDefinition.from_function(get_weather),)], "tools[0]", "a tuple of 1 items"),
        ([(ToolDefinition.from_function(get_weather), get_weather, 1)], "tools[0]", "3 items"),
        ([echo, 7], "tools[1]", "expected a function or a ToolDefinition, got int"),
        ([(ToolDefinition.from_function(get_weather), "f")], "tools[0].fn", "expected a callable"),
    ],
)
def test_bad_tools_are_refused_with_a_path(tools: Any, path: str, message: str) -> None:
    with pytest.raises(ValidationError, match=message) as err:
        Toolbox(tools)
    assert err.value.path == path


def test_add_with_a_function_and_a_function_is_refused() -> None:
    with pytest.raises(ValidationError, match="fn goes with a ToolDefinition") as err:
        Toolbox().add(get_weather, echo)  # type: ignore[call-overload]
    assert err.value.path == "fn"


def test_a_function_without_a_docstring_needs_a_pair() -> None:
    def bare(x: int) -> int:
        return x

    with pytest.raises(ValidationError, match="no description for 'bare'"):
        Toolbox([bare])
    definition = ToolDefinition.from_function(bare, description="Give x back.")
    assert Toolbox([(definition, bare)]).run(call("bare", {"x": 3})).content == "3"


WORD = ToolDefinition(
    "word",
    "A word.",
    {
        "type": "object",
        "properties": {"word": {"type": "string"}, "lang": {"type": "string"}},
        "required": ["word"],
    },
)


def _word_and_lang(word: str, lang: str = "en") -> str:
    return word + lang


def _word_only(word: str) -> str:
    return word


def _lang_required(word: str, lang: str) -> str:
    return word + lang


def _positional(word: str, lang: str = "en", /, extra: int = 0) -> str:
    return word


def _kwargs(**kw: Any) -> str:
    return ",".join(sorted(kw))


def _args_too(word: str, *rest: Any, lang: str = "en") -> str:
    return word + lang


def _optional_none(word: str, lang: str | None) -> str:
    return word + str(lang)


@pytest.mark.parametrize(
    ("fn", "problem"),
    [
        (_word_only, "it does not take lang"),
        (_lang_required, "it requires lang, which the definition does not"),
        (_positional, "positional-only parameters without defaults: word"),
    ],
)
def test_a_function_that_does_not_fit_its_definition_is_refused(fn: Any, problem: str) -> None:
    with pytest.raises(ValidationError, match=problem) as err:
        Toolbox().add(WORD, fn)
    assert err.value.path == "fn"
    assert "the function does not fit the definition 'word'" in str(err.value)


@pytest.mark.parametrize("fn", [_word_and_lang, _kwargs, _args_too, _optional_none])
def test_functions_that_fit(fn: Any) -> None:
    box = Toolbox([(WORD, fn)])
    result = box.run(call("word", {"word": "hi", "lang": "fr"}))
    assert not result.is_error, result.content
    assert result.content == fn(word="hi", lang="fr")


def test_a_builtin_without_a_signature_is_not_compared() -> None:
    box = Toolbox([(WORD, dict)])
    assert json.loads(box.run(call("word", {"word": "hi"})).text) == {"word": "hi"}


def test_a_callable_instance_a_partial_and_a_method() -> None:
    class Scale:
        def __init__(self, factor: int) -> None:
            self.factor = factor

        def __call__(self, x: int) -> int:
            return x * self.factor

        def add(self, x: int, y: int = 1) -> int:
            """Add y to x."""
            return x + y

    number = ToolDefinition(
        "n",
        "N.",
        {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
    )
    box = Toolbox(
        [
            (number, Scale(3)),
            (ToolDefinition("m", "M.", number.parameters), functools.partial(Scale(5))),
            Scale(0).add,
        ]
    )
    assert box.run(call("n", {"x": 2})).content == "6"
    assert box.run(call("m", {"x": 2})).content == "10"
    assert box.run(call("add", {"x": 2, "y": 5})).content == "7"
    bad = box.run(call("n", {"x": "2"}))
    assert (
        bad.is_error
        and bad.content == "invalid arguments: arguments.x: expected integer, got string"
    )


# ------------------------------------------------------------------ running


class Unit(enum.Enum):
    C = "celsius"
    F = "fahrenheit"


@dataclasses.dataclass
class Place:
    city: str
    country: str = "FR"


def test_run_calls_with_keyword_arguments_built_by_arguments_as_rules() -> None:
    seen: list[Any] = []

    def forecast(place: Place, unit: Unit = Unit.C, days: int | None = None) -> str:
        """A forecast."""
        seen.append((place, unit, days))
        return "ok"

    box = Toolbox([forecast])
    ok = box.run(call("forecast", {"place": {"city": "Paris"}, "unit": "fahrenheit", "days": 3}))
    assert (ok.content, ok.is_error, ok.tool_call_id, ok.tool_name) == (
        "ok",
        False,
        "call_1",
        "forecast",
    )
    # OpenAI strict mode sends null for what the model leaves out: the defaults apply.
    box.run(
        call("forecast", {"place": {"city": "Oslo", "country": None}, "unit": None, "days": None})
    )
    assert seen == [(Place("Paris"), Unit.F, 3), (Place("Oslo"), Unit.C, None)]


def test_run_never_raises_for_the_model() -> None:
    box = Toolbox([get_weather])
    cases: dict[str, ToolCall | InvalidToolCall] = {
        "unknown": call("get_time", {"zone": "UTC"}),
        "missing": call("get_weather", {}),
        "type": call("get_weather", {"city": 7}),
        "extra": call("get_weather", {"city": "Paris", "when": "now"}),
        "null required": call("get_weather", {"city": None}),
        "invalid": InvalidToolCall(
            "call_1", "get_weather", '{"city": "Par', "invalid JSON (truncated)"
        ),
    }
    reasons = {k: box.run(c) for k, c in cases.items()}
    assert all(r.is_error and r.tool_call_id == "call_1" for r in reasons.values())
    assert {k: r.content for k, r in reasons.items()} == {
        "unknown": "unknown tool 'get_time'; the tools are 'get_weather'",
        "missing": "invalid arguments: arguments.city: required property is missing",
        "type": "invalid arguments: arguments.city: expected string, got integer",
        "extra": "invalid arguments: arguments.when: unexpected property (additionalProperties is false)",
        "null required": "invalid arguments: arguments.city: expected string, got null",
        "invalid": "invalid tool call: invalid JSON (truncated)",
    }


def test_unknown_tools_list_at_most_twenty_names() -> None:
    box = Toolbox()
    assert box.run(call("x")).content == "unknown tool 'x'; there are no tools"
    for i in range(23):
        box.add(ToolDefinition(f"t{i}", "T.", {"type": "object", "properties": {}}), lambda: "x")
    reason = box.run(call("x")).content
    assert isinstance(reason, str)
    assert reason.endswith("'t18', 't19' and 3 more") and "'t20'" not in reason


def test_an_invalid_call_is_answered_with_what_the_model_got_wrong() -> None:
    box = Toolbox([get_weather])
    wrong_name = InvalidToolCall("c2", "get weather", "{}", "invalid tool name")
    result = box.run(wrong_name)
    assert result.is_error and result.tool_call_id == "c2"
    assert result.tool_name == "get weather"  # the call's name, as the model wrote it
    assert result.content == (
        "invalid tool call: invalid tool name; unknown tool 'get weather'; the tools are 'get_weather'"
    )
    nameless = box.run(InvalidToolCall("c3", None, "[1]", "arguments are not a JSON object"))
    assert nameless.tool_name is None and nameless.content == (
        "invalid tool call: arguments are not a JSON object"
    )
    assert box.run(InvalidToolCall("c4", "", "{}", "no name")).tool_name is None
    long_error = box.run(InvalidToolCall("c5", "get_weather", "{", "e" * 2000))
    assert long_error.content == "invalid tool call: " + "e" * (MAX_REASON - 3) + "..."


def test_an_exception_from_the_tool_becomes_its_type_and_message() -> None:
    class QuotaExceeded(Exception):
        pass

    def flaky(kind: str) -> str:
        """Fail in several ways."""
        if kind == "value":
            raise ValueError("no such city")
        if kind == "empty":
            raise QuotaExceeded
        if kind == "key":
            raise KeyError("city")
        if kind == "long":
            raise RuntimeError("x" * 10_000)
        if kind == "message error":  # the tool's own ValidationError is the tool's failure
            raise ValidationError("bad", "somewhere")
        raise OSError(2, "No such file")

    box = Toolbox([flaky])
    got = {
        k: box.run(call("flaky", {"kind": k}))
        for k in ("value", "empty", "key", "long", "message error", "os")
    }
    assert all(r.is_error and r.tool_name == "flaky" for r in got.values())
    assert got["value"].content == "ValueError: no such city"
    assert got["empty"].content == "QuotaExceeded"
    assert got["key"].content == "KeyError: 'city'"
    assert got["long"].content == "RuntimeError: " + "x" * (MAX_REASON - 3) + "..."
    assert got["message error"].content == "ValidationError: somewhere: bad"
    assert got["os"].content == "FileNotFoundError: [Errno 2] No such file"


def test_an_exception_whose_str_fails_gives_its_type() -> None:
    class Odd(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    def odd() -> str:
        """Raise Odd."""
        raise Odd

    assert Toolbox([odd]).run(call("odd")).content == "Odd"


@pytest.mark.parametrize("exc", [KeyboardInterrupt, SystemExit, GeneratorExit])
def test_a_base_exception_propagates(exc: type[BaseException]) -> None:
    def stop() -> str:
        """Stop."""
        raise exc

    box = Toolbox([stop])
    with pytest.raises(exc):
        box.run(call("stop"))
    with pytest.raises(exc):
        box.run_all(Message.assistant(tool_calls=[call("stop")]))


def test_the_callers_mistakes_raise() -> None:
    box = Toolbox([get_weather])
    with pytest.raises(
        ValidationError, match="expected a ToolCall or an InvalidToolCall, got dict"
    ):
        box.run({"name": "get_weather"})  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="expected a Message, got list"):
        box.run_all([call("get_weather")])  # type: ignore[arg-type]


def test_a_coroutine_function_in_run_is_an_error_result_and_never_called() -> None:
    started: list[str] = []

    async def slow(city: str) -> str:
        """Slow."""
        started.append(city)
        return city

    box = Toolbox([slow])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a coroutine never awaited would warn
        result = box.run(call("slow", {"city": "Paris"}))
        (message,) = box.run_all(Message.assistant(tool_calls=[call("slow", {"city": "Paris"})]))
        gc.collect()
    assert (
        result.is_error
        and result.content == "tool 'slow' is a coroutine function: run it with arun"
    )
    assert message.is_error and message.text.endswith("run it with arun_all")
    assert started == []


def test_a_plain_function_returning_a_coroutine_in_run() -> None:
    async def later() -> str:
        return "done"

    definition = ToolDefinition("later", "Later.", {"type": "object", "properties": {}})
    box = Toolbox([(definition, lambda: later())])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = box.run(call("later"))
        gc.collect()  # the coroutine was closed: no "never awaited" warning
    assert (
        result.is_error and result.content == "the tool returned an awaitable (coroutine): use arun"
    )


def test_run_all_answers_every_call_in_call_order() -> None:
    box = Toolbox([get_weather])
    turn = Message.assistant(
        tool_calls=[call("get_weather", {"city": "Oslo"}, "a"), call("nope", {}, "b")],
        invalid_tool_calls=[InvalidToolCall("c", "get_weather", "{", "invalid JSON")],
    )
    answers = box.run_all(turn)
    assert all(type(m) is ToolResultMessage for m in answers)
    assert [(m.tool_call_id, m.tool_name, m.is_error) for m in answers] == [
        ("a", "get_weather", False),
        ("b", "nope", True),
        ("c", "get_weather", True),
    ]
    assert answers[0].text == "Oslo|celsius|None"
    assert len({m.id for m in answers}) == 3
    assert box.run_all(Message.assistant("no calls")) == ()
    assert box.run_all(Message.user("hi")) == ()


def test_run_all_answers_what_the_history_waits_for() -> None:
    history = ConversationHistory([Message.system("s"), Message.user("Weather?")])
    turn = Message.assistant(
        tool_calls=[call("get_weather", {"city": "Oslo"}, "a")],
        invalid_tool_calls=[InvalidToolCall("b", "get_weather", '{"ci', "invalid JSON")],
    )
    history.add(turn)
    history.extend(Toolbox([get_weather]).run_all(turn))
    assert history.pending_tool_calls == ()
    history.add(Message.assistant("Oslo is fine."))
    history.validate()


def test_the_same_definitions_run_the_same_in_run_and_run_all() -> None:
    box = Toolbox([get_weather])
    c = call("get_weather", {"city": "Lima", "days": 2})
    (message,) = box.run_all(Message.assistant(tool_calls=[c]))
    assert message.result == box.run(c)


# ------------------------------------------------------------ what a tool returns


class Point(NamedTuple):
    x: int
    y: int


class Hit(TypedDict):
    id: str
    score: float


@dataclasses.dataclass
class Report:
    city: str
    points: list[Point]
    hits: list[Hit]
    _cache: dict[str, Any] = dataclasses.field(default_factory=dict)


class Color(enum.Enum):
    RED = "red"
    BLUE = 2


class Level(enum.IntEnum):
    LOW = 1


class Mode(enum.StrEnum):
    FAST = "fast"


class Name(str):
    pass


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("sunny", "sunny"),
        ("", ""),
        (Name("plain"), "plain"),
        (Mode.FAST, "fast"),  # a str: as is
        (None, "null"),
        (True, "true"),
        (3, "3"),
        (2.5, "2.5"),
        (Level.LOW, "1"),
        (Color.RED, '"red"'),
        ([Color.BLUE, Level.LOW], "[2,1]"),
        ({"temp_c": 21, "sky": "clear"}, '{"temp_c":21,"sky":"clear"}'),
        ((1, "a"), '[1,"a"]'),
        ([], "[]"),
        ({}, "{}"),
        ({"city": "Zürich", "emoji": "☀"}, '{"city":"Zürich","emoji":"☀"}'),
        (Point(1, 2), '{"x":1,"y":2}'),
        ([Point(1, 2)], '[{"x":1,"y":2}]'),
        (Hit(id="a", score=0.5), '{"id":"a","score":0.5}'),
        (
            Report("Oslo", [Point(0, 1)], [Hit(id="h", score=1.0)], {"secret": 1}),
            '{"city":"Oslo","points":[{"x":0,"y":1}],"hits":[{"id":"h","score":1.0}]}',
        ),
        (
            {1: "int key", None: "null key", 1.5: "float"},
            '{"1":"int key","null":"null key","1.5":"float"}',
        ),
        (ToolCall("c", "f", {"a": [1]}).arguments, '{"a":[1]}'),  # frozen values
        (Mode, None),
    ],
    ids=_id,
)
def test_return_values_become_text_or_compact_json(value: Any, text: str | None) -> None:
    result = result_of(value)
    if text is None:
        assert result.is_error
        return
    assert not result.is_error, result.content
    assert type(result.content) is str and result.content == text


def test_parts_become_a_multimodal_result() -> None:
    image = ImagePart(url="https://example.com/chart.png")
    single = result_of(image)
    assert single.content == (image,) and not single.is_error
    several = result_of([TextPart("chart:"), image])
    assert several.content == (TextPart("chart:"), image)
    assert result_of((TextPart("a"),)).content == (TextPart("a"),)


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ({1, 2}, "the tool returned a set, which JSON cannot write"),
        (b"raw", "the tool returned a bytes, which JSON cannot write"),
        (
            {"report": {"when": [datetime(2025, 1, 1, tzinfo=UTC)]}},
            "the tool returned a datetime, which JSON cannot write (at result[*][*][0])",
        ),
        (
            [Report("Oslo", [Point(1, 2)], [Hit(id="a", score=float("nan"))])],
            "the tool returned a number JSON cannot write (NaN, an infinity or too many digits)",
        ),
        (
            {"r": Report("Oslo", [Point(1, 2), Point(3, b"y")], [])},  # type: ignore[arg-type]
            "the tool returned a bytes, which JSON cannot write (at result[*].points[1].y)",
        ),
        (
            [{"a b": object()}],
            "the tool returned a object, which JSON cannot write (at result[0][*])",
        ),
        ({(1, 2): "x"}, "the tool returned a mapping with a tuple key"),
        (
            float("nan"),
            "the tool returned a number JSON cannot write (NaN, an infinity or too many digits)",
        ),
        (
            {"x": float("inf")},
            "the tool returned a number JSON cannot write (NaN, an infinity or too many digits)",
        ),
        (
            10**5000,
            "the tool returned a number JSON cannot write (NaN, an infinity or too many digits)",
        ),
        ([TextPart("a"), 1], "the tool returned a TextPart among other values (at result[0])"),
        (
            ReasoningPart("thinking"),
            "the tool returned parts a tool result cannot hold (content[0]: ReasoningPart is not "
            "allowed here; expected text, image, audio and file parts)",
        ),
        (Report, "the tool returned a type, which JSON cannot write"),
    ],
    ids=_id,
)
def test_values_json_cannot_write_give_an_error_naming_the_type(value: Any, reason: str) -> None:
    result = result_of(value)
    assert result.is_error and result.content == reason


def test_circular_and_too_deep_values_give_an_error() -> None:
    loop: list[Any] = []
    loop.append(loop)
    deep: list[Any] = []
    for _ in range(5000):
        deep = [deep]
    for value in (loop, deep):
        result = result_of(value)
        assert result.is_error
        assert result.content == "the tool returned a value nested too deeply (or circular)"


def test_a_mapping_that_fails_while_read_gives_an_error() -> None:
    class Broken(Mapping[str, Any]):
        def __getitem__(self, key: str) -> Any:
            raise LookupError(SECRET)

        def __iter__(self) -> Any:
            return iter(["a"])

        def __len__(self) -> int:
            return 1

    result = result_of(Broken())
    assert result.is_error
    assert result.content == "the tool's return value could not be read (LookupError)"


def test_a_tool_result_is_passed_through_with_the_calls_id_and_name() -> None:
    mine = ToolResult.error("whatever", "city not covered", tool_name="other")
    result = returning(mine).run(call("give", id="call_7"))
    assert result == ToolResult("call_7", "city not covered", True, "give")


def test_a_tool_result_message_is_answered_as_a_new_message_keeping_its_fields() -> None:
    mine = ToolResultMessage("whatever", "done", metadata={"cost": 2}, name="worker")
    box = returning(mine)
    assert box.run(call("give", id="call_7")) == ToolResult("call_7", "done", False, "give")
    (answer,) = box.run_all(Message.assistant(tool_calls=[call("give", id="call_7")]))
    assert (answer.tool_call_id, answer.tool_name, answer.text) == ("call_7", "give", "done")
    assert answer.metadata == {"cost": 2} and answer.name == "worker"
    assert answer.id != mine.id  # a new message: a tool returning one twice makes no twins


@given(json_values)
def test_any_json_value_round_trips_as_content(value: Any) -> None:
    result = result_of(value)
    assert not result.is_error
    assert type(result.content) is str
    if isinstance(value, str):
        assert result.content == value
    else:
        assert json.loads(result.content) == value


# ------------------------------------------------------------ nothing leaks


@given(
    st.sampled_from(["type", "extra", "missing", "enum", "unknown", "invalid", "unwritable"]), texts
)
def test_errors_never_quote_argument_values(case: str, noise: str) -> None:
    secret = SECRET + noise

    def pick(city: str, unit: str = "c", when: int = 0) -> Any:
        """Pick."""
        return {"city": city, city: [datetime(2025, 1, 1, tzinfo=UTC)]}

    choose = ToolDefinition(
        "choose",
        "Choose.",
        {
            "type": "object",
            "properties": {"color": {"enum": ["red", "blue"]}},
            "required": ["color"],
        },
    )
    box = Toolbox([pick, (choose, lambda color: color)])
    calls: dict[str, ToolCall | InvalidToolCall] = {
        "type": call("pick", {"city": secret, "when": secret}),
        "extra": call("pick", {"city": secret, "zone": secret}),
        "missing": call("pick", {"unit": secret}),
        "enum": call("choose", {"color": secret}),
        "unknown": call("other", {"city": secret}),
        "invalid": InvalidToolCall(
            "call_1", "pick", '{"city": "' + secret, "invalid JSON (truncated)"
        ),
        "unwritable": call("pick", {"city": secret}),
    }
    result = box.run(calls[case])
    assert result.is_error
    assert SECRET not in result.text
    assert SECRET not in repr(result)


def test_every_error_reason_is_a_short_single_result() -> None:
    box = Toolbox([get_weather])
    result = box.run(call("get_weather", {"city": "x" * 100_000, "days": "y" * 100_000}))
    assert result.is_error and len(result.text) < 200


# ------------------------------------------------------------ threads


def test_one_toolbox_shared_by_threads_adding_and_running() -> None:
    box = Toolbox([get_weather])
    barrier = threading.Barrier(8)
    failures: list[str] = []

    def worker(n: int) -> None:
        barrier.wait()
        for i in range(50):
            name = f"tool_{n}_{i}"
            box.add(ToolDefinition(name, "T.", {"type": "object", "properties": {}}), lambda n=n: n)
            got = box.run(call(name))
            weather = box.run(call("get_weather", {"city": name}))
            if got.content != str(n) or weather.content != f"{name}|celsius|None":
                failures.append(name)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert len(box) == 401 and len(box.definitions) == 401
    assert {d.name for d in box.definitions} == {"get_weather"} | {
        f"tool_{n}_{i}" for n in range(8) for i in range(50)
    }


def test_a_sync_loop_never_imports_asyncio() -> None:
    # Import time is latency: the async side (and asyncio, ~15 ms) load with arun only.
    code = (
        "import sys, messages\n"
        "def f(x: int) -> int:\n"
        "    'F.'\n"
        "    return x\n"
        "box = messages.Toolbox([f])\n"
        "assert box.run(messages.ToolCall('c', 'f', {'x': 1})).content == '1'\n"
        "print(','.join(m for m in ('asyncio', 'messages.tools._toolbox_async') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_toolbox_is_a_top_level_name() -> None:
    assert "Toolbox" in messages.__all__
    assert messages.Toolbox is Toolbox
