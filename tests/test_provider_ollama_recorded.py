"""Ollama parsers over the bodies ollama-python's own test suite serves and sends.

Source: https://github.com/ollama/ollama-python/blob/main/tests/test_client.py
(``test_client_chat``, ``test_client_chat_stream``, ``test_client_chat_images``).
"""

from __future__ import annotations

from messages.providers import FinishReason
from messages.providers.ollama import PROVIDER
from tests.conftest import fixture_entries, load_fixture


def _data(name: str) -> object:
    (entry,) = [e for e in fixture_entries("ollama") if e["file"] == f"ollama/{name}"]
    return load_fixture(entry)


def test_a_body_without_statistics_has_no_usage() -> None:
    # {"model", "message"} only: no done, no counts; zero tokens would be a guess
    r = PROVIDER.parse_response(_data("response_recorded_sdk_minimal.json"))  # type: ignore[arg-type]
    assert r.usage is None
    assert "usage" not in r.message.metadata
    assert (r.text, r.finish_reason) == ("I don't know.", FinishReason.STOP)


def test_done_true_without_counts_is_zero_usage() -> None:
    # Go's omitempty drops zero counts from a finished body: 0, not unknown
    r = PROVIDER.parse_response(
        {"model": "m", "message": {"role": "assistant", "content": ""}, "done": True}
    )
    assert r.usage is not None and r.usage.total_tokens == 0


def test_stream_without_a_done_line_keeps_the_text_and_says_truncated() -> None:
    lines = [
        {"model": "dummy", "message": {"role": "assistant", "content": part}}
        for part in ("I ", "don't ", "know.")
    ]
    acc = PROVIDER.stream()
    deltas = [d for line in lines for d in acc.feed(line)]
    r = acc.finish()
    assert "".join(d.text for d in deltas) == r.text == "I don't know."
    assert r.finish_reason is FinishReason.ERROR
    assert r.error is not None and "done" in r.error
    assert r.usage is None


def test_sdk_request_defaults_are_options_not_conversation() -> None:
    body = _data("request_recorded_sdk_defaults.json")
    messages = PROVIDER.parse_messages(body)  # type: ignore[arg-type]
    out = PROVIDER.format_request(messages)
    assert out["messages"] == body["messages"]  # type: ignore[index]
