"""A stand-in for a sibling module that is imported on first use.

Import time is latency (``import messages`` should cost a few milliseconds), so
the codec modules are not imported until a ``to_dict`` / ``from_dict`` needs them.
The stand-in replaces itself with the real module in the caller's globals on
first attribute access, so later calls pay a plain global lookup.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class LazyModule:
    """Imports ``name`` (relative to ``package``) on first attribute access."""

    __slots__ = ("_globals", "_name", "_package", "_var")

    def __init__(self, name: str, package: str, namespace: dict[str, Any], var: str) -> None:
        self._name = name
        self._package = package
        self._globals = namespace
        self._var = var

    def __getattr__(self, attr: str) -> Any:
        module = importlib.import_module(self._name, self._package)
        self._globals[self._var] = module
        return getattr(module, attr)
