"""Provider wire formats: OpenAI (chat completions and Responses), Groq, vLLM, Ollama,
Anthropic, Gemini, DeepSeek, OpenRouter and Mistral.

``get_provider(name)`` returns the provider object; each module is imported only
when its provider is first asked for.
"""

from __future__ import annotations

import importlib

from ..errors import LossError
from ._base import (
    ChatResponse,
    Conversion,
    FinishReason,
    Loss,
    LossWarning,
    Provider,
    StreamAccumulator,
    StreamDelta,
    Usage,
)
from ._sse import iter_sse

__all__ = [
    "PROVIDERS",
    "ChatResponse",
    "Conversion",
    "FinishReason",
    "Loss",
    "LossError",
    "LossWarning",
    "Provider",
    "StreamAccumulator",
    "StreamDelta",
    "Usage",
    "get_provider",
    "iter_sse",
]

#: The provider names ``get_provider`` accepts, and the module of each.
PROVIDERS: dict[str, str] = {
    "openai": ".openai",
    "groq": ".groq",
    "vllm": ".vllm",
    "ollama": ".ollama",
    "anthropic": ".anthropic",
    "gemini": ".gemini",
    "openai_responses": ".openai_responses",
    "deepseek": ".deepseek",
    "openrouter": ".openrouter",
    "mistral": ".mistral",
    "bedrock": ".bedrock",
    "cohere": ".cohere",
    "gemini_interactions": ".gemini_interactions",
    "otel": ".otel",
}

#: Other names ``get_provider`` accepts (besides ``-`` for ``_`` in any name).
_ALIASES: dict[str, str] = {"responses": "openai_responses"}

_cache: dict[str, Provider] = {}


def _provider_key(name: str) -> str | None:
    """The ``PROVIDERS`` name that ``name`` stands for, or None when it names none.

    Case-insensitive, ``-`` for ``_`` (``openai-responses``), and ``responses``
    for ``openai_responses``.
    """
    key = name.strip().lower().replace("-", "_")
    key = _ALIASES.get(key, key)
    return key if key in PROVIDERS else None


def get_provider(name: str, *, origin: str | None = None) -> Provider:
    """The provider named ``name``: one of ``PROVIDERS``, or another spelling of one.

    Names are case-insensitive and take ``-`` for ``_`` (``openai-responses``);
    ``responses`` is ``openai_responses``.

    ``origin`` names the endpoint when opaque state must not travel between two
    endpoints of one provider (see ``Provider.tag``).
    """
    from ..errors import ValidationError

    if origin is not None:
        return get_provider(name).at(origin)
    if not isinstance(name, str):
        raise ValidationError(f"provider name must be a str, got {type(name).__name__}", "provider")
    key = _provider_key(name)
    if key is None:
        raise ValidationError(
            f"unknown provider; valid providers: {', '.join(PROVIDERS)}", "provider"
        )
    provider = _cache.get(key)
    if provider is not None:
        return provider
    provider = importlib.import_module(PROVIDERS[key], __name__).PROVIDER
    assert isinstance(provider, Provider)
    _cache[key] = provider
    return provider
