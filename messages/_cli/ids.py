"""Ids and times in the output: the input's own, else derived from the input, never the clock.

A message decoded without an id (every provider wire, canonical or envelope
items without ``id``) gets a fresh, time-based id, and one without a time gets
the current time. Written out, those would make two runs on the same input
differ. So the output keeps the ids and times the input gave, leaves out the
times it did not give, and replaces each id it did not give by a derived one:

    state_0 = sha256(b"messages.cli.ids/1")
    state_i = sha256(state_{i-1} + b"\\x00" + id_i)      if message i had an id
    state_i = sha256(state_{i-1} + b"\\x01" + json_i)    otherwise
    id_i    = hex(state_i)[:32]                          (32 hex digits, as a made id)

``json_i`` is the compact JSON (``to_dict``) of the decoded message without
``id`` and without a ``created_at`` the input did not give. Each derived id thus
depends on the message and on every message before it: equal messages at
different places get different ids, the same conversation gives the same ids in
canonical and envelope output and as a JSON document or JSON Lines, and a
conversation that grows by appending keeps the ids of its earlier messages.
A message ``repair`` adds gets ``hex(sha256(state_n + b"\\x02" + position))[:32]``,
``state_n`` being the state after the whole input.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from .._json import dumps_compact

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .._message import Message
    from .decode import Decoded

__all__ = ["Identities"]

_SEED = hashlib.sha256(b"messages.cli.ids/1").digest()


class Identities:
    """The chain of states above, fed one decoded message at a time, in input order."""

    __slots__ = ("_derived", "_given_ids", "_given_times", "_state")

    def __init__(self) -> None:
        self._state = _SEED
        # For output_dict (repair) only: what observe() saw.
        self._derived: dict[str, str] = {}  # id made on decoding -> derived id
        self._given_ids: set[str] = set()
        self._given_times: set[Any] = set()

    def canonical(self, decoded: Decoded) -> dict[str, Any]:
        """The canonical dict of a decoded message, with its output id and time."""
        d: dict[str, Any] = decoded.message.to_dict()
        if not decoded.given_created:
            del d["created_at"]
        if decoded.given_id:
            self._chain_id(d["id"])
            return d
        derived = self._chain_content(d)
        return {k: derived if k == "id" else v for k, v in d.items()}

    def envelope(self, decoded: Decoded) -> dict[str, Any]:
        """The envelope dict of a decoded message, with its output id and time."""
        from .._envelope import Envelope

        message = decoded.message
        d: dict[str, Any] = Envelope.from_message(message).to_dict()
        if not decoded.given_created:
            d.pop("created_at", None)
        if decoded.given_id:
            self._chain_id(message.id)
            return d
        canonical = message.to_dict()  # the same chain as canonical output
        if not decoded.given_created:
            del canonical["created_at"]
        derived = self._chain_content(canonical)
        return {k: derived if k == "id" else v for k, v in d.items()}

    def observe(self, decoded: Iterable[Decoded]) -> None:
        """Take in every message of the input, before ``output_dict`` (for ``repair``)."""
        for item in decoded:
            message = item.message
            d: dict[str, Any] = message.to_dict()
            if item.given_created:
                self._given_times.add(message.created_at)
            else:
                del d["created_at"]
            if item.given_id:
                self._given_ids.add(message.id)
                self._chain_id(message.id)
            else:
                self._derived[message.id] = self._chain_content(d)

    def output_dict(self, message: Message, position: int, *, envelope: bool) -> dict[str, Any]:
        """The canonical (or envelope) dict of a message of ``repair``'s result.

        A message from the input keeps the id it was given or gets its derived id
        (a merged message has the first one's); a message ``repair`` made (an
        inserted result, a new id for a repeated one) gets one derived from its
        position. A time is kept only where the input gave it.
        """
        if envelope:
            from .._envelope import Envelope

            d: dict[str, Any] = Envelope.from_message(message).to_dict()
        else:
            d = message.to_dict()
        if message.created_at not in self._given_times:
            d.pop("created_at", None)
        mid = message.id
        if mid in self._derived:
            mid = self._derived[mid]
        elif mid not in self._given_ids:
            key = self._state + b"\x02" + str(position).encode()
            mid = hashlib.sha256(key).hexdigest()[:32]
        return {k: mid if k == "id" else v for k, v in d.items()}

    def _chain_id(self, mid: str) -> None:
        """Advance the chain by a message whose id the input gave."""
        data = self._state + b"\x00" + mid.encode("utf-8", "surrogatepass")
        self._state = hashlib.sha256(data).digest()

    def _chain_content(self, d: dict[str, Any]) -> str:
        """Advance the chain by a message without a given id (``d``: its dict); its id."""
        # Once per message without an id in a possibly huge file: its JSON text and
        # one sha256 are most of what deriving ids adds to a convert.
        key = {k: v for k, v in d.items() if k != "id"}
        state = hashlib.sha256(self._state + b"\x01" + dumps_compact(key).encode("ascii"))
        self._state = digest = state.digest()
        return digest[:16].hex()
