"""Field checks shared by the value classes' ``__post_init__`` and their fast ``__init__``.

Every check takes the value and the path to name in the error, and returns the
value in its stored form (a str subclass as ``str``, a list of parts as a tuple,
a mapping frozen). A value class's ``__post_init__`` runs these on its fields;
the fast ``__init__`` of a hot class (see ``_build``) runs the same functions on
its arguments before it stores them, so both ways of building check alike.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from . import _ids, _json
from ._frozen import EMPTY, FrozenDict, freeze_mapping
from ._parts import AudioPart, FilePart, ImagePart, ReasoningPart, TextPart
from .errors import DecodeError, ValidationError, ident, reject

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any

    from ._parts import ContentPart

__all__ = [
    "ASSISTANT_PARTS",
    "TOOL_PARTS",
    "USER_PARTS",
    "check_arguments",
    "check_bool",
    "check_cache",
    "check_content",
    "check_created_at",
    "check_id",
    "check_opt_str",
    "check_str",
    "check_tool_name",
    "known_tool_name",
]

USER_PARTS: frozenset[type] = frozenset((TextPart, ImagePart, AudioPart, FilePart))
ASSISTANT_PARTS: frozenset[type] = frozenset((TextPart, ReasoningPart))
TOOL_PARTS: frozenset[type] = USER_PARTS

_PARTS = (TextPart, ImagePart, AudioPart, FilePart, ReasoningPart)
_KIND = {
    USER_PARTS: "text, image, audio and file parts",
    ASSISTANT_PARTS: "text and reasoning parts",
}


def check_str(value: object, path: str) -> str:
    """``value`` as a plain ``str``; ValidationError when it is not a string."""
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str(value)
    raise ValidationError(f"expected str, got {type(value).__name__}", path)


def check_opt_str(value: object, path: str) -> str | None:
    """``check_str``, or None."""
    return None if value is None else check_str(value, path)


def check_bool(value: object, path: str) -> bool:
    """``value`` when it is exactly True or False."""
    if value is True or value is False:
        return value
    raise ValidationError(f"expected bool, got {type(value).__name__}", path)


def check_id(value: object, path: str = "id") -> str:
    """A non-empty str id."""
    if type(value) is str and value:
        return value
    if isinstance(value, str):
        if value:
            return str(value)
        reject("must be a non-empty str", path)
    raise ValidationError(f"expected str, got {type(value).__name__}", path)


def check_content(
    content: object, allowed: frozenset[type], path: str = "content"
) -> str | tuple[ContentPart, ...]:
    """Content given as a str or a sequence of parts (plain strings become TextParts)."""
    if type(content) is str:
        return content
    if isinstance(content, str):
        return str(content)
    if isinstance(content, (list, tuple)):
        parts: list[ContentPart] = []
        for i, p in enumerate(content):
            if isinstance(p, str):
                parts.append(TextPart(str(p)))
            elif isinstance(p, _PARTS) and isinstance(p, tuple(allowed)):  # or a subclass
                parts.append(p)
            else:
                kind = _KIND.get(allowed, "text, image, audio and file parts")
                reject(f"{type(p).__name__} is not allowed here; expected {kind}", f"{path}[{i}]")
        return tuple(parts)
    if content is None:
        reject("content is required (an empty string is valid)", path)
    raise ValidationError(
        f"expected str or a sequence of parts, got {type(content).__name__}", path
    )


def check_created_at(value: object, path: str = "created_at") -> datetime:
    """An aware datetime, converted to UTC."""
    from datetime import datetime  # imported already by whoever made the value

    if not isinstance(value, datetime):
        reject(f"expected an aware datetime, got {type(value).__name__}", path)
    if value.tzinfo is None or value.utcoffset() is None:
        reject("datetime must be timezone-aware", path)
    utc = _ids.UTC
    return value if value.tzinfo is utc else value.astimezone(utc)


def check_cache(value: object, path: str = "cache") -> Any:
    """A ``CacheHint`` or None."""
    if value is None:
        return None
    from ._cache import CacheHint  # only messages that carry a hint pay for the import

    if not isinstance(value, CacheHint):
        reject(f"expected a CacheHint or None, got {type(value).__name__}", path)
    return value


def check_mapping(value: object, path: str) -> FrozenDict:
    """A JSON object, deeply frozen (``None`` gives the shared empty one)."""
    if value is EMPTY or value is None:
        return EMPTY
    if not isinstance(value, Mapping):
        reject(f"expected a mapping, got {type(value).__name__}", path)
    return freeze_mapping(value, path)


# -- tool names -----------------------------------------------------------------------

_NAME_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
_name_ok = _NAME_RE.fullmatch

# Agents call the same few tools over and over, so names already found valid are
# remembered (bounded) and checked with a set lookup instead of the regular expression.
known_tool_name: set[str] = set()
_KNOWN_MAX = 4096


def tool_name_ok(name: object) -> bool:
    """Whether ``name`` is a valid tool name (``^[A-Za-z0-9_-]{1,64}$``)."""
    if type(name) is not str:
        return False
    return name in known_tool_name or _name_ok(name) is not None


def check_tool_name(name: object, path: str = "name") -> str:
    """``name`` if it is a valid tool name (``^[A-Za-z0-9_-]{1,64}$``)."""
    if type(name) is not str:
        if not isinstance(name, str):
            reject(f"expected str, got {type(name).__name__}", path)
        name = str(name)
    if name in known_tool_name:
        return name
    if _name_ok(name) is None:
        problem = "name is empty" if not name else f"invalid tool name {ident(name)}"
        reject(f"{problem}; must match ^[A-Za-z0-9_-]{{1,64}}$", path)
    if len(known_tool_name) < _KNOWN_MAX:
        known_tool_name.add(name)
    return name


# -- tool arguments -----------------------------------------------------------------


def check_arguments(arguments: object, path: str = "arguments") -> tuple[FrozenDict, str | None]:
    """Tool arguments given as a mapping or JSON text: (frozen object, original text or None)."""
    if type(arguments) is dict:
        return freeze_mapping(arguments, path), None
    if arguments is EMPTY or type(arguments) is FrozenDict:
        return arguments, None
    if isinstance(arguments, str):
        raw = str(arguments)
        try:
            value = _json.loads_object(raw, path)
        except DecodeError as exc:
            reject(exc.message, path)
        return freeze_mapping(value, path), raw
    if isinstance(arguments, Mapping):
        return freeze_mapping(arguments, path), None
    raise ValidationError(
        f"expected a mapping or a JSON object string, got {type(arguments).__name__}", path
    )


def frozen_arguments(arguments: Mapping[str, Any]) -> FrozenDict:
    """``check_arguments`` of a mapping, without the text."""
    return check_arguments(arguments)[0]
