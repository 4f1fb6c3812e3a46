"""Provider wire formats: OpenAI (chat completions and Responses), Groq, vLLM, Ollama,
Anthropic, Gemini, DeepSeek, OpenRouter and Mistral.

``get_provider(name)`` returns the provider object; each module is imported only
when its provider is first asked for.
"""

from __future__ import annotations

import importlib

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

__all__ = [
    "PROVIDERS",
    "ChatResponse",
    "Conversion",
    "FinishReason",
    "Loss",
    "LossWarning",
    "Provider",
    "StreamAccumulator",
    "StreamDelta",
    "Usage",
    "get_provider",
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
}

_cache: dict[str, Provider] = {}


def get_provider(name: str, *, origin: str | None = None) -> Provider:
    """The provider named ``name`` (case-insensitive): one of ``PROVIDERS``.

    ``origin`` names the endpoint when opaque state must not travel between two
    endpoints of one provider (see ``Provider.tag``).
    """
    from ..errors import ValidationError

    if origin is not None:
        return get_provider(name).at(origin)
    if not isinstance(name, str):
        raise ValidationError(f"provider name must be a str, got {type(name).__name__}", "provider")
    key = name.strip().lower()
    provider = _cache.get(key)
    if provider is not None:
        return provider
    module = PROVIDERS.get(key)
    if module is None:
        raise ValidationError(
            f"unknown provider; valid providers: {', '.join(PROVIDERS)}", "provider"
        )
    provider = importlib.import_module(module, __name__).PROVIDER
    assert isinstance(provider, Provider)
    _cache[key] = provider
    return provider
