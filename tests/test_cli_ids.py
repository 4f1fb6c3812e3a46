"""``convert`` is deterministic: the same input gives byte-identical output.

Ids the input gives are kept; the others are derived from the input (the chain
of hashes documented in messages/_cli/ids.py), and a ``created_at`` the input
does not give is left out, never filled in with the current time.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from messages import Message
from tests.cli_support import EXAMPLE, PROVIDERS, cli, python, write
from tests.conftest import FIXTURES, fixture_entries

FORMATS = ("canonical", "envelope", *PROVIDERS)


def _without_ids(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in d.items() if k not in ("id", "created_at")} for d in items]


def _example_dicts() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    return data


def _sources(tmp_path: Path) -> list[tuple[str, Path]]:
    """(format, file) of every input: canonical and envelope without ids, each provider fixture."""
    bare = _without_ids(_example_dicts())
    sources = [
        ("canonical", EXAMPLE),
        ("canonical", write(tmp_path / "bare.json", json.dumps(bare))),
        ("canonical", write(tmp_path / "bare.jsonl", "".join(json.dumps(d) + "\n" for d in bare))),
    ]
    from messages import Envelope

    rows = [Envelope.from_message(Message.from_dict(d)).to_dict() for d in bare]
    sources.append(("envelope", write(tmp_path / "envelopes.json", json.dumps(_without_ids(rows)))))
    requests = [e for e in fixture_entries() if e["kind"] == "request"]
    sources += [(e["provider"], FIXTURES / e["file"]) for e in requests]
    return sources


_RUN_ALL = """\
import contextlib, io, json, sys
from messages._cli import main
plan = json.load(open(sys.argv[1]))
codes = []
for argv in plan:
    with contextlib.redirect_stderr(io.StringIO()):
        codes.append(main(argv))
print(json.dumps(codes))
"""


def _run_plan(plan: list[list[str]], plan_file: Path) -> list[int]:
    done = python("-c", _RUN_ALL, str(plan_file))
    assert done.returncode == 0, done.stderr[-3000:]
    codes: list[int] = json.loads(done.stdout)
    return codes


def test_every_conversion_is_byte_identical_across_processes(tmp_path: Path) -> None:
    sources = _sources(tmp_path)
    runs = [tmp_path / "first", tmp_path / "second"]
    plans: list[list[list[str]]] = [[], []]
    for k, (fmt, path) in enumerate(sources):
        for target in (*FORMATS, "canonical-jsonl"):
            to, *extra = (
                ["canonical", "--output-format", "jsonl"]
                if target == "canonical-jsonl"
                else [target]
            )
            for run, plan in zip(runs, plans, strict=True):
                out = run / f"{k}-{fmt}-to-{target}.json"
                plan.append(
                    ["convert", str(path), "--from", fmt, "--to", to, *extra, "-o", str(out)]
                )
    codes = []
    for run, plan in zip(runs, plans, strict=True):
        run.mkdir()
        plan_file = write(tmp_path / f"{run.name}.json", json.dumps(plan))
        codes.append(_run_plan(plan, plan_file))
    assert codes[0] == codes[1]
    assert set(codes[0]) == {0}  # losses warn; none stops a conversion without --strict
    written = sorted(p.name for p in runs[0].iterdir())
    assert written == sorted(p.name for p in runs[1].iterdir())
    assert len(written) == len(codes[0]) == len(sources) * (len(FORMATS) + 1)
    different = [n for n in written if (runs[0] / n).read_bytes() != (runs[1] / n).read_bytes()]
    assert different == []
    # No time the input did not give: only the example (which has its own) shows one.
    for name in written:
        if "-to-canonical" in name or "-to-envelope" in name:
            timed = b'"created_at"' in (runs[0] / name).read_bytes()
            assert timed == name.startswith("0-canonical-"), name


def _chain(items: list[dict[str, Any]]) -> list[str]:
    """The ids of messages/_cli/ids.py, computed here from its docstring."""
    state = hashlib.sha256(b"messages.cli.ids/1").digest()
    ids = []
    for item in items:
        if "id" in item:
            state = hashlib.sha256(state + b"\x00" + item["id"].encode()).digest()
            ids.append(item["id"])
            continue
        d = Message.from_dict(item).to_dict()
        del d["id"]
        if "created_at" not in item:
            del d["created_at"]
        text = json.dumps(d, separators=(",", ":")).encode()
        state = hashlib.sha256(state + b"\x01" + text).digest()
        ids.append(state.hex()[:32])
    return ids


def test_ids_follow_the_documented_chain(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    items = _without_ids(_example_dicts())
    items[2]["id"] = "given-id"
    items[3]["created_at"] = "2025-01-02T03:04:05.000006Z"
    path = write(tmp_path / "in.json", json.dumps(items))
    code, out, err = cli(capsys, "convert", str(path), "--to", "canonical")
    assert (code, err) == (0, "")
    written = json.loads(out)
    assert [d["id"] for d in written] == _chain(items)
    assert [d.get("created_at") for d in written] == [d.get("created_at") for d in items]


def _ids(capsys: pytest.CaptureFixture[str], path: Path, *argv: str) -> list[str]:
    code, out, _ = cli(capsys, "convert", str(path), *argv)
    assert code == 0
    return [d["id"] for d in json.loads(out)]


def test_the_same_ids_whatever_the_shape_and_the_target(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bare = _without_ids(_example_dicts())
    listed = write(tmp_path / "c.json", json.dumps(bare, indent=2))
    lines = write(tmp_path / "c.jsonl", "".join(json.dumps(d) + "\n" for d in bare))
    ids = _ids(capsys, listed, "--to", "canonical")
    assert len(set(ids)) == len(ids)
    assert _ids(capsys, lines, "--to", "canonical") == ids
    assert _ids(capsys, lines, "--to", "envelope") == ids
    # A conversation that grows keeps the ids of its earlier messages.
    shorter = write(tmp_path / "short.jsonl", "".join(json.dumps(d) + "\n" for d in bare[:5]))
    assert _ids(capsys, shorter, "--to", "canonical") == ids[:5]


def test_equal_messages_get_different_ids(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    same = [{"role": "user", "content": "again"}] * 3
    ids = _ids(capsys, write(tmp_path / "c.json", json.dumps(same)), "--to", "canonical")
    assert len(set(ids)) == 3


def test_converting_the_output_again_changes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    body = FIXTURES / "anthropic" / "request_tool_roundtrip.json"
    first = tmp_path / "first.json"
    second = tmp_path / "second.json"
    assert (
        cli(
            capsys,
            "convert",
            str(body),
            "--from",
            "anthropic",
            "--to",
            "canonical",
            "-o",
            str(first),
        )[0]
        == 0
    )
    assert cli(capsys, "convert", str(first), "--to", "canonical", "-o", str(second))[0] == 0
    assert first.read_bytes() == second.read_bytes()
