"""Docstrings read for tool descriptions: the summary and one description per parameter.

Google (``Args:``), Sphinx (``:param x:``) and NumPy (``Parameters`` / dashes) styles;
``Attributes:`` and the like describe the fields of a dataclass, TypedDict or NamedTuple.
"""

from __future__ import annotations

import re

__all__ = ["class_doc", "parse_docstring"]

_GOOGLE_HEADERS = frozenset(
    (
        "args",
        "arguments",
        "parameters",
        "params",
        "attributes",
        "fields",
        "keyword args",
        "keyword arguments",
        "kwargs",
        "other parameters",
    )
)
_NUMPY_HEADERS = frozenset(
    ("parameters", "attributes", "other parameters", "keyword arguments", "fields")
)
_SECTION_HEADERS = _GOOGLE_HEADERS | {"returns", "raises"}

# Only schema generation imports this module (on its first use).
_GOOGLE_ITEM = re.compile(r"\*{0,2}([A-Za-z_]\w*)\s*(?:\(.*?\))?\s*:(.*)")
_SPHINX_ITEM = re.compile(
    r":(?:param|parameter|arg|argument|key|keyword|ivar|var|cvar)\s+(?:[^:]*\s)?\*{0,2}(\w+)\s*:(.*)"
)
_NUMPY_ITEM = re.compile(r"\*{0,2}([A-Za-z_]\w*(?:\s*,\s*\*{0,2}[A-Za-z_]\w*)*)\s*(?::.*)?")
_DASHES = re.compile(r"-{3,}\s*")
_HEADER = re.compile(r"([A-Za-z][A-Za-z ]*):\s*")


def _cleandoc(doc: str) -> list[str]:
    lines = doc.expandtabs().splitlines()
    indent = min((len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()), default=0)
    out = [lines[0].strip()] + [line[indent:].rstrip() for line in lines[1:]]
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()
    return out


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _is_numpy_header(lines: list[str], i: int) -> bool:
    return (
        i + 1 < len(lines)
        and bool(lines[i].strip())
        and _DASHES.fullmatch(lines[i + 1].strip()) is not None
    )


def _is_section_start(lines: list[str], i: int) -> bool:
    s = lines[i].strip()
    if s.startswith(":") or _is_numpy_header(lines, i):
        return True
    m = _HEADER.fullmatch(s)
    return m is not None and m.group(1).lower() in _SECTION_HEADERS


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """The first paragraph and per-parameter descriptions (Google, Sphinx, NumPy styles)."""
    if not doc or not doc.strip():
        return "", {}
    lines = _cleandoc(doc)
    summary: list[str] = []
    for i, line in enumerate(lines):
        if not line.strip() or _is_section_start(lines, i):
            break
        summary.append(line.strip())
    params: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if _is_numpy_header(lines, i):
            header = stripped.lower()
            i += 2
            if header in _NUMPY_HEADERS:
                i = _numpy_section(lines, i, _indent(line), params)
            continue
        m = _HEADER.fullmatch(stripped)
        if m is not None and m.group(1).lower() in _GOOGLE_HEADERS:
            i = _google_section(lines, i + 1, _indent(line), params)
            continue
        sm = _SPHINX_ITEM.fullmatch(stripped)
        if sm is not None:
            i = _continued(lines, i + 1, _indent(line), (sm.group(1), sm.group(2)), params)
            continue
        i += 1
    return " ".join(summary), params


def _continued(
    lines: list[str], i: int, base: int, item: tuple[str, str], params: dict[str, str]
) -> int:
    """Collect lines indented deeper than ``base`` as the description of ``item``."""
    name, first = item
    text = [first.strip()] if first.strip() else []
    while i < len(lines):
        line = lines[i]
        if line.strip():
            if _indent(line) <= base or line.strip().startswith(":"):
                break
            text.append(line.strip())
        i += 1
    if text:
        params.setdefault(name, " ".join(text))
    return i


def _google_section(lines: list[str], i: int, header_indent: int, params: dict[str, str]) -> int:
    item_indent = -1
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        indent = _indent(line)
        if indent <= header_indent:
            return i
        if item_indent < 0:
            item_indent = indent
        m = _GOOGLE_ITEM.fullmatch(line.strip()) if indent == item_indent else None
        if m is None:
            i += 1
            continue
        i = _continued(lines, i + 1, item_indent, (m.group(1), m.group(2)), params)
    return i


def _numpy_section(lines: list[str], i: int, base: int, params: dict[str, str]) -> int:
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if _indent(line) < base or _is_numpy_header(lines, i):
            return i
        m = _NUMPY_ITEM.fullmatch(line.strip()) if _indent(line) == base else None
        if m is None:
            i += 1
            continue
        i += 1
        text: list[str] = []
        while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > base):
            if lines[i].strip():
                text.append(lines[i].strip())
            i += 1
        if text:
            for name in m.group(1).split(","):
                params.setdefault(name.strip().lstrip("*"), " ".join(text))
    return i


def class_doc(cls: type) -> str:
    """A class's own docstring, or "" for the one dataclass/NamedTuple generate."""
    doc = cls.__dict__.get("__doc__")
    if not isinstance(doc, str):
        return ""
    if doc.startswith(f"{cls.__name__}(") and "\n" not in doc:
        return ""
    return doc
