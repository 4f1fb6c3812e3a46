"""The record formats by name: how each reads a line's JSON value and writes a Record."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from ..errors import ValidationError, ident
from . import _batches, _canonical, _openai_ft, _sharegpt
from ._common import Encoded, Options
from ._record import Record

__all__ = ["FORMATS", "Format", "format_named"]


class Format(NamedTuple):
    """One record format: its reader and its writer."""

    read: Callable[[Mapping[str, Any]], Record]
    write: Callable[[Record, int, Options], Encoded]
    has_key: bool


def _anthropic_read(obj: Mapping[str, Any]) -> Record:
    return _batches.read_batch(obj, _batches.ANTHROPIC)


def _anthropic_write(record: Record, n: int, options: Options) -> Encoded:
    return _batches.write_batch(record, n, _batches.ANTHROPIC)


def _gemini_read(obj: Mapping[str, Any]) -> Record:
    return _batches.read_batch(obj, _batches.GEMINI)


def _gemini_write(record: Record, n: int, options: Options) -> Encoded:
    return _batches.write_batch(record, n, _batches.GEMINI)


def _ft_write(record: Record, n: int, options: Options) -> Encoded:
    return _openai_ft.write(record, n)


def _sharegpt_write(record: Record, n: int, options: Options) -> Encoded:
    return _sharegpt.write(record, n)


FORMATS: dict[str, Format] = {
    "canonical": Format(_canonical.read, _canonical.write, True),
    "openai-ft": Format(_openai_ft.read, _ft_write, False),
    "openai-batch": Format(_batches.read_openai, _batches.write_openai, True),
    "anthropic-batch": Format(_anthropic_read, _anthropic_write, True),
    "gemini-batch": Format(_gemini_read, _gemini_write, True),
    "sharegpt": Format(_sharegpt.read, _sharegpt_write, True),
}
"""Every format ``read`` and ``write`` accept, by the name the command line uses."""


def format_named(name: object) -> Format:
    """The format called ``name``; ValidationError naming the valid ones otherwise."""
    found = FORMATS.get(name) if isinstance(name, str) else None
    if found is None:
        raise ValidationError(
            f"unknown record format {ident(name)}; valid: {', '.join(FORMATS)}", "format"
        )
    return found
