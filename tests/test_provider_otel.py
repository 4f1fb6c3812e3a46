"""The otel format: OpenTelemetry GenAI semantic-convention messages, both ways."""

from __future__ import annotations

import contextlib
import json
import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from messages import (
    AudioPart,
    FilePart,
    ImagePart,
    Message,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolCallMessage,
    ToolResultMessage,
    UserMessage,
)
from messages.errors import DecodeError, LossError
from messages.providers import FinishReason, LossWarning, get_provider
from messages.providers.otel import PROVIDER, SEMCONV_VERSION
from tests.conftest import FIXTURES
from tests.strategies import message_lists

OTEL = PROVIDER
SPANS: dict[str, dict[str, Any]] = json.loads(
    (FIXTURES / "otel" / "spans.json").read_text(encoding="utf-8")
)
INPUT_KEYS = ("gen_ai.system_instructions", "gen_ai.input.messages")


def inputs(attrs: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in attrs.items() if k in INPUT_KEYS}


def test_the_version_is_named() -> None:
    assert SEMCONV_VERSION.count(".") == 2


@pytest.mark.parametrize("name", sorted(SPANS))
def test_each_documented_example_round_trips(name: str) -> None:
    attrs = SPANS[name]
    conversation = OTEL.parse_messages(attrs)
    has_output = "gen_ai.output.messages" in attrs
    sent = conversation[:-1] if has_output else conversation
    conversion = OTEL.convert(sent)
    assert conversion.losses == ()
    assert conversion.body == ({"gen_ai.input.messages": []} | inputs(attrs))
    if has_output:
        response = OTEL.parse_response(attrs["gen_ai.output.messages"])
        assert response.message.content == conversation[-1].content
        entry = OTEL.format_output(response.message, response.finish_reason)
        assert entry == attrs["gen_ai.output.messages"][0]


def test_attribute_values_may_be_json_text() -> None:
    attrs = {k: json.dumps(v) for k, v in SPANS["tool_call_span_2"].items()}
    assert OTEL.parse_messages(attrs) == OTEL.parse_messages(SPANS["tool_call_span_2"]) or [
        type(m) for m in OTEL.parse_messages(attrs)
    ] == [type(m) for m in OTEL.parse_messages(SPANS["tool_call_span_2"])]
    response = OTEL.parse_response(attrs["gen_ai.output.messages"])
    assert response.text.startswith("The weather in Paris")


def test_a_bare_list_is_the_input_messages() -> None:
    messages = OTEL.parse_messages(SPANS["tool_call_span_2"]["gen_ai.input.messages"])
    assert [type(m) for m in messages] == [UserMessage, ToolCallMessage, ToolResultMessage]
    call = messages[1].tool_calls[0]
    assert (call.id, call.name, dict(call.arguments)) == (
        "call_VSPygqKTWdrhaFErNvMV18Yl",
        "get_weather",
        {"location": "Paris"},
    )
    result = messages[2]
    assert isinstance(result, ToolResultMessage)
    assert result.tool_call_id == call.id and result.text == "rainy, 57°F"


def test_finish_reasons() -> None:
    tool = OTEL.parse_response(SPANS["tool_call_span_1"]["gen_ai.output.messages"])
    assert tool.finish_reason is FinishReason.TOOL_CALLS and tool.tool_calls
    for wire, reason in [
        ("stop", FinishReason.STOP),
        ("length", FinishReason.LENGTH),
        ("content_filter", FinishReason.CONTENT_FILTER),
        ("error", FinishReason.ERROR),
        ("tool_calls", FinishReason.TOOL_CALLS),
        ("something_new", FinishReason.OTHER),
    ]:
        entry = {"role": "assistant", "parts": [], "finish_reason": wire}
        assert OTEL.parse_response([entry]).finish_reason is reason


def test_multimodal_parts_are_read_as_parts() -> None:
    (user,) = OTEL.parse_messages(SPANS["multimodal_input"])
    assert isinstance(user.content, tuple)
    text, image, video, file1, file2, blob, audio = user.content
    assert text == TextPart("What is in the attached data?")
    assert isinstance(image, ImagePart) and image.url and image.media_type == "image/png"
    assert video == FilePart(file_id="gs://my-bucket/my-video.mp4", media_type="video/mp4")
    assert file1 == file2 == FilePart(file_id="provider_fileid_123")
    assert isinstance(blob, ImagePart) and blob.data
    assert isinstance(audio, AudioPart) and audio.format == "wav"


def test_reasoning_and_the_parts_it_does_not_model_are_kept() -> None:
    reasoning = OTEL.parse_response(SPANS["reasoning"]["gen_ai.output.messages"]).message
    assert isinstance(reasoning.content, tuple)
    assert isinstance(reasoning.content[0], ReasoningPart)
    assert reasoning.content[0].provider == "otel"
    built_in = OTEL.parse_response(SPANS["built_in_tools"]["gen_ai.output.messages"]).message
    assert built_in.text.startswith("The generated random number")
    losses = get_provider("openai").convert([Message.user("go"), built_in]).losses
    assert [loss.what for loss in losses] == [
        "otel server_tool_call block",
        "otel server_tool_call_response block",
    ]


def test_several_choices_answer_with_the_first_and_keep_the_others() -> None:
    outputs = SPANS["multiple_choices"]["gen_ai.output.messages"]
    response = OTEL.parse_response(outputs)
    assert response.text == outputs[0]["parts"][0]["content"]
    kept = response.message.extras["otel"]["choices"]
    assert len(kept) == 1 and kept[0]["parts"][0]["content"] == outputs[1]["parts"][0]["content"]


def test_system_messages_go_to_the_instructions() -> None:
    body = OTEL.format_request([SystemMessage("be brief"), Message.user("hi")])
    assert body == {
        "gen_ai.system_instructions": [{"type": "text", "content": "be brief"}],
        "gen_ai.input.messages": [{"role": "user", "parts": [{"type": "text", "content": "hi"}]}],
    }


def test_tools_and_tool_results_with_media() -> None:
    from messages.tools import ToolDefinition

    weather = ToolDefinition("get_weather", "Weather", {"type": "object", "properties": {}})
    conversation = [
        Message.user("draw"),
        Message.assistant(tool_calls=[ToolCall("c1", "draw", {"shape": "cat"})]),
        Message.tool_result(
            "c1", [TextPart("done"), ImagePart(data="iVBO", media_type="image/png")], is_error=True
        ),
    ]
    body = OTEL.format_request(conversation, [weather])
    assert body["gen_ai.tool.definitions"][0]["name"] == "get_weather"
    tool = body["gen_ai.input.messages"][2]
    assert tool["parts"][0] == {
        "type": "tool_call_response",
        "id": "c1",
        "response": "done",
        "is_error": True,
    }
    assert tool["parts"][1]["type"] == "blob"
    back = OTEL.parse_messages(body)
    result = back[2]
    assert isinstance(result, ToolResultMessage)
    assert result.content == conversation[2].content and result.is_error
    assert [t.name for t in OTEL.parse_tools(body)] == ["get_weather"]


def test_signed_reasoning_of_another_provider_is_a_loss() -> None:
    signed = Message.assistant(
        [ReasoningPart("hmm", signature="sig", provider="anthropic"), TextPart("ok")]
    )
    with pytest.raises(LossError) as info:
        OTEL.format_request([Message.user("q"), signed], on_loss="raise")
    assert "signature" in info.value.losses[0].what
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        OTEL.format_output(signed)
    said = [w for w in caught if issubclass(w.category, LossWarning)]
    assert said and all(w.filename == __file__ for w in said)  # at the caller's line


def test_stream_of_output_chunks() -> None:
    acc = OTEL.stream()
    chunks = [
        {"role": "assistant", "parts": [{"type": "reasoning", "content": "thinking "}]},
        {"role": "assistant", "parts": [{"type": "text", "content": "Hel"}]},
        "[DONE]",
        {
            "role": "assistant",
            "parts": [{"type": "text", "content": "lo"}],
            "finish_reason": "stop",
        },
    ]
    deltas = [d for c in chunks for d in acc.feed(c)]  # type: ignore[arg-type]
    assert [d.kind for d in deltas] == ["reasoning", "text", "text"]
    response = acc.finish()
    assert response.text == "Hello" and response.finish_reason is FinishReason.STOP


@pytest.mark.parametrize(
    ("value", "path"),
    [
        (3, "$"),
        ({"gen_ai.input.messages": "{"}, "gen_ai.input.messages"),
        ([{"role": "robot", "parts": []}], "[0].role"),
        ([{"role": "user", "parts": [{"type": "text"}]}], "[0].parts[0].content"),
        ([{"role": "assistant", "parts": [{"type": "tool_call"}]}], "[0].parts[0].name"),
        (
            [{"role": "tool", "parts": [{"type": "tool_call_response", "response": "x"}]}],
            "[0].parts[0].id",
        ),
        ({"gen_ai.system_instructions": [{"type": "blob"}]}, "gen_ai.system_instructions[0].type"),
    ],
)
def test_malformed_input_names_the_path(value: Any, path: str) -> None:
    with pytest.raises(DecodeError) as info:
        OTEL.parse_messages(value)
    assert info.value.path.startswith(path)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "content",
                    "id",
                    "name",
                    "role",
                    "parts",
                    "arguments",
                    "response",
                    "modality",
                    "uri",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=15,
)


@settings(max_examples=200, deadline=None)
@given(_json)
def test_fuzz_parsers_raise_only_decode_errors(value: Any) -> None:
    for parse in (OTEL.parse_messages, OTEL.parse_response, OTEL.parse_tools):
        with contextlib.suppress(DecodeError):
            parse(value)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(message_lists)
def test_formatting_what_it_parsed_gives_the_same_attributes(messages: list[Message]) -> None:
    conversion = OTEL.convert(messages)
    back = OTEL.parse_messages(conversion.body)
    assert OTEL.convert(back).body == conversion.body


@pytest.mark.parametrize("name", ["openai", "anthropic", "gemini", "openai_responses", "ollama"])
def test_every_provider_fixture_conversation_records_and_reads_back(name: str) -> None:
    provider = get_provider(name)
    for path in sorted((FIXTURES / name).glob("request*.json"))[:5]:
        try:
            conversation = provider.parse_messages(json.loads(path.read_text(encoding="utf-8")))
        except DecodeError:
            continue  # a fixture of a malformed request
        body = OTEL.convert(conversation).body
        again = OTEL.parse_messages(body)
        assert [m.role for m in again] == [m.role for m in conversation]
