"""Safe JSON parsing: every failure becomes a DecodeError with a path.

Decisions, documented in the README:

* ``NaN``, ``Infinity`` and ``-Infinity`` literals are refused (they are not JSON and
  break equality).
* Duplicate object keys: the last one wins, as in ``json.loads`` and JavaScript's
  ``JSON.parse``. Checking for them would slow every decode.
* Lone surrogates (``"\\ud800"``) are accepted and preserved; ``to_json`` escapes
  them again (its output is ASCII), so they round-trip.
* Integers longer than Python's digit limit (4300 by default), nesting deeper than
  the interpreter allows, and bytes that are not UTF-8 give DecodeError.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._frozen import SCALARS
from .errors import DecodeError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import json
    from collections.abc import Callable
    from typing import Any, NoReturn

    dumps_compact: Callable[[Any], str]
    """Compact JSON (``{"a":1}``) with non-ASCII escaped, so lone surrogates survive."""

__all__ = [
    "JSON_SCALAR_TYPES",
    "JSON_TYPE_NAMES",
    "MAX_NAME",
    "dumps_compact",
    "json_type",
    "loads",
    "loads_object",
    "show_name",
]

# The json module is imported on first use, not by ``import messages`` (import
# time is latency): ``dumps_compact`` is made by the module ``__getattr__`` below
# and the decoder by ``_init``; after that both are plain globals.
_decode: Any = None


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


def _init() -> Any:
    global _decode, json
    import json

    _decode = json.JSONDecoder(parse_constant=_refuse_constant).decode
    globals()["dumps_compact"] = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode
    return _decode


def __getattr__(name: str) -> Any:
    if name == "dumps_compact":
        _init()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def loads(text: str | bytes | bytearray, path: str = "") -> Any:
    """Parse JSON text; any failure raises DecodeError at ``path``."""
    decode = _decode or _init()
    try:
        if not isinstance(text, str):
            if not isinstance(text, (bytes, bytearray)):
                raise DecodeError(f"expected JSON text, got {type(text).__name__}", path)
            text = bytes(text).decode("utf-8")
        return decode(text)
    except DecodeError:
        raise
    except json.JSONDecodeError as exc:
        # Some of json's messages end in "at" already ("Unterminated string starting at").
        what = exc.msg.removesuffix(" at")
        raise DecodeError(
            f"invalid JSON ({what} at line {exc.lineno} column {exc.colno})",
            path or f"$ (line {exc.lineno}, column {exc.colno})",
        ) from None
    except RecursionError:
        raise DecodeError("JSON nested too deeply", path) from None
    except UnicodeError:
        raise DecodeError("JSON text is not valid UTF-8", path) from None
    except (ValueError, TypeError, OverflowError, MemoryError) as exc:
        # ValueError: NaN/Infinity, or an integer over the digit limit.
        msg = str(exc) if "not valid JSON" in str(exc) else type(exc).__name__
        raise DecodeError(f"invalid JSON ({msg})", path) from None


def loads_object(text: str, path: str = "") -> dict[str, Any]:
    """Parse JSON text that must be an object."""
    value = loads(text, path)
    if type(value) is not dict:
        raise DecodeError(f"expected a JSON object, got {json_type(value)}", path)
    return value


#: ``_frozen.SCALARS`` under its former name, for the modules that still import it.
JSON_SCALAR_TYPES = SCALARS

#: JSON Schema type names by exact Python type (what json.loads and freeze give).
JSON_TYPE_NAMES: dict[type, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
    list: "array",
    tuple: "array",
    dict: "object",
}


def json_type(value: object) -> str:
    """The JSON Schema type name of a value, for error messages; never the value itself.

    ``integer`` for an int and ``number`` for a float (JSON Schema's names), ``array``
    for a list or tuple, ``object`` for a mapping (frozen ones included), else the
    Python type name.
    """
    name = JSON_TYPE_NAMES.get(type(value))
    if name is not None:
        return name
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, (dict, Mapping)):
        return "object"
    return type(value).__name__


#: How many characters of an identifier (a key, a parameter or tool name) a message shows.
MAX_NAME = 64


def show_name(name: str) -> str:
    """An identifier as error messages show it: escaped like ``repr()``, at most 64 characters.

    For keys, parameter and tool names, never for values. Control characters
    (a newline, an escape sequence) are shown escaped; a longer name is cut and
    ends with ``...``.
    """
    if len(name) <= MAX_NAME and name.isprintable():
        return name
    text = repr(name)[1:-1]
    return text if len(text) <= MAX_NAME else text[: MAX_NAME - 3] + "..."
