"""Anthropic fidelity: origin tags, mid-conversation system messages, stop_details, cache hints."""

from __future__ import annotations

import copy
import dataclasses
import itertools
from typing import Any

import pytest

from messages import (
    AssistantMessage,
    DecodeError,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
    ValidationError,
)
from messages.providers import FinishReason, get_provider
from messages.providers.anthropic import PROVIDER, AnthropicProvider, AnthropicStream
from tests.conftest import load_fixture

SIG = "EqQBCkgIAhABGAIiQL2m8PRxJk3kc7bKp0N0fZ4xCqYv1d7GQ9Zs"
CACHE = {"type": "ephemeral"}
CITED = [{"type": "char_location", "cited_text": "c", "document_index": 0}]

# -- origin tags --------------------------------------------------------------------------


def _turn() -> list[Any]:
    """A response turn holding every kind of opaque state Anthropic returns."""
    return [
        {"type": "thinking", "thinking": "Let me look.", "signature": SIG},
        {"type": "redacted_thinking", "data": "EmwKAhgB"},
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"q": 1}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
        {"type": "text", "text": "Found it.", "citations": CITED},
    ]


def _response(content: list[Any], stop: str = "end_turn", **more: Any) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": content,
        "stop_reason": stop,
        "usage": {"input_tokens": 5, "output_tokens": 7},
        **more,
    }


def test_state_is_tagged_with_the_origin() -> None:
    bedrock = get_provider("anthropic", origin="bedrock")
    assert bedrock.tag == "anthropic@bedrock"
    m = bedrock.parse_response(_response(_turn())).message
    assert {p.provider for p in m.reasoning} == {"anthropic@bedrock"}
    assert set(m.extras) == {"anthropic@bedrock"}
    # the default origin keeps today's tag, so stored conversations keep working
    m = PROVIDER.parse_response(_response(_turn())).message
    assert {p.provider for p in m.reasoning} == {"anthropic"}
    assert set(m.extras) == {"anthropic"}


def test_state_goes_back_to_its_own_origin_only() -> None:
    bedrock = get_provider("anthropic", origin="bedrock")
    m = bedrock.parse_response(_response(_turn())).message
    again = bedrock.convert([UserMessage("q"), m])
    assert again.losses == ()
    assert again.body["messages"][1]["content"] == _turn()
    for other in (PROVIDER, PROVIDER.at("vertex")):
        sent = other.convert([UserMessage("q"), m])
        assert sent.body["messages"][1]["content"] == [{"type": "text", "text": "Found it."}]
        assert SIG not in str(sent.body)
        assert sorted(loss.what for loss in sent.losses) == [
            "anthropic@bedrock part keys 'citations'",
            "anthropic@bedrock server_tool_use block",
            "anthropic@bedrock web_search_tool_result block",
            "reasoning from anthropic@bedrock",
            "reasoning from anthropic@bedrock",
        ]


def test_a_stream_tags_its_state_with_the_origin() -> None:
    acc = get_provider("anthropic", origin="vertex").stream()
    assert isinstance(acc, AnthropicStream)
    events = load_fixture({"file": "anthropic/stream_refusal.jsonl"})
    for event in events:
        acc.feed(event)
    m = acc.finish().message
    assert set(m.extras) == {"anthropic@vertex"}


# -- mid-conversation system messages -------------------------------------------------------


def _mid_request() -> dict[str, Any]:
    body = load_fixture({"file": "anthropic/request_mid_conversation_system.json"})
    assert isinstance(body, dict)
    return body


def test_a_system_message_inside_messages_imports_in_place_and_goes_back_there() -> None:
    body = _mid_request()
    ms = PROVIDER.parse_messages(body)
    assert [m.role.value for m in ms] == [
        "system", "user", "assistant", "tool", "system", "assistant", "user", "system",
    ]  # fmt: skip
    assert ms[4].extras == {"anthropic": {"in_place": True}}
    conversion = PROVIDER.convert(ms, PROVIDER.parse_tools(body))
    assert conversion.losses == ()
    assert conversion.body["messages"] == body["messages"]
    assert conversion.body["system"] == body["system"]


def test_an_imported_system_message_goes_to_the_top_for_another_origin() -> None:
    ms = PROVIDER.parse_messages(_mid_request())
    conversion = PROVIDER.at("bedrock").convert(ms)
    assert [m["role"] for m in conversion.body["messages"]] == [
        "user", "assistant", "user", "assistant", "user",
    ]  # fmt: skip
    assert [t["text"] for t in conversion.body["system"]] == [
        ms[0].text, ms[4].text, ms[7].text,
    ]  # fmt: skip
    assert [loss.path for loss in conversion.losses] == ["messages[4]", "messages[7]"]
    # the cache_control of its last block is the message's hint: it goes with it
    assert conversion.body["system"][-1]["cache_control"] == {"type": "ephemeral"}


def _late(system: SystemMessage) -> list[Any]:
    return [
        SystemMessage("Be brief."),
        UserMessage("q"),
        AssistantMessage("a"),
        UserMessage("more"),
        system,
        AssistantMessage("b"),
    ]


def test_a_late_system_message_is_moved_by_default_and_kept_in_place_on_request() -> None:
    late = SystemMessage("From now on, answer in French.")
    moved = PROVIDER.convert(_late(late))
    assert moved.body["system"] == [
        {"type": "text", "text": "Be brief."},
        {"type": "text", "text": late.content},
    ]
    assert [(loss.path, loss.rule) for loss in moved.losses] == [
        ("messages[4]", "moved to the top-level system prompt")
    ]
    in_place = AnthropicProvider(system_in_place=True)
    kept = in_place.convert(_late(late))
    assert kept.losses == ()
    assert kept.body["system"] == "Be brief."
    assert kept.body["messages"][3:] == [
        {"role": "system", "content": late.content},
        {"role": "assistant", "content": "b"},
    ]
    assert in_place.at("direct").system_in_place


@pytest.mark.parametrize(
    ("where", "messages"),
    [
        # after an assistant turn
        ("messages[2]", [UserMessage("q"), AssistantMessage("a"), SystemMessage("s")]),
        # before a user turn
        ("messages[1]", [UserMessage("q"), SystemMessage("s"), UserMessage("u")]),
        # two in a row: the first is moved, the second ends the array in place
        ("messages[1]", [UserMessage("q"), SystemMessage("s"), SystemMessage("t")]),
    ],
)
def test_a_system_message_the_api_would_refuse_in_place_is_moved(
    where: str, messages: list[Any]
) -> None:
    conversion = AnthropicProvider(system_in_place=True).convert(messages)
    assert where in [loss.path for loss in conversion.losses]
    assert "precede an assistant turn" in conversion.losses[-1].rule
    roles = [m["role"] for m in conversion.body["messages"]]
    assert all(a != "system" or b == "assistant" for a, b in itertools.pairwise(roles))


def test_results_go_before_a_system_message_placed_after_them() -> None:
    calls = ToolCallMessage([ToolCall("t1", "f", {}), ToolCall("t2", "f", {})])
    ms = [UserMessage("q"), calls, ToolResultMessage("t1", "r"), SystemMessage("s")]
    conversion = AnthropicProvider(system_in_place=True).convert([*ms, AssistantMessage("a")])
    wire = conversion.body["messages"]
    assert [m["role"] for m in wire] == ["user", "assistant", "user", "system", "assistant"]
    assert [b["tool_use_id"] for b in wire[2]["content"]] == ["t1", "t2"]
    assert [loss.what for loss in conversion.losses] == ["unanswered tool call"]


# -- stop_details -----------------------------------------------------------------------------


def test_stop_details_are_kept_and_the_explanation_is_the_refusal() -> None:
    details = {"type": "refusal", "category": "cyber", "explanation": "Not that."}
    r = PROVIDER.parse_response(_response([], "refusal", stop_details=details))
    assert (r.finish_reason, r.refusal) == (FinishReason.CONTENT_FILTER, "Not that.")
    assert r.message.extras["anthropic"]["stop_details"] == details
    # no explanation: the category is still kept
    quiet = {**details, "explanation": None}
    text = [{"type": "text", "text": "I can't help with that."}]
    r = PROVIDER.parse_response(_response(text, "refusal", stop_details=quiet))
    assert r.refusal is None
    assert r.message.extras["anthropic"]["stop_details"]["category"] == "cyber"
    # kept state, not conversation: nothing to send and nothing lost
    assert PROVIDER.convert([UserMessage("q"), r.message, UserMessage("ok")]).losses == ()


def test_stop_details_of_the_wrong_shape_give_decode_error() -> None:
    from messages import DecodeError

    with pytest.raises(DecodeError) as info:
        PROVIDER.parse_response(_response([], "refusal", stop_details={"explanation": 3}))
    assert info.value.path == "stop_details.explanation"


def test_a_stream_keeps_stop_details_from_message_delta() -> None:
    events = load_fixture({"file": "anthropic/stream_refusal.jsonl"})
    acc = PROVIDER.stream()
    for event in events:
        acc.feed(event)
    r = acc.finish()
    assert r.finish_reason is FinishReason.CONTENT_FILTER
    assert r.refusal == events[4]["delta"]["stop_details"]["explanation"]
    assert r.text == "Here is an overview of"
    assert r.message.extras["anthropic"]["stop_details"]["category"] == "cyber"


# -- cache hints ------------------------------------------------------------------------------


def _cached_request() -> dict[str, Any]:
    """A cache_control on each kind of user and system block (four: the API's limit)."""
    return {
        "system": [{"type": "text", "text": "S", "cache_control": CACHE}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"},
                     "cache_control": CACHE},
                    {"type": "document", "source": {"type": "file", "file_id": "file_1"},
                     "cache_control": CACHE},
                    {"type": "text", "text": "Compare them.", "cache_control": CACHE},
                ],
            },
        ],
    }  # fmt: skip


def _cached_calls() -> dict[str, Any]:
    """A cache_control on a tool_use, a tool_result and a block inside it."""
    return {
        "messages": [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "f", "input": {}, "cache_control": CACHE}
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [{"type": "text", "text": "r", "cache_control": CACHE}],
                        "cache_control": CACHE,
                    }
                ],
            },
        ],
    }  # fmt: skip


@pytest.mark.parametrize("make", [_cached_request, _cached_calls])
def test_cache_control_on_every_block_round_trips(make: Any) -> None:
    body = make()
    ms = PROVIDER.parse_messages(body)
    # on the last block of a message it is the message's hint; elsewhere a kept key
    assert [m.cache is not None for m in ms] == (
        [True, True] if make is _cached_request else [False, True, True]
    )
    conversion = PROVIDER.convert(ms)
    assert conversion.losses == ()
    assert conversion.body == body


def test_a_changed_message_keeps_its_hint_and_reports_the_keys_it_lost() -> None:
    ms = PROVIDER.parse_messages(_cached_request())
    system, user = ms[0], ms[1]
    assert isinstance(system, SystemMessage)
    assert isinstance(user, UserMessage)
    assert system.extras == {}  # one plain block and its hint: nothing else to keep
    ms[0] = dataclasses.replace(system, content="S, edited")
    ms[1] = dataclasses.replace(user, content=(TextPart("Compare them."),))
    conversion = PROVIDER.convert(ms)
    assert conversion.body["system"] == [
        {"type": "text", "text": "S, edited", "cache_control": CACHE}
    ]
    assert conversion.body["messages"][0] == {
        "role": "user",
        "content": [{"type": "text", "text": "Compare them.", "cache_control": CACHE}],
    }
    assert [(loss.path, loss.what) for loss in conversion.losses] == [
        ("messages[1]", "kept keys of a image block that is no longer there"),
        ("messages[1]", "kept keys of a document block that is no longer there"),
    ]
    with pytest.raises(ValidationError):
        PROVIDER.format_request(ms, strict=True)


def test_keys_of_a_responses_tool_use_go_back_with_it() -> None:
    # e.g. ``caller`` (who invoked the tool), which the API may add to a tool_use
    content = [
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "t1", "name": "f", "input": {}, "caller": {"type": "direct"}},
    ]
    m = PROVIDER.parse_response(_response(content, "tool_use")).message
    sent = PROVIDER.convert([UserMessage("q"), m, ToolResultMessage("t1", "r")])
    assert sent.body["messages"][1]["content"] == content
    assert sent.losses == ()


def test_a_message_that_is_not_a_message_is_refused_by_its_index() -> None:
    with pytest.raises(ValidationError) as info:
        PROVIDER.format_request([UserMessage("q"), {"role": "user", "content": "x"}])  # type: ignore[list-item]
    assert info.value.path == "messages[1]"
    assert "expected a Message, got dict" in info.value.message


def test_kept_cache_hints_never_reach_another_provider() -> None:
    for make in (_cached_request, _cached_calls):
        ms = PROVIDER.parse_messages(make())
        for name in ("openai", "gemini"):
            conversion = get_provider(name).convert(ms)
            assert "cache_control" not in str(conversion.body)


def test_reasoning_of_another_origin_in_a_built_message_is_a_loss() -> None:
    m = AssistantMessage([ReasoningPart("t", SIG, provider="anthropic@bedrock"), TextPart("x")])
    conversion = PROVIDER.convert([UserMessage("q"), m])
    assert conversion.body["messages"][1]["content"] == [{"type": "text", "text": "x"}]
    assert [loss.what for loss in conversion.losses] == ["reasoning from anthropic@bedrock"]
    kept = PROVIDER.at("bedrock").convert([UserMessage("q"), copy.copy(m)])
    assert kept.body["messages"][1]["content"][0]["signature"] == SIG


def test_a_block_type_that_is_not_a_string_is_a_decode_error_naming_it() -> None:
    body = {
        "messages": [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "content": [{"type": ["x"], "cache_control": {"type": "ephemeral"}}],
            },
        ]
    }
    with pytest.raises(DecodeError) as caught:
        get_provider("anthropic").parse_messages(body)
    assert "TypeError" not in str(caught.value)
    assert caught.value.path.startswith("messages[1].content[0]")
