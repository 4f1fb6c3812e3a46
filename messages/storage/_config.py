"""ChatHistoryConfig: the context window, what is stored, and the hooks.

Hooks (every one optional, each called with the storage's lock held, so a hook may
call the storage's own methods but should not block for long):

``on_before_add(message, storage) -> Message | None | DROP``
    Runs before a message is added. Return ``None`` to add the message unchanged
    (so an observer that returns nothing changes nothing), another message to add
    that one instead, or :data:`DROP` to add nothing.
``on_after_add(message, storage)``
    Runs after a message was added, with the message actually added.
``on_before_save(storage)``
    Runs when ``save()`` is about to write (only when something changed), before
    truncation. It may add, replace or remove messages.
``on_after_load(storage)``
    Runs after the stored messages were loaded: on first use and on ``reload()``.
``truncation(messages, total_tokens, config) -> Sequence[Message] | None``
    Replaces the default truncation. Called on save when the last message's
    ``metadata["usage"]["total_tokens"]`` exceeds ``context_window -
    reserved_for_completion`` (a budget that may be 0 or negative); returns the
    messages to keep (``None``: keep all). Anything else is a ValidationError
    naming ``truncation``, and nothing changes. The default drops the oldest whole
    turns (a user message and everything up to the next one) and keeps system and
    developer messages.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from .._message import Message
from ..errors import ValidationError

if TYPE_CHECKING:
    from .._ordering import OrderingPolicy
    from ._storage import ChatHistoryStorage

__all__ = [
    "DROP",
    "AfterAddHook",
    "Drop",
    "BeforeAddHook",
    "ChatHistoryConfig",
    "StorageHook",
    "Truncation",
]


class Drop(enum.Enum):
    """The type of :data:`DROP` (annotate a hook ``-> Message | Drop | None``)."""

    DROP = "DROP"

    def __repr__(self) -> str:
        return "DROP"


DROP: Final = Drop.DROP
"""Returned by an ``on_before_add`` hook: do not add the message."""

BeforeAddHook = Callable[[Message, "ChatHistoryStorage"], Message | Drop | None]
"""``on_before_add(message, storage)``: the message to add, None (unchanged) or DROP."""
AfterAddHook = Callable[[Message, "ChatHistoryStorage"], object]
"""``on_after_add(message, storage)``; its return value is ignored."""
StorageHook = Callable[["ChatHistoryStorage"], object]
"""``on_before_save(storage)`` / ``on_after_load(storage)``; return value ignored."""
Truncation = Callable[[tuple[Message, ...], int, "ChatHistoryConfig"], Sequence[Message] | None]
"""``truncation(messages, total_tokens, config)``: the messages to keep (None: all)."""


@dataclass(frozen=True, slots=True)
class ChatHistoryConfig:
    """How a ChatHistoryStorage truncates, what it stores, and its hooks.

    ``policy`` is the OrderingPolicy the history enforces (default: lenient, which
    keeps only the tool-pairing rules, so any conversation a provider accepts can
    be stored). Stored messages that break it give a StorageError on load, unless
    ``repair_on_load=True``: then ``messages.repair`` fixes them (an unanswered
    tool call gets an error result, an orphan result is dropped, ...), the
    storage's ``repairs`` lists each change, and the next ``save()`` writes the
    repaired session. ``store_meta=False`` stores messages without their metadata.
    """

    context_window: int = 60000
    reserved_for_completion: int = 1000
    store_meta: bool = True
    on_before_save: StorageHook | None = None
    on_after_load: StorageHook | None = None
    on_before_add: BeforeAddHook | None = None
    on_after_add: AfterAddHook | None = None
    truncation: Truncation | None = None
    policy: OrderingPolicy | None = None
    repair_on_load: bool = False

    def __post_init__(self) -> None:
        for name in ("context_window", "reserved_for_completion"):
            value = getattr(self, name)
            if type(value) is not int:
                raise ValidationError(f"expected int, got {type(value).__name__}", name)
            if value < 0:
                raise ValidationError("must not be negative", name)
        for name in ("store_meta", "repair_on_load"):
            value = getattr(self, name)
            if value is not True and value is not False:
                raise ValidationError(f"expected bool, got {type(value).__name__}", name)
        for name in (
            "on_before_save",
            "on_after_load",
            "on_before_add",
            "on_after_add",
            "truncation",
        ):
            value = getattr(self, name)
            if value is not None and not callable(value):
                raise ValidationError(
                    f"expected a callable or None, got {type(value).__name__}", name
                )
        if self.policy is not None:
            from .._ordering import OrderingPolicy

            if not isinstance(self.policy, OrderingPolicy):
                raise ValidationError(
                    f"expected an OrderingPolicy or None, got {type(self.policy).__name__}",
                    "policy",
                )

    @property
    def max_prompt_tokens(self) -> int:
        """``context_window - reserved_for_completion``: the budget truncation keeps to.

        It may be 0 or negative (a reservation as large as the window): then any
        reported usage above it truncates.
        """
        return self.context_window - self.reserved_for_completion
