"""The exceptions this package raises on bad input.

Every error is a :class:`MessageError`, which is a :class:`ValueError`, so code that
already catches ``ValueError`` keeps working. Messages name the field, the type and
the length of what was wrong, never the content: message text, tool arguments and
tool results are untrusted and may be secret.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import NoReturn

    from .providers import Loss

__all__ = [
    "ROOT",
    "DecodeError",
    "LossError",
    "MessageError",
    "OrderingError",
    "StorageError",
    "UnknownIdError",
    "ValidationError",
    "ident",
    "reject",
    "undecodable",
]

#: Identifiers shown in an error are cut to this many characters.
IDENT_MAX = 64

#: The path of a DecodeError about the input as a whole (JSONPath's root).
ROOT = "$"


class MessageError(ValueError):
    """Base of every error this package raises on bad input."""

    message: str
    path: str

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message, path)
        self.message = message
        self.path = path

    def __str__(self) -> str:
        if self.path:
            return f"{self.path}: {self.message}"
        return self.message

    def __reduce__(self) -> tuple[type[MessageError], tuple[object, ...]]:
        return (type(self), (self.message, self.path))

    def at(self, prefix: str) -> MessageError:
        """Return a copy of this error whose path is prefixed by ``prefix``."""
        if not self.path or self.path == ROOT:
            path = prefix or self.path
        elif self.path.startswith(ROOT + " "):  # "$ (line 1, column 5)" under a prefix
            path = (prefix or ROOT) + self.path[len(ROOT) :]
        elif self.path.startswith("["):
            path = prefix + self.path
        else:
            path = f"{prefix}.{self.path}" if prefix else self.path
        cls = type(self)
        err = cls.__new__(cls)
        MessageError.__init__(err, self.message, path)
        for key, value in self.__dict__.items():
            if key not in ("message", "path"):
                err.__dict__[key] = value
        return err


class ValidationError(MessageError):
    """A value object rejected its arguments."""


class LossError(ValidationError):
    """A provider was asked to format a conversation it cannot carry in full.

    Raised by ``format_request`` and ``convert`` with ``on_loss="raise"`` (or
    ``strict=True``) before anything is formatted. ``losses`` lists every loss the
    request would have had; the message names the first one's path and what was lost,
    and the count. A ValidationError, so ``except ValidationError`` keeps catching it.
    """

    losses: tuple[Loss, ...]

    def __init__(self, message: str, path: str = "", losses: Iterable[Loss] = ()) -> None:
        super().__init__(message, path)
        self.losses = tuple(losses)

    def __reduce__(self) -> tuple[type[LossError], tuple[str, str, tuple[Loss, ...]]]:
        return (type(self), (self.message, self.path, self.losses))


class DecodeError(MessageError):
    """``from_dict`` / ``from_json`` / a provider parser rejected its input.

    ``path`` says where, e.g. ``messages[3].tool_calls[0].function.arguments``; an
    error about the input as a whole has the root path ``$`` (JSON text that does not
    parse: ``$ (line 1, column 5)``). It is never empty.
    """

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message, path or ROOT)


class OrderingError(MessageError):
    """A ConversationHistory rejected a message (role order or tool pairing).

    ``rule`` names the rule that was broken and ``index`` the position of the
    message that broke it.
    """

    rule: str
    index: int

    def __init__(self, message: str, path: str = "", rule: str = "", index: int = -1) -> None:
        super().__init__(message, path)
        self.rule = rule
        self.index = index

    def __str__(self) -> str:
        where = f"message {self.index}" if self.index >= 0 else ""
        head = f"[{self.rule}] " if self.rule else ""
        text = f"{head}{self.message}"
        if self.path:
            return f"{self.path}: {text}"
        if where:
            return f"{where}: {text}"
        return text

    def __reduce__(self) -> tuple[type[OrderingError], tuple[str, str, str, int]]:
        return (type(self), (self.message, self.path, self.rule, self.index))


class StorageError(MessageError):
    """A storage backend failed or found corrupt data."""


class UnknownIdError(MessageError, KeyError):
    """No message has the id asked for (``ConversationHistory.replace`` / ``remove``).

    Both a MessageError (bad input) and a KeyError (a lookup by key), so either
    ``except`` works.
    """

    def __init__(self, message_id: str) -> None:
        super().__init__(f"no message has id {ident(message_id)}", "id")
        self.message_id = message_id

    def __reduce__(self) -> tuple[type[UnknownIdError], tuple[str]]:
        return (type(self), (self.message_id,))


def ident(value: object) -> str:
    """An identifier (role, tool name, id, type tag, key) as it may appear in an error.

    Quoted and escaped like ``repr`` (control characters never reach a terminal raw)
    and cut to 64 characters, with ``...`` when it was longer. Only identifiers go
    through here: content, argument values and results never appear in errors.
    """
    if not isinstance(value, str):
        return f"<{type(value).__name__}>"
    if len(value) > IDENT_MAX:
        return repr(str(value[:IDENT_MAX])) + "..."
    return repr(str(value))


def reject(message: str, path: str = "") -> NoReturn:
    """Raise a ValidationError: a value object refused what it was given at ``path``."""
    raise ValidationError(message, path)


def undecodable(message: str, path: str = "") -> NoReturn:
    """Raise a DecodeError: input at ``path`` could not be decoded."""
    raise DecodeError(message, path)
