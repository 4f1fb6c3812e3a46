"""The test PostgreSQL server itself (tests/postgres_server.py): where its binaries come
from, and that the pgserver wheel's binaries, the fallback, really run here."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import psycopg
import pytest

from tests import postgres_server


def _no_system_postgres(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(postgres_server, "SYSTEM_PATTERNS", ())
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv(postgres_server.ENV_BIN, raising=False)


def _pgserver_bindir() -> Path:
    bindir = postgres_server._pgserver_bindir()
    if bindir is None:  # pragma: no cover - platforms without a pgserver wheel
        pytest.skip("pgserver is not installed here (no wheel for this platform)")
    return bindir


def test_a_system_postgresql_comes_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(postgres_server.ENV_BIN, raising=False)
    if not any(True for _ in postgres_server._system_bindirs()):
        pytest.skip("no system PostgreSQL here")
    bindir, origin = postgres_server.find_bindir()
    assert origin.startswith("system PostgreSQL")
    assert (bindir / "postgres").is_file()


def test_without_one_the_pgserver_wheel_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    wheel = _pgserver_bindir()
    _no_system_postgres(monkeypatch)
    assert postgres_server.find_bindir() == (
        wheel,
        f"the pgserver wheel's PostgreSQL in {wheel}",
    )


def test_without_either_the_error_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_system_postgres(monkeypatch)
    monkeypatch.setattr(postgres_server, "_pgserver_bindir", lambda: None)
    with pytest.raises(postgres_server.ServerError) as info:
        postgres_server.find_bindir()
    message = str(info.value)
    assert "install PostgreSQL" in message
    assert "pgserver" in message
    assert postgres_server.ENV_DSN in message


def test_a_named_directory_without_binaries_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(postgres_server.ENV_BIN, str(tmp_path))
    with pytest.raises(postgres_server.ServerError, match="holds no initdb and postgres"):
        postgres_server.find_bindir()


def _start_and_query(bindir: Path) -> str:
    server = postgres_server._start_cluster(bindir, "test")
    try:
        with psycopg.connect(server.dsn, autocommit=True) as conn:
            row = conn.execute("SELECT current_setting('server_version')").fetchone()
    finally:
        server.stop()
    assert row is not None
    version: str = row[0]
    return version


def test_the_pgserver_binaries_run_here() -> None:
    # Under root (CI) this runs them as `nobody`; as a user, as that user.
    assert _start_and_query(_pgserver_bindir()).startswith("16.")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_binaries_nobody_may_not_read_are_copied_for_it(tmp_path: Path) -> None:
    wheel = _pgserver_bindir()
    site = wheel.parents[2]
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    shutil.copytree(site / "pgserver", private / "pgserver", symlinks=True)
    shutil.copytree(site / "pgserver.libs", private / "pgserver.libs", symlinks=True)
    assert _start_and_query(private / "pgserver" / "pginstall" / "bin").startswith("16.")
