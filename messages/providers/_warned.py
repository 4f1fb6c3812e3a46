"""Which losses a provider has warned about, so that each is warned about once.

An agent loop formats its whole history every turn, with the new messages
appended; warning about every loss each time would repeat the same warnings turn
after turn. A loss about one message is known by that message's ``id`` (stable
across turns, whatever the message's index) with the path inside the message, what
was lost and the rule; a loss about the request as a whole (its tools, the order of
its turns) by its path, what and rule.

``format_request`` and ``convert`` each have their own keys: looking at a
conversation's losses with ``convert`` does not silence the warnings of the request
then sent with ``format_request``. The memory belongs to one provider object, which
every caller of ``get_provider`` shares: it takes a lock, and keeps only the most
recently met keys.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from .._message import Message

if TYPE_CHECKING:
    from ._losses import Loss

__all__ = ["MAX_WARNED_LOSSES", "WarnedLosses"]

#: How many losses a provider object remembers having warned about; past that, the
#: ones met longest ago are forgotten (and warned about again if they come back).
MAX_WARNED_LOSSES: Final = 4096

#: A loss path about one message: ``messages[i]`` and the path inside it.
_MESSAGE_PATH: Final = re.compile(r"messages\[(\d+)\](.*)", re.DOTALL)

_Key = tuple[str, str | None, str, str, str]


def loss_key(loss: Loss, messages: Sequence[Message], caller: str) -> _Key:
    """What makes ``loss`` the same loss in another request of the same conversation,
    met by the same method (``caller``)."""
    match = _MESSAGE_PATH.fullmatch(loss.path)
    if match is not None:
        index = int(match.group(1))
        if index < len(messages):
            return (caller, messages[index].id, match.group(2), loss.what, loss.rule)
    return (caller, None, loss.path, loss.what, loss.rule)


class WarnedLosses:
    """The keys of the losses warned about, the most recently met last (thread-safe)."""

    __slots__ = ("_keys", "_lock")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._keys: OrderedDict[_Key, None] = OrderedDict()

    def new(self, losses: Sequence[Loss], messages: Sequence[Message], caller: str) -> list[Loss]:
        """The losses ``caller`` has not warned about before, now remembered as warned about."""
        keys = [loss_key(loss, messages, caller) for loss in losses]
        fresh = []
        with self._lock:
            known = self._keys
            for loss, key in zip(losses, keys, strict=True):
                if key in known:
                    known.move_to_end(key)
                    continue
                known[key] = None
                fresh.append(loss)
            while len(known) > MAX_WARNED_LOSSES:
                known.popitem(last=False)
        return fresh

    def __reduce__(self) -> tuple[type[WarnedLosses], tuple[()]]:
        # A provider sent to another process (or deep-copied) starts with an empty
        # memory: what was warned about here was said here, and a lock does not pickle.
        return (WarnedLosses, ())

    def clear(self) -> None:
        """Forget every loss: each is warned about again the next time it is met."""
        with self._lock:
            self._keys.clear()
