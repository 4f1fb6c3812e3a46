"""Every ```python block of README.md runs, so the README cannot drift from the code.

Conventions for code blocks in README.md (the info string after the fence):

* ``python`` (or ``py``): runs in a fresh interpreter, working directory a new
  temporary directory; it must finish without raising.
* ``python continue``: runs after the block before it, in the same interpreter and
  namespace, so a tour can build up step by step.
* ``python no-run``: compiled (a syntax check) but not run; for fragments that
  need a network, a key or a real model.

Other fences (``console``, ``bash``, ``json``, ``text``...) are not Python and are
ignored. Tracebacks point at README.md line numbers. Deprecation warnings are errors.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

PYTHON_LANGS = frozenset({"python", "py", "python3"})
KNOWN_FLAGS = frozenset({"continue", "no-run"})

_FENCE = re.compile(r"(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)")

# Runs the blocks of one script in one namespace; each block is compiled with
# leading newlines so that its line numbers are README.md's.
_DRIVER = """\
import json, sys
namespace = {"__name__": "__main__"}
for line, code in json.load(sys.stdin):
    exec(compile("\\n" * line + code, "README.md", "exec"), namespace)
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
        """The README line of the first block's opening fence."""
        return self.blocks[0].line


def extract_blocks(text: str) -> list[Block]:
    """Every fenced block whose language is Python, in order (CommonMark fences)."""
    lines = text.splitlines()
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        opening = _FENCE.fullmatch(lines[i])
        if opening is None or (opening["fence"][0] == "`" and "`" in opening["info"]):
            i += 1
            continue
        fence = opening["fence"]
        indent = len(opening["indent"])
        words = opening["info"].split()
        body: list[str] = []
        j = i + 1
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped.startswith(fence) and stripped == fence[0] * len(stripped):
                break
            line = lines[j]
            body.append(line[min(indent, len(line) - len(line.lstrip())) :])
            j += 1
        if words and words[0].lower() in PYTHON_LANGS:
            flags = frozenset(w.lower() for w in words[1:])
            blocks.append(Block(i + 1, "\n".join(body) + "\n", flags))
        i = j + 1
    return blocks


def group_scripts(blocks: list[Block]) -> list[Script]:
    """Group runnable blocks into scripts; a ``continue`` block joins the one before."""
    scripts: list[list[Block]] = []
    previous: Block | None = None
    for block in blocks:
        unknown = block.flags - KNOWN_FLAGS
        if unknown:
            raise ValueError(f"README.md:{block.line}: unknown flag(s) {sorted(unknown)}")
        if "continue" in block.flags:
            if previous is None or "no-run" in previous.flags or not scripts:
                raise ValueError(
                    f"README.md:{block.line}: 'continue' needs a runnable block before"
                )
            if "no-run" not in block.flags:
                scripts[-1].append(block)
        elif "no-run" not in block.flags:
            scripts.append([block])
        previous = block
    return [Script(tuple(s)) for s in scripts]


def run_script(script: Script, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a script's blocks in a fresh interpreter; return the finished process."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    payload = json.dumps([[b.line, b.code] for b in script.blocks])
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


def _readme_blocks() -> list[Block]:
    return extract_blocks(README.read_text(encoding="utf-8")) if README.exists() else []


BLOCKS = _readme_blocks()
SCRIPTS = group_scripts(BLOCKS)
_NONE = pytest.param(None, marks=pytest.mark.skip(reason="README.md has no runnable python block"))


@pytest.mark.parametrize(
    "script",
    SCRIPTS or [_NONE],
    ids=lambda s: f"line{s.line}" if isinstance(s, Script) else "none",
)
def test_readme_block_runs(script: Script, tmp_path: Path) -> None:
    done = run_script(script, tmp_path)
    assert done.returncode == 0, f"README.md block at line {script.line} failed:\n{done.stderr}"


@pytest.mark.skipif(not BLOCKS, reason="README.md has no python block")
def test_readme_no_run_blocks_compile() -> None:
    for block in BLOCKS:
        compile("\n" * block.line + block.code, "README.md", "exec")


# ----------------------------------------------------------- the machinery itself

SAMPLE = """\
# Title

```python
x = 1
```

Some text.

```py continue
assert x == 1
```

```bash
echo not python
```

~~~python no-run
client.chat(...)
~~~

- a list item:

  ```python
  if True:
      y = 2
  ```

````python
s = '''
```
'''
````

``` python  Continue
z = y
```
"""


def test_extract_blocks_finds_python_fences_with_lines_flags_and_dedent() -> None:
    blocks = extract_blocks(SAMPLE)
    assert [(b.line, b.flags) for b in blocks] == [
        (3, frozenset()),
        (9, frozenset({"continue"})),
        (17, frozenset({"no-run"})),
        (23, frozenset()),
        (28, frozenset()),
        (34, frozenset({"continue"})),
    ]
    assert blocks[0].code == "x = 1\n"
    assert blocks[2].code == "client.chat(...)\n"
    assert blocks[3].code == "if True:\n    y = 2\n"
    assert blocks[4].code == "s = '''\n```\n'''\n"


def test_group_scripts_joins_continue_blocks_and_leaves_out_no_run() -> None:
    scripts = group_scripts(extract_blocks(SAMPLE))
    assert [[b.line for b in s.blocks] for s in scripts] == [[3, 9], [23], [28, 34]]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("```python no_run\npass\n```\n", "unknown flag"),
        ("```python continue\npass\n```\n", "'continue' needs"),
        ("```python no-run\npass\n```\n```python continue\npass\n```\n", "'continue' needs"),
    ],
)
def test_group_scripts_rejects_unknown_flags_and_dangling_continue(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        group_scripts(extract_blocks(text))


def test_unclosed_fence_runs_to_the_end() -> None:
    assert [b.code for b in extract_blocks("```python\na = 1\nb = 2")] == ["a = 1\nb = 2\n"]


def test_a_block_that_raises_fails_and_names_its_readme_line(tmp_path: Path) -> None:
    text = "intro\n\n```python\nimport messages\n\nraise ValueError('boom')\n```\n"
    (script,) = group_scripts(extract_blocks(text))
    done = run_script(script, tmp_path)
    assert done.returncode != 0
    assert 'File "README.md", line 6' in done.stderr
    assert "ValueError: boom" in done.stderr


def test_continue_shares_a_namespace_and_a_new_block_does_not(tmp_path: Path) -> None:
    text = (
        "```python\nfrom pathlib import Path\nPath('f').write_text('1')\nv = 41\n```\n"
        "```python continue\nassert v + 1 == 42\n```\n"
        "```python\nprint(sorted(globals()))\nv\n```\n"
    )
    first, second = group_scripts(extract_blocks(text))
    assert run_script(first, tmp_path).returncode == 0
    assert (tmp_path / "f").read_text() == "1"  # blocks run in the given directory
    done = run_script(second, tmp_path)
    assert done.returncode != 0
    assert "NameError" in done.stderr


def test_deprecation_warnings_fail_a_block(tmp_path: Path) -> None:
    text = "```python\nimport warnings\nwarnings.warn('old', DeprecationWarning)\n```\n"
    (script,) = group_scripts(extract_blocks(text))
    done = run_script(script, tmp_path)
    assert done.returncode != 0
    assert "DeprecationWarning" in done.stderr
