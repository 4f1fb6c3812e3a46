"""The formats the command line reads and writes: canonical, envelope, or a provider's.

The provider names come from ``messages.providers``, imported only when a name
other than ``canonical`` or ``envelope`` has to be checked or listed: building
the parser for ``--help`` then costs no provider import.
"""

from __future__ import annotations

from collections.abc import Iterator

__all__ = ["CORE", "FORMATS", "format_name", "is_provider", "provider_names"]

CORE = ("canonical", "envelope")
"""The formats that are not a provider's: the library's own dicts and agents-api envelopes."""


def provider_names() -> tuple[str, ...]:
    """The names ``get_provider`` accepts."""
    from ..providers import PROVIDERS

    return tuple(PROVIDERS)


def format_name(value: str) -> str:
    """A format name as given, spelled as the parser's choices are: lower case, and a
    provider's other spellings (``openai-responses``, ``responses``) as its name."""
    name = value.strip().lower()
    if name in CORE:
        return name
    from ..providers import _provider_key

    return _provider_key(name) or name


def is_provider(fmt: str) -> bool:
    """Whether ``fmt`` (a name the parser accepted) is a provider's format."""
    return fmt not in CORE


class _Formats:
    """Every format name, as argparse ``choices``: the provider names are read on first use."""

    def __contains__(self, name: object) -> bool:
        return name in CORE or name in provider_names()

    def __iter__(self) -> Iterator[str]:
        yield from CORE
        yield from provider_names()


FORMATS = _Formats()
"""``canonical``, ``envelope`` and every provider name (a lazy container)."""
