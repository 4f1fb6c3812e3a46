"""A prompt-cache breakpoint on a message: cache the prompt up to and including it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .errors import ValidationError

__all__ = ["CacheHint"]

#: The lifetimes a hint may ask for.
TTLS: Final = frozenset(("5m", "1h"))


@dataclass(frozen=True, slots=True)
class CacheHint:
    """Marks the end of a cacheable prompt prefix: this message and everything before it.

    Set it on a message (``Message.user(text, cache=CacheHint())``) that ends a large,
    stable prefix (a system prompt, tool results, a long document). Providers that take
    explicit breakpoints carry it on the message's last content block (Anthropic and
    OpenRouter ``cache_control``, OpenAI ``prompt_cache_breakpoint``); the others report
    it as a Loss. ``ttl`` asks for a cache lifetime where the provider offers a choice
    (Anthropic: ``"5m"``, the default, or ``"1h"``); None leaves the provider's default.
    """

    ttl: str | None = None

    def __post_init__(self) -> None:
        if self.ttl is not None and (type(self.ttl) is not str or self.ttl not in TTLS):
            raise ValidationError('ttl must be "5m", "1h" or None', "ttl")

    def to_dict(self) -> dict[str, str]:
        """The hint in the canonical dict: ``{}`` or ``{"ttl": ...}``."""
        return {} if self.ttl is None else {"ttl": self.ttl}
