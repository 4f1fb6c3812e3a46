"""What a provider could not carry: ``Loss``, the list a formatter fills, and the
ways a caller hears of them (``Conversion``, ``LossWarning``, ``LossError``).

Also the losses every provider reports alike: the opaque state another provider
kept on a message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .._frozen import thaw
from .._parts import AudioPart, FilePart, ImagePart, ReasoningPart, TextPart
from ..errors import LossError, ValidationError, ident

__all__ = [
    "DROP_OTHER_REASONING",
    "Conversion",
    "Loss",
    "LossWarning",
    "Losses",
    "foreign_state_losses",
    "key_items",
    "kept_unknown",
    "loss_error",
    "part_words",
]

#: The loss note for reasoning another provider produced (signature-tied providers).
DROP_OTHER_REASONING: Final = "dropped: reasoning is replayed only to the provider that produced it"


class LossWarning(UserWarning):
    """Something the provider cannot carry was converted or dropped."""


@dataclass(frozen=True, slots=True)
class Loss:
    """One thing a provider could not carry: where, what, and the rule applied."""

    path: str
    what: str
    rule: str

    def __post_init__(self) -> None:
        for name in ("path", "what", "rule"):
            if not isinstance(getattr(self, name), str):
                raise ValidationError(
                    f"expected str, got {type(getattr(self, name)).__name__}", name
                )

    def __str__(self) -> str:
        return f"{self.path}: {self.what} ({self.rule})"


@dataclass(frozen=True, slots=True)
class Conversion:
    """A formatted request body and every loss the formatting incurred."""

    body: dict[str, Any]
    losses: tuple[Loss, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.body, dict):
            raise ValidationError(f"expected a dict, got {type(self.body).__name__}", "body")
        losses = tuple(self.losses)
        for i, loss in enumerate(losses):
            if not isinstance(loss, Loss):
                raise ValidationError(f"expected a Loss, got {type(loss).__name__}", f"losses[{i}]")
        object.__setattr__(self, "losses", losses)


class Losses:
    """Collects losses while formatting."""

    __slots__ = ("items",)

    def __init__(self) -> None:
        self.items: list[Loss] = []

    def add(self, path: str, what: str, rule: str) -> None:
        """Record one loss."""
        self.items.append(Loss(path, what, rule))

    def __bool__(self) -> bool:
        return bool(self.items)


def loss_error(name: str, losses: Sequence[Loss]) -> LossError:
    """The LossError of ``on_loss="raise"``: the first loss's path and what, and the count."""
    first = losses[0]
    return LossError(
        f"{name} cannot carry {first.what} ({first.rule}); {len(losses)} loss(es) in all",
        first.path,
        losses,
    )


def part_words(part: object) -> str:
    """What a content part is, in words, for a Loss (``"image"``, not ``ImagePart``)."""
    for cls, words in _PART_WORDS:
        if isinstance(part, cls):
            return words
    return "content part"


_PART_WORDS: Final = (
    (TextPart, "text"),
    (ImagePart, "image"),
    (AudioPart, "audio"),
    (FilePart, "file"),
    (ReasoningPart, "reasoning"),
)


def kept_unknown(state: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The well-formed ``unknown`` items of a provider's extras (others are ignored)."""
    items = state.get("unknown")
    if not isinstance(items, (list, tuple)):
        return []
    return [item for item in items if isinstance(item, Mapping)]


def foreign_state_losses(key: str, state: Mapping[str, Any], path: str, losses: Losses) -> None:
    """A loss for each piece of another provider's state kept on a message.

    Its unknown blocks, its refusal, its thought signature on the text, an audio
    answer, keys kept from its content parts (such as ``cache_control``), the chat
    dialects' ``prefix`` flag and OpenRouter's ``reasoning_details`` are only ever
    re-sent to that provider (``key``).
    """
    rule = f"dropped: only re-sent to {key}"
    for item in kept_unknown(state):
        kind = item.get("type")
        losses.add(
            path, f"{key} {kind if isinstance(kind, str) and kind else 'unknown'} block", rule
        )
    if state.get("refusal"):
        losses.add(path, f"refusal from {key}", rule)
    if state.get("text_signature"):
        losses.add(path, f"thought signature from {key} on the text", rule)
    if state.get("audio"):
        losses.add(path, f"audio answer from {key}", rule)
    for _, keys in key_items(state):
        names = ", ".join(ident(k) for k in keys)
        losses.add(path, f"{key} part keys {names}", rule)
    if state.get("prefix") is not None:
        losses.add(path, f"prefix flag from {key}", rule)
    if state.get("items"):  # the Responses API's output items: ids, phases, layout
        losses.add(path, f"output item ids and layout from {key}", rule)
    if state.get("reasoning_details"):
        losses.add(path, f"reasoning details from {key}", rule)
    if state.get("citations"):  # Cohere's citations of a turn
        losses.add(path, f"citations from {key}", rule)
    if state.get("documents"):  # Cohere's request documents, kept on the first message
        losses.add(path, f"request documents from {key}", rule)
    if state.get("document_blocks"):  # Cohere tool-result documents: their text is sent
        losses.add(path, f"document blocks from {key}", f"sent as text: only {key} takes them")


def key_items(own: Mapping[str, Any]) -> list[tuple[int, Any]]:
    """The ``(index, keys)`` pairs kept under ``own["keys"]``, thawed; malformed ones skipped."""
    items = []
    kept = own.get("keys")
    for item in kept if isinstance(kept, (list, tuple)) else ():
        if isinstance(item, Mapping) and type(item.get("index")) is int:
            keys = item.get("keys")
            if isinstance(keys, Mapping):
                items.append((item["index"], thaw(keys)))
    return items
