"""The five conversation roles."""

from __future__ import annotations

import enum

from .errors import ValidationError

__all__ = ["MessageRole"]


class MessageRole(enum.Enum):
    """Who speaks a message. ``.value`` is the wire string, ``.code`` a stable int."""

    SYSTEM = "system"
    DEVELOPER = "developer"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"

    @property
    def code(self) -> int:
        """Stable integer code: SYSTEM=0, DEVELOPER=1, USER=2, ASSISTANT=3, TOOL=4."""
        return _CODES[self]

    @classmethod
    def parse(cls, value: MessageRole | str) -> MessageRole:
        """Parse a member or a role name (case-insensitive, whitespace ignored)."""
        if isinstance(value, MessageRole):
            return value
        if isinstance(value, str):
            role = _BY_NAME.get(value) or _BY_NAME.get(value.strip().lower())
            if role is not None:
                return role
            raise ValidationError(
                f"unknown role (length {len(value)}); valid roles: {_VALID}", "role"
            )
        raise ValidationError(
            f"role must be a MessageRole or str, got {type(value).__name__}; valid roles: {_VALID}",
            "role",
        )

    def __str__(self) -> str:
        return self.value


_CODES = {role: i for i, role in enumerate(MessageRole)}
_BY_NAME = {role.value: role for role in MessageRole}
_VALID = ", ".join(_BY_NAME)
