"""Cache hints (``Message.cache``) on every provider: where each lands on the wire, or the
Loss that reports it; round trips through requests and the canonical JSON; Anthropic's
rules on breakpoints (at most four a request, longer lifetimes first)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import (
    CacheHint,
    ImagePart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCall,
    from_json,
    to_json,
)
from messages.providers import PROVIDERS, Loss, get_provider
from messages.providers.openai_responses import OpenAIResponsesProvider
from tests.conversations import any_sequences, conversations
from tests.strategies import messages as any_messages
from tests.subclass_copies import same_as_subclasses

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
CALL = ToolCall("call_1", "lookup", {"q": "x"})

#: Each message kind in a conversation where it is sent: (messages, index of the hinted one).
KINDS: dict[str, Callable[[CacheHint], tuple[list[Message], int]]] = {
    "system": lambda h: ([Message.system("S", cache=h), Message.user("q")], 0),
    "developer": lambda h: ([Message.developer("D", cache=h), Message.user("q")], 0),
    "user str": lambda h: ([Message.user("q", cache=h)], 0),
    "user parts": lambda h: (
        [Message.user([TextPart("a"), ImagePart(data=PNG, media_type="image/png")], cache=h)],
        0,
    ),
    "assistant": lambda h: ([Message.user("q"), Message.assistant("A", cache=h)], 1),
    "tool-call turn": lambda h: (
        [
            Message.user("q"),
            Message.assistant("A", [CALL], cache=h),
            Message.tool_result("call_1", "r"),
        ],
        1,
    ),
    "tool result": lambda h: (
        [
            Message.user("q"),
            Message.assistant(None, [CALL]),
            Message.tool_result("call_1", "r", cache=h),
        ],
        2,
    ),
}

CONTROL = "cache_control"
BREAKPOINT = "prompt_cache_breakpoint"
#: The key each carrying provider writes.
KEYS = {
    "anthropic": CONTROL,
    "openrouter": CONTROL,
    "openai": BREAKPOINT,
    "openai_responses": BREAKPOINT,
    "bedrock": "cachePoint",
}
_CHAT_INPUT = {
    "system": ("messages", 0, "content", -1),
    "developer": ("messages", 0, "content", -1),
    "user str": ("messages", 0, "content", -1),
    "user parts": ("messages", 0, "content", -1),
    "tool result": ("messages", 2, "content", -1),
}
#: Where the hint lands: the path (in the body) of the object that carries the key; a
#: kind missing here is a Loss for that provider.
LANDS: dict[str, dict[str, tuple[Any, ...]]] = {
    "bedrock": {  # a cachePoint block after the message's blocks
        "system": ("system", -1),
        "developer": ("system", -1),
        "user str": ("messages", 0, "content", -1),
        "user parts": ("messages", 0, "content", -1),
        "assistant": ("messages", 1, "content", -1),
        "tool-call turn": ("messages", 1, "content", -1),
        "tool result": ("messages", 2, "content", -1),
    },
    "anthropic": {
        "system": ("system", -1),
        "developer": ("system", -1),
        "user str": ("messages", 0, "content", -1),
        "user parts": ("messages", 0, "content", -1),  # the image block
        "assistant": ("messages", 1, "content", -1),
        "tool-call turn": ("messages", 1, "content", -1),  # the tool_use block
        "tool result": ("messages", 2, "content", 0),  # the tool_result block
    },
    "openrouter": {
        **_CHAT_INPUT,
        "assistant": ("messages", 1, "content", -1),
        "tool-call turn": ("messages", 1, "content", -1),
    },
    "openai": _CHAT_INPUT,
    "openai_responses": {
        "system": ("input", 0, "content", -1),  # an input item: instructions take no parts
        "developer": ("input", 0, "content", -1),
        "user str": ("input", 0, "content", -1),
        "user parts": ("input", 0, "content", -1),
        "tool result": ("input", 2, "output", -1),
    },
}

#: Why each provider that carries no hint drops it (the rule of its Loss).
NO_BREAKPOINTS = {
    "groq": "it caches prompt prefixes by itself",
    "vllm": "prefix caching is a server setting",
    "deepseek": "it caches request prefixes by itself",
    "mistral": "it caches prompt prefixes by itself",
    "ollama": "the server keeps a prompt cache by itself",
    "gemini": "implicit caching is automatic; explicit caches are cachedContents",
    "gemini_interactions": "caching is implicit",
    "cohere": "it caches prompt prefixes by itself",
    "otel": "telemetry records no cache breakpoints",
}
_INPUT_ONLY = "takes prompt_cache_breakpoint on input parts only, not on assistant messages"


def test_the_table_covers_every_provider() -> None:
    assert set(KEYS) | set(NO_BREAKPOINTS) == set(PROVIDERS)


def _keys(value: Any, key: str) -> Iterator[Any]:
    """Every value of ``key`` in a JSON value, at any depth."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k == key:
                yield v
            yield from _keys(v, key)
    elif isinstance(value, list):
        for v in value:
            yield from _keys(v, key)


def _at(body: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        body = body[step]
    return body


def _hint_losses(losses: tuple[Loss, ...], i: int) -> list[tuple[str, str]]:
    prefix = f"messages[{i}].cache"
    return [(x.path, x.what) for x in losses if x.path.startswith(prefix)]


def _wire_value(name: str, ttl: str | None) -> dict[str, Any]:
    if KEYS[name] == "cachePoint":
        return {"type": "default"} if ttl is None else {"type": "default", "ttl": ttl}
    if KEYS[name] == BREAKPOINT:
        return {"mode": "explicit"}
    return {"type": "ephemeral"} if ttl is None else {"type": "ephemeral", "ttl": ttl}


@pytest.mark.parametrize("ttl", [None, "5m", "1h"])
@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("name", sorted(PROVIDERS))
def test_where_a_hint_lands_or_the_loss(name: str, kind: str, ttl: str | None) -> None:
    ms, i = KINDS[kind](CacheHint(ttl))
    conversion = get_provider(name).convert(ms)
    body, losses = conversion.body, conversion.losses
    place = LANDS.get(name, {}).get(kind)
    if place is None:
        # reported, never silent: one Loss, and nothing on the wire
        assert not list(_keys(body, CONTROL)) and not list(_keys(body, BREAKPOINT))
        assert _hint_losses(losses, i) == [(f"messages[{i}].cache", "cache hint")]
        (loss,) = [x for x in losses if x.path == f"messages[{i}].cache"]
        if name in NO_BREAKPOINTS:
            assert (
                loss.rule == f"dropped: {name} takes no cache breakpoints ({NO_BREAKPOINTS[name]})"
            )
        else:
            assert loss.rule == f"dropped: {name} {_INPUT_ONLY}"
        return
    key = KEYS[name]
    assert _at(body, place)[key] == _wire_value(name, ttl)
    assert len(list(_keys(body, key))) == 1  # on that block only
    if ttl is not None and key == BREAKPOINT:
        # OpenAI breakpoints live as long as the request's prompt_cache_options.ttl
        assert _hint_losses(losses, i) == [(f"messages[{i}].cache.ttl", "cache hint ttl")]
    else:
        assert _hint_losses(losses, i) == []
    # only the hint's own losses: the conversation is otherwise sent whole
    plain, _ = KINDS[kind](None)  # type: ignore[arg-type]
    others = [x for x in losses if not x.path.startswith(f"messages[{i}].cache")]
    assert others == list(get_provider(name).convert(plain).losses)


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("name", sorted(KEYS))
def test_a_formatted_hint_reads_back_and_formats_again_the_same(name: str, kind: str) -> None:
    p = get_provider(name)
    ms, _ = KINDS[kind](CacheHint())
    body = p.convert(ms).body
    back = p.parse_messages(body)
    carried = kind in LANDS[name]
    assert [m.cache for m in back if m.cache is not None] == ([CacheHint()] if carried else [])
    # through the canonical JSON too
    again = from_json(to_json(back))
    assert again == back
    assert p.convert(again).body == body


@pytest.mark.parametrize("name", sorted(KEYS))
def test_a_hint_on_a_message_that_is_not_sent(name: str) -> None:
    ms = [
        Message.user("q"),
        Message.assistant(None, [CALL]),
        Message.tool_result("call_1", "r"),
        Message.tool_result("call_9", "orphan", cache=CacheHint()),  # answers no call
    ]
    losses = get_provider(name).convert(ms).losses
    assert (
        "messages[3].cache",
        "cache hint",
        "dropped: its message is not sent",
    ) in [(x.path, x.what, x.rule) for x in losses]


@pytest.mark.parametrize("name", sorted(KEYS))
def test_a_hint_on_an_empty_message(name: str) -> None:
    ms = [Message.user("", cache=CacheHint()), Message.user("q")]
    conversion = get_provider(name).convert(ms)
    assert not list(_keys(conversion.body, KEYS[name]))
    assert [x.path for x in conversion.losses if x.what == "cache hint"] == ["messages[0].cache"]


# -- Anthropic: at most four breakpoints, longer lifetimes first ----------------------------

ANTHROPIC = get_provider("anthropic")


def _turns(n: int) -> list[Message]:
    """``n`` user/assistant turns, each hinted."""
    hint = CacheHint()
    return [
        Message.user(f"u{k}", cache=hint) if k % 2 == 0 else Message.assistant(f"a{k}", cache=hint)
        for k in range(n)
    ]


def _marked_texts(value: Any) -> list[str]:
    """The text of each block (or part) that carries a cache_control, in order."""
    if isinstance(value, dict):
        own = [value["text"]] if CONTROL in value and "text" in value else []
        return own + [t for v in value.values() for t in _marked_texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in _marked_texts(v)]
    return []


@pytest.mark.parametrize(
    ("name", "who"), [("anthropic", "Anthropic"), ("openrouter", "openrouter")]
)
def test_beyond_four_breakpoints_the_earliest_hints_are_dropped(name: str, who: str) -> None:
    ms = [Message.system("S", cache=CacheHint()), *_turns(5)]
    conversion = get_provider(name).convert(ms)
    assert _marked_texts(conversion.body) == ["a1", "u2", "a3", "u4"]
    why = " (Anthropic's rule)" if name == "openrouter" else ""
    rule = (
        f"dropped: {who} takes at most 4 cache_control blocks a request{why};"
        " the earliest hints are dropped first"
    )
    assert [(x.path, x.rule) for x in conversion.losses] == [
        ("messages[0].cache", rule),
        ("messages[1].cache", rule),
    ]


def test_four_breakpoints_are_all_sent() -> None:
    conversion = ANTHROPIC.convert(_turns(4))
    assert conversion.losses == ()
    assert len(list(_keys(conversion.body, CONTROL))) == 4


def test_keys_kept_from_a_request_count_and_stay() -> None:
    control = {"type": "ephemeral"}
    content: list[dict[str, Any]] = [
        {"type": "text", "text": f"doc{k}", "cache_control": control} for k in range(3)
    ]
    content.append({"type": "text", "text": "q"})
    body = {"messages": [{"role": "user", "content": content}]}
    ms = ANTHROPIC.parse_messages(body)
    assert ms[0].cache is None  # not on the last block: three kept keys
    conversion = ANTHROPIC.convert([*ms, Message.assistant("a", cache=CacheHint())])
    assert conversion.losses == ()  # four in all
    more = [*ms, Message.assistant("a", cache=CacheHint()), Message.user("b", cache=CacheHint())]
    conversion = ANTHROPIC.convert(more)
    assert [(x.path, x.what) for x in conversion.losses] == [("messages[1].cache", "cache hint")]
    assert len(list(_keys(conversion.body, CONTROL))) == 4
    # kept keys are never dropped: a request of more than four goes back as it came ...
    content.insert(0, {"type": "text", "text": "x", "cache_control": control})
    ms = ANTHROPIC.parse_messages(body)
    assert ANTHROPIC.convert(ms).body == body
    # ... but on its last block a cache_control is the message's hint, the first to go
    content[-1]["cache_control"] = control
    (m,) = ANTHROPIC.parse_messages(body)
    assert m.cache == CacheHint()
    conversion = ANTHROPIC.convert([m])
    assert [x.path for x in conversion.losses] == ["messages[0].cache"]
    assert len(list(_keys(conversion.body, CONTROL))) == 4


def test_a_1h_hint_after_a_shorter_breakpoint_gets_the_default_ttl() -> None:
    ms = [Message.system("S", cache=CacheHint()), Message.user("q", cache=CacheHint("1h"))]
    conversion = ANTHROPIC.convert(ms)
    assert conversion.body["messages"][0]["content"][0][CONTROL] == {"type": "ephemeral"}
    assert [(x.path, x.what, x.rule) for x in conversion.losses] == [
        (
            "messages[1].cache.ttl",
            "cache hint ttl 1h",
            "sent with the default ttl: Anthropic wants 1h breakpoints before shorter ones",
        )
    ]
    # the other way round is what the API wants
    ms = [Message.system("S", cache=CacheHint("1h")), Message.user("q", cache=CacheHint("5m"))]
    conversion = ANTHROPIC.convert(ms)
    assert conversion.losses == ()
    assert [v.get("ttl") for v in _keys(conversion.body, CONTROL)] == ["1h", "5m"]


def test_the_order_is_the_prefix_order_not_the_message_order() -> None:
    # a system message after the first turn is moved to the top: its 1h hint comes first
    ms = [
        Message.user("q", cache=CacheHint()),
        Message.assistant("a"),
        Message.system("late rules", cache=CacheHint("1h")),
        Message.user("more"),
    ]
    conversion = ANTHROPIC.convert(ms)
    assert conversion.body["system"][0][CONTROL] == {"type": "ephemeral", "ttl": "1h"}
    assert [x.what for x in conversion.losses] == ["system message after the first turn"]


def test_a_kept_cache_control_on_the_same_block_wins() -> None:
    body = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "q", "cache_control": {"type": "ephemeral", "x": 1}}
                ],
            }
        ]
    }
    (m,) = ANTHROPIC.parse_messages(body)
    assert m.cache is None  # a cache_control this package does not write: a kept key
    hinted = dataclasses.replace(m, cache=CacheHint("1h"))
    conversion = ANTHROPIC.convert([hinted])
    assert conversion.body == body  # one cache_control, the kept one
    assert [(x.path, x.rule) for x in conversion.losses] == [
        ("messages[0].cache", "dropped: the cache_control kept on its block is sent instead")
    ]
    # one equal to what the hint writes is no loss (kept: the turn ends in thinking)
    thinking = {"type": "thinking", "thinking": "t", "signature": "s"}
    text = {"type": "text", "text": "a", CONTROL: {"type": "ephemeral"}}
    body = {
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [text, thinking]},
        ]
    }
    ms = ANTHROPIC.parse_messages(body)
    assert ms[1].cache is None
    conversion = ANTHROPIC.convert([ms[0], dataclasses.replace(ms[1], cache=CacheHint())])
    assert conversion.body == body
    assert conversion.losses == ()


def test_a_hint_on_a_last_blank_block_moves_to_the_block_before() -> None:
    m = Message.assistant([TextPart("answer"), TextPart("\n\n")], cache=CacheHint())
    conversion = ANTHROPIC.convert([Message.user("q"), m])
    assert conversion.body["messages"][1]["content"] == [
        {"type": "text", "text": "answer", CONTROL: {"type": "ephemeral"}}
    ]


# -- OpenAI Responses: instructions --------------------------------------------------------

RESPONSES = OpenAIResponsesProvider()


def test_a_hinted_first_system_message_goes_in_input_not_instructions() -> None:
    ms = [Message.system("rules", cache=CacheHint()), Message.user("q")]
    body = RESPONSES.convert(ms).body
    assert "instructions" not in body
    assert body["input"][0] == {
        "role": "system",
        "content": [{"type": "input_text", "text": "rules", BREAKPOINT: {"mode": "explicit"}}],
    }
    assert RESPONSES.convert([Message.system("rules"), Message.user("q")]).body == {
        "instructions": "rules",
        "input": [{"role": "user", "content": "q"}],
    }


def _stored_reply() -> Message:
    return RESPONSES.parse_response(
        {
            "id": "resp_1",
            "object": "response",
            "status": "completed",
            "output": [
                {
                    "type": "message",
                    "id": "msg_1",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": "a", "annotations": []}],
                }
            ],
        }
    ).message


def test_a_hinted_system_message_continued_from_a_stored_response_is_a_loss() -> None:
    ms = [Message.system("rules", cache=CacheHint()), Message.user("q"), _stored_reply()]
    conversion = RESPONSES.convert([*ms, Message.user("more")], previous_response_id=True)
    assert conversion.body["instructions"] == "rules"
    assert [(x.path, x.what) for x in conversion.losses] == [("messages[0].cache", "cache hint")]


def test_a_string_input_with_a_hint_goes_as_an_item() -> None:
    (m,) = RESPONSES.parse_messages({"input": "q"})
    body = RESPONSES.convert([dataclasses.replace(m, cache=CacheHint())]).body
    assert body["input"] == [
        {
            "role": "user",
            "content": [{"type": "input_text", "text": "q", BREAKPOINT: {"mode": "explicit"}}],
        }
    ]


# -- any conversation ------------------------------------------------------------------------

hints = st.none() | st.builds(CacheHint, st.sampled_from([None, "5m", "1h"]))


@st.composite
def hinted(draw: st.DrawFn, sequences: st.SearchStrategy[list[Message]]) -> list[Message]:
    """A conversation with a random hint (or none) on each message."""
    return [dataclasses.replace(m, cache=draw(hints)) for m in draw(sequences)]


@pytest.mark.parametrize("name", sorted(PROVIDERS))
@settings(max_examples=60, deadline=None)
@given(ms=hinted(st.one_of(conversations(), any_sequences())))
def test_every_hint_is_carried_or_reported(name: str, ms: list[Message]) -> None:
    conversion = get_provider(name).convert(ms)
    json.dumps(conversion.body)  # plain JSON
    hinted_at = {i for i, m in enumerate(ms) if m.cache is not None}
    lost = {
        int(x.path[9 : x.path.index("]")]) for x in conversion.losses if x.path.endswith("].cache")
    }
    assert lost <= hinted_at
    key = KEYS.get(name)
    if key is None:
        assert lost == hinted_at
        assert not list(_keys(conversion.body, CONTROL)) and not list(
            _keys(conversion.body, BREAKPOINT)
        )
        return
    # one key on the wire for each hint not reported, and no other
    assert len(list(_keys(conversion.body, key))) == len(hinted_at - lost)
    if name == "anthropic":
        assert len(hinted_at - lost) <= 4


@pytest.mark.parametrize("name", sorted(PROVIDERS))
@settings(max_examples=40, deadline=None)
@given(ms=hinted(st.lists(any_messages, max_size=8)))
def test_any_hinted_messages_format(name: str, ms: list[Message]) -> None:
    conversion = get_provider(name).convert(ms)
    assert json.loads(json.dumps(conversion.body)) == conversion.body


@pytest.mark.parametrize("name", sorted(PROVIDERS))
@settings(max_examples=30, deadline=None)
@given(ms=hinted(st.one_of(conversations(), any_sequences())))
def test_hinted_subclasses_format_like_their_base(name: str, ms: list[Message]) -> None:
    same_as_subclasses(name, ms)


# -- Anthropic: thinking blocks take no cache_control -----------------------------------------

_THINKING = ("thinking", "redacted_thinking")


def _on_thinking(body: Any) -> list[Any]:
    """The thinking blocks of a body that carry a cache_control (the API refuses them)."""
    found = []
    for turn in body.get("messages", []):
        content = turn["content"]
        if isinstance(content, list):
            found += [b for b in content if b.get("type") in _THINKING and CONTROL in b]
    return found


def _thinking(text: str = "t") -> ReasoningPart:
    return ReasoningPart(text, signature="s", provider="anthropic")


def test_a_hint_skips_a_last_thinking_block() -> None:
    m = Message.assistant([TextPart("a"), _thinking()], cache=CacheHint())
    conversion = ANTHROPIC.convert([Message.user("q"), m])
    content = conversion.body["messages"][1]["content"]
    assert content[0] == {"type": "text", "text": "a", CONTROL: {"type": "ephemeral"}}
    assert CONTROL not in content[1]
    assert conversion.losses == ()
    # the body reads back and formats again the same (the key then kept on its block)
    assert ANTHROPIC.convert(ANTHROPIC.parse_messages(conversion.body)).body == conversion.body


@pytest.mark.parametrize("redacted", [False, True])
def test_a_hint_on_a_turn_of_thinking_only_is_a_loss(redacted: bool) -> None:
    part = ReasoningPart("t", signature="s", redacted=redacted, provider="anthropic")
    m = Message.assistant([part], cache=CacheHint())
    conversion = ANTHROPIC.convert([Message.user("q"), m])
    assert _on_thinking(conversion.body) == []
    assert not list(_keys(conversion.body, CONTROL))
    assert [(x.path, x.rule) for x in conversion.losses] == [
        (
            "messages[1].cache",
            "dropped: Anthropic takes no cache_control on thinking blocks,"
            " the only blocks of its message",
        )
    ]


def test_a_hint_on_a_tool_call_turn_skips_thinking() -> None:
    m = Message.assistant([_thinking()], [CALL], cache=CacheHint())
    body = ANTHROPIC.convert([Message.user("q"), m, Message.tool_result("call_1", "r")]).body
    content = body["messages"][1]["content"]
    assert [b["type"] for b in content] == ["thinking", "tool_use"]
    assert CONTROL in content[1] and CONTROL not in content[0]


def test_a_stripped_blank_block_moves_its_hint_past_thinking() -> None:
    m = Message.assistant([TextPart("a"), _thinking(), TextPart("\n\n")], cache=CacheHint())
    conversion = ANTHROPIC.convert([Message.user("q"), m])
    content = conversion.body["messages"][1]["content"]
    assert _on_thinking(conversion.body) == []
    assert content[0][CONTROL] == {"type": "ephemeral"}
    m = Message.assistant([_thinking(), TextPart("\n\n")], cache=CacheHint())
    conversion = ANTHROPIC.convert([Message.user("q"), m])
    assert _on_thinking(conversion.body) == [] and not list(_keys(conversion.body, CONTROL))
    assert "messages[1].cache" in [x.path for x in conversion.losses]


def test_a_cache_control_on_a_last_thinking_block_stays_a_kept_key() -> None:
    block = {"type": "thinking", "thinking": "t", "signature": "s", CONTROL: {"type": "ephemeral"}}
    body = {
        "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": [block]}]
    }
    ms = ANTHROPIC.parse_messages(body)
    assert ms[1].cache is None
    assert ANTHROPIC.convert(ms).body == body


#: Assistant turns with Anthropic's own thinking (signed, or redacted) among text.
_thinking_turns = st.builds(
    Message.assistant,
    st.lists(
        st.builds(
            ReasoningPart,
            st.text(min_size=1, max_size=3),
            signature=st.just("s"),
            redacted=st.booleans(),
            provider=st.just("anthropic"),
        )
        | st.builds(TextPart, st.sampled_from(["a", " ", "\n"])),
        min_size=1,
        max_size=3,
    ),
)


@pytest.mark.parametrize("name", ["anthropic", "openrouter"])
@settings(max_examples=80, deadline=None)
@given(ms=hinted(st.lists(any_messages | _thinking_turns, max_size=8)))
def test_rich_hinted_messages_carry_or_report_each_hint(name: str, ms: list[Message]) -> None:
    conversion = get_provider(name).convert(ms)
    hinted_at = {i for i, m in enumerate(ms) if m.cache is not None}
    lost = {
        int(x.path[9 : x.path.index("]")]) for x in conversion.losses if x.path.endswith("].cache")
    }
    assert lost <= hinted_at
    assert len(list(_keys(conversion.body, CONTROL))) == len(hinted_at - lost) <= 4
    assert _on_thinking(conversion.body) == []


# -- OpenRouter: Anthropic's rules (Claude is why cache_control goes through it) -----------

OPENROUTER = get_provider("openrouter")


def test_openrouter_kept_keys_count_and_stay() -> None:
    control = {"type": "ephemeral"}
    parts: list[dict[str, Any]] = [
        {"type": "text", "text": f"doc{k}", CONTROL: control} for k in range(4)
    ]
    parts.append({"type": "text", "text": "q"})
    ms = OPENROUTER.parse_messages({"messages": [{"role": "user", "content": parts}]})
    conversion = OPENROUTER.convert([*ms, Message.assistant("a", cache=CacheHint())])
    assert [x.path for x in conversion.losses] == ["messages[1].cache"]
    assert len(list(_keys(conversion.body, CONTROL))) == 4


def test_openrouter_sends_a_1h_hint_after_a_shorter_one_with_the_default_ttl() -> None:
    ms = [Message.system("S", cache=CacheHint()), Message.user("q", cache=CacheHint("1h"))]
    conversion = OPENROUTER.convert(ms)
    assert [v.get("ttl") for v in _keys(conversion.body, CONTROL)] == [None, None]
    assert [(x.path, x.what, x.rule) for x in conversion.losses] == [
        (
            "messages[1].cache.ttl",
            "cache hint ttl 1h",
            "sent with the default ttl: openrouter wants 1h breakpoints before shorter ones"
            " (Anthropic's rule)",
        )
    ]


# -- kept keys against a new hint ------------------------------------------------------------


@pytest.mark.parametrize("name", ["anthropic", "openrouter"])
def test_a_kept_cache_control_that_differs_from_the_hint_is_a_loss(name: str) -> None:
    p = get_provider(name)
    kept = {"type": "ephemeral", "ttl": "2h"}
    body = {
        "messages": [{"role": "user", "content": [{"type": "text", "text": "q", CONTROL: kept}]}]
    }
    (m,) = p.parse_messages(body)
    assert m.cache is None
    conversion = p.convert([dataclasses.replace(m, cache=CacheHint("1h"))])
    assert list(_keys(conversion.body, CONTROL)) == [kept]
    assert [(x.path, x.rule) for x in conversion.losses] == [
        ("messages[0].cache", "dropped: the cache_control kept on its block is sent instead")
    ]


@pytest.mark.parametrize("name", ["openai", "openai_responses"])
def test_a_kept_breakpoint_that_differs_from_the_hint_is_a_loss(name: str) -> None:
    p = get_provider(name)
    kept = {"mode": "explicit", "x": 1}
    part_type = "input_text" if name == "openai_responses" else "text"
    key = "input" if name == "openai_responses" else "messages"
    body = {
        key: [{"role": "user", "content": [{"type": part_type, "text": "q", BREAKPOINT: kept}]}]
    }
    (m,) = p.parse_messages(body)
    assert m.cache is None
    conversion = p.convert([dataclasses.replace(m, cache=CacheHint())])
    assert list(_keys(conversion.body, BREAKPOINT)) == [kept]
    assert [(x.path, x.rule) for x in conversion.losses] == [
        ("messages[0].cache", f"dropped: the {BREAKPOINT} kept on its block is sent instead")
    ]


# -- OpenAI Responses: continued from a stored response ----------------------------------------


def test_hints_covered_by_a_stored_response_are_losses() -> None:
    ms = [
        Message.system("rules"),
        Message.user("doc", cache=CacheHint()),
        _stored_reply(),
        Message.user("next"),
    ]
    conversion = RESPONSES.convert(ms, previous_response_id=True)
    assert conversion.body["previous_response_id"] == "resp_1"
    assert [(x.path, x.rule) for x in conversion.losses] == [
        ("messages[1].cache", "dropped: continued from a stored response, which holds it")
    ]


def test_a_hinted_system_message_without_a_stored_response_goes_in_input() -> None:
    ms = [Message.system("rules", cache=CacheHint()), Message.user("q")]
    conversion = RESPONSES.convert(ms, previous_response_id=True)
    assert "previous_response_id" not in conversion.body
    assert "instructions" not in conversion.body
    assert conversion.body["input"][0]["content"][0][BREAKPOINT] == {"mode": "explicit"}
    assert conversion.losses == ()
