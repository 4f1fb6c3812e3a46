"""OpenAI chat completions (``/v1/chat/completions``).

The reference chat-completions format: ``developer`` messages, text, image
(``image_url`` with ``detail``), ``input_audio`` and ``file`` parts, assistant
``tool_calls`` with JSON-string arguments, ``refusal``, usage with cached and
reasoning token details, and strict function tools (``strict: true``,
``additionalProperties: false``, every property required, optional ones
nullable). A request's assistant message has no field for reasoning, so each
reasoning part of an assistant turn is dropped and reported as a loss. A
``custom`` tool call (free-form input) is an invalid call whose entry is kept and
sent back to OpenAI as it came. A message's cache hint (``Message.cache``) is a
``prompt_cache_breakpoint`` (``{"mode": "explicit"}``) on the last content part of a
system, developer, user or tool message (a string becomes one text part); an
assistant message takes none (a Loss), and a hint's ``ttl`` is a Loss (a
breakpoint lives as long as the request's ``prompt_cache_options.ttl``). Parsing
a request reads a breakpoint on a message's last part back as its hint; keys of
a content part the model has no field for (a breakpoint on another part among
them) are kept and put back on their part. The same
format serves OpenAI-compatible servers: Mistral's content chunks (``thinking``,
read as reasoning) and its ``prefix`` flag are read and kept.
"""

from __future__ import annotations

from ._cache_hints import BREAKPOINT_KEY
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
    cache_key = BREAKPOINT_KEY


PROVIDER = OpenAIProvider()
"""The OpenAI chat-completions provider."""
