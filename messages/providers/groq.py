"""Groq's OpenAI-compatible chat endpoint.

Differences from OpenAI: reasoning (``reasoning_format=parsed``) comes as
``reasoning`` and Groq's own is sent back the same way (the assistant message
parameter documents it); ``developer`` messages are sent as ``system``; user
content takes text and images only (audio and file parts are dropped, a loss);
tool definitions carry no ``strict`` flag. Streams send each tool call whole
(several per delta) and put usage in ``x_groq.usage`` on the last chunk (a
top-level ``usage`` wins when both are present); an error arrives as a top-level
``{"error": ...}`` object or as ``x_groq.error``. A 400 body with ``code:
tool_use_failed`` parses to a response with finish_reason ERROR whose
``message.metadata["error"]`` keeps ``code`` and ``failed_generation``. The tools a
compound model ran on the server (``executed_tools``: arguments, output, search
results) are kept as they came in ``extras["groq"]``, merged by ``index`` when
streamed, and never sent back. Cache hints
(``Message.cache``) are a Loss: Groq caches prompt prefixes by itself.
"""

from __future__ import annotations

from ._base import as_mapping
from ._cache_hints import no_breakpoints
from ._chat_completions import ChatCompletionsProvider, ChatCompletionsStream, chat_usage

__all__ = ["PROVIDER", "GroqProvider", "GroqStream"]


class GroqStream(ChatCompletionsStream):
    """A chat-completions stream that also reads ``x_groq`` (usage, error)."""

    __slots__ = ()

    vendor_key = "x_groq"

    def _vendor(self, value: object) -> None:
        x = as_mapping(value, "x_groq")
        usage = x.get("usage")
        if usage is not None:
            self._vendor_usage = chat_usage(usage, "x_groq.usage")
        error = x.get("error")
        if error is not None:
            self._set_error(error, "x_groq.error")


class GroqProvider(ChatCompletionsProvider):
    """Groq chat completions."""

    name = "groq"
    developer_role = False
    reasoning_field = "reasoning"
    audio_input = False
    file_input = False
    strict_tools = False
    stream_class = GroqStream
    cache_rule = no_breakpoints("groq", "it caches prompt prefixes by itself")


PROVIDER = GroqProvider()
"""The Groq provider."""
