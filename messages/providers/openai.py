"""OpenAI chat completions (``/v1/chat/completions``).

The reference chat-completions format: ``developer`` messages, text, image
(``image_url`` with ``detail``), ``input_audio`` and ``file`` parts, assistant
``tool_calls`` with JSON-string arguments, ``refusal``, usage with cached and
reasoning token details, and strict function tools (``strict: true``,
``additionalProperties: false``, every property required, optional ones
nullable). Reasoning cannot be sent back on this wire: each reasoning part of
an assistant turn is dropped and reported as a loss.
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
