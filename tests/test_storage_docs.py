"""Every ```python block of docs/storage.md runs (against the test PostgreSQL server)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.doc_blocks import Script, extract_blocks, group_scripts, run_script

DOC = Path(__file__).resolve().parent.parent / "docs" / "storage.md"
SCRIPTS = group_scripts(extract_blocks(DOC.read_text(encoding="utf-8")), "docs/storage.md")


def test_the_guide_has_examples() -> None:
    assert len(SCRIPTS) >= 4


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: f"line{s.line}")
def test_storage_guide_block_runs(
    script: Script, tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    if "PostgresBackend(" in "".join(b.code for b in script.blocks):
        dsn: str = request.getfixturevalue("postgres_dsn")
        schema = f"doc{os.getpid()}_{script.line}"
        import psycopg

        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        request.addfinalizer(lambda: _drop_schema(dsn, schema))
        monkeypatch.setenv("DATABASE_URL", f"{dsn} options='-c search_path={schema}'")
    done = run_script(script, tmp_path, "docs/storage.md")
    assert done.returncode == 0, (
        f"docs/storage.md block at line {script.line} failed:\n{done.stderr}"
    )


def _drop_schema(dsn: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")
