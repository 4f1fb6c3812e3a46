"""Run the ```python blocks of a Markdown file, so documentation cannot drift from the code.

Used by ``test_readme.py`` (README.md) and ``test_docs.py`` (every file under docs/).

Conventions for code blocks (the info string after the fence):

* ``python`` (or ``py``): runs in a fresh interpreter, working directory a new
  temporary directory; it must finish without raising.
* ``python continue``: runs after the block before it, in the same interpreter and
  namespace, so a tour can build up step by step.
* ``python no-run``: compiled (a syntax check) but not run; for fragments that
  need a network, a key or a real model.

Other fences (``console``, ``bash``, ``json``, ``text``...) are not Python and are
ignored. Tracebacks name the Markdown file and its line numbers. Deprecation
warnings are errors.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PYTHON_LANGS = frozenset({"python", "py", "python3"})
KNOWN_FLAGS = frozenset({"continue", "no-run"})

_FENCE = re.compile(r"(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)")

# Runs the blocks of one script in one namespace; each block is compiled with
# leading newlines so that its line numbers are the Markdown file's.
_DRIVER = """\
import json, sys
source, blocks = json.load(sys.stdin)
namespace = {"__name__": "__main__"}
for line, code in blocks:
    exec(compile("\\n" * line + code, source, "exec"), namespace)
"""


@dataclass(frozen=True)
class Block:
    """One fenced Python block: where it opens, its code and its flags."""

    line: int
    code: str
    flags: frozenset[str]


@dataclass(frozen=True)
class Script:
    """Blocks that run together: a block and the ``continue`` blocks after it."""

    blocks: tuple[Block, ...]

    @property
    def line(self) -> int:
        """The line of the first block's opening fence."""
        return self.blocks[0].line


@dataclass(frozen=True)
class Fenced:
    """One fenced block of any language: its opening line, info words and body lines."""

    line: int
    end: int
    words: tuple[str, ...]
    body: tuple[str, ...]


def fenced_blocks(text: str) -> Iterator[Fenced]:
    """Every fenced block of ``text`` (CommonMark fences), in order; ``end`` is the closing line."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opening = _FENCE.fullmatch(lines[i])
        if opening is None or (opening["fence"][0] == "`" and "`" in opening["info"]):
            i += 1
            continue
        fence = opening["fence"]
        indent = len(opening["indent"])
        body: list[str] = []
        j = i + 1
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped.startswith(fence) and stripped == fence[0] * len(stripped):
                break
            line = lines[j]
            body.append(line[min(indent, len(line) - len(line.lstrip())) :])
            j += 1
        yield Fenced(i + 1, min(j + 1, len(lines)), tuple(opening["info"].split()), tuple(body))
        i = j + 1


def prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of every line outside fenced blocks (fences included out)."""
    lines = text.splitlines()
    inside: set[int] = set()
    for block in fenced_blocks(text):
        inside.update(range(block.line, block.end + 1))
    for number, line in enumerate(lines, start=1):
        if number not in inside:
            yield number, line


def extract_blocks(text: str) -> list[Block]:
    """Every fenced block whose language is Python, in order."""
    blocks: list[Block] = []
    for fenced in fenced_blocks(text):
        if fenced.words and fenced.words[0].lower() in PYTHON_LANGS:
            flags = frozenset(w.lower() for w in fenced.words[1:])
            blocks.append(Block(fenced.line, "\n".join(fenced.body) + "\n", flags))
    return blocks


def group_scripts(blocks: list[Block], source: str = "README.md") -> list[Script]:
    """Group runnable blocks into scripts; a ``continue`` block joins the one before."""
    scripts: list[list[Block]] = []
    previous: Block | None = None
    for block in blocks:
        unknown = block.flags - KNOWN_FLAGS
        if unknown:
            raise ValueError(f"{source}:{block.line}: unknown flag(s) {sorted(unknown)}")
        if "continue" in block.flags:
            if previous is None or "no-run" in previous.flags or not scripts:
                raise ValueError(f"{source}:{block.line}: 'continue' needs a runnable block before")
            if "no-run" not in block.flags:
                scripts[-1].append(block)
        elif "no-run" not in block.flags:
            scripts.append([block])
        previous = block
    return [Script(tuple(s)) for s in scripts]


def run_script(
    script: Script, cwd: Path, source: str = "README.md"
) -> subprocess.CompletedProcess[str]:
    """Run a script's blocks in a fresh interpreter; return the finished process.

    ``source`` is the file name tracebacks show, beside the Markdown line numbers.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    payload = json.dumps([source, [[b.line, b.code] for b in script.blocks]])
    return subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", _DRIVER],
        input=payload,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


def compile_blocks(blocks: list[Block], source: str) -> None:
    """Compile every block (``no-run`` ones included); SyntaxError names ``source`` and the line."""
    for block in blocks:
        compile("\n" * block.line + block.code, source, "exec")
