"""Shared test helpers: the fixture corpus and a secret sentinel."""

from __future__ import annotations

import json
import os
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
