"""docs/ documents every public name, and every ```python block in docs/ runs.

What counts as documenting a public name (a mention in passing does not): an
*entry*, that is a Markdown heading of level 2 to 4 whose whole text is one code
span holding the name, such as ``### `ToolCall` ``, outside fenced code, in a page
under docs/reference/. Each reference page declares its module on a line
``Module: `messages.providers` ...``; an entry documents that name of the page's
module, or, when the name is qualified (``### `messages.errors.UnknownIdError` ``),
that name of the module it names.

Checked both ways: every name in ``__all__`` of ``messages``, ``messages.providers``
and ``messages.storage`` has an entry (one test per name, so a public name added
without documentation fails here), every entry names a public name of its module
(so a renamed or removed name leaves no stale entry behind), and no name has two.

The code blocks follow the README's conventions (``python``, ``python continue``,
``python no-run``; see ``tests/doc_blocks.py``). Relative links in README.md and
docs/ must point at files and headings that exist.
"""

from __future__ import annotations

import importlib
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.doc_blocks import (
    ROOT,
    Script,
    compile_blocks,
    extract_blocks,
    group_scripts,
    prose_lines,
    run_script,
)

DOCS = ROOT / "docs"
REFERENCE = DOCS / "reference"
README = ROOT / "README.md"
PUBLIC_MODULES = ("messages", "messages.providers", "messages.storage")

_MODULE_LINE = re.compile(r"Module: `(?P<module>messages(?:\.\w+)*)`")
_ENTRY = re.compile(r"#{2,4}[ \t]+`(?P<name>[A-Za-z_][\w.]*)`[ \t]*")
_HEADING = re.compile(r"(?P<level>#{1,6})[ \t]+(?P<text>.*?)[ \t]*#*[ \t]*")
_LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")


@dataclass(frozen=True)
class Entry:
    """A reference entry: the module and name it documents, and where it is."""

    module: str
    name: str
    page: str
    line: int


def page_module(text: str, page: str) -> str:
    """The module a reference page declares on its ``Module:`` line."""
    for _, line in prose_lines(text):
        found = _MODULE_LINE.match(line)
        if found:
            return found["module"]
    raise ValueError(f"{page}: no 'Module: `messages...`' line")


def entries_of(text: str, page: str) -> list[Entry]:
    """The entries of one reference page, in order."""
    module = page_module(text, page)
    entries: list[Entry] = []
    for number, line in prose_lines(text):
        found = _ENTRY.fullmatch(line)
        if found is None:
            continue
        dotted = found["name"]
        if dotted.startswith("messages."):
            owner, _, name = dotted.rpartition(".")
        else:
            owner, name = module, dotted
        entries.append(Entry(owner, name, page, number))
    return entries


def public_names(module: str) -> tuple[str, ...]:
    """``__all__`` of ``module``; empty when it cannot be imported."""
    try:
        imported = importlib.import_module(module)
    except ImportError:
        return ()
    return tuple(getattr(imported, "__all__", ()))


def missing_names(entries: list[Entry], public: Mapping[str, tuple[str, ...]]) -> list[str]:
    """The qualified public names that no entry documents."""
    documented = {(e.module, e.name) for e in entries}
    return [f"{m}.{n}" for m, names in public.items() for n in names if (m, n) not in documented]


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.as_posix()


def _reference_pages() -> list[Path]:
    return sorted(REFERENCE.glob("*.md")) if REFERENCE.is_dir() else []


PAGES = _reference_pages()
ENTRIES = [e for p in PAGES for e in entries_of(p.read_text(encoding="utf-8"), _relative(p))]
PUBLIC = {m: public_names(m) for m in PUBLIC_MODULES}


# ------------------------------------------------------------------ the reference


def test_reference_pages_exist() -> None:
    assert len(PAGES) >= 12, "docs/reference/ should hold one page per area"


@pytest.mark.parametrize(
    "qualified", [f"{m}.{n}" for m, names in PUBLIC.items() for n in names], ids=str
)
def test_public_name_has_a_reference_entry(qualified: str) -> None:
    module, _, name = qualified.rpartition(".")
    assert f"{module}.{name}" not in missing_names(ENTRIES, {module: (name,)}), (
        f"{qualified} is public but docs/reference/ has no entry for it: add a heading "
        f"'### `{name}`' with its signature and what it promises to the page whose "
        f"'Module:' line is `{module}`"
    )


def test_every_public_module_has_names() -> None:
    # A module that failed to import would have no names and no per-name tests.
    assert all(PUBLIC.values()), {m: len(n) for m, n in PUBLIC.items()}


def test_every_entry_names_a_public_name_of_its_module() -> None:
    stale = [
        f"{e.page}:{e.line}: {e.module}.{e.name}"
        for e in ENTRIES
        if e.name not in public_names(e.module)
    ]
    assert not stale, f"entries for names that are not public (renamed or removed?): {stale}"


def test_no_name_has_two_entries() -> None:
    twice = [k for k, n in Counter((e.module, e.name) for e in ENTRIES).items() if n > 1]
    assert not twice, f"documented twice: {twice}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_reference_page_declares_its_module_and_runs_an_example(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    page_module(text, _relative(page))
    scripts = group_scripts(extract_blocks(text), _relative(page))
    assert scripts, f"{_relative(page)} has no runnable ```python example"


def test_the_index_lists_every_entry_beside_its_page() -> None:
    rows = {
        match[1]: line
        for _, line in prose_lines((DOCS / "README.md").read_text(encoding="utf-8"))
        if (match := re.match(r"\| \[[^]]+\]\(reference/([\w-]+\.md)\)", line))
    }
    unlisted = [
        f"{e.page}: {e.name}"
        for e in ENTRIES
        if f"`{e.name}`" not in rows.get(e.page.rpartition("/")[2], "")
        and f"`{e.module}.{e.name}`" not in rows.get(e.page.rpartition("/")[2], "")
    ]
    assert not unlisted, f"docs/README.md does not list: {unlisted}"


# How an entry is recognised.

SAMPLE_PAGE = """\
# Tools

Module: `messages` (and more)

Mentions of `ToolCall` in the text, or in a heading with other words, are no entries:

## Using `ToolResult`

```python
# `ToolDefinition`
```

### `ToolCall`

`ToolCall(id, name, arguments={})`

#### `messages.errors.UnknownIdError`
"""


def test_an_entry_is_a_heading_holding_only_the_name() -> None:
    entries = entries_of(SAMPLE_PAGE, "sample.md")
    assert [(e.module, e.name, e.line) for e in entries] == [
        ("messages", "ToolCall", 13),
        ("messages.errors", "UnknownIdError", 17),
    ]


def test_a_public_name_without_an_entry_is_reported() -> None:
    entries = entries_of(SAMPLE_PAGE, "sample.md")
    public = {"messages": ("ToolCall", "ToolResult", "ToolDefinition")}
    assert missing_names(entries, public) == ["messages.ToolResult", "messages.ToolDefinition"]


def test_a_page_without_a_module_line_is_refused() -> None:
    with pytest.raises(ValueError, match="no 'Module:"):
        entries_of("# Title\n\n### `ToolCall`\n", "sample.md")


# ------------------------------------------------------------- the code blocks


#: Guides whose blocks need a server and run in their own test (tests/test_storage_docs.py).
OWN_RUNNER = {"storage.md"}


def _doc_files() -> list[Path]:
    if not DOCS.is_dir():
        return []
    return sorted(p for p in DOCS.rglob("*.md") if p.relative_to(DOCS).as_posix() not in OWN_RUNNER)


DOC_FILES = _doc_files()
SCRIPTS = [
    (_relative(path), script)
    for path in DOC_FILES
    for script in group_scripts(extract_blocks(path.read_text(encoding="utf-8")), _relative(path))
]


@pytest.mark.parametrize(
    ("source", "script"), SCRIPTS, ids=[f"{source}:{script.line}" for source, script in SCRIPTS]
)
def test_docs_block_runs(source: str, script: Script, tmp_path: Path) -> None:
    done = run_script(script, tmp_path, source)
    assert done.returncode == 0, f"{source} block at line {script.line} failed:\n{done.stderr}"


@pytest.mark.parametrize("path", DOC_FILES, ids=_relative)
def test_docs_blocks_compile(path: Path) -> None:
    compile_blocks(extract_blocks(path.read_text(encoding="utf-8")), _relative(path))


# -------------------------------------------------------------------- the links


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text: lowercase, punctuation out, spaces to hyphens."""
    text = heading.lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in ("L", "N", "M"))
    return kept.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading anchor of a Markdown text (repeated headings get -1, -2, ...)."""
    seen: Counter[str] = Counter()
    found: set[str] = set()
    for _, line in prose_lines(text):
        heading = _HEADING.fullmatch(line)
        if heading is None:
            continue
        base = slug(heading["text"])
        found.add(base if not seen[base] else f"{base}-{seen[base]}")
        seen[base] += 1
    return found


def links(text: str) -> Iterator[tuple[int, str]]:
    """``(line, target)`` of every Markdown link outside code, except web and mail links."""
    for number, line in prose_lines(text):
        for found in _LINK.finditer(re.sub(r"`[^`]*`", "", line)):
            target = found["target"]
            if not re.match(r"[a-z][a-z0-9+.-]*:", target):
                yield number, target


def broken_links(path: Path) -> list[str]:
    """The relative links of a Markdown file whose file or heading does not exist."""
    broken: list[str] = []
    for number, target in links(path.read_text(encoding="utf-8")):
        file_part, _, anchor = target.partition("#")
        goal = (path.parent / file_part).resolve() if file_part else path
        where = f"{_relative(path)}:{number}: {target}"
        if not goal.exists() or (
            anchor and goal.suffix == ".md" and anchor not in anchors(goal.read_text("utf-8"))
        ):
            broken.append(where)
    return broken


@pytest.mark.parametrize("path", [README, *DOC_FILES], ids=_relative)
def test_relative_links_point_at_files_and_headings_that_exist(path: Path) -> None:
    assert not broken_links(path)


def test_slugs_follow_githubs_rule() -> None:
    assert slug("`messages.errors.UnknownIdError`") == "messageserrorsunknowniderror"
    assert slug("What each provider cannot carry") == "what-each-provider-cannot-carry"
    assert slug("History, ordering and repair") == "history-ordering-and-repair"
    assert anchors("# A\n## A\n```\n# B\n```\n") == {"a", "a-1"}


def test_a_link_to_a_missing_heading_is_broken(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Top\n\n[ok](#top) [gone](#nowhere) [file](other.md) `[code](x.md)`\n")
    assert [b.rsplit(": ", 1)[1] for b in broken_links(page)] == ["#nowhere", "other.md"]


# ------------------------------------------------------------------- the README


def test_readme_shows_the_install_command_of_the_distribution() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r'^name = "([^"]+)"', pyproject, re.MULTILINE)
    assert found is not None
    assert f"pip install {found[1]}" in README.read_text(encoding="utf-8")


def _tables(text: str) -> list[list[list[str]]]:
    """The Markdown tables of ``text``: rows of stripped cells, header first, no rule row."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for _, line in prose_lines(text + "\n\n"):
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                current.append(cells)
        elif current:
            tables.append(current)
            current = []
    return tables


def _section(text: str, title: str) -> str:
    """The text under the ``## title`` heading, up to the next heading of level 2."""
    found = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    assert found is not None, f"no '## {title}' section"
    return found[1]


def test_readme_performance_summary_matches_docs_performance() -> None:
    summary = _tables(_section(README.read_text(encoding="utf-8"), "Performance"))
    assert len(summary) == 1, "the README keeps one short performance table"
    head, *rows = summary[0]
    assert 0 < len(rows) <= 10
    full = {
        row[0]: dict(zip(table[0], row, strict=True))
        for table in _tables((DOCS / "performance.md").read_text(encoding="utf-8"))
        for row in table[1:]
    }
    for row in rows:
        assert row[0] in full, f"README row {row[0]!r} is not in docs/performance.md"
        assert dict(zip(head, row, strict=True)).items() <= full[row[0]].items(), row[0]
