"""Providers take what users hold, and say each loss once.

``format_request`` and ``convert`` accept a ConversationHistory, a stored session,
``Messages`` or any iterable of messages, and a Toolbox or an iterable of tool
definitions, for every provider ``get_provider`` names; anything else is a
ValidationError naming the argument. ``on_loss="warn"`` warns about each distinct
loss once across the turns of an agent loop, ``"ignore"`` says nothing and
``"raise"`` raises LossError (with ``.losses``) and returns nothing.
"""

from __future__ import annotations

import asyncio
import json
import pickle
import re
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from messages import (
    ConversationHistory,
    LossError,
    Message,
    Messages,
    ReasoningPart,
    Toolbox,
    ToolCall,
    ToolCallMessage,
    ToolDefinition,
    ToolResultMessage,
    ValidationError,
)
from messages.providers import PROVIDERS, Loss, LossWarning, Provider, get_provider
from messages.storage import AsyncChatHistoryStorage, ChatHistoryStorage, SessionIdentity
from messages.storage.memory import MemoryBackend
from tests.conftest import FIXTURES

NAMES = sorted(PROVIDERS)
SECRET = "the launch code is 0000"

_MESSAGE_PATH = re.compile(r"messages\[(\d+)\](.*)", re.DOTALL)


def fresh(name: str) -> Provider:
    """The provider named ``name`` with a memory of its own (``at`` makes a new object),
    so that what other tests formatted does not count here."""
    return get_provider(name).at(None)


def weather(city: str) -> str:
    """The weather in a city.

    Args:
        city: The city.
    """
    return f"rain in {city}"


async def clock(zone: str) -> str:
    """The time in a zone.

    Args:
        zone: The zone.
    """
    return f"noon in {zone}"


def toolbox() -> Toolbox:
    return Toolbox([weather, clock])


def turn(n: int) -> list[Message]:
    """One turn of an agent loop, with something most providers cannot carry: a
    user's name, a failed tool call, reasoning another provider signed."""
    call = ToolCall(f"call_{n}", "weather", {"city": "Oslo"})
    return [
        Message.user(f"question {n}", name="maria"),
        ToolCallMessage((call,)),
        ToolResultMessage(call.id, "timed out", is_error=True),
        Message.assistant((ReasoningPart("thought", "sig", provider="elsewhere"),)),
    ]


def key(loss: Loss, conversation: Sequence[Message]) -> tuple[str | None, str, str, str]:
    """What makes a loss the same loss on another turn: the message it is about (by id)
    and the place, what and rule inside it; the path itself for the rest."""
    found = _MESSAGE_PATH.fullmatch(loss.path)
    if found is None:
        return (None, loss.path, loss.what, loss.rule)
    return (conversation[int(found[1])].id, found[2], loss.what, loss.rule)


def warned(call: Callable[[], object]) -> list[warnings.WarningMessage]:
    """The LossWarnings ``call`` issues, every one recorded (never filtered as a repeat)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [w for w in caught if issubclass(w.category, LossWarning)]


def lossy_conversation() -> list[Message]:
    """A start that loses something on every provider (a developer message, a name,
    reasoning signed by another provider)."""
    return [
        Message.developer("Be brief."),
        Message.user("Hi", name="maria"),
        Message.assistant((ReasoningPart("thought", "sig", provider="elsewhere"),)),
        Message.user("And?", name="maria"),
    ]


# -- an agent loop --------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_an_agent_loop_hears_of_each_loss_once(name: str) -> None:
    provider = fresh(name)
    history = ConversationHistory([Message.developer("Be brief.")])
    tools = toolbox()
    said: list[tuple[str | None, str, str, str]] = []
    for n in range(5):
        history.extend(turn(n))
        snapshot = history.messages()
        expected = {key(loss, snapshot) for loss in provider.convert(history, tools).losses}
        got = warned(lambda: provider.format_request(history, tools=tools))
        keys = [_key_of_warning(str(w.message), snapshot, name) for w in got]
        assert keys, f"turn {n} brought losses to {name}, and they were not warned about"
        assert set(keys) == expected - set(said), (n, keys)
        said += keys
        assert all(w.filename == __file__ for w in got)  # at the caller's line
    assert len(said) == len(set(said))  # each distinct loss once over the five turns


def _key_of_warning(
    text: str, conversation: Sequence[Message], name: str
) -> tuple[str | None, str, str, str]:
    """The key of the loss a LossWarning's text states (``name: path: what (rule)``)."""
    prefix = f"{name}: "
    assert text.startswith(prefix), text
    path, _, rest = text[len(prefix) :].partition(": ")
    what, _, rule = rest.partition(" (")
    return key(Loss(path, what, rule[:-1]), conversation)


def test_the_responses_error_flag_warns_once_in_a_loop_that_runs_tools() -> None:
    """The issue's loop: one failed tool result, then turn after turn of requests."""
    provider = fresh("openai_responses")
    response = provider.parse_response(
        _fixture("openai_responses", "response_tool_calls_parallel.json")
    )
    history = ConversationHistory([Message.system("Use the tools."), Message.user("Weather?")])
    history.add(response.message)
    first, second = response.tool_calls
    history.add(ToolResultMessage(first.id, "rain"))
    history.add(ToolResultMessage(second.id, "timed out", is_error=True))
    counts = []
    for n in range(5):
        counts.append(len(warned(lambda: provider.format_request(history, tools=toolbox()))))
        history.add(Message.assistant(f"answer {n}"))
        history.add(Message.user(f"next {n}"))
    assert counts == [1, 0, 0, 0, 0]


def _fixture(provider: str, name: str) -> Any:
    return json.loads((FIXTURES / provider / name).read_text(encoding="utf-8"))


def test_after_a_switch_the_new_provider_warns_about_the_whole_history_once() -> None:
    responses, anthropic = fresh("openai_responses"), fresh("anthropic")
    reply = responses.parse_response(
        _fixture("openai_responses", "response_reasoning_tool_call.json")
    )
    history = ConversationHistory([Message.system("Use the tools."), Message.user("Weather?")])
    history.add(reply.message)
    for call in reply.tool_calls:
        history.add(ToolResultMessage(call.id, "timed out", is_error=True))
    counts = []
    for n in range(3):
        history.extend([Message.assistant(f"answer {n}"), Message.user(f"next {n}", name="maria")])
        counts.append(len(warned(lambda: responses.format_request(history))))
    assert counts[0] > 1 and counts[1:] == [1, 1]  # then only each turn's new name
    # The switch: Anthropic has warned about nothing yet, so it hears of every loss.
    everything = anthropic.convert(history).losses
    assert any("openai_responses" in loss.what for loss in everything)
    assert len(warned(lambda: anthropic.format_request(history))) == len(everything)
    history.extend([Message.assistant("answer 3"), Message.user("next 3", name="maria")])
    new = warned(lambda: anthropic.format_request(history))
    assert [str(w.message) for w in new] == [
        f"anthropic: messages[{len(history) - 1}].name: message name "
        f"(dropped: Anthropic messages have no name)"
    ]
    # Going back to the Responses API: it remembers its own.
    assert [
        str(w.message).split(": ")[1] for w in warned(lambda: responses.format_request(history))
    ] == [f"messages[{len(history) - 1}].name"]


def test_two_threads_formatting_one_conversation_warn_each_loss_once() -> None:
    provider = fresh("ollama")
    conversation = [Message.user(f"q{n}", name=f"user{n}") for n in range(200)]
    expected = len(provider.convert(conversation).losses)
    start = threading.Barrier(2)

    def run() -> None:
        start.wait()
        for _ in range(20):
            provider.format_request(conversation)

    def both() -> None:
        threads = [threading.Thread(target=run) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    assert expected == 200
    assert len(warned(both)) == expected


def test_the_memory_is_bounded_and_forgets_the_oldest_first() -> None:
    from messages.providers._warned import MAX_WARNED_LOSSES

    provider = fresh("ollama")
    conversation = [Message.user("q", name="maria") for _ in range(MAX_WARNED_LOSSES + 1)]
    assert len(warned(lambda: provider.format_request(conversation))) == MAX_WARNED_LOSSES + 1
    # The first loss was pushed out by the last; every other one is still known.
    again = warned(lambda: provider.format_request(conversation))
    assert [str(w.message) for w in again] == [
        "ollama: messages[0].name: message name (dropped: ollama messages have no name)"
    ]


def test_losses_about_the_tools_are_known_by_their_path() -> None:
    provider = fresh("gemini")
    schema = {
        "type": "object",
        "properties": {"n": {"not": {"type": "string"}}},
    }
    tools = [ToolDefinition("count", "Count.", schema)]
    expected = provider.convert([Message.user("hi")], tools).losses
    assert expected and all(loss.path.startswith("tools") for loss in expected)
    assert len(warned(lambda: provider.format_request([Message.user("hi")], tools))) == len(
        expected
    )
    assert warned(lambda: provider.format_request([Message.user("again")], tools)) == []


def test_forget_warned_losses_warns_again() -> None:
    provider = fresh("ollama")
    conversation = lossy_conversation()
    first = warned(lambda: provider.format_request(conversation))
    assert first and warned(lambda: provider.format_request(conversation)) == []
    provider.forget_warned_losses()
    assert len(warned(lambda: provider.format_request(conversation))) == len(first)


def test_a_provider_at_another_origin_has_its_own_memory() -> None:
    provider = fresh("anthropic")
    conversation = lossy_conversation()
    first = warned(lambda: provider.format_request(conversation))
    assert first
    assert len(warned(lambda: provider.at("bedrock").format_request(conversation))) >= len(first)


def test_a_provider_that_warned_still_pickles_with_a_memory_of_its_own() -> None:
    provider = fresh("ollama")
    conversation = lossy_conversation()
    first = warned(lambda: provider.format_request(conversation))
    assert first
    again = pickle.loads(pickle.dumps(provider))
    assert again.convert(conversation) == provider.convert(conversation)
    assert len(warned(lambda: again.format_request(conversation))) == len(first)
    assert warned(lambda: provider.format_request(conversation)) == []


# -- on_loss ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_ignore_says_nothing_and_convert_warns_by_default_on_its_own_count(name: str) -> None:
    provider = fresh(name)
    conversation = lossy_conversation()
    losses = provider.convert(conversation, on_loss="ignore").losses
    assert losses
    assert warned(lambda: provider.format_request(conversation, on_loss="ignore")) == []
    # Ignoring is not warning: convert's default ("warn", as format_request's) says
    # every loss, once.
    said = [str(w.message) for w in warned(lambda: provider.convert(conversation))]
    assert said == [f"{provider.name}: {loss}" for loss in losses]
    assert warned(lambda: provider.convert(conversation)) == []
    # Looking at the losses with convert does not silence the request sent afterwards.
    sent = [str(w.message) for w in warned(lambda: provider.format_request(conversation))]
    assert sent == said
    assert warned(lambda: provider.format_request(conversation)) == []


@pytest.mark.parametrize("name", NAMES)
def test_raise_gives_a_loss_error_with_every_loss_and_formats_nothing(name: str) -> None:
    provider = fresh(name)
    conversation = [*lossy_conversation(), Message.user(SECRET, name="maria")]
    losses = provider.convert(conversation).losses
    for call in (
        lambda: provider.format_request(conversation, on_loss="raise"),
        lambda: provider.format_request(conversation, strict=True),
        lambda: provider.convert(conversation, on_loss="raise"),
    ):
        with pytest.raises(LossError) as info:
            assert warned(call) == []
        error = info.value
        assert isinstance(error, ValidationError)
        assert error.losses == losses
        assert error.path == losses[0].path
        assert losses[0].what in str(error) and f"{len(losses)} loss(es)" in str(error)
        assert SECRET not in str(error) and SECRET not in repr(error)
    # Nothing was warned about: the first "warn" reports every loss.
    assert len(warned(lambda: provider.format_request(conversation))) == len(losses)


def test_a_loss_error_pickles_with_its_losses() -> None:
    with pytest.raises(LossError) as info:
        get_provider("ollama").format_request(lossy_conversation(), on_loss="raise")
    back = pickle.loads(pickle.dumps(info.value))
    assert type(back) is LossError
    assert (back.message, back.path, back.losses) == (
        info.value.message,
        info.value.path,
        info.value.losses,
    )
    assert str(back) == str(info.value)
    moved = back.at("request")
    assert isinstance(moved, LossError) and moved.losses == back.losses


def test_loss_error_is_exported_where_the_other_errors_are() -> None:
    import messages.providers

    assert messages.LossError is messages.errors.LossError is messages.providers.LossError
    assert issubclass(LossError, ValidationError)
    assert "LossError" in messages.__all__ and "LossError" in messages.providers.__all__


@pytest.mark.parametrize("bad", ["loud", "", None, 1, ["warn"]])
def test_an_unknown_on_loss_is_refused(bad: Any) -> None:
    for call in (get_provider("openai").format_request, get_provider("openai").convert):
        with pytest.raises(ValidationError) as info:
            call([Message.user("hi")], on_loss=bad)
        assert info.value.path == "on_loss"


# -- what users hold ---------------------------------------------------------------------


def conversation() -> list[Message]:
    call = ToolCall("call_1", "weather", {"city": "Oslo"})
    return [
        Message.system("Use the tools."),
        Message.user("Weather in Oslo?"),
        ToolCallMessage((call,)),
        ToolResultMessage(call.id, "rain"),
        Message.assistant("Rain."),
    ]


def _storage(ms: list[Message]) -> ChatHistoryStorage:
    stored = ChatHistoryStorage(MemoryBackend(), SessionIdentity("agent", "session"))
    for m in ms:
        stored.add_message(m)
    return stored


CONVERSATIONS: dict[str, Callable[[list[Message]], Any]] = {
    "list": list,
    "tuple": tuple,
    "Messages": Messages,
    "ConversationHistory": ConversationHistory,
    "ChatHistoryStorage": _storage,
    "generator": lambda ms: (m for m in ms),
}


def _definitions() -> tuple[ToolDefinition, ...]:
    return toolbox().definitions


TOOLS: dict[str, Callable[[], Any]] = {
    "Toolbox": toolbox,
    "list": lambda: list(_definitions()),
    "tuple": _definitions,
    "generator": lambda: (d for d in _definitions()),
}


@pytest.mark.parametrize("holder", CONVERSATIONS)
@pytest.mark.parametrize("name", NAMES)
def test_every_conversation_a_user_holds_formats_as_its_list(name: str, holder: str) -> None:
    provider, ms = get_provider(name), conversation()
    expected = provider.convert(ms, list(_definitions()))
    given = CONVERSATIONS[holder](ms)
    assert provider.convert(given, toolbox()) == expected
    body = provider.format_request(CONVERSATIONS[holder](ms), tools=toolbox(), on_loss="ignore")
    assert body == expected.body


@pytest.mark.parametrize("holder", TOOLS)
@pytest.mark.parametrize("name", NAMES)
def test_every_kind_of_tools_formats_as_the_list(name: str, holder: str) -> None:
    provider, ms = get_provider(name), conversation()
    expected = provider.convert(ms, list(_definitions()))
    assert provider.convert(ms, TOOLS[holder]()) == expected
    assert provider.convert(ms, tools=None) == provider.convert(ms)


@pytest.mark.parametrize("name", NAMES)
def test_the_older_keyword_messages_still_works(name: str) -> None:
    provider, ms = get_provider(name), conversation()
    assert provider.convert(messages=ms) == provider.convert(ms)
    assert provider.format_request(messages=ms, on_loss="ignore") == provider.convert(ms).body
    with pytest.raises(ValidationError) as info:
        provider.convert(ms, messages=ms)
    assert info.value.path == "messages"


NOT_CONVERSATIONS: dict[str, tuple[Any, str]] = {
    "int": (3, "int"),
    "str": ("hello", "str"),
    "dict": ({"messages": []}, "dict"),
    "one message": (Message.user("hi"), "UserMessage"),
    "None": (None, "NoneType"),
    "object": (object(), "object"),
}


@pytest.mark.parametrize("case", NOT_CONVERSATIONS)
@pytest.mark.parametrize("name", NAMES)
def test_something_else_as_the_conversation_names_the_argument(name: str, case: str) -> None:
    value, type_name = NOT_CONVERSATIONS[case]
    provider = get_provider(name)
    for call in (provider.format_request, provider.convert):
        with pytest.raises(ValidationError) as info:
            call(value)
        assert info.value.path == "messages"
        assert info.value.message == (
            "expected a conversation (ConversationHistory, ChatHistoryStorage, Messages "
            f"or an iterable of Message), got {type_name}"
        )


@pytest.mark.parametrize("name", NAMES)
def test_an_item_that_is_not_a_message_is_named_by_its_index(name: str) -> None:
    ms: list[Any] = [*conversation()[:3], {"role": "user", "content": "hi"}]
    for call in (get_provider(name).format_request, get_provider(name).convert):
        with pytest.raises(ValidationError) as info:
            call(ms)
        assert (info.value.path, info.value.message) == (
            "messages[3]",
            "expected a Message, got dict",
        )
        assert "malformed provider state" not in str(info.value)


def test_an_async_session_is_refused_with_what_to_do() -> None:
    stored: Any = AsyncChatHistoryStorage(MemoryBackend(), SessionIdentity("agent", "session"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no coroutine left never awaited
        with pytest.raises(ValidationError) as info:
            get_provider("openai").format_request(stored)
    assert info.value.path == "messages"
    assert "got AsyncChatHistoryStorage (await its messages()" in info.value.message
    ms = asyncio.run(stored.messages())
    assert get_provider("openai").convert(ms).body == {"messages": []}


NOT_TOOLS: dict[str, tuple[Any, str, str]] = {
    "int": (3, "tools", "expected tools (a Toolbox or an iterable of ToolDefinition), got int"),
    "str": (
        "weather",
        "tools",
        "expected tools (a Toolbox or an iterable of ToolDefinition), got str",
    ),
    "one definition": (
        ToolDefinition("w", "W.", {"type": "object", "properties": {}}),
        "tools",
        "expected tools (a Toolbox or an iterable of ToolDefinition), got ToolDefinition",
    ),
    "a number among them": ((None, 7), "tools[1]", ", got int"),
}


@pytest.mark.parametrize("case", NOT_TOOLS)
@pytest.mark.parametrize("name", NAMES)
def test_something_else_as_tools_names_the_argument(name: str, case: str) -> None:
    value, path, said = NOT_TOOLS[case]
    if isinstance(value, tuple):  # a definition, then the item that is not one
        value = [_definitions()[0], *value[1:]]
    provider = get_provider(name)
    for call in (provider.format_request, provider.convert):
        with pytest.raises(ValidationError) as info:
            call(conversation(), value)
        assert info.value.path == path
        assert info.value.message.endswith(said)


@pytest.mark.parametrize("name", NAMES)
def test_a_tool_mapping_goes_only_to_a_provider_that_takes_them(name: str) -> None:
    provider = get_provider(name)
    built_in: Any = {"type": "web_search"}
    if provider.tool_mappings:
        body = provider.format_request(conversation(), [built_in])
        assert built_in in body["tools"]
        return
    with pytest.raises(ValidationError) as info:
        provider.format_request(conversation(), [*_definitions(), built_in])
    assert (info.value.path, info.value.message) == (
        "tools[2]",
        "expected a ToolDefinition, got dict",
    )


def test_a_type_error_of_the_caller_never_reads_as_malformed_extras() -> None:
    """The issue's report: a history or a Toolbox gave "malformed provider state in extras"."""
    history = ConversationHistory(conversation())
    body = get_provider("anthropic").format_request(history, tools=toolbox())
    assert [t["name"] for t in body["tools"]] == ["weather", "clock"]
    bads: list[Any] = [iter([1]), [history], {"tools": []}]
    for bad in bads:
        with pytest.raises(ValidationError) as info:
            get_provider("anthropic").format_request(bad, tools=bad)
        assert "malformed provider state" not in str(info.value)
