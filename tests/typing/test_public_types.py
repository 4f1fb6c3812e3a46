"""Static checks of the public API's types: mypy --strict checks this file with assert_type.

It also runs under pytest, so every line here is exercised at run time too.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any, assert_type

from messages import (
    AssistantMessage,
    ContentPart,
    ImagePart,
    InvalidToolCall,
    Message,
    MessageRole,
    SystemMessage,
    ToolCall,
    ToolCallAccumulator,
    ToolCallDelta,
    ToolCallMessage,
    ToolResult,
    ToolResultMessage,
    UserMessage,
)


def test_message_types() -> None:
    u = Message.user("hi")
    assert_type(u, UserMessage)
    assert_type(u.role, MessageRole)
    assert_type(u.id, str)
    assert_type(u.created_at, datetime)
    assert_type(u.text, str)
    assert_type(u.name, str | None)
    assert_type(u.metadata, Mapping[str, Any])
    assert_type(u.parts, tuple[ContentPart, ...])
    assert_type(u.tool_calls, tuple[ToolCall, ...])
    assert_type(Message.system("s"), SystemMessage)
    assert_type(Message.assistant("a"), AssistantMessage)
    t = ToolCallMessage([ToolCall("c", "f", {"a": 1})])
    assert_type(t.tool_calls, tuple[ToolCall, ...])
    r = Message.tool_result("c", "ok")
    assert_type(r, ToolResultMessage)
    assert_type(r.result, ToolResult)
    assert_type(r.is_error, bool)


def test_tool_types() -> None:
    call = ToolCall("c", "f", '{"a": 1}')
    assert_type(call.arguments, Mapping[str, Any])
    assert_type(call.arguments_json, str)
    acc = ToolCallAccumulator()
    acc.feed(ToolCallDelta(0, "c", "f", "{}"))
    assert_type(acc.tool_calls(), tuple[ToolCall, ...])
    assert_type(acc.invalid_tool_calls(), tuple[InvalidToolCall, ...])
    assert_type(ImagePart.from_data_url("data:image/png;base64,AA=="), ImagePart)
    assert_type(MessageRole.parse("user"), MessageRole)


def test_codec_history_and_provider_types() -> None:
    import messages
    from messages import ConversationHistory, Messages, OrderingPolicy, Repair, ToolDefinition
    from messages.providers import (
        ChatResponse,
        Conversion,
        FinishReason,
        Provider,
        get_provider,
        iter_sse,
    )

    u = Message.user("hi")
    assert_type(u.to_dict(), dict[str, Any])
    assert_type(messages.to_json([u]), str)
    h = ConversationHistory([Message.system("s"), u], policy=OrderingPolicy.lenient())
    assert_type(h.messages(), tuple[Message, ...])
    fixed, repairs = messages.repair([u])
    assert_type(fixed, Messages)
    assert_type(repairs, tuple[Repair, ...])

    def f(city: str) -> str:
        """Weather for a city."""
        return city

    tool = ToolDefinition.from_function(f)
    assert_type(tool, ToolDefinition)
    p = get_provider("openai")
    assert_type(p, Provider)
    assert_type(p.convert([u], [tool]), Conversion)
    assert_type(p.format_request([u]), dict[str, Any])
    r = p.parse_response(
        {"choices": [{"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}
    )
    assert_type(r, ChatResponse)
    assert_type(r.finish_reason, FinishReason)
    assert_type(r.message, AssistantMessage)
    events = iter_sse([b'data: {"choices": []}', b""])
    assert_type(events, Iterator[dict[str, Any]])
    assert_type(p.stream().feed_all(events), ChatResponse)


def test_typed_list_entry_points_and_factories() -> None:
    import pytest

    from messages import messages_from_dict, messages_from_json, repair

    ms = messages_from_json('[{"role": "user", "content": "hi"}]')
    assert_type(ms, list[Message])
    assert len(ms) == 1
    fixed, _ = repair(ms)
    assert len(fixed) == 2  # an empty system message first, under the strict policy
    assert_type(messages_from_dict([{"role": "user", "content": "hi"}]), list[Message])
    turn = Message.assistant(invalid_tool_calls=[InvalidToolCall("c1", "f", "{", "bad JSON")])
    assert_type(turn.invalid_tool_calls, tuple[InvalidToolCall, ...])
    # a misspelt keyword is a type error (mypy flags the call: the ignore is needed)
    with pytest.raises(TypeError):
        Message.user("hi", nmae="bob")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Message.assistant("hi", metdata={})  # type: ignore[call-arg]
