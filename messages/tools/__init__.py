"""Tools a model may call: definitions, their JSON Schemas, and running the calls.

``ToolDefinition`` (``_tool_definition``) holds a tool's name, description and
parameter schema; the schema is checked and made strict in ``_schema``, generated
from type hints (read by ``_typehints``) and docstrings (``_docstrings``) in
``_schema_gen``, and arguments are checked against it in ``_validate``.
``ToolCall.arguments_as`` builds values from arguments in ``_arguments``.
``Toolbox`` (``_toolbox``, async side ``_toolbox_async``) runs the calls.

Both names are also importable from ``messages``. Nothing is imported until a name is
first used: ``messages._tool_call`` imports ``_arguments`` while ``import messages``
runs, and that must not load the rest.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing this package imports nothing
if TYPE_CHECKING:
    from typing import Any

    from ._tool_definition import ToolDefinition
    from ._toolbox import Toolbox

__all__ = ["ToolDefinition", "Toolbox"]

_LAZY = {"ToolDefinition": "._tool_definition", "Toolbox": "._toolbox"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
