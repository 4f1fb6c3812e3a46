"""Hand-written wire cases for openai, groq, vllm and ollama beyond the fixture corpus.

Each case is a small JSON literal written from the providers' documentation
(OpenAI chat completion / chunk objects, Groq and vLLM OpenAI-compatible
extensions, Ollama ``/api/chat`` and ``api/types.go``) with the facts the
MANIFEST conventions define; malformed variants must raise only DecodeError
with a path.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from messages import AudioPart, DecodeError, FilePart, ImagePart, ToolResultMessage
from messages.providers import ChatResponse, FinishReason, get_provider
from tests.provider_facts import compare_response
from tests.provider_fidelity import (
    accepts_or_decode_error,
    check_request,
    feed_all_or_decode_error,
    mutate,
    mutations,
    run_stream,
)

Case = tuple[str, str, Any, dict[str, Any]]

OK_CALL = "call_Vx3kQ9mB2nLp7RtY8sWcZ1aD"
OK_CALL2 = "call_Hj5fN2qP8wXe4KtM6vBz0cRy"


def _fn(name: str, args: Any) -> dict[str, Any]:
    return {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}


def _chat(message: dict[str, Any], finish: Any = "stop", **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
        "object": "chat.completion",
        "created": 1741570283,
        "model": "gpt-4o-2024-08-06",
        "choices": [
            {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}
        ],
        "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25},
    }
    body.update(extra)
    return body


# -- non-streaming responses -------------------------------------------------------------

RESPONSES: list[Case] = [
    (
        "refusal_null_content",
        "openai",
        _chat({"content": None, "refusal": "I can't help with that.", "annotations": []}),
        {"text": "", "refusal": "I can't help with that.", "finish_reason": "stop",
         "tool_calls": [], "reasoning": None},
    ),
    (
        "logprobs",
        "openai",
        {
            **_chat({"content": "Hi"}),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "Hi", "refusal": None},
                    "logprobs": {
                        "content": [
                            {"token": "Hi", "logprob": -0.01, "bytes": [72, 105],
                             "top_logprobs": [{"token": "Hi", "logprob": -0.01,
                                               "bytes": [72, 105]}]}
                        ],
                        "refusal": None,
                    },
                    "finish_reason": "stop",
                }
            ],
        },
        {"text": "Hi", "refusal": None, "finish_reason": "stop",
         "usage": {"input_tokens": 20, "output_tokens": 5, "total_tokens": 25}},
    ),
    (
        "tool_call_type_missing_extra_keys",
        "openai",
        _chat(
            {
                "content": None,
                "tool_calls": [
                    {"id": OK_CALL, "function": _fn("get_weather", {"city": "Paris"}),
                     "index": 0, "x_extra": {"a": 1}},
                    {"id": OK_CALL2, "type": "function",
                     "function": {**_fn("get_time", {}), "strict": False}},
                ],
            },
            "tool_calls",
        ),
        {"text": "", "finish_reason": "tool_calls", "provider_finish_reason": "tool_calls",
         "tool_calls": [{"id": OK_CALL, "name": "get_weather", "arguments": {"city": "Paris"}},
                        {"id": OK_CALL2, "name": "get_time", "arguments": {}}]},
    ),
    (
        "content_filter_null_content",
        "openai",
        _chat({"content": None, "refusal": None}, "content_filter"),
        {"text": "", "finish_reason": "content_filter", "refusal": None,
         "provider_finish_reason": "content_filter"},
    ),
    (
        "finish_reason_null",
        "openai",
        _chat({"content": "Partial"}, None),
        {"text": "Partial", "finish_reason": "stop", "provider_finish_reason": None},
    ),
    (
        "legacy_function_call",
        "openai",
        _chat(
            {"content": None, "function_call": _fn("get_weather", {"city": "Oslo"})},
            "function_call",
        ),
        {"text": "", "finish_reason": "tool_calls", "provider_finish_reason": "function_call",
         "tool_calls": [{"id": None, "name": "get_weather", "arguments": {"city": "Oslo"}}]},
    ),
    (
        "n_2_choices_reads_first",
        "openai",
        {
            **_chat({"content": "first"}),
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "first"},
                 "finish_reason": "stop"},
                {"index": 1, "message": {"role": "assistant", "content": "second"},
                 "finish_reason": "length"},
            ],
        },
        {"text": "first", "finish_reason": "stop"},
    ),
    (
        "usage_details",
        "openai",
        _chat(
            {"content": "ok"},
            usage={
                "prompt_tokens": 2006, "completion_tokens": 300, "total_tokens": 2306,
                "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0},
                "completion_tokens_details": {
                    "reasoning_tokens": 256, "audio_tokens": 0,
                    "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0,
                },
            },
            service_tier="default",
            system_fingerprint="fp_6b68a8204b",
        ),
        {"text": "ok", "usage": {"input_tokens": 2006, "output_tokens": 300,
                                 "total_tokens": 2306}},
    ),
    (
        "usage_details_null",
        "openai",
        _chat({"content": "ok"}, usage={"prompt_tokens": 3, "completion_tokens": 1,
                                        "total_tokens": 4, "prompt_tokens_details": None,
                                        "completion_tokens_details": None}),
        {"usage": {"input_tokens": 3, "output_tokens": 1, "total_tokens": 4}},
    ),
    (
        "groq_x_groq_usage_breakdown",
        "groq",
        _chat(
            {"content": "Paris.", "reasoning": "The user asks for a capital."},
            model="qwen/qwen3-32b",
            usage={"queue_time": 0.05, "prompt_tokens": 30, "prompt_time": 0.002,
                   "completion_tokens": 12, "completion_time": 0.04, "total_tokens": 42,
                   "total_time": 0.042},
            usage_breakdown={"models": [{"model": "qwen/qwen3-32b", "usage": {
                "prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42}}]},
            x_groq={"id": "req_01jbd6g2qdfw2adyrt2az8hz4w"},
            system_fingerprint="fp_a91d9c2cfb",
        ),
        {"text": "Paris.", "reasoning": "The user asks for a capital.", "finish_reason": "stop",
         "usage": {"input_tokens": 30, "output_tokens": 12, "total_tokens": 42}},
    ),
    (
        "vllm_reasoning_and_legacy_both",
        "vllm",
        _chat({"content": "4", "reasoning": "2+2=4", "reasoning_content": "2+2=4",
               "tool_calls": []}, model="Qwen/Qwen3-8B"),
        {"text": "4", "reasoning": "2+2=4", "tool_calls": [], "finish_reason": "stop"},
    ),
    (
        "vllm_legacy_reasoning_content_only",
        "vllm",
        _chat({"content": "4", "reasoning_content": "think", "tool_calls": []}),
        {"text": "4", "reasoning": "think"},
    ),
    (
        "vllm_tool_calls_spaced_args",
        "vllm",
        _chat(
            {"content": "", "reasoning": "Need weather.",
             "tool_calls": [{"id": "chatcmpl-tool-9f2c1d0a7b3e4c5d", "type": "function",
                             "function": {"name": "get_weather",
                                          "arguments": '{"city": "Paris", "days": 2}'}}]},
            "tool_calls",
            usage={"prompt_tokens": 100, "total_tokens": 130, "completion_tokens": 30,
                   "prompt_tokens_details": None},
            prompt_logprobs=None,
            kv_transfer_params=None,
        ),
        {"text": "", "reasoning": "Need weather.", "finish_reason": "tool_calls",
         "tool_calls": [{"id": "chatcmpl-tool-9f2c1d0a7b3e4c5d", "name": "get_weather",
                         "arguments": {"city": "Paris", "days": 2}}],
         "usage": {"input_tokens": 100, "output_tokens": 30, "total_tokens": 130}},
    ),
    (
        "usage_absent",
        "vllm",
        {**_chat({"content": "x"}), "usage": None},
        {"text": "x", "usage": None},
    ),
    (
        "ollama_tool_calls_without_ids_stop",
        "ollama",
        {
            "model": "llama3.2", "created_at": "2025-07-01T10:00:00.000000Z",
            "message": {"role": "assistant", "content": "",
                        "tool_calls": [
                            {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
                            {"function": {"index": 1, "name": "get_weather",
                                          "arguments": {"city": "Tokyo"}}},
                        ]},
            "done_reason": "stop", "done": True, "total_duration": 885095291,
            "load_duration": 3753500, "prompt_eval_count": 122,
            "prompt_eval_duration": 328493000, "eval_count": 33, "eval_duration": 552222000,
        },
        {"text": "", "finish_reason": "tool_calls", "provider_finish_reason": "stop",
         "tool_calls": [{"id": None, "name": "get_weather", "arguments": {"city": "Paris"}},
                        {"id": None, "name": "get_weather", "arguments": {"city": "Tokyo"}}],
         "usage": {"input_tokens": 122, "output_tokens": 33, "total_tokens": 155}},
    ),
    (
        "ollama_thinking_length_images_null",
        "ollama",
        {
            "model": "qwen3", "created_at": "2025-07-01T10:00:00Z",
            "message": {"role": "assistant", "content": "The answ", "thinking": "Let me see",
                        "images": None},
            "done": True, "done_reason": "length", "eval_count": 16,
        },
        {"text": "The answ", "reasoning": "Let me see", "finish_reason": "length",
         "usage": {"input_tokens": 0, "output_tokens": 16, "total_tokens": 16}},
    ),
    (
        "ollama_done_reason_load",
        "ollama",
        {"model": "llama3.2", "created_at": "2025-07-01T10:00:00Z",
         "message": {"role": "assistant", "content": ""}, "done_reason": "load", "done": True},
        {"text": "", "finish_reason": "stop", "provider_finish_reason": "load", "tool_calls": [],
         "usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}},
    ),
    (
        "ollama_done_reason_unload",
        "ollama",
        {"model": "llama3.2", "created_at": "2025-07-01T10:00:00Z",
         "message": {"role": "assistant", "content": ""}, "done_reason": "unload", "done": True},
        {"text": "", "finish_reason": "stop", "provider_finish_reason": "unload"},
    ),
    (
        "ollama_ids_present",
        "ollama",
        {"model": "qwen3", "created_at": "2025-07-01T10:00:00Z",
         "message": {"role": "assistant", "content": "",
                     "tool_calls": [{"id": "call_k3m9q2xz", "function": {
                         "index": 0, "name": "get_time", "arguments": {}}}]},
         "done": True, "prompt_eval_count": 5, "eval_count": 7},
        {"finish_reason": "tool_calls", "provider_finish_reason": None,
         "tool_calls": [{"id": "call_k3m9q2xz", "name": "get_time", "arguments": {}}],
         "usage": {"input_tokens": 5, "output_tokens": 7, "total_tokens": 12}},
    ),
]  # fmt: skip


def _check_facts(r: ChatResponse, expected: dict[str, Any]) -> None:
    compare_response(r, expected)
    for g, e in zip(r.tool_calls, expected.get("tool_calls", []), strict=True):
        assert g.id, "a call the wire left without an id gets a derived one"
        if e["id"] is None:
            assert g.id.startswith("call_derived_"), g.id
    assert len({c.id for c in r.tool_calls}) == len(r.tool_calls)


@pytest.mark.parametrize(
    ("name", "provider", "body", "expected"), RESPONSES, ids=[c[0] for c in RESPONSES]
)
def test_response_case(name: str, provider: str, body: Any, expected: dict[str, Any]) -> None:
    r = get_provider(provider).parse_response(body)
    _check_facts(r, expected)
    assert r.invalid_tool_calls == ()
    # Parsing is deterministic, derived ids included.
    assert get_provider(provider).parse_response(body) == r


def test_usage_details_kept() -> None:
    r = get_provider("openai").parse_response(RESPONSES[7][2])
    assert r.usage is not None
    assert (r.usage.cached_input_tokens, r.usage.reasoning_tokens) == (1920, 256)


def test_refusal_is_not_text_and_survives_in_extras() -> None:
    r = get_provider("openai").parse_response(RESPONSES[0][2])
    assert r.message.text == ""
    assert r.message.extras["openai"]["refusal"] == "I can't help with that."


def test_invalid_arguments_in_second_call_keep_the_first() -> None:
    body = _chat(
        {"content": None,
         "tool_calls": [
             {"id": OK_CALL, "type": "function", "function": _fn("a", {"x": 1})},
             {"id": OK_CALL2, "type": "function", "function": _fn("b", '{"x": ')},
         ]},
        "tool_calls",
    )  # fmt: skip
    r = get_provider("openai").parse_response(body)
    assert [c.name for c in r.tool_calls] == ["a"]
    (bad,) = r.invalid_tool_calls
    assert (bad.id, bad.name, bad.raw_arguments) == (OK_CALL2, "b", '{"x": ')
    assert "choices[0].message.tool_calls[1].function.arguments" in bad.error
    assert r.finish_reason is FinishReason.TOOL_CALLS


# -- streams ------------------------------------------------------------------------------


def _chunk(delta: dict[str, Any] | None, finish: Any = None, **extra: Any) -> dict[str, Any]:
    c: dict[str, Any] = {
        "id": "chatcmpl-123", "object": "chat.completion.chunk", "created": 1694268190,
        "model": "gpt-4o-mini", "system_fingerprint": "fp_44709d6fcb",
    }  # fmt: skip
    if delta is None:
        c["choices"] = []
    else:
        c["choices"] = [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
    c.update(extra)
    return c


def _tc(index: int, id: str | None = None, name: str | None = None, args: str | None = None,
        **extra: Any) -> dict[str, Any]:  # fmt: skip
    tc: dict[str, Any] = {"index": index, **extra}
    if id is not None:
        tc["id"] = id
        tc["type"] = "function"
    fn: dict[str, Any] = {}
    if name is not None:
        fn["name"] = name
    if args is not None:
        fn["arguments"] = args
    if fn:
        tc["function"] = fn
    return tc


USAGE_10_5 = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
U_10_5 = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}

STREAMS: list[Case] = [
    (
        "role_only_first_null_content_usage_only_last",
        "openai",
        [
            _chunk({"role": "assistant", "content": "", "refusal": None}, usage=None),
            _chunk({"content": "Hel"}, usage=None, obfuscation="a1b2"),
            _chunk({"content": None}, usage=None),
            _chunk({"content": "lo"}, usage=None),
            _chunk({}, "stop", usage=None),
            _chunk(None, usage={**USAGE_10_5,
                                "prompt_tokens_details": {"cached_tokens": 0},
                                "completion_tokens_details": {"reasoning_tokens": 0}}),
        ],
        {"text": "Hello", "reasoning": None, "finish_reason": "stop",
         "provider_finish_reason": "stop", "usage": U_10_5, "refusal": None},
    ),
    (
        "id_and_name_in_later_fragment",
        "openai",
        [
            _chunk({"role": "assistant", "content": None}),
            _chunk({"tool_calls": [_tc(0, args="")]}),
            _chunk({"tool_calls": [_tc(0, id=OK_CALL, name="get_weather")]}),
            _chunk({"tool_calls": [_tc(0, args='{"city":')]}),
            _chunk({"tool_calls": [_tc(0, args='"Paris"}')]}),
            _chunk({}, "tool_calls"),
        ],
        {"text": "", "finish_reason": "tool_calls", "usage": None,
         "tool_calls": [{"id": OK_CALL, "name": "get_weather", "arguments": {"city": "Paris"}}]},
    ),
    (
        "parallel_interleaved",
        "openai",
        [
            _chunk({"role": "assistant", "content": None}),
            _chunk({"tool_calls": [_tc(0, id=OK_CALL, name="get_weather", args="")]}),
            _chunk({"tool_calls": [_tc(1, id=OK_CALL2, name="get_time", args="")]}),
            _chunk({"tool_calls": [_tc(0, args='{"city":"Par')]}),
            _chunk({"tool_calls": [_tc(1, args='{"tz":"UTC"}')]}),
            _chunk({"tool_calls": [_tc(0, args='is"}')]}),
            _chunk({}, "tool_calls", usage=USAGE_10_5),
        ],
        {"finish_reason": "tool_calls", "usage": U_10_5,
         "tool_calls": [{"id": OK_CALL, "name": "get_weather", "arguments": {"city": "Paris"}},
                        {"id": OK_CALL2, "name": "get_time", "arguments": {"tz": "UTC"}}]},
    ),
    (
        "refusal_deltas",
        "openai",
        [
            _chunk({"role": "assistant", "content": None, "refusal": ""}),
            _chunk({"refusal": "I can't "}),
            _chunk({"refusal": "help."}),
            _chunk({}, "stop"),
        ],
        {"text": "", "refusal": "I can't help.", "finish_reason": "stop"},
    ),
    (
        "content_filter",
        "openai",
        [_chunk({"role": "assistant", "content": "Sure"}), _chunk({}, "content_filter")],
        {"text": "Sure", "finish_reason": "content_filter"},
    ),
    (
        "n_2_other_choice_ignored",
        "openai",
        [
            _chunk({"role": "assistant", "content": "A"}),
            {**_chunk({"content": "B"}), "choices": [
                {"index": 1, "delta": {"role": "assistant", "content": "B"},
                 "finish_reason": None}]},
            _chunk({}, "stop"),
            {**_chunk({}), "choices": [{"index": 1, "delta": {}, "finish_reason": "length"}]},
        ],
        {"text": "A", "finish_reason": "stop"},
    ),
    (
        "legacy_function_call_deltas",
        "openai",
        [
            _chunk({"role": "assistant", "content": None,
                    "function_call": {"name": "get_weather", "arguments": ""}}),
            _chunk({"function_call": {"arguments": '{"city":'}}),
            _chunk({"function_call": {"arguments": '"Oslo"}'}}),
            _chunk({}, "function_call"),
        ],
        {"text": "", "finish_reason": "tool_calls", "provider_finish_reason": "function_call",
         "tool_calls": [{"id": None, "name": "get_weather", "arguments": {"city": "Oslo"}}]},
    ),
    (
        "vllm_reasoning_then_content_finish_with_usage",
        "vllm",
        [
            _chunk({"role": "assistant", "content": ""}, model="Qwen/Qwen3-8B"),
            _chunk({"reasoning": "Two plus"}),
            _chunk({"reasoning": " two."}),
            _chunk({"content": "4"}),
            _chunk({"content": ""}, "stop", usage=USAGE_10_5),
        ],
        {"text": "4", "reasoning": "Two plus two.", "finish_reason": "stop", "usage": U_10_5},
    ),
    (
        "vllm_transitional_both_fields",
        "vllm",
        [
            _chunk({"role": "assistant", "content": ""}),
            _chunk({"reasoning": "Hmm", "reasoning_content": "Hmm"}),
            _chunk({"content": "ok", "reasoning_content": None}),
            _chunk({}, "stop"),
        ],
        {"text": "ok", "reasoning": "Hmm", "finish_reason": "stop"},
    ),
    (
        "vllm_legacy_reasoning_content",
        "vllm",
        [
            _chunk({"role": "assistant"}),
            _chunk({"reasoning_content": "a"}),
            _chunk({"reasoning_content": "b", "content": None}),
            _chunk({"content": "c"}),
            _chunk({}, "length"),
        ],
        {"text": "c", "reasoning": "ab", "finish_reason": "length"},
    ),
    (
        "vllm_first_fragment_without_arguments_key",
        "vllm",
        [
            _chunk({"role": "assistant", "content": None}),
            _chunk({"tool_calls": [_tc(0, id="chatcmpl-tool-aa11", name="get_weather")]}),
            _chunk({"tool_calls": [_tc(0, args='{"city": "Paris"}')]}),
            _chunk({"tool_calls": [_tc(1, id="chatcmpl-tool-bb22", name="get_time")]}),
            _chunk({"tool_calls": [_tc(1, args="{}")]}),
            _chunk({}, "tool_calls"),
            _chunk(None, usage=USAGE_10_5),
        ],
        {"finish_reason": "tool_calls", "usage": U_10_5,
         "tool_calls": [
             {"id": "chatcmpl-tool-aa11", "name": "get_weather", "arguments": {"city": "Paris"}},
             {"id": "chatcmpl-tool-bb22", "name": "get_time", "arguments": {}}]},
    ),
    (
        "groq_x_groq_id_then_usage",
        "groq",
        [
            _chunk({"role": "assistant", "content": ""},
                   x_groq={"id": "req_01jbd6g2qdfw2adyrt2az8hz4w"}),
            _chunk({"content": "Hi"}),
            _chunk({}, "stop", x_groq={"id": "req_01jbd6g2qdfw2adyrt2az8hz4w",
                                       "usage": {**USAGE_10_5, "queue_time": 0.01,
                                                 "prompt_time": 0.001}},
                   usage_breakdown={"models": []}),
        ],
        {"text": "Hi", "finish_reason": "stop", "usage": U_10_5},
    ),
    (
        "groq_whole_calls_one_delta",
        "groq",
        [
            _chunk({"role": "assistant", "content": None}),
            _chunk({"tool_calls": [
                _tc(0, id="call_a1", name="get_weather", args='{"city":"Paris"}'),
                _tc(1, id="call_b2", name="get_weather", args='{"city":"Tokyo"}')]}),
            _chunk({}, "tool_calls", x_groq={"usage": USAGE_10_5}),
        ],
        {"finish_reason": "tool_calls", "usage": U_10_5,
         "tool_calls": [
             {"id": "call_a1", "name": "get_weather", "arguments": {"city": "Paris"}},
             {"id": "call_b2", "name": "get_weather", "arguments": {"city": "Tokyo"}}]},
    ),
    (
        "groq_reasoning_deltas",
        "groq",
        [
            _chunk({"role": "assistant", "content": ""}),
            _chunk({"reasoning": "think"}),
            _chunk({"content": "done"}),
            _chunk({}, "stop", x_groq={"usage": USAGE_10_5}, usage=None),
        ],
        {"text": "done", "reasoning": "think", "usage": U_10_5},
    ),
    (
        "ollama_partials_then_metrics_only",
        "ollama",
        [
            {"model": "llama3.2", "created_at": "2025-07-01T10:00:00Z",
             "message": {"role": "assistant", "content": "Hel"}, "done": False},
            {"model": "llama3.2", "created_at": "2025-07-01T10:00:01Z",
             "message": {"role": "assistant", "content": "lo", "images": None}, "done": False},
            {"model": "llama3.2", "created_at": "2025-07-01T10:00:02Z",
             "message": {"role": "assistant", "content": ""}, "done": True,
             "done_reason": "stop", "total_duration": 5, "prompt_eval_count": 10,
             "eval_count": 5},
        ],
        {"text": "Hello", "finish_reason": "stop", "usage": U_10_5},
    ),
    (
        "ollama_final_line_no_message",
        "ollama",
        [
            {"model": "llama3.2", "created_at": "t", "message": {"role": "assistant",
                                                                 "content": "Hi"},
             "done": False},
            {"model": "llama3.2", "created_at": "t", "done": True, "eval_count": 5},
        ],
        {"text": "Hi", "finish_reason": "stop",
         "usage": {"input_tokens": 0, "output_tokens": 5, "total_tokens": 5}},
    ),
    (
        "ollama_thinking_and_calls_without_ids",
        "ollama",
        [
            {"model": "qwen3", "created_at": "t",
             "message": {"role": "assistant", "content": "", "thinking": "Need "},
             "done": False},
            {"model": "qwen3", "created_at": "t",
             "message": {"role": "assistant", "content": "", "thinking": "tools."},
             "done": False},
            {"model": "qwen3", "created_at": "t",
             "message": {"role": "assistant", "content": "", "tool_calls": [
                 {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
             "done": False},
            {"model": "qwen3", "created_at": "t",
             "message": {"role": "assistant", "content": "", "tool_calls": [
                 {"function": {"index": 1, "name": "get_weather",
                               "arguments": {"city": "Tokyo"}}}]},
             "done": False},
            {"model": "qwen3", "created_at": "t", "message": {"role": "assistant", "content": ""},
             "done": True, "done_reason": "stop", "prompt_eval_count": 10, "eval_count": 5},
        ],
        {"text": "", "reasoning": "Need tools.", "finish_reason": "tool_calls",
         "provider_finish_reason": "stop", "usage": U_10_5,
         "tool_calls": [{"id": None, "name": "get_weather", "arguments": {"city": "Paris"}},
                        {"id": None, "name": "get_weather", "arguments": {"city": "Tokyo"}}]},
    ),
    (
        "ollama_length",
        "ollama",
        [
            {"model": "m", "created_at": "t", "message": {"role": "assistant", "content": "ab"},
             "done": False},
            {"model": "m", "created_at": "t", "message": {"role": "assistant", "content": ""},
             "done": True, "done_reason": "length", "prompt_eval_count": 10, "eval_count": 5},
        ],
        {"text": "ab", "finish_reason": "length", "provider_finish_reason": "length",
         "usage": U_10_5},
    ),
    (
        "zero_argument_call_empty_string",
        "openai",
        [
            _chunk({"role": "assistant", "content": None,
                    "tool_calls": [_tc(0, id=OK_CALL, name="get_time", args="")]}),
            _chunk({}, "tool_calls"),
        ],
        {"finish_reason": "tool_calls",
         "tool_calls": [{"id": OK_CALL, "name": "get_time", "arguments": {}}]},
    ),
    (
        "id_and_name_repeated_on_every_fragment",
        "vllm",
        [
            _chunk({"tool_calls": [_tc(0, id="chatcmpl-tool-aa11", name="f", args='{"a":')]}),
            _chunk({"tool_calls": [_tc(0, id="chatcmpl-tool-aa11", name="f", args="1}")]}),
            _chunk({}, "tool_calls"),
        ],
        {"tool_calls": [{"id": "chatcmpl-tool-aa11", "name": "f", "arguments": {"a": 1}}]},
    ),
    (
        "vllm_continuous_usage_last_snapshot",
        "vllm",
        [
            _chunk({"role": "assistant", "content": "a"},
                   usage={"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}),
            _chunk({"content": "b"},
                   usage={"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}),
            _chunk({}, "stop", usage=USAGE_10_5),
        ],
        {"text": "ab", "usage": U_10_5},
    ),
    (
        "arguments_object_in_fragment",
        "vllm",
        [
            _chunk({"tool_calls": [{"index": 0, "id": "chatcmpl-tool-cc33",
                                    "function": {"name": "f", "arguments": {"a": [1, 2]}}}]}),
            _chunk({}, "tool_calls"),
        ],
        {"tool_calls": [{"id": "chatcmpl-tool-cc33", "name": "f", "arguments": {"a": [1, 2]}}]},
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "provider", "events", "expected"), STREAMS, ids=[c[0] for c in STREAMS]
)
def test_stream_case(name: str, provider: str, events: Any, expected: dict[str, Any]) -> None:
    r, deltas = run_stream(get_provider(provider), events)
    _check_facts(r, expected)
    assert r.error is None
    assert r.invalid_tool_calls == ()
    assert "".join(d.text for d in deltas if d.kind == "text") == r.text
    assert ("".join(d.text for d in deltas if d.kind == "reasoning") or None) == r.reasoning
    if r.usage is not None:
        assert r.message.metadata["usage"] == r.usage.to_dict()


def test_stream_truncated_mid_call_keeps_partial_as_invalid() -> None:
    events = STREAMS[2][2][:-1]  # the parallel stream without its finish chunk
    r, _ = run_stream(get_provider("openai"), events)
    assert r.finish_reason is FinishReason.ERROR
    assert r.error
    assert {c.id for c in r.tool_calls} | {c.id for c in r.invalid_tool_calls} <= {
        OK_CALL,
        OK_CALL2,
    }


# -- requests ------------------------------------------------------------------------------

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
JPEG = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDA=="


def _msg(role: str, text: str = "", **kw: Any) -> dict[str, Any]:
    m: dict[str, Any] = {"role": role, "text": text, "tool_calls": [], "tool_call_id": None,
                         "is_error": False}  # fmt: skip
    if role == "tool":
        m["tool_name"] = None
    m.update(kw)
    return m


def _wire_call(id: str, name: str, args: Any) -> dict[str, Any]:
    return {"id": id, "type": "function", "function": _fn(name, args)}


REQUESTS: list[tuple[str, str, dict[str, Any], list[dict[str, Any]]]] = [
    (
        "openai_parts_names_developer",
        "openai",
        {
            "model": "gpt-4o",
            "messages": [
                {"role": "developer", "content": [{"type": "text", "text": "Be "},
                                                  {"type": "text", "text": "brief."}]},
                {"role": "user", "name": "alice", "content": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "image_url", "image_url": {"url": "https://example.com/a.png",
                                                       "detail": "low"}},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}",
                                                       "detail": "high"}},
                    {"type": "input_audio", "input_audio": {"data": "UklGRg==",
                                                            "format": "wav"}},
                    {"type": "file", "file": {"filename": "a.pdf",
                                              "file_data": "data:application/pdf;base64,JVBERi0="}},
                    {"type": "file", "file": {"file_id": "file-6F2ksmvXxt4VdoqmHRw6kL"}},
                ]},
                {"role": "assistant", "name": "bot", "content": "Checking.",
                 "tool_calls": [_wire_call(OK_CALL, "lookup", {"q": "a"}),
                                _wire_call(OK_CALL2, "lookup", {"q": "b"})]},
                {"role": "tool", "tool_call_id": OK_CALL,
                 "content": [{"type": "text", "text": "A "}, {"type": "text", "text": "found"}]},
                {"role": "tool", "tool_call_id": OK_CALL2, "content": "B found"},
                {"role": "assistant", "content": [{"type": "text", "text": "Both found."}]},
            ],
        },
        [
            _msg("developer", "Be brief."),
            _msg("user", "What is this?", images=[
                {"kind": "url", "url": "https://example.com/a.png", "media_type": None},
                {"kind": "base64", "media_type": "image/png", "data": PNG}]),
            _msg("assistant", "Checking.", tool_calls=[
                {"id": OK_CALL, "name": "lookup", "arguments": {"q": "a"}},
                {"id": OK_CALL2, "name": "lookup", "arguments": {"q": "b"}}]),
            _msg("tool", "A found", tool_call_id=OK_CALL),
            _msg("tool", "B found", tool_call_id=OK_CALL2),
            _msg("assistant", "Both found."),
        ],
    ),
    (
        "vllm_reasoning_audio_tool_null_content",
        "vllm",
        {
            "model": "Qwen/Qwen3-8B",
            "messages": [
                {"role": "system", "content": "Use tools."},
                {"role": "user", "content": [
                    {"type": "input_audio", "input_audio": {"data": "SUQz", "format": "mp3"}},
                    {"type": "text", "text": "Weather?"}]},
                {"role": "assistant", "content": None, "reasoning": "Need the tool.",
                 "tool_calls": [{"id": "chatcmpl-tool-aa11", "type": "function", "function": {
                     "name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
                {"role": "tool", "tool_call_id": "chatcmpl-tool-aa11", "content": "22C"},
                {"role": "assistant", "content": "It is 22C."},
            ],
        },
        [
            _msg("system", "Use tools."),
            _msg("user", "Weather?"),
            _msg("assistant", "", tool_calls=[
                {"id": "chatcmpl-tool-aa11", "name": "get_weather",
                 "arguments": {"city": "Paris"}}],
                 reasoning=[{"text": "Need the tool.", "signature": None, "redacted": False}]),
            _msg("tool", "22C", tool_call_id="chatcmpl-tool-aa11"),
            _msg("assistant", "It is 22C."),
        ],
    ),
    (
        "groq_image_and_reasoning",
        "groq",
        {
            "model": "meta-llama/llama-4-scout-17b-16e-instruct",
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "Describe"},
                    {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{JPEG}"}}]},
                {"role": "assistant", "content": "A cat.", "reasoning": "Looks feline."},
                {"role": "user", "content": "Thanks"},
            ],
        },
        [
            _msg("user", "Describe", images=[{"kind": "base64", "media_type": "image/jpeg",
                                              "data": JPEG}]),
            _msg("assistant", "A cat.",
                 reasoning=[{"text": "Looks feline.", "signature": None, "redacted": False}]),
            _msg("user", "Thanks"),
        ],
    ),
    (
        "ollama_images_tool_name_thinking",
        "ollama",
        {
            "model": "qwen3",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "What is in these?", "images": [PNG, JPEG]},
                {"role": "assistant", "content": "", "thinking": "Check the weather.",
                 "tool_calls": [
                     {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
                     {"function": {"name": "get_time", "arguments": {"tz": "CET"}}}]},
                {"role": "tool", "tool_name": "get_time", "content": "10:00"},
                {"role": "tool", "tool_name": "get_weather", "content": "22C"},
                {"role": "assistant", "content": "22C at 10:00."},
            ],
        },
        [
            _msg("system", "Be brief."),
            _msg("user", "What is in these?", images=[
                {"kind": "base64", "media_type": "image/png", "data": PNG},
                {"kind": "base64", "media_type": "image/jpeg", "data": JPEG}]),
            _msg("assistant", "", tool_calls=[
                {"id": None, "name": "get_weather", "arguments": {"city": "Paris"}},
                {"id": None, "name": "get_time", "arguments": {"tz": "CET"}}],
                 reasoning=[{"text": "Check the weather.", "signature": None,
                             "redacted": False}]),
            _msg("tool", "10:00", tool_name="get_time"),
            _msg("tool", "22C", tool_name="get_weather"),
            _msg("assistant", "22C at 10:00."),
        ],
    ),
    (
        "ollama_ids_and_tool_name_both",
        "ollama",
        {
            "model": "qwen3",
            "messages": [
                {"role": "user", "content": "Weather?"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "call_ab12cd34", "function": {
                        "index": 0, "name": "get_weather", "arguments": {"city": "Paris"}}}]},
                {"role": "tool", "tool_call_id": "call_ab12cd34", "tool_name": "get_weather",
                 "content": "22C"},
            ],
        },
        [
            _msg("user", "Weather?"),
            _msg("assistant", "", tool_calls=[
                {"id": "call_ab12cd34", "name": "get_weather", "arguments": {"city": "Paris"}}]),
            _msg("tool", "22C", tool_call_id="call_ab12cd34", tool_name="get_weather"),
        ],
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "provider", "body", "expected"), REQUESTS, ids=[c[0] for c in REQUESTS]
)
def test_request_case(
    name: str, provider: str, body: dict[str, Any], expected: list[dict[str, Any]]
) -> None:
    entry = {"file": name, "kind": "request", "expected": {"messages": expected, "tools": []}}
    ms = check_request(get_provider(provider), entry, body)
    assert ms


def test_openai_request_parts_are_typed() -> None:
    ms = get_provider("openai").parse_messages(REQUESTS[0][2])
    user = ms[1]
    kinds = [type(p).__name__ for p in user.parts]
    assert kinds == ["TextPart", "ImagePart", "ImagePart", "AudioPart", "FilePart", "FilePart"]
    img = user.parts[1]
    assert isinstance(img, ImagePart) and img.detail == "low"
    audio = user.parts[3]
    assert isinstance(audio, AudioPart) and audio.format == "wav"
    f1, f2 = user.parts[4], user.parts[5]
    assert isinstance(f1, FilePart) and (f1.filename, f1.media_type) == ("a.pdf", "application/pdf")
    assert isinstance(f2, FilePart) and f2.file_id == "file-6F2ksmvXxt4VdoqmHRw6kL"
    assert user.name == "alice"
    body = get_provider("openai").convert(ms).body
    out_user = body["messages"][1]
    assert out_user["content"][1] == {
        "type": "image_url",
        "image_url": {"url": "https://example.com/a.png", "detail": "low"},
    }
    assert out_user["content"][3]["input_audio"] == {"data": "UklGRg==", "format": "wav"}
    assert out_user["content"][5]["file"] == {"file_id": "file-6F2ksmvXxt4VdoqmHRw6kL"}
    assert body["messages"][0]["role"] == "developer"
    assert body["messages"][2]["content"] == "Checking."
    # Formatting the parsed conversation and parsing it again keeps every part and call
    # (message names are never sent, see test_provider_openai).
    again = get_provider("openai").parse_messages(body)
    assert [(m.role, m.parts, m.tool_calls) for m in again] == [
        (m.role, m.parts, m.tool_calls) for m in ms
    ]


def test_ollama_request_tool_results_pair_by_name() -> None:
    ms = get_provider("ollama").parse_messages(REQUESTS[3][2])
    calls = {c.name: c.id for c in ms[2].tool_calls}
    first, second = ms[3], ms[4]
    assert isinstance(first, ToolResultMessage) and isinstance(second, ToolResultMessage)
    assert (first.tool_call_id, first.tool_name) == (calls["get_time"], "get_time")
    assert (second.tool_call_id, second.tool_name) == (calls["get_weather"], "get_weather")


# -- malformed variants: DecodeError with a path ------------------------------------------

MALFORMED: list[tuple[str, str, str, Any, str]] = [
    ("response", "openai", "choices_not_list", {**_chat({"content": "x"}), "choices": {}}, "choices"),
    ("response", "openai", "message_missing",
     {**_chat({}), "choices": [{"index": 0, "finish_reason": "stop"}]}, "choices[0].message"),
    ("response", "openai", "content_number", _chat({"content": 5}), "choices[0].message.content"),
    ("response", "openai", "refusal_number", _chat({"refusal": 5}), "choices[0].message.refusal"),
    ("response", "openai", "finish_number", _chat({"content": "x"}, 3), "choices[0].finish_reason"),
    ("response", "openai", "usage_string", _chat({"content": "x"}, usage="lots"), "usage"),
    ("response", "openai", "usage_negative",
     _chat({"content": "x"}, usage={"prompt_tokens": -1}), "usage.prompt_tokens"),
    ("response", "openai", "cached_string",
     _chat({"content": "x"}, usage={**USAGE_10_5, "prompt_tokens_details": {"cached_tokens": "9"}}),
     "usage.prompt_tokens_details.cached_tokens"),
    ("response", "openai", "tool_calls_object", _chat({"tool_calls": {"id": "x"}}, "tool_calls"),
     "choices[0].message.tool_calls"),
    ("response", "openai", "call_function_missing",
     _chat({"tool_calls": [{"id": OK_CALL, "type": "function"}]}, "tool_calls"),
     "choices[0].message.tool_calls[0].function"),
    ("response", "openai", "call_name_missing",
     _chat({"tool_calls": [{"id": OK_CALL, "function": {"arguments": "{}"}}]}, "tool_calls"),
     "choices[0].message.tool_calls[0].function.name"),
    ("response", "openai", "call_id_number",
     _chat({"tool_calls": [{"id": 7, "function": _fn("a", {})}]}, "tool_calls"),
     "choices[0].message.tool_calls[0].id"),
    ("response", "openai", "function_call_not_object",
     _chat({"function_call": "get_weather"}, "function_call"),
     "choices[0].message.function_call"),
    ("response", "vllm", "reasoning_number", _chat({"content": "x", "reasoning": 1}),
     "choices[0].message.reasoning"),
    ("response", "ollama", "ollama_message_string",
     {"model": "m", "message": "hi", "done": True}, "message"),
    ("response", "ollama", "ollama_thinking_number",
     {"model": "m", "message": {"role": "assistant", "content": "", "thinking": 3}, "done": True},
     "message.thinking"),
    ("response", "ollama", "ollama_eval_count_string",
     {"model": "m", "message": {"role": "assistant", "content": ""}, "done": True,
      "eval_count": "5"}, "eval_count"),
    ("response", "ollama", "ollama_arguments_list",
     {"model": "m", "message": {"role": "assistant", "content": "", "tool_calls": [
         {"function": {"name": "f", "arguments": [1]}}]}, "done": True},
     "message.tool_calls[0].function.arguments"),
    ("response", "ollama", "ollama_done_reason_number",
     {"model": "m", "message": {"role": "assistant", "content": ""}, "done": True,
      "done_reason": 1}, "done_reason"),
    ("stream", "openai", "delta_content_number", [_chunk({"content": 5})], "choices[0].delta.content"),
    ("stream", "openai", "tool_index_negative", [_chunk({"tool_calls": [_tc(-1, args="")]})],
     "choices[0].delta.tool_calls[0].index"),
    ("stream", "openai", "tool_name_number",
     [_chunk({"tool_calls": [{"index": 0, "function": {"name": 5}}]})],
     "choices[0].delta.tool_calls[0].function.name"),
    ("stream", "openai", "usage_only_bad", [_chunk(None, usage={"prompt_tokens": "x"})],
     "usage.prompt_tokens"),
    ("stream", "openai", "function_call_delta_name_number",
     [_chunk({"function_call": {"name": 1}})], "choices[0].delta.function_call.name"),
    ("stream", "openai", "function_call_delta_list", [_chunk({"function_call": [1]})],
     "choices[0].delta.function_call"),
    ("response", "openai", "function_call_arguments_number",
     _chat({"function_call": {"name": "f", "arguments": 1}}, "function_call"),
     "choices[0].message.function_call.arguments"),
    ("stream", "vllm", "reasoning_number", [_chunk({"reasoning": 5})], "choices[0].delta.reasoning"),
    ("stream", "groq", "x_groq_usage_bad", [_chunk({}, "stop", x_groq={"usage": []})], "x_groq.usage"),
    ("stream", "ollama", "ollama_content_number",
     [{"model": "m", "message": {"role": "assistant", "content": 1}, "done": False}],
     "message.content"),
    ("stream", "ollama", "ollama_calls_not_list",
     [{"model": "m", "message": {"role": "assistant", "content": "", "tool_calls": {"a": 1}},
       "done": False}], "message.tool_calls"),
    ("request", "openai", "part_type_missing",
     {"messages": [{"role": "user", "content": [{"text": "x"}]}]}, "messages[0].content[0].type"),
    ("request", "openai", "image_url_missing",
     {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]},
     "messages[0].content[0].image_url.url"),
    ("request", "openai", "audio_format_missing",
     {"messages": [{"role": "user", "content": [
         {"type": "input_audio", "input_audio": {"data": "AA=="}}]}]},
     "messages[0].content[0].input_audio.format"),
    ("request", "openai", "developer_image",
     {"messages": [{"role": "developer", "content": [
         {"type": "image_url", "image_url": {"url": "https://x/y.png"}}]}]},
     "messages[0].content[0].type"),
    ("request", "openai", "name_number", {"messages": [{"role": "user", "content": "x", "name": 3}]},
     "messages[0].name"),
    ("request", "openai", "call_name_number",
     {"messages": [{"role": "assistant", "content": None, "tool_calls": [
         {"id": OK_CALL, "type": "function", "function": {"name": 5, "arguments": "{}"}}]}]},
     "messages[0].tool_calls[0].function.name"),
    ("request", "ollama", "ollama_arguments_number",
     {"messages": [{"role": "assistant", "content": "", "tool_calls": [
         {"function": {"name": "f", "arguments": 3}}]}]},
     "messages[0].tool_calls[0].function.arguments"),
    ("request", "openai", "tool_content_missing",
     {"messages": [{"role": "tool", "tool_call_id": OK_CALL}]}, "messages[0].content"),
    ("request", "ollama", "ollama_image_number",
     {"messages": [{"role": "user", "content": "x", "images": [1]}]}, "messages[0].images[0]"),
    ("request", "ollama", "ollama_tool_name_number",
     {"messages": [{"role": "tool", "content": "x", "tool_name": 1}]}, "messages[0].tool_name"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "provider", "name", "data", "path"), MALFORMED, ids=[c[2] for c in MALFORMED]
)
def test_malformed_gives_decode_error_with_path(
    kind: str, provider: str, name: str, data: Any, path: str
) -> None:
    p = get_provider(provider)
    with pytest.raises(DecodeError) as info:
        if kind == "response":
            p.parse_response(data)
        elif kind == "request":
            p.parse_messages(data)
        else:
            acc = p.stream()
            for event in data:
                acc.feed(event)
            acc.finish()
    assert info.value.path == path, (info.value.path, str(info.value))


def test_stream_model_taken_from_first_chunk_that_names_one() -> None:
    # Azure OpenAI opens with a prompt-filter chunk: no choices, empty model and id.
    first = {
        "id": "",
        "object": "",
        "created": 0,
        "model": "",
        "choices": [],
        "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {}}],
    }
    r, _ = run_stream(get_provider("openai"), [first, _chunk({"content": "x"}), _chunk({}, "stop")])
    assert (r.text, r.model, r.id) == ("x", "gpt-4o-mini", "chatcmpl-123")


def test_vllm_media_url_parts_are_kept_and_resent() -> None:
    body = {"messages": [{"role": "user", "content": [
        {"type": "text", "text": "Transcribe"},
        {"type": "audio_url", "audio_url": {"url": "https://example.com/a.wav"}},
        {"type": "video_url", "video_url": {"url": "https://example.com/v.mp4"}},
    ]}]}  # fmt: skip
    p = get_provider("vllm")
    (m,) = p.parse_messages(body)
    assert m.text == "Transcribe"
    conversion = p.convert([m])
    assert conversion.losses == ()
    assert conversion.body["messages"] == body["messages"]
    # Another provider cannot carry them: a loss, never silence.
    assert len(get_provider("groq").convert([m]).losses) == 2


def test_request_refusal_turn_is_kept_for_openai() -> None:
    body = {"messages": [
        {"role": "user", "content": "x"},
        {"role": "assistant", "content": None, "refusal": "No."},
        {"role": "user", "content": "ok"},
    ]}  # fmt: skip
    p = get_provider("openai")
    ms = p.parse_messages(body)
    assert ms[1].text == ""
    assert ms[1].extras["openai"]["refusal"] == "No."
    out = p.convert(ms)
    assert out.body["messages"][1]["refusal"] == "No."
    # Another provider has no refusal field: a loss.
    assert [loss.what for loss in get_provider("vllm").convert(ms).losses] == [
        "refusal from openai"
    ]


# -- mutated cases: only DecodeError may escape --------------------------------------------

_ALL_CASES: list[tuple[str, str, Any]] = (
    [("response", p, body) for _, p, body, _ in RESPONSES]
    + [("stream", p, events) for _, p, events, _ in STREAMS]
    + [("request", p, body) for _, p, body, _ in REQUESTS]
)


@settings(max_examples=300)
@given(case=st.sampled_from(_ALL_CASES), mutation=mutations)
def test_mutated_cases_raise_only_decode_error(
    case: tuple[str, str, Any], mutation: tuple[list[int], Any]
) -> None:
    kind, provider, data = case
    p = get_provider(provider)
    broken = mutate(data, *mutation)
    if kind == "stream" and isinstance(broken, list):
        feed_all_or_decode_error(p, broken)
    elif kind == "request":
        accepts_or_decode_error(p.parse_messages, broken)
    else:
        accepts_or_decode_error(p.parse_response, broken)
