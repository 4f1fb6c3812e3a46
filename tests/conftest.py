"""Shared test helpers: the fixture corpus and a secret sentinel."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=100
)
settings.register_profile(
    "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=200
)
settings.load_profile("ci" if os.environ.get("CI") else "default")

#: A string that must never appear in an error message or a repr.
SECRET = "s3cr3t-SENTINEL-7f1d"

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _manifest() -> dict[str, Any]:
    path = FIXTURES / "MANIFEST.json"
    if not path.exists():
        # The provider tests must run over every fixture; never pass vacuously.
        raise RuntimeError(
            f"provider fixtures not found at {FIXTURES} (tests/fixtures is part of the repository)"
        )
    with path.open(encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


MANIFEST = _manifest()


def fixture_entries(*providers: str) -> list[dict[str, Any]]:
    """MANIFEST entries for the given providers (all when none given)."""
    return [e for e in MANIFEST["entries"] if not providers or e["provider"] in providers]


def load_fixture(entry: dict[str, Any]) -> Any:
    """The decoded fixture: a JSON value, or a list of values for a .jsonl stream."""
    path = FIXTURES / entry["file"]
    text = path.read_text(encoding="utf-8")
    if entry.get("wire_format") == "jsonl" or path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


@pytest.fixture
def secret() -> str:
    """The secret sentinel string."""
    return SECRET


_postgres_origin: list[str] = []


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    """A real PostgreSQL server for this run, started on first use (tests/postgres_server.py).

    No server is a failure, not a skip; outside CI, MESSAGES_TEST_POSTGRES=skip skips.
    """
    from tests import postgres_server

    if os.environ.get("MESSAGES_TEST_POSTGRES") == "skip" and not os.environ.get("CI"):
        pytest.skip("MESSAGES_TEST_POSTGRES=skip")
    try:
        server = postgres_server.start()
    except postgres_server.ServerError as exc:
        pytest.fail(f"the PostgreSQL tests need a server: {exc}", pytrace=False)
    _postgres_origin.append(server.origin)
    try:
        yield server.dsn
    finally:
        server.stop()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Say which PostgreSQL server the storage tests ran against."""
    for origin in _postgres_origin:
        terminalreporter.write_line(f"PostgreSQL tests ran against: {origin}")
