"""OpenAI chat completions (``/v1/chat/completions``).

The reference chat-completions format: ``developer`` messages, text, image
(``image_url`` with ``detail``), ``input_audio`` and ``file`` parts, assistant
``tool_calls`` with JSON-string arguments, ``refusal``, usage with cached and
reasoning token details, and strict function tools (``strict: true``,
``additionalProperties: false``, every property required, optional ones
nullable). A request's assistant message has no field for reasoning, so each
reasoning part of an assistant turn is dropped and reported as a loss. A
``custom`` tool call (free-form input) is an invalid call whose entry is kept and
sent back to OpenAI as it came; keys of a content part the model has no field for
(``prompt_cache_breakpoint``) are kept and put back on their part. The same
format serves OpenAI-compatible servers: Mistral's content chunks (``thinking``,
read as reasoning) and its ``prefix`` flag are read and kept.
"""

from __future__ import annotations

from ._chat_completions import ChatCompletionsProvider

__all__ = ["PROVIDER", "OpenAIProvider"]


class OpenAIProvider(ChatCompletionsProvider):
    """OpenAI chat completions."""

    name = "openai"
    developer_role = True
    reasoning_field = None
    audio_input = True
    file_input = True
    strict_tools = True


PROVIDER = OpenAIProvider()
"""The OpenAI chat-completions provider."""
