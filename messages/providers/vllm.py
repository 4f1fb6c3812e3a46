"""vLLM's OpenAI-compatible chat endpoint.

Differences from OpenAI: reasoning comes as ``reasoning`` (current vLLM) or the
legacy ``reasoning_content`` (vLLM <= 0.10; one transitional release sent both
with the same text) — parsers read ``reasoning`` and fall back to
``reasoning_content``, never both; requests send vLLM's own reasoning back as
``reasoning`` (reasoning from anywhere else is a loss). ``developer`` messages
are sent as ``system`` (chat templates know no developer role), ``file`` parts
are not accepted (dropped, a loss), and tool definitions carry no ``strict`` flag
(a strict definition is sent with its closed schema). Tool-call ids are opaque
strings (``chatcmpl-tool-…``, Kimi's ``functions.name:0``); a streamed fragment
whose id differs from the call open at its index starts a new call. The server
takes any sequence of messages, so tool results are not paired up. Cache hints
(``Message.cache``) are a Loss: prefix caching is a server setting, with no
breakpoints in a request.
"""

from __future__ import annotations

from ._cache_hints import no_breakpoints
from ._chat_completions import ChatCompletionsProvider

__all__ = ["PROVIDER", "VLLMProvider"]


class VLLMProvider(ChatCompletionsProvider):
    """vLLM chat completions."""

    name = "vllm"
    developer_role = False
    reasoning_field = "reasoning"
    audio_input = True
    file_input = False
    strict_tools = False
    pairs_tool_results = False
    cache_rule = no_breakpoints("vllm", "prefix caching is a server setting")


PROVIDER = VLLMProvider()
"""The vLLM provider."""
