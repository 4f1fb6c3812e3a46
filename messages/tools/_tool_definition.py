"""A tool the model may call: name, description and a JSON Schema for its arguments."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._frozen import FrozenDict, freeze_mapping, thaw
from .._json import json_type, show_name
from .._tool_call import ToolCall, check_tool_name
from ..errors import DecodeError, MessageError, ValidationError
from ._schema import check_schema, strict_schema
from ._validate import validate

__all__ = ["MAX_DESCRIPTION", "ToolDefinition"]

#: Descriptions longer than this still work but trigger a UserWarning (providers
#: truncate or reject them).
MAX_DESCRIPTION = 1024

_DICT_KEYS = frozenset(("name", "description", "parameters", "strict"))


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """A tool offered to the model; ``parameters`` is a JSON Schema of type "object".

    With ``strict=True`` (the default) every object schema without an explicit
    ``additionalProperties`` is closed (``additionalProperties: false``) in what
    :meth:`wire_parameters` returns and in what :meth:`validate_arguments` accepts.
    ``parameters`` is stored deeply frozen exactly as given.
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    strict: bool = True
    _wire: FrozenDict = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        try:
            self._check()
        except RecursionError:  # only when the caller's own stack is already deep
            raise ValidationError("nested too deeply", "parameters") from None

    def _check(self) -> None:
        check_tool_name(self.name, "name")
        _check_description(self.description, stacklevel=5)
        if not isinstance(self.parameters, Mapping):
            raise ValidationError(
                f"expected a JSON Schema mapping, got {type(self.parameters).__name__}",
                "parameters",
            )
        params = freeze_mapping(self.parameters, "parameters")
        _check_parameters(params)
        if type(self.strict) is not bool:
            raise ValidationError(f"expected bool, got {type(self.strict).__name__}", "strict")
        object.__setattr__(self, "parameters", params)
        object.__setattr__(self, "_wire", strict_schema(params) if self.strict else params)

    def __repr__(self) -> str:
        props = self.parameters.get("properties")
        count = len(props) if isinstance(props, Mapping) else 0
        return f"ToolDefinition(name={self.name!r}, properties={count}, strict={self.strict})"

    def wire_parameters(self) -> dict[str, Any]:
        """The schema to send: a plain mutable copy, closed everywhere when ``strict``."""
        result: dict[str, Any] = thaw(self._wire)
        return result

    def validate_arguments(self, call_or_mapping: ToolCall | Mapping[str, Any]) -> None:
        """Raise ValidationError naming the path (never the value) unless the arguments fit.

        Accepts a ToolCall (whose name must be this tool's) or a mapping of arguments.
        A ``null`` for a property its object schema does not require counts as absent:
        OpenAI's strict mode sends optional parameters as required and nullable, so a
        model answers ``null`` for one it leaves out.
        """
        if isinstance(call_or_mapping, ToolCall):
            if call_or_mapping.name != self.name:
                raise ValidationError(
                    f"tool call is for {call_or_mapping.name!r}, not {self.name!r}", "name"
                )
            args: Mapping[str, Any] = call_or_mapping.arguments
        elif isinstance(call_or_mapping, Mapping):
            try:
                args = freeze_mapping(call_or_mapping, "arguments")
            except RecursionError:  # only when the caller's own stack is already deep
                raise ValidationError("nested too deeply to validate", "arguments") from None
        else:
            raise ValidationError(
                f"expected a ToolCall or a mapping, got {type(call_or_mapping).__name__}",
                "arguments",
            )
        validate(args, self._wire, "arguments", nulls_absent=True)

    def to_dict(self) -> dict[str, Any]:
        """``{"name", "description", "parameters", "strict"}`` as plain mutable values."""
        return {
            "name": self.name,
            "description": self.description,
            "parameters": thaw(self.parameters),
            "strict": self.strict,
        }

    @classmethod
    def from_dict(cls, d: Any, path: str = "") -> ToolDefinition:
        """Build from :meth:`to_dict` output; any bad input raises DecodeError at ``path``."""
        if not isinstance(d, Mapping):
            raise DecodeError(f"expected an object, got {json_type(d)}", path)
        for key in d:
            if key not in _DICT_KEYS:
                shown = show_name(key) if type(key) is str else type(key).__name__
                where = f"{path}.{shown}" if path else shown
                raise DecodeError("unknown key in a tool definition", where)
        for key in ("name", "description", "parameters"):
            if key not in d:
                raise DecodeError("required key is missing", f"{path}.{key}" if path else key)
        try:
            return cls(d["name"], d["description"], d["parameters"], d.get("strict", True))
        except MessageError as exc:
            raise DecodeError(exc.message, exc.at(path).path) from None
        except RecursionError:
            raise DecodeError("nested too deeply", path) from None

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        name: str | None = None,
        description: str | None = None,
        *,
        strict: bool = True,
    ) -> ToolDefinition:
        """Describe ``fn`` from its type hints and docstring.

        Parameters with defaults or ``Optional`` types are not required; ``self`` /
        ``cls`` are skipped; ``*args`` / ``**kwargs`` and positional-only parameters
        are refused. The docstring's first paragraph is the description and its
        Google ``Args:``, Sphinx ``:param x:`` or NumPy ``Parameters`` section
        describes each parameter.
        """
        try:
            from ._schema_gen import schema_from_function

            schema, summary = schema_from_function(fn)
        except RecursionError:  # only when the caller's own stack is already deep
            raise ValidationError("nested too deeply", "parameters") from None
        if name is None:
            name = getattr(fn, "__name__", None)
            if name is None:
                raise ValidationError("this callable has no __name__; pass name=", "name")
        return cls(name, _describe(description, summary, name), schema, strict)

    @classmethod
    def from_type(
        cls,
        tp: type[Any],
        name: str | None = None,
        description: str | None = None,
        *,
        strict: bool = True,
    ) -> ToolDefinition:
        """Describe a dataclass, TypedDict or NamedTuple whose fields are the arguments.

        ``name`` defaults to the class name and ``description`` to the first paragraph
        of its docstring; an ``Attributes:`` section (or ``Annotated[X, "..."]``)
        describes fields. Recursive types go to ``$defs`` and are referenced by ``$ref``.
        """
        try:
            from ._schema_gen import schema_from_type

            schema, summary, _ = schema_from_type(tp)
        except RecursionError:  # only when the caller's own stack is already deep
            raise ValidationError("nested too deeply", "parameters") from None
        if name is None:
            name = tp.__name__
        return cls(name, _describe(description, summary, name), schema, strict)


def _describe(description: str | None, summary: str, name: str) -> str:
    if description is not None:
        return description
    if not summary:
        raise ValidationError(
            f"no description for {name!r}: pass description= or write a docstring", "description"
        )
    return summary


def _check_description(description: object, stacklevel: int) -> None:
    if type(description) is not str:
        raise ValidationError(f"expected str, got {type(description).__name__}", "description")
    if not description.strip():
        raise ValidationError("must be a non-empty str", "description")
    if len(description) > MAX_DESCRIPTION:
        warnings.warn(
            f"tool description is {len(description)} characters; providers may truncate or "
            f"reject descriptions over {MAX_DESCRIPTION}",
            UserWarning,
            stacklevel=stacklevel,
        )


def _check_parameters(params: FrozenDict) -> None:
    t = params.get("type")
    if t != "object":
        got = (
            "missing"
            if "type" not in params
            else (f"'{show_name(t)}'" if type(t) is str else json_type(t))
        )
        raise ValidationError(
            f'a tool\'s parameters must be a schema of type "object" (type is {got})',
            "parameters.type",
        )
    check_schema(params, "parameters")
