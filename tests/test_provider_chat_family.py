"""The chat-completions family (openai, groq, vllm) and Ollama: the rules they share.

Invalid tool calls travel with the message, both ways; every parser raises only
DecodeError (hostile mappings, deep nesting); a stream refuses another provider's
events; errors show identifiers, never content; opaque state (reasoning, kept call
entries, part keys, refusals) goes back only to the provider tag that produced it;
OpenAI custom tool calls, ``prompt_cache_breakpoint`` and Mistral's content chunks
and ``prefix``; user subclasses of the messages format like their base classes.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    CacheHint,
    DecodeError,
    DeveloperMessage,
    FilePart,
    ImagePart,
    InvalidToolCall,
    Message,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
    from_dict,
    to_dict,
)
from messages._repair import UNANSWERED_TEXT
from messages.providers import Provider, get_provider
from tests.conftest import SECRET, fixture_entries, load_fixture
from tests.conversations import any_sequences, conversations
from tests.provider_fidelity import run_stream
from tests.strategies import messages as any_messages
from tests.strategies import tool_call_lists
from tests.subclass_copies import same_as_subclasses

CHAT = ("openai", "groq", "vllm")
FAMILY = (*CHAT, "ollama")


def _fixture(file: str) -> Any:
    (entry,) = [e for e in fixture_entries() if e["file"] == file]
    return copy.deepcopy(load_fixture(entry))


# -- every parser raises DecodeError, whatever it is fed --------------------------------


class Hostile(Mapping[str, Any]):
    """A mapping whose every read raises (with content in the message)."""

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError(SECRET)

    def get(self, key: str, default: Any = None) -> Any:
        raise RuntimeError(SECRET)

    def items(self) -> Any:
        raise RuntimeError(SECRET)

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError(SECRET)

    def __contains__(self, key: object) -> bool:
        raise RuntimeError(SECRET)

    def __len__(self) -> int:
        return 2


def _entries(p: Provider) -> dict[str, Callable[[Any], object]]:
    return {
        "parse_response": p.parse_response,
        "parse_messages": p.parse_messages,
        "parse_tools": p.parse_tools,
        "feed": p.stream().feed,
    }


@pytest.mark.parametrize("name", FAMILY)
@pytest.mark.parametrize("entry", ["parse_response", "parse_messages", "parse_tools", "feed"])
def test_a_hostile_mapping_gives_a_decode_error(name: str, entry: str) -> None:
    fn = _entries(get_provider(name))[entry]
    with pytest.raises(DecodeError) as info:
        fn(Hostile())
    assert SECRET not in str(info.value)
    assert info.value.__cause__ is None and info.value.__suppress_context__


def _nested_hostile() -> list[Any]:
    h = Hostile()
    return [
        [h],
        {"messages": [h]},
        {"messages": [{"role": "user", "content": [h]}]},
        {"messages": [{"role": "assistant", "tool_calls": [h]}]},
        {"choices": [h]},
        {"choices": [{"message": h, "delta": h}]},
        {"choices": [{"message": {"tool_calls": [h]}, "delta": {"tool_calls": [h]}}]},
        {"choices": [{"message": {"content": "x"}}], "usage": h},
        {"message": h, "done": True},
        {"message": {"role": "assistant", "content": "", "tool_calls": [h]}, "done": True},
        {"tools": [h]},
        {"tools": [{"type": "function", "function": h}]},
        {"error": h},
    ]


@pytest.mark.parametrize("name", FAMILY)
@pytest.mark.parametrize("value", _nested_hostile(), ids=range(13))
def test_a_nested_hostile_mapping_gives_a_decode_error_or_is_not_read(
    name: str, value: Any
) -> None:
    for fn in _entries(get_provider(name)).values():
        _no_secret(fn, value)


def _no_secret(fn: Callable[[Any], object], value: Any) -> None:
    """``fn(value)`` succeeds or raises a DecodeError that does not quote the input."""
    try:
        fn(value)
    except DecodeError as exc:
        assert SECRET not in str(exc)


def _deep(levels: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(levels):
        value = {"a": value}
    return value


@pytest.mark.parametrize("name", FAMILY)
def test_deep_nesting_gives_a_decode_error(name: str) -> None:
    p = get_provider(name)
    deep = _deep(100_000, 1)
    user = {"role": "user", "content": [{"type": "x_future", "value": deep}]}
    if name == "ollama":
        user = {"role": "user", "content": "hi", "images": [deep]}
    with pytest.raises(DecodeError):
        p.parse_messages([user])
    tool = {"type": "function", "function": {"name": "f", "parameters": deep}}
    with pytest.raises(DecodeError):
        p.parse_tools([tool])
    call = {"index": 0, "id": "c", "function": {"name": "f", "arguments": deep}}
    if name == "ollama":
        # whole calls: arguments nested too deeply make an invalid call, as in a response
        acc = p.stream()
        acc.feed({"message": {"role": "assistant", "content": "", "tool_calls": [call]}})
        (bad,) = acc.finish().invalid_tool_calls
        assert "nested deeper" in bad.error
        return
    event = {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}
    with pytest.raises(DecodeError):
        p.stream().feed(event)


# -- a stream reads its own format only ---------------------------------------------------

_RESPONSES_EVENTS = [
    {"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1"}},
    {"type": "response.output_text.delta", "sequence_number": 1, "delta": "Hi"},
]


def _streams(provider: str) -> list[tuple[str, list[Any]]]:
    return [
        (e["file"], load_fixture(e))
        for e in fixture_entries(provider)
        if e["kind"] == "stream" or e["file"].endswith(".jsonl")
    ]


_FOREIGN_TO_CHAT = [
    *_streams("anthropic"),
    *_streams("gemini"),
    *_streams("ollama"),
    ("openai_responses", _RESPONSES_EVENTS),
]


@pytest.mark.parametrize("name", CHAT)
@pytest.mark.parametrize(
    ("source", "events"), _FOREIGN_TO_CHAT, ids=[s for s, _ in _FOREIGN_TO_CHAT]
)
def test_a_chat_stream_refuses_another_providers_events(
    name: str, source: str, events: list[Any]
) -> None:
    acc = get_provider(name).stream()
    with pytest.raises(DecodeError) as info:
        acc.feed(events[0])
    origin = source.split("/", maxsplit=1)[0]
    message = str(info.value)
    assert f"the {name} stream reads chat.completion.chunk" in message
    assert f"get_provider('{origin}')" in message


_FOREIGN_TO_OLLAMA = [
    *_streams("openai"),
    *_streams("groq"),
    *_streams("vllm"),
    *_streams("gemini"),
    ("openai_responses", _RESPONSES_EVENTS),
]


@pytest.mark.parametrize(
    ("source", "events"), _FOREIGN_TO_OLLAMA, ids=[s for s, _ in _FOREIGN_TO_OLLAMA]
)
def test_the_ollama_stream_refuses_another_providers_events(source: str, events: list[Any]) -> None:
    acc = get_provider("ollama").stream()
    with pytest.raises(DecodeError) as info:
        acc.feed(events[0])
    assert "the ollama stream reads /api/chat lines" in str(info.value)


def test_anthropic_events_are_refused_by_the_ollama_stream_at_the_first_without_a_message() -> None:
    # message_start carries a "message" (as Ollama lines do); the next event does not
    events = _streams("anthropic")[0][1]
    acc = get_provider("ollama").stream()
    with pytest.raises(DecodeError) as info:
        for event in events:
            acc.feed(event)
    assert "get_provider('anthropic')" in str(info.value)


USAGE = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}


@pytest.mark.parametrize("name", CHAT)
def test_edge_chunks_of_the_chat_format_are_read(name: str) -> None:
    events: list[Any] = [
        {"id": "", "object": "", "model": "", "choices": [], "prompt_filter_results": []},
        {"id": "c", "object": "chat.completion.chunk", "model": "m"},  # a keep-alive
        {"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"content": "Hi"}}]},
        {"id": "c", "model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {"id": "c", "model": "m", "choices": [], "usage": USAGE},
        {"id": "c", "model": "m", "usage": USAGE},  # usage without a choices key
        "[DONE]",
    ]
    r, _ = run_stream(get_provider(name), events)
    assert (r.text, r.finish_reason.value, r.error) == ("Hi", "stop", None)
    assert r.usage is not None and r.usage.total_tokens == 5


@pytest.mark.parametrize("name", FAMILY)
def test_an_empty_object_is_not_a_chunk(name: str) -> None:
    with pytest.raises(DecodeError):
        get_provider(name).stream().feed({})


def test_a_groq_chunk_with_only_vendor_data_is_read() -> None:
    acc = get_provider("groq").stream()
    acc.feed({"choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": "stop"}]})
    acc.feed({"x_groq": {"usage": USAGE}})
    assert acc.finish().usage is not None
    with pytest.raises(DecodeError):
        get_provider("openai").stream().feed({"x_groq": {"usage": USAGE}})


# -- invalid calls travel with the message ------------------------------------------------

_bad_texts = st.sampled_from(['{"a": ', "[1, 2]", "not json", '"text"', "{", "1"])
_bad_names = st.sampled_from(["get weather", "a.b", "x" * 65, "", "naïve"])


@st.composite
def _invalid_calls(draw: st.DrawFn) -> list[InvalidToolCall]:
    out = []
    for k in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            name, raw = draw(st.sampled_from(["f", "get_time"])), draw(_bad_texts)
        else:
            name, raw = draw(_bad_names), draw(st.sampled_from(["{}", '{"x":1}', "oops"]))
        out.append(InvalidToolCall(f"bad_{k}", name, raw, "as the model wrote it"))
    return out


@pytest.mark.parametrize("name", CHAT)
@settings(max_examples=60, deadline=None)
@given(calls=tool_call_lists(max_size=2), invalid=_invalid_calls())
def test_invalid_calls_go_out_as_written_and_come_back_invalid(
    name: str, calls: list[ToolCall], invalid: list[InvalidToolCall]
) -> None:
    p = get_provider(name)
    turn = ToolCallMessage(calls, None, invalid)
    results = [ToolResultMessage(i, "Error: bad call", is_error=True) for i in turn.tool_call_ids]
    conversion = p.convert([Message.user("q"), turn, *results])
    wire = conversion.body["messages"][1]["tool_calls"]
    # call order on the wire: the valid calls, then the invalid ones as written
    assert [c["id"] for c in wire] == list(turn.tool_call_ids)
    assert [c["function"]["arguments"] for c in wire[len(calls) :]] == [
        c.raw_arguments for c in invalid
    ]
    assert [c["function"]["name"] for c in wire[len(calls) :]] == [c.name for c in invalid]
    # every result is kept (an invalid call is answered like a valid one)
    assert [m["role"] for m in conversion.body["messages"]].count("tool") == len(results)
    assert "tool result that answers no open call" not in [loss.what for loss in conversion.losses]
    (_, back, *_) = p.parse_messages(conversion.body)
    assert isinstance(back, ToolCallMessage)
    assert [(c.id, c.name, c.arguments) for c in back.tool_calls] == [
        (c.id, c.name, c.arguments) for c in calls
    ]
    assert [(c.id, c.name, c.raw_arguments) for c in back.invalid_tool_calls] == [
        (c.id, c.name, c.raw_arguments) for c in invalid
    ]


@pytest.mark.parametrize("name", ["openai", "groq"])
def test_an_unanswered_invalid_call_is_answered_with_the_error_text(name: str) -> None:
    bad = InvalidToolCall("b1", "get weather", '{"city": "Paris"}', "invalid tool name")
    ms = [
        Message.user("q"),
        ToolCallMessage((ToolCall("c1", "f", {}),), None, (bad,)),
        Message.tool_result("c1", "ok"),
        Message.user("next"),
    ]
    conversion = get_provider(name).convert(ms)
    sent = conversion.body["messages"]
    assert [(m["role"], m.get("tool_call_id")) for m in sent] == [
        ("user", None),
        ("assistant", None),
        ("tool", "c1"),
        ("tool", "b1"),
        ("user", None),
    ]
    assert sent[3]["content"] == f"Error: {UNANSWERED_TEXT}"
    assert [(loss.path, loss.what) for loss in conversion.losses] == [
        ("messages[1].invalid_tool_calls[0]", "unanswered tool call")
    ]


def test_an_invalid_call_without_a_name_is_a_loss_and_so_is_its_result() -> None:
    bad = InvalidToolCall("b1", None, "{}", "tool name is required")
    ms = [Message.user("q"), ToolCallMessage((), None, (bad,)), Message.tool_result("b1", "x")]
    conversion = get_provider("openai").convert(ms)
    assert [m["role"] for m in conversion.body["messages"]] == ["user", "assistant"]
    assert "tool_calls" not in conversion.body["messages"][1]
    assert [loss.what for loss in conversion.losses] == [
        "invalid tool call without a name",
        "tool result that answers no open call",
    ]


def test_ollama_sends_an_invalid_calls_arguments_as_an_object_or_empty_with_a_loss() -> None:
    turn = ToolCallMessage(
        (),
        None,
        (
            InvalidToolCall("call_1", "f", '{"a": ', "truncated"),
            InvalidToolCall("call_2", "get weather", '{"city": "Paris"}', "invalid name"),
        ),
    )
    conversion = get_provider("ollama").convert([turn, Message.tool_result("call_1", "no")])
    wire = conversion.body["messages"]
    assert wire[0]["tool_calls"] == [
        {"id": "call_1", "function": {"index": 0, "name": "f", "arguments": {}}},
        {
            "id": "call_2",
            "function": {"index": 1, "name": "get weather", "arguments": {"city": "Paris"}},
        },
    ]
    assert wire[1] == {"role": "tool", "tool_call_id": "call_1", "tool_name": "f", "content": "no"}
    assert [(loss.path, loss.what) for loss in conversion.losses] == [
        ("messages[0].invalid_tool_calls[0]", "invalid tool call arguments")
    ]


@pytest.mark.parametrize("name", FAMILY)
def test_a_stored_conversation_with_malformed_calls_loads_and_validates(name: str) -> None:
    file = (
        "ollama/adversarial/request_malformed_tool_call.json"
        if name == "ollama"
        else "openai/adversarial/request_malformed_tool_calls.json"
    )
    body = _fixture(file)
    ms = get_provider("ollama" if name == "ollama" else "openai").parse_messages(body)
    assert all(from_dict(to_dict(m)) == m for m in ms)
    # the conversation goes on to any provider of the family
    conversion = get_provider(name).convert(ms)
    sent = conversion.body["messages"]
    assert len(sent[1]["tool_calls"]) == len(ms[1].tool_call_ids)  # type: ignore[attr-defined]
    assert [m["role"] for m in sent].count("tool") == 3 if name != "ollama" else 2
    assert "tool result that answers no open call" not in [loss.what for loss in conversion.losses]


def test_a_response_of_only_invalid_calls_is_a_tool_call_message_holding_them() -> None:
    calls = [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{"}}]
    body = {"choices": [{"message": {"tool_calls": calls}, "finish_reason": "tool_calls"}]}
    r = get_provider("openai").parse_response(body)
    assert isinstance(r.message, ToolCallMessage)
    assert r.message.invalid_tool_calls == r.invalid_tool_calls
    assert [c.id for c in r.invalid_tool_calls] == ["c1"]


@pytest.mark.parametrize("name", FAMILY)
def test_an_empty_tool_name_is_an_invalid_call_and_a_missing_one_a_decode_error(name: str) -> None:
    p = get_provider(name)

    def body(fn: dict[str, Any]) -> dict[str, Any]:
        call = {"id": "c1", "function": fn}
        if name == "ollama":
            return {"message": {"role": "assistant", "content": "", "tool_calls": [call]}}
        return {"choices": [{"message": {"role": "assistant", "tool_calls": [call]}}]}

    args: Any = {} if name == "ollama" else "{}"
    (bad,) = p.parse_response(body({"name": "", "arguments": args})).invalid_tool_calls
    assert (bad.id, bad.name, bad.raw_arguments) == ("c1", "", "{}")
    with pytest.raises(DecodeError) as info:
        p.parse_response(body({"arguments": args}))
    assert info.value.path.endswith("tool_calls[0].function.name")


# -- identifiers in errors, never content ---------------------------------------------------


@pytest.mark.parametrize("name", FAMILY)
def test_an_unsupported_role_is_named_escaped_and_cut(name: str) -> None:
    p = get_provider(name)
    with pytest.raises(DecodeError) as info:
        p.parse_messages([{"role": "robot\n", "content": "x"}])
    assert "'robot\\n'" in str(info.value)
    with pytest.raises(DecodeError) as info:
        p.parse_messages([{"role": "r" * 100, "content": "x"}])
    assert "'" + "r" * 64 + "'..." in str(info.value)


def test_errors_name_part_types_and_tool_names_but_never_content() -> None:
    p = get_provider("openai")
    with pytest.raises(DecodeError) as info:
        p.parse_messages([{"role": "system", "content": [{"type": "image_url", "x": SECRET}]}])
    assert "'image_url'" in str(info.value) and SECRET not in str(info.value)
    calls = [
        {"id": "c1", "function": {"name": "get weather", "arguments": f'{{"q": "{SECRET}"}}'}},
        {"id": "c2", "function": {"name": "f", "arguments": f'{{"q": "{SECRET}"'}},
    ]
    for r in (
        p.parse_response({"choices": [{"message": {"tool_calls": calls}}]}),
        get_provider("ollama").parse_response({"message": {"tool_calls": calls}, "done": True}),
    ):
        first, second = r.invalid_tool_calls
        assert "'get weather'" in first.error
        assert SECRET not in first.error + second.error + repr(r)


# -- opaque state goes back only to the provider tag that produced it ----------------------


def test_reasoning_is_tagged_with_the_origin_and_goes_back_to_that_origin_only() -> None:
    lab = get_provider("vllm", origin="lab")
    body = {"choices": [{"message": {"content": "4", "reasoning": "2+2"}, "finish_reason": "stop"}]}
    r = lab.parse_response(body)
    assert r.message.reasoning == (ReasoningPart("2+2", provider="vllm@lab"),)
    events = [{"choices": [{"index": 0, "delta": {"reasoning": "2+2"}, "finish_reason": "stop"}]}]
    assert run_stream(lab, events)[0].message.reasoning == r.message.reasoning
    assert lab.convert([r.message]).body["messages"][0]["reasoning"] == "2+2"
    for other in (get_provider("vllm"), get_provider("vllm", origin="prod"), get_provider("groq")):
        conversion = other.convert([r.message])
        assert "reasoning" not in conversion.body["messages"][0]
        assert [loss.what for loss in conversion.losses] == ["reasoning from vllm@lab"]


def test_the_tag_follows_name_and_origin_however_they_are_set() -> None:
    class Local(type(get_provider("vllm"))):  # type: ignore[misc]
        name = "local"

    p = Local()
    assert p.tag == "local"
    assert p.at("gpu1").tag == "local@gpu1" and p.tag == "local"
    p.origin = "gpu2"  # set directly, not through at()
    assert p.tag == "local@gpu2"
    p.name = "edge"
    assert p.tag == "edge@gpu2"
    assert p.at(None).tag == "edge"
    with pytest.raises(AttributeError):
        p.tag = "other"
    assert get_provider("vllm").tag == "vllm"  # the shared instance is untouched
    Local.name = "renamed"  # on the class, after instances exist
    assert Local().tag == "renamed" and Local().at("x").tag == "renamed@x"


def test_ollama_thinking_is_tagged_with_the_origin() -> None:
    box = get_provider("ollama", origin="box")
    r = box.parse_response(_fixture("ollama/response_thinking.json"))
    assert {p.provider for p in r.message.reasoning} == {"ollama@box"}
    assert "thinking" in box.convert([r.message]).body["messages"][0]
    assert "thinking" not in get_provider("ollama").convert([r.message]).body["messages"][0]


def test_a_refusal_goes_back_to_its_origin_only() -> None:
    azure = get_provider("openai", origin="azure")
    r = azure.parse_response({"choices": [{"message": {"content": None, "refusal": "No."}}]})
    assert r.message.extras == {"openai@azure": {"refusal": "No."}}
    assert azure.convert([r.message]).body["messages"][0]["refusal"] == "No."
    conversion = get_provider("openai").convert([r.message])
    assert "refusal" not in conversion.body["messages"][0]
    assert [loss.what for loss in conversion.losses] == ["refusal from openai@azure"]


# -- OpenAI custom tool calls and other call types -----------------------------------------


def test_a_custom_tool_call_is_kept_verbatim_and_answered_like_a_call() -> None:
    body = _fixture("openai/response_custom_tool_call.json")
    entry = body["choices"][0]["message"]["tool_calls"][0]
    p = get_provider("openai")
    r = p.parse_response(body)
    (custom,) = r.invalid_tool_calls
    assert custom.extras == {"openai": {"tool_call": entry}}
    assert "'custom'" in custom.error
    ms = [
        Message.user("go"),
        r.message,
        Message.tool_result(custom.id, "55"),
        Message.tool_result(r.tool_calls[0].id, "18C"),
    ]
    assert [from_dict(to_dict(m)) for m in ms] == ms
    sent = p.convert(ms).body["messages"]
    assert sent[1]["tool_calls"][1] == entry  # verbatim, back to OpenAI
    # its result pairs with it (and the valid call's with that one): nothing is dropped
    assert [m.get("tool_call_id") for m in sent[2:]] == [custom.id, r.tool_calls[0].id]
    # another provider: the call as written (name and input), its entry a loss
    conversion = get_provider("groq").convert(ms)
    assert conversion.body["messages"][1]["tool_calls"][1] == {
        "id": custom.id,
        "type": "function",
        "function": {"name": "code_exec", "arguments": "print(sum(range(1, 11)))"},
    }
    assert [(loss.path, loss.what) for loss in conversion.losses] == [
        ("messages[1].invalid_tool_calls[0]", "opaque state from openai on a tool call")
    ]


def test_a_stored_custom_tool_call_goes_back_to_openai_as_it_came() -> None:
    call = {"id": "call_R", "type": "custom", "custom": {"name": "code_exec", "input": "print(1)"}}
    wire = [
        {"role": "user", "content": "Run it."},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_R", "content": "1"},
        {"role": "assistant", "content": "It printed 1."},
    ]
    p = get_provider("openai")
    ms = p.parse_messages(wire)
    (custom,) = ms[1].invalid_tool_calls
    assert (custom.id, custom.name, custom.raw_arguments) == ("call_R", "code_exec", "print(1)")
    conversion = p.convert(ms)
    assert (conversion.body["messages"], conversion.losses) == (wire, ())


def test_a_call_of_an_unknown_type_does_not_hide_the_function_calls() -> None:
    entry = {"id": "mcp_1", "type": "mcp_call", "mcp_call": {"server": "docs", "name": "search"}}
    calls = [entry, {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]
    r = get_provider("openai").parse_response({"choices": [{"message": {"tool_calls": calls}}]})
    assert [c.id for c in r.tool_calls] == ["c1"]
    (kept,) = r.invalid_tool_calls
    assert (kept.id, kept.name, kept.extras) == (
        "mcp_1",
        "search",
        {"openai": {"tool_call": entry}},
    )
    assert get_provider("openai").convert([r.message]).body["messages"][0]["tool_calls"][1] == entry


# -- prompt_cache_breakpoint and other keys of known parts ---------------------------------


def test_prompt_cache_breakpoints_go_back_on_their_parts() -> None:
    body = _fixture("openai/request_prompt_cache_breakpoint.json")
    p = get_provider("openai")
    ms = p.parse_messages(body)
    # on the last part of the system message: its hint; on the user's first part: a kept key
    assert (ms[0].cache, ms[0].extras) == (CacheHint(), {})
    assert ms[1].cache is None and "openai" in ms[1].extras
    assert p.convert(ms).body["messages"] == body["messages"]
    for name in ("groq", "vllm", "ollama"):
        losses = get_provider(name).convert(ms).losses
        assert [(loss.path, loss.what) for loss in losses] == [
            ("messages[0].cache", "cache hint"),
            ("messages[1]", "openai part keys 'prompt_cache_breakpoint'"),
        ], name


def test_a_breakpoint_on_an_edited_system_text() -> None:
    p = get_provider("openai")
    (system, _) = p.parse_messages(_fixture("openai/request_prompt_cache_breakpoint.json"))
    assert isinstance(system, SystemMessage)
    # the message's hint stays with it when its text changes
    edited = dataclasses.replace(system, content="Be brief.")
    conversion = p.convert([edited])
    assert conversion.body["messages"] == [
        {
            "role": "system",
            "content": [
                {
                    "type": "text",
                    "text": "Be brief.",
                    "prompt_cache_breakpoint": {"mode": "explicit"},
                }
            ],
        }
    ]
    assert conversion.losses == ()
    # a breakpoint kept on another part is lost with the text it was kept for
    wire = [
        {
            "role": "system",
            "content": [
                {"type": "text", "text": "A", "prompt_cache_breakpoint": {"mode": "explicit"}},
                {"type": "text", "text": "B"},
            ],
        }
    ]
    (kept,) = p.parse_messages(wire)
    assert isinstance(kept, SystemMessage)
    conversion = p.convert([dataclasses.replace(kept, content="Be brief.")])
    assert conversion.body["messages"] == [{"role": "system", "content": "Be brief."}]
    assert [loss.what for loss in conversion.losses] == ["kept part keys"]


def test_system_text_parts_with_keys_keep_their_boundaries() -> None:
    wire = [
        {
            "role": "developer",
            "content": [
                {
                    "type": "text",
                    "text": "Stable rules. ",
                    "prompt_cache_breakpoint": {"mode": "explicit"},
                },
                {"type": "text", "text": "Today's note."},
            ],
        }
    ]
    p = get_provider("openai")
    (m,) = p.parse_messages(wire)
    assert isinstance(m, DeveloperMessage) and m.text == "Stable rules. Today's note."
    assert p.convert([m]).body["messages"] == wire


# -- Mistral through the openai provider: content chunks, thinking, prefix -------------------


def test_thinking_chunks_are_reasoning_in_requests_too() -> None:
    content = [
        {"type": "thinking", "thinking": [{"type": "text", "text": "compare tenths"}]},
        {"type": "text", "text": "9.8"},
    ]
    (m,) = get_provider("openai").parse_messages([{"role": "assistant", "content": content}])
    assert m.reasoning == (ReasoningPart("compare tenths", provider="openai"),)
    assert m.text == "9.8"
    # OpenAI's own request format has no place for reasoning: a loss
    conversion = get_provider("openai").convert([m])
    assert conversion.body["messages"] == [{"role": "assistant", "content": "9.8"}]
    assert [loss.what for loss in conversion.losses] == ["reasoning"]


def test_a_thinking_chunk_holding_something_else_is_kept_as_it_is() -> None:
    odd = {"type": "thinking", "thinking": [{"type": "reference", "reference_ids": [1]}]}
    body = {"choices": [{"message": {"content": [odd, {"type": "text", "text": "x"}]}}]}
    r = get_provider("openai").parse_response(body)
    assert r.reasoning is None and r.text == "x"
    assert r.message.extras["openai"]["unknown"][0]["value"] == odd


def test_the_prefix_flag_goes_back_to_its_provider_and_is_a_loss_elsewhere() -> None:
    body = _fixture("openai/request_mistral_prefix.json")
    ms = get_provider("openai").parse_messages(body)
    assert get_provider("openai").convert(ms).body["messages"][2]["prefix"] is True
    for name in ("groq", "vllm", "ollama"):
        conversion = get_provider(name).convert(ms)
        assert "prefix" not in conversion.body["messages"][2]
        assert ("messages[2]", "prefix flag from openai") in [
            (loss.path, loss.what) for loss in conversion.losses
        ]
    with pytest.raises(DecodeError) as info:
        get_provider("openai").parse_messages([{"role": "assistant", "content": "", "prefix": 1}])
    assert info.value.path == "[0].prefix"


def test_a_stream_of_content_chunks_keeps_unknown_chunks() -> None:
    chunk = {"type": "x_future", "x_future": {"n": 1}}
    events = [
        {"choices": [{"index": 0, "delta": {"content": [chunk, {"type": "text", "text": "a"}]}}]},
        {"choices": [{"index": 0, "delta": {"content": "b"}, "finish_reason": "stop"}]},
    ]
    r, deltas = run_stream(get_provider("openai"), events)
    assert (r.text, [d.text for d in deltas]) == ("ab", ["a", "b"])
    (kept,) = r.message.extras["openai"]["unknown"]
    assert kept["value"] == chunk


# -- subclasses of the message classes format like their base ---------------------------------


@pytest.mark.parametrize("name", FAMILY)
@settings(max_examples=60, deadline=None)
@given(ms=st.one_of(conversations(), any_sequences(), st.lists(any_messages, max_size=8)))
def test_subclasses_format_like_their_base(name: str, ms: list[Message]) -> None:
    same_as_subclasses(name, ms)


@pytest.mark.parametrize("name", FAMILY)
def test_a_conversation_with_invalid_calls_formats_like_its_subclass_copy(name: str) -> None:
    ms = get_provider("openai").parse_messages(
        _fixture("openai/adversarial/request_malformed_tool_calls.json")
    )
    same_as_subclasses(name, ms)


@pytest.mark.parametrize("name", ["openai", "openrouter", "mistral", "openai_responses"])
@pytest.mark.parametrize(
    "part",
    [
        FilePart(data="", media_type="a,b"),
        FilePart(data="QUJD", media_type="application/x,y", filename="f"),
        ImagePart(data="AAAA", media_type="image/png,x"),
    ],
    ids=["empty file", "file", "image"],
)
def test_a_media_type_with_a_comma_goes_in_a_data_url_that_reads_back(
    name: str, part: FilePart | ImagePart
) -> None:
    # a ',' would end the data: URL's media type early: it is percent-encoded
    p = get_provider(name)
    conversion = p.convert([Message.user([TextPart("see"), part])])
    (back,) = p.parse_messages(conversion.body)
    assert isinstance(back, UserMessage) and isinstance(back.content, tuple)
    assert back.content[1].media_type == part.media_type  # type: ignore[union-attr]
    assert back.content[1].data == part.data  # type: ignore[union-attr]


@pytest.mark.parametrize("name", ["openai", "groq", "vllm", "deepseek", "openrouter", "mistral"])
def test_keys_of_a_call_entry_it_has_no_field_for_go_back_to_their_provider(name: str) -> None:
    call: dict[str, Any] = {
        "id": "abcdefghi",
        "type": "function",
        "index": 0,  # the call's position: not kept, the list says it
        "x_origin": {"tool": "search"},
        "function": {"name": "lookup", "arguments": '{"q":"x"}', "x_hint": 1},
    }
    wire: list[dict[str, Any]] = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "abcdefghi", "content": "r"},
    ]
    p = get_provider(name)
    ms = p.parse_messages(wire)
    conversion = p.convert(ms)
    assert conversion.losses == ()
    (sent,) = conversion.body["messages"][1]["tool_calls"]
    assert sent == {key: value for key, value in call.items() if key != "index"}
    # to another provider the keys are reported, never sent
    other = get_provider("ollama" if name != "ollama" else "openai").convert(ms)
    assert "x_origin" not in json.dumps(other.body)
    assert [(x.path, x.what) for x in other.losses] == [
        ("messages[1].tool_calls[0]", f"opaque state from {name} on a tool call")
    ]
    # a plain call carries no state at all
    plain = dict(call, function={"name": "lookup", "arguments": "{}"})
    del plain["x_origin"]
    (m,) = [
        m for m in p.parse_messages([wire[0], {**wire[1], "tool_calls": [plain]}]) if m.tool_calls
    ]
    assert m.tool_calls[0].extras == {}


@pytest.mark.parametrize("name", ["openai", "mistral"])
@pytest.mark.parametrize("drop", [(), ("id",), ("index",), ("id", "index")])
def test_a_call_key_is_kept_whichever_usual_keys_the_entry_lacks(
    name: str, drop: tuple[str, ...]
) -> None:
    # the parser tells the usual entry (id, type, function, maybe index) by its size;
    # an entry of that size that lacks one of them still keeps the key it has instead
    call: dict[str, Any] = {
        "id": "abcdefghi",
        "type": "function",
        "index": 0,
        "function": {"name": "lookup", "arguments": '{"q":"x"}'},
        "call_ref": "r1",
    }
    for key in drop:
        del call[key]
    body = {
        "id": "r",
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                "finish_reason": "tool_calls",
            }
        ],
    }
    (c,) = get_provider(name).parse_response(body).message.tool_calls
    assert c.extras == {name: {"keys": {"call_ref": "r1"}}}


def test_a_stream_chunk_with_choice_0_after_another_keeps_the_answer() -> None:
    acc = get_provider("openai").stream()
    acc.feed(
        {
            "choices": [
                {"index": 1, "delta": {"content": "other"}},
                {"index": 0, "delta": {"content": "A"}},
            ]
        }
    )
    acc.feed({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    r = acc.finish()
    assert r.text == "A"
    assert r.message.extras["openai"]["choices"][0]["index"] == 1


def test_stream_logprobs_null_then_tokens_join() -> None:
    acc = get_provider("openai").stream()
    token = {"token": "No", "logprob": -0.1, "bytes": [78, 111], "top_logprobs": []}
    acc.feed({"choices": [{"index": 0, "delta": {}, "logprobs": {"refusal": None}}]})
    acc.feed(
        {"choices": [{"index": 0, "delta": {"refusal": "No"}, "logprobs": {"refusal": [token]}}]}
    )
    acc.feed({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    r = acc.finish()
    assert r.message.extras["openai"]["logprobs"]["refusal"][0]["token"] == "No"


def test_a_kept_response_list_that_json_cannot_hold_names_its_wire_path() -> None:
    p = get_provider("openai")
    message = {"role": "assistant", "content": "x"}
    ok: dict[str, Any] = {"index": 0, "message": message, "finish_reason": "stop"}
    bad_annotation = {**ok, "message": {**message, "annotations": [{"a": float("nan")}]}}
    with pytest.raises(DecodeError) as caught:
        p.parse_response({"choices": [bad_annotation]})
    assert caught.value.path == "choices[0].message.annotations[0].a"
    with pytest.raises(DecodeError) as caught:
        p.parse_response({"choices": [ok, {"index": 1, "message": {"content": float("inf")}}]})
    assert caught.value.path == "choices[1].message.content"
