"""Switching providers mid-conversation: one test per ordered pair of providers.

A conversation whose first turns come from parsing provider A's responses (parallel
tool calls, a tool error and, for Anthropic, Gemini and the OpenAI Responses API,
signed or encrypted reasoning) is
continued by formatting it for provider B. B's request must be well-formed for B
(every result paired to a call of the turn before it, no orphan, roles in the
order B requires, no signature B did not produce); B's parsed reply and its tool
results then extend a valid ConversationHistory, which formats well-formed for
both providers again, with A's signatures replayed to A only.
"""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

import pytest

from messages import ConversationHistory, Message, ToolCallMessage, ToolResultMessage
from messages.providers import ChatResponse, Conversion, Provider, get_provider
from tests.conftest import FIXTURES

PROVIDERS = (
    "openai",
    "ollama",
    "anthropic",
    "gemini",
    "openai_responses",
    "deepseek",
    "openrouter",
    "mistral",
    "bedrock",
    "gemini_interactions",
    "cohere",
)
#: Providers whose parallel tool-call fixture carries reasoning of their own.
REASONING = (
    "anthropic",
    "gemini",
    "openai_responses",
    "deepseek",
    "openrouter",
    "bedrock",
    "gemini_interactions",
    "cohere",
)
PAIRS = [(a, b) for a, b in itertools.permutations(PROVIDERS, 2)]

THINKING_SIG = "EqQBCkYIBRgCKkDzQ3Vq0Z0switchingTestSignature0000000000000000"
REDACTED = "EmwKAhgBEgyswitchingTestRedactedPayload000000000000"
THOUGHT = "**Planning**\nI need the weather in both cities."
ENCRYPTED = "gAAAAABoswitchingTestEncryptedReasoning0000000000000000000000"
COHERE_THOUGHT = "Both cities are needed: one weather call each, then the attractions."
REASONING_ID = "rs_0123456789abcdef0123456789abcdef0123456789abcdef01"


def fixture(provider: str, name: str) -> Any:
    return json.loads((FIXTURES / provider / name).read_text(encoding="utf-8"))


def tool_call_response(provider: str) -> dict[str, Any]:
    """Provider's parallel tool-call response; Anthropic and Gemini also reason."""
    body: dict[str, Any] = copy.deepcopy(fixture(provider, "response_tool_calls_parallel.json"))
    if provider == "anthropic":
        body["content"][:0] = [
            {"type": "thinking", "thinking": THOUGHT, "signature": THINKING_SIG},
            {"type": "redacted_thinking", "data": REDACTED},
        ]
    elif provider == "gemini":
        body["candidates"][0]["content"]["parts"].insert(0, {"text": THOUGHT, "thought": True})
    elif provider == "openai_responses":
        reasoning = {
            "type": "reasoning",
            "id": REASONING_ID,
            "summary": [{"type": "summary_text", "text": THOUGHT}],
            "encrypted_content": ENCRYPTED,
        }
        body["output"].insert(0, reasoning)
    elif provider == "bedrock":
        body["output"]["message"]["content"][:0] = [
            {"reasoningContent": {"reasoningText": {"text": THOUGHT, "signature": THINKING_SIG}}},
            {"reasoningContent": {"redactedContent": REDACTED}},
        ]
    elif provider == "cohere":
        body["message"]["content"] = [{"type": "thinking", "thinking": COHERE_THOUGHT}]
    return body


def signatures(provider: str) -> list[str]:
    """The opaque strings only ``provider`` may receive back."""
    if provider in ("anthropic", "bedrock"):
        return [THINKING_SIG, REDACTED]
    if provider == "cohere":  # plain thinking, still replayed only to Cohere
        return [COHERE_THOUGHT]
    if provider == "gemini":
        parts = fixture("gemini", "response_tool_calls_parallel.json")["candidates"][0]["content"][
            "parts"
        ]
        return [p["thoughtSignature"] for p in parts if "thoughtSignature" in p]
    if provider == "gemini_interactions":
        steps = fixture(provider, "response_tool_calls_parallel.json")["steps"]
        return [s["signature"] for s in steps if s["type"] == "thought"]
    if provider == "openai_responses":
        output = fixture(provider, "response_tool_calls_parallel.json")["output"]
        return [ENCRYPTED, REASONING_ID, *(item["id"] for item in output)]
    if provider == "openrouter":
        message = fixture(provider, "response_tool_calls_parallel.json")["choices"][0]["message"]
        return [block["signature"] for block in message["reasoning_details"]]
    if provider == "deepseek":  # plain reasoning, still replayed only to DeepSeek
        message = fixture(provider, "response_tool_calls_parallel.json")["choices"][0]["message"]
        return [message["reasoning_content"]]
    return []


def answer(history: ConversationHistory, response: ChatResponse) -> None:
    """Append a tool-call reply and its results: the first succeeds, the second fails."""
    history.add(response.message)
    calls = response.tool_calls
    assert len(calls) == 2
    history.add(ToolResultMessage(calls[0].id, "18°C, light rain"))
    history.add(ToolResultMessage(calls[1].id, "weather service timed out", is_error=True))


# -- what "well-formed" means for each wire --------------------------------------------


def check_chat_completions(body: dict[str, Any], arguments_are_strings: bool) -> None:
    messages = body["messages"]
    assert messages[0]["role"] in ("system", "developer")
    pending: list[dict[str, Any]] = []
    for m in messages:
        role = m["role"]
        if role == "tool":
            assert pending, "a tool message with no call before it"
            match = [c for c in pending if c.get("id") and c["id"] == m.get("tool_call_id")]
            if not match:  # an id-less call is answered by name, in order
                match = [c for c in pending if c["function"]["name"] == m.get("tool_name")]
            assert match, "a tool message that answers no pending call"
            pending.remove(match[0])
            continue
        assert not pending, "calls left unanswered"
        assert role in ("system", "developer", "user", "assistant")
        for call in m.get("tool_calls") or ():
            args = call["function"]["arguments"]
            parsed = json.loads(args) if arguments_are_strings else args
            assert isinstance(parsed, dict)
            assert isinstance(args, str) is arguments_are_strings
            pending.append(call)
    assert all(m["role"] != "user" or m.get("content") not in (None, "", []) for m in messages)


def check_anthropic(body: dict[str, Any]) -> None:
    messages = body["messages"]
    roles = [m["role"] for m in messages]
    assert roles[0] == "user"
    assert all(a != b for a, b in itertools.pairwise(roles)), roles
    for i, m in enumerate(messages):
        content = m["content"]
        assert content
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        assert all(b.get("text", "x") for b in blocks), "an empty text block"
        results = [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"]
        calls = [b["id"] for b in blocks if b["type"] == "tool_use"]
        if results:
            assert [b["type"] for b in blocks[: len(results)]] == ["tool_result"] * len(results)
        previous = messages[i - 1]["content"] if i else []
        asked = [
            b["id"] for b in previous if isinstance(previous, list) and b["type"] == "tool_use"
        ]
        assert sorted(results) == sorted(asked), "results must answer exactly the previous calls"
        if calls and i + 1 < len(messages):
            assert messages[i + 1]["role"] == "user"
        kinds = [b["type"] for b in blocks]
        if "tool_use" in kinds:
            first_call = kinds.index("tool_use")
            assert all(k == "tool_use" for k in kinds[first_call:]), "thinking/text after tool_use"


def check_gemini(body: dict[str, Any]) -> None:
    contents = body["contents"]
    roles = [c["role"] for c in contents]
    assert roles[0] == "user"
    assert set(roles) <= {"user", "model"}
    assert all(a != b for a, b in itertools.pairwise(roles)), roles
    for i, c in enumerate(contents):
        parts = c["parts"]
        assert parts
        assert all(p.get("text", "x") or "thoughtSignature" in p for p in parts)
        responses = [p["functionResponse"] for p in parts if "functionResponse" in p]
        previous = contents[i - 1]["parts"] if i else []
        calls = [p["functionCall"] for p in previous if "functionCall" in p]
        if c["role"] == "user":
            assert len(responses) == len(calls), "one functionResponse per functionCall"
            for fc, fr in zip(calls, responses, strict=True):
                assert fr["name"] == fc["name"]
                assert fr.get("id") == fc.get("id")
                assert isinstance(fr["response"], dict)
        for p in parts:
            if "functionCall" in p:
                assert isinstance(p["functionCall"]["args"], dict)


def check_responses(body: dict[str, Any]) -> None:
    assert isinstance(body["instructions"], str)
    pending: list[str] = []
    for item in body["input"]:
        kind = item.get("type", "message")
        if kind == "function_call_output":
            assert item["call_id"] in pending, "an output that answers no pending call"
            pending.remove(item["call_id"])
            continue
        if kind == "message":
            assert not pending, "calls left unanswered"
            assert item["role"] in ("user", "assistant", "system", "developer")
            assert item["role"] != "user" or item["content"] not in ("", [])
        elif kind == "function_call":
            assert isinstance(json.loads(item["arguments"]), dict)
            assert item["call_id"] not in pending
            pending.append(item["call_id"])
        else:
            assert kind == "reasoning", kind
            assert item["id"] and isinstance(item["summary"], list)
    assert not pending


def check_deepseek(body: dict[str, Any]) -> None:
    """Thinking mode: every assistant message with tool calls carries reasoning_content."""
    check_chat_completions(body, arguments_are_strings=True)
    for m in body["messages"]:
        if m.get("tool_calls"):
            assert isinstance(m.get("reasoning_content"), str), (
                "a call turn without reasoning_content"
            )


def check_mistral(body: dict[str, Any]) -> None:
    """Nine-character ids, and the order mistral-common's validator enforces."""
    check_chat_completions(body, arguments_are_strings=True)
    after = {
        "system": {"user", "assistant", "system"},
        "user": {"assistant", "system", "user"},
        "assistant": {"assistant", "user", "tool"},
        "tool": {"assistant", "tool"},
    }
    messages = body["messages"]
    for a, b in itertools.pairwise(messages):
        assert b["role"] in after[a["role"]], (a["role"], b["role"])
    ids = [c["id"] for m in messages for c in m.get("tool_calls") or ()]
    ids += [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    assert all(len(i) == 9 and i.isascii() and i.isalnum() for i in ids), ids


def check_bedrock(body: dict[str, Any]) -> None:
    """Converse: user first, roles alternate, each toolResult answers a toolUse of the turn
    before, no blank text, and a toolConfig whenever tool blocks are present."""
    messages = body["messages"]
    roles = [m["role"] for m in messages]
    assert roles[0] == "user"
    assert all(a != b for a, b in itertools.pairwise(roles)), roles
    has_tools = False
    for i, m in enumerate(messages):
        blocks = m["content"]
        assert blocks
        assert all(b["text"].strip() for b in blocks if "text" in b), "a blank text block"
        results = [b["toolResult"]["toolUseId"] for b in blocks if "toolResult" in b]
        previous = messages[i - 1]["content"] if i else []
        asked = [b["toolUse"]["toolUseId"] for b in previous if "toolUse" in b]
        assert sorted(results) == sorted(asked), "results must answer exactly the previous calls"
        has_tools = has_tools or bool(results or asked)
    if has_tools:
        assert body["toolConfig"]["tools"]


def check_gemini_interactions(body: dict[str, Any]) -> None:
    """Steps: every function_result answers a pending function_call of the turn before."""
    assert isinstance(body["system_instruction"], str)
    steps = body["input"]
    assert steps[0]["type"] == "user_input"
    pending: list[str] = []
    for step in steps:
        kind = step["type"]
        if kind == "function_result":
            assert step["call_id"] in pending, "a result that answers no pending call"
            pending.remove(step["call_id"])
            continue
        if kind == "user_input":
            assert not pending, "calls left unanswered"
            assert step["content"]
        elif kind == "function_call":
            assert isinstance(step["arguments"], dict) and step["id"] and step["name"]
            pending.append(step["id"])
        elif kind == "thought":
            assert step["signature"]
        else:
            assert kind == "model_output" and step["content"], kind
    assert not pending


def check_cohere(body: dict[str, Any]) -> None:
    """Cohere v2: chat-completions pairing, and no assistant turn without something in it."""
    check_chat_completions(body, arguments_are_strings=True)
    for m in body["messages"]:
        if m["role"] == "assistant":
            assert m.get("content") or m.get("tool_calls"), "an empty assistant turn"
        elif isinstance(m.get("content"), list):
            assert all(b["type"] != "thinking" for b in m["content"])


CHECKS = {
    "bedrock": check_bedrock,
    "deepseek": check_deepseek,
    "openrouter": lambda body: check_chat_completions(body, arguments_are_strings=True),
    "mistral": check_mistral,
    "openai": lambda body: check_chat_completions(body, arguments_are_strings=True),
    "ollama": lambda body: check_chat_completions(body, arguments_are_strings=False),
    "anthropic": check_anthropic,
    "gemini": check_gemini,
    "openai_responses": check_responses,
    "gemini_interactions": check_gemini_interactions,
    "cohere": check_cohere,
}


def format_for(provider: Provider, history: ConversationHistory, source: str) -> Conversion:
    """Format the history for ``provider``, check it, and check where signatures go."""
    conversion = provider.convert(history.messages())
    CHECKS[provider.name](conversion.body)
    wire = json.dumps(conversion.body)
    for sig in signatures(source):
        if provider.name == source:
            assert sig in wire, "a signature must go back to the provider that made it"
        else:
            assert sig not in wire, "a signature must never reach another provider"
    if provider.name != source and signatures(source):
        # Dropping the other provider's reasoning is a reported loss, never silent.
        assert any(loss.path.startswith("messages[2]") for loss in conversion.losses)
    return conversion


@pytest.mark.parametrize(("a", "b"), PAIRS, ids=[f"{a}-to-{b}" for a, b in PAIRS])
def test_switch_providers_mid_conversation(a: str, b: str) -> None:
    first, second = get_provider(a), get_provider(b)
    history = ConversationHistory(
        [Message.system("You are a travel assistant."), Message.user("Weather in Paris and Tokyo?")]
    )

    # Turns produced by provider A.
    calls = first.parse_response(tool_call_response(a))
    assert len(calls.tool_calls) == 2
    if a in REASONING:
        assert calls.message.reasoning, "the reply's reasoning is kept"
    answer(history, calls)
    history.add(first.parse_response(fixture(a, "response_text.json")).message)
    history.add(Message.user("And tomorrow?"))
    history.validate()

    # Continued with provider B.
    format_for(second, history, a)
    reply = second.parse_response(fixture(b, "response_tool_calls_parallel.json"))
    answer(history, reply)
    final = second.parse_response(fixture(b, "response_text.json"))
    history.add(final.message)
    history.validate()
    assert not history.pending_tool_calls
    results = [m for m in history.messages() if isinstance(m, ToolResultMessage)]
    call_ids = [
        c.id for m in history.messages() if isinstance(m, ToolCallMessage) for c in m.tool_calls
    ]
    assert sorted(r.tool_call_id for r in results) == sorted(call_ids)
    assert len(set(call_ids)) == len(call_ids)

    # The whole conversation goes well-formed to both providers again.
    format_for(second, history, a)
    format_for(first, history, a)


ORIGINS = (None, "bedrock", "vertex")
ORIGIN_PAIRS = list(itertools.permutations(ORIGINS, 2))


@pytest.mark.parametrize(
    ("a", "b"), ORIGIN_PAIRS, ids=[f"{a or 'direct'}-to-{b or 'direct'}" for a, b in ORIGIN_PAIRS]
)
def test_switch_between_anthropic_origins(a: str | None, b: str | None) -> None:
    """Anthropic direct, Bedrock and Vertex reject each other's signatures: a turn of
    one origin goes to another well-formed, its reasoning a reported loss."""
    first, second = get_provider("anthropic", origin=a), get_provider("anthropic", origin=b)
    history = ConversationHistory(
        [Message.system("You are a travel assistant."), Message.user("Weather in Paris and Tokyo?")]
    )
    answer(history, first.parse_response(tool_call_response("anthropic")))
    history.add(first.parse_response(fixture("anthropic", "response_text.json")).message)
    history.add(Message.user("And tomorrow?"))
    other = second.convert(history.messages())
    check_anthropic(other.body)
    wire = json.dumps(other.body)
    assert all(sig not in wire for sig in signatures("anthropic"))
    assert [loss.path for loss in other.losses] == [
        "messages[2].content[0]",
        "messages[2].content[1]",
    ]
    same = first.convert(history.messages())
    check_anthropic(same.body)
    assert all(sig in json.dumps(same.body) for sig in signatures("anthropic"))
    assert same.losses == ()
