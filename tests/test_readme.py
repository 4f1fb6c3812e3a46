"""Every ```python block of README.md runs, so the README cannot drift from the code.

The conventions for code blocks (``python``, ``python continue``, ``python no-run``)
and the machinery are in ``tests/doc_blocks.py``, shared with ``test_docs.py``; the
tests of that machinery are here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.doc_blocks import (
    ROOT,
    Block,
    Script,
    compile_blocks,
    extract_blocks,
    group_scripts,
    prose_lines,
    run_script,
)

README = ROOT / "README.md"


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
    compile_blocks(BLOCKS, "README.md")


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


def test_another_file_is_named_in_tracebacks_and_flag_errors(tmp_path: Path) -> None:
    (script,) = group_scripts(extract_blocks("```python\n1 / 0\n```\n"), "docs/x.md")
    done = run_script(script, tmp_path, "docs/x.md")
    assert 'File "docs/x.md", line 2' in done.stderr
    with pytest.raises(ValueError, match=r"^docs/x\.md:1: unknown flag"):
        group_scripts(extract_blocks("```python norun\npass\n```\n"), "docs/x.md")


def test_prose_lines_leave_out_every_fenced_block() -> None:
    text = "# a\n```python\n# b\n```\ntext\n~~~\n## c\n~~~\n  ```\n  # d\n  ```\n# e\n"
    assert list(prose_lines(text)) == [(1, "# a"), (5, "text"), (12, "# e")]


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
