"""DeepSeek's chat endpoint (``https://api.deepseek.com/chat/completions``).

The OpenAI format with DeepSeek's rules (api-docs.deepseek.com: "Thinking Mode",
"Reasoning Model", "Context Caching", "Create Chat Completion"):

* Reasoning comes as ``reasoning_content`` (message and stream deltas) and is a
  ``ReasoningPart`` tagged with this provider's tag.
* Thinking mode (the default of current models, and ``deepseek-reasoner``): the
  ``reasoning_content`` of an assistant turn that called tools must be sent back
  in every later request, or the API answers 400 ("The reasoning_content in the
  thinking mode must be passed back to the API" / "Missing reasoning_content
  field in the assistant message"); on a turn without tool calls it is accepted
  and ignored. So DeepSeek's own reasoning goes back as ``reasoning_content`` on
  every assistant turn, and a turn with tool calls that has none of its own (a
  turn of another provider, reasoning dropped) carries ``reasoning_content: ""``,
  which the API accepts. Reasoning of any other provider or origin is a Loss.
* ``DEEPSEEK.with_thinking(False)`` is the provider for requests outside thinking
  mode (``thinking: {"type": "disabled"}``, ``deepseek-chat``) and for the earlier
  ``deepseek-reasoner`` (R1), which answers 400 when an input message carries
  ``reasoning_content``: no reasoning is sent there, each part a Loss.
* ``developer`` messages are sent as ``system``; user content takes text only
  (image, audio and file parts are dropped, each a Loss); tool definitions carry
  no ``strict`` flag (strict mode is a beta endpoint; a strict definition is sent
  with its closed schema).
* Usage: ``prompt_cache_hit_tokens`` are the cached input tokens (the misses are
  the rest of ``prompt_tokens``), ``completion_tokens_details.reasoning_tokens``
  the reasoning tokens. ``finish_reason`` ``insufficient_system_resource`` is
  ERROR. The ``prefix`` flag of a chat-prefix-completion turn is kept and sent back.
* Cache hints (``Message.cache``) are a Loss: DeepSeek caches request prefixes by
  itself and takes no breakpoints.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

from ._base import FinishReason, Usage, as_mapping, count_at, make_usage
from ._cache_hints import no_breakpoints
from ._chat_completions import FINISH, ChatCompletionsProvider, chat_usage

__all__ = ["PROVIDER", "DeepSeekProvider", "deepseek_usage"]

_FINISH: Final = {**FINISH, "insufficient_system_resource": FinishReason.ERROR}


def deepseek_usage(raw: object, path: str) -> tuple[Usage | None, Mapping[str, Any] | None]:
    """DeepSeek usage: the chat counts, ``prompt_cache_hit_tokens`` as the cached input."""
    usage = chat_usage(raw, path)
    if usage is None:
        return None, None
    hit = count_at(as_mapping(raw, path), "prompt_cache_hit_tokens", path)
    if hit is None:
        return usage, None
    return (
        make_usage(
            usage.input_tokens,
            usage.output_tokens,
            usage.total_tokens,
            hit,
            usage.cache_creation_input_tokens,
            usage.reasoning_tokens,
        ),
        None,
    )


class DeepSeekProvider(ChatCompletionsProvider):
    """DeepSeek chat completions (thinking mode unless ``with_thinking(False)``)."""

    name = "deepseek"
    developer_role = False
    reasoning_field: str | None = "reasoning_content"
    reasoning_with_calls = True
    image_input = False
    audio_input = False
    file_input = False
    strict_tools = False
    finish_reasons = _FINISH
    cache_rule = no_breakpoints("deepseek", "it caches request prefixes by itself")

    @property
    def thinking(self) -> bool:
        """Whether requests are formatted for thinking mode (reasoning sent back)."""
        return self.reasoning_field is not None

    def with_thinking(self, enabled: bool) -> DeepSeekProvider:
        """This provider for requests in thinking mode (``True``, the default) or not.

        Outside thinking mode (and for the earlier ``deepseek-reasoner``, which
        rejects ``reasoning_content`` in its input) no reasoning is sent: each
        reasoning part is a Loss. The tag is unchanged.
        """
        other = copy.copy(self)
        other.reasoning_field = "reasoning_content" if enabled else None
        other.reasoning_with_calls = bool(enabled)
        return other

    def _usage(self, raw: object, path: str) -> tuple[Usage | None, Mapping[str, Any] | None]:
        return deepseek_usage(raw, path)

    def __repr__(self) -> str:
        return f"<provider {self.tag}{'' if self.thinking else ' (no thinking)'}>"


PROVIDER = DeepSeekProvider()
"""The DeepSeek provider (thinking mode)."""
