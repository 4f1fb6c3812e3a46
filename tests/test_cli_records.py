"""The command line on datasets: ``convert``, ``validate`` and ``stats`` with ``--records``."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from messages._cli import main
from messages._cli.record_progress import Bar

from .cli_support import ROOT, cli, python

FIXTURES = ROOT / "tests" / "fixtures" / "records"
SHAREGPT = FIXTURES / "sharegpt_glaive.jsonl"


def _dataset(path: Path, records: int, bad: dict[int, str] | None = None) -> Path:
    """``records`` ShareGPT lines (1-based line numbers in ``bad`` replaced by that text)."""
    lines = []
    for n in range(1, records + 1):
        turns = [
            {"from": "system", "value": "Be brief."},
            {"from": "human", "value": f"Question {n}?"},
            {"from": "gpt", "value": f"Answer {n}."},
        ]
        lines.append((bad or {}).get(n) or json.dumps({"id": f"r{n}", "conversations": turns}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _last(err: str) -> str:
    return err.strip().splitlines()[-1]


def test_convert_sharegpt_to_openai_batch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "batch.jsonl"
    code, _, err = cli(
        capsys,
        "convert",
        "--records",
        str(SHAREGPT),
        "--from",
        "sharegpt",
        "--to",
        "openai-batch",
        "-o",
        str(out),
    )
    assert code == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["custom_id"] for x in lines] == ["request-1", "request-2"]
    assert {x["url"] for x in lines} == {"/v1/chat/completions"}
    assert lines[1]["body"]["messages"][1]["tool_calls"][0]["function"]["name"] == "calculate_area"
    assert [t["function"]["name"] for t in lines[1]["body"]["tools"]] == [
        "calculate_area",
        "calculate_discount",
    ]
    assert _last(err) == f"{SHAREGPT}: 2 read, 2 written, 0 failed"


def test_keys_survive_batch_to_batch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "gemini.jsonl"
    code, _, err = cli(
        capsys,
        "convert",
        "--records",
        str(FIXTURES / "anthropic_batch.jsonl"),
        "--from",
        "anthropic-batch",
        "--to",
        "gemini-batch",
        "-o",
        str(out),
    )
    assert code == 0
    assert [json.loads(x)["key"] for x in out.read_text().splitlines()] == [
        "my-first-request",
        "my-second-request",
    ]
    # the model and max_tokens of an Anthropic request are not a Gemini request's: said, per line
    assert (
        "warning: gemini-batch: line 2 (key 'my-second-request'), params: the request options"
        in err
    )


def test_jobs_give_the_same_bytes_in_input_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _dataset(tmp_path / "in.jsonl", 1500)
    outs = []
    for jobs in ("1", "2", "3"):
        out = tmp_path / f"out{jobs}.jsonl"
        code, _, err = cli(
            capsys,
            "convert",
            "--records",
            str(data),
            "--from",
            "sharegpt",
            "--to",
            "anthropic-batch",
            "-o",
            str(out),
            "--jobs",
            jobs,
        )
        assert code == 0, err
        assert _last(err) == f"{data}: 1500 read, 1500 written, 0 failed"
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] == outs[2]
    keys = [json.loads(x)["custom_id"] for x in outs[0].decode().splitlines()]
    assert keys == [f"r{n}" for n in range(1, 1501)]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_skip_reports_each_bad_line_and_counts_add_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], jobs: str
) -> None:
    bad = {3: "{not json", 700: json.dumps({"conversations": [{"from": "alien", "value": "x"}]})}
    data = _dataset(tmp_path / "in.jsonl", 800, bad)
    out = tmp_path / "out.jsonl"
    code, _, err = cli(
        capsys,
        "convert",
        "--records",
        str(data),
        "--from",
        "sharegpt",
        "--to",
        "canonical",
        "-o",
        str(out),
        "--on-error",
        "skip",
        "--jobs",
        jobs,
    )
    assert code == 1
    errors = [x for x in err.splitlines() if x.startswith("error: ")]
    assert errors[0].startswith("error: line 3")
    assert errors[1] == "error: line 700, conversations[0].from: unknown speaker 'alien'"
    assert _last(err) == f"{data}: 800 read, 798 written, 2 failed"
    assert len(out.read_text().splitlines()) == 798


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_stop_ends_at_the_first_bad_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], jobs: str
) -> None:
    data = _dataset(tmp_path / "in.jsonl", 900, {600: "[1, 2]"})
    out = tmp_path / "out.jsonl"
    code, _, err = cli(
        capsys,
        "convert",
        "--records",
        str(data),
        "--from",
        "sharegpt",
        "--to",
        "openai-ft",
        "-o",
        str(out),
        "--jobs",
        jobs,
    )
    assert code == 1
    assert "error: line 600: expected a JSON object, got array" in err
    assert _last(err) == f"{data}: 600 read, 599 written, 1 failed"


def test_blank_lines_are_not_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "in.jsonl"
    data.write_text("\n" + SHAREGPT.read_text() + "\n  \n", encoding="utf-8")
    code, out, err = cli(
        capsys, "convert", "--records", str(data), "--from", "sharegpt", "--to", "sharegpt"
    )
    assert code == 0
    assert len(out.splitlines()) == 2
    assert _last(err) == f"{data}: 2 read, 2 written, 0 failed"


def test_url_picks_the_responses_endpoint(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(
        capsys,
        "convert",
        "--records",
        str(FIXTURES / "openai_ft_chat.jsonl"),
        "--from",
        "openai-ft",
        "--to",
        "openai-batch",
        "--url",
        "/v1/responses",
    )
    assert code == 0
    first = json.loads(out.splitlines()[0])
    assert first["url"] == "/v1/responses"
    assert first["body"]["instructions"] == "Marv is a factual chatbot that is also sarcastic."


def test_strict_fails_a_record_with_a_loss(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(
        capsys,
        "convert",
        "--records",
        str(FIXTURES / "openai_batch.jsonl"),
        "--from",
        "openai-batch",
        "--to",
        "openai-ft",
        "--strict",
        "--on-error",
        "skip",
    )
    assert code == 1
    assert out == ""
    assert _last(err) == f"{FIXTURES / 'openai_batch.jsonl'}: 2 read, 0 written, 2 failed"


def test_validate_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lenient = ("--format", "sharegpt", "--policy", "lenient")
    code, out, err = cli(capsys, "validate", "--records", str(SHAREGPT), *lenient)
    assert code == 0
    assert out == f"{SHAREGPT}: ok (2 records, lenient ordering)\n"
    assert _last(err) == f"{SHAREGPT}: 2 read, 2 valid, 0 failed"
    calls = [{"from": "human", "value": "a"}, {"from": "observation", "value": "b"}]
    data = tmp_path / "bad.jsonl"
    data.write_text(
        SHAREGPT.read_text() + json.dumps({"conversations": calls}) + "\n", encoding="utf-8"
    )
    code, out, err = cli(capsys, "validate", "--records", str(data), *lenient, "--on-error", "skip")
    assert code == 1
    assert "error: line 3, conversations[1].from: a tool result that no function_call" in err
    assert _last(err) == f"{data}: 3 read, 2 valid, 1 failed"
    # strict ordering wants a system message first, which the glaive lines do not have
    code, out, err = cli(capsys, "validate", "--records", str(SHAREGPT), "--format", "sharegpt")
    assert code == 1
    assert "error: line 1, messages[0]: [system_first]" in err
    assert _last(err) == f"{SHAREGPT}: 1 read, 0 valid, 1 failed"


def test_stats_records(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(
        capsys, "stats", "--records", str(SHAREGPT), "--format", "sharegpt", "--json", "--jobs", "2"
    )
    assert code == 0
    figures = json.loads(out)
    assert figures["records"] == 2
    assert figures["records_with_tools"] == 1
    assert figures["messages"] == 14
    assert figures["roles"]["tool"] == 3
    assert figures["tool_calls"] == {"calculate_area": 3}
    assert _last(err) == f"{SHAREGPT}: 2 read, 2 counted, 0 failed"


@pytest.mark.parametrize(
    "argv",
    [
        ["convert", "IN", "--from", "sharegpt", "--to", "canonical"],
        ["convert", "--records", "IN", "--from", "openai", "--to", "canonical"],
        [
            "convert",
            "--records",
            "IN",
            "--from",
            "sharegpt",
            "--to",
            "canonical",
            "--url",
            "/v1/responses",
        ],
        ["stats", "--records", "IN", "--jobs", "-1"],
    ],
)
def test_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, *[str(SHAREGPT) if a == "IN" else a for a in argv])
    assert code == 2
    assert "error:" in err


def test_no_progress_when_stderr_is_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    cli(capsys, "convert", "--records", str(SHAREGPT), "--from", "sharegpt", "--to", "canonical")
    _, err = capsys.readouterr()
    assert "\r" not in err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_bar_shows_records_rate_and_eta(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = _Terminal()
    bar = Bar(stream, "in.jsonl", 1000)
    bar.update(50, 250)
    text = stream.getvalue()
    assert text.startswith("\rin.jsonl 50 records")
    assert "/s" in text and "25%" in text and "ETA" in text
    bar.clear()
    monkeypatch.setattr(sys, "stderr", stream)
    assert Bar.on_stderr("x", None) is not None


def test_memory_does_not_grow_with_the_number_of_records(tmp_path: Path) -> None:
    peaks = []
    for records in (4000, 16000):
        data = _dataset(tmp_path / f"in{records}.jsonl", records)
        program = (
            "import sys\nfrom messages._cli import main\n"
            "assert main(sys.argv[1:]) == 0\n"
            "print(next(int(x.split()[1]) for x in open('/proc/self/status') if x.startswith('VmHWM')))"
        )
        done = python(
            "-c",
            program,
            "convert",
            "--records",
            str(data),
            "--from",
            "sharegpt",
            "--to",
            "gemini-batch",
            "-o",
            str(tmp_path / "out"),
        )
        assert done.returncode == 0, done.stderr
        peaks.append(int(done.stdout.split()[-1]))
    assert peaks[1] - peaks[0] < 8 * 1024  # KiB: four times the records, the same peak


def test_main_is_the_entry_point() -> None:
    assert (
        main(
            [
                "convert",
                "--records",
                str(SHAREGPT),
                "--from",
                "sharegpt",
                "--to",
                "sharegpt",
                "-o",
                "/dev/null",
            ]
        )
        == 0
    )


def test_canonical_output_is_the_same_bytes_each_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outs = []
    for run in ("a", "b"):
        out = tmp_path / f"{run}.jsonl"
        code, _, _ = cli(
            capsys,
            "convert",
            "--records",
            str(SHAREGPT),
            "--from",
            "sharegpt",
            "--to",
            "canonical",
            "-o",
            str(out),
        )
        assert code == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    first = json.loads(outs[0].splitlines()[0])
    assert first["messages"][0] == {"role": "user", "content": 'Write a definition of "photoshop".'}


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_line_over_max_size_is_one_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], jobs: str
) -> None:
    turn = {"from": "human", "value": "x" * 1_500_000}  # longer than a block read at once
    small = json.dumps({"conversations": [{"from": "human", "value": "small"}]})
    data = tmp_path / "in.jsonl"
    data.write_text(
        f"{small}\r\n{json.dumps({'conversations': [turn]})}\r\n{small}\r\n", encoding="utf-8"
    )
    out = tmp_path / "out.jsonl"
    argv = [
        "convert",
        "--records",
        str(data),
        "--from",
        "sharegpt",
        "--to",
        "sharegpt",
        "-o",
        str(out),
    ]
    code, _, err = cli(capsys, *argv, "--max-size", "1M", "--on-error", "skip", "--jobs", jobs)
    assert code == 1
    assert "error: line 2: the line is longer than --max-size (1048576 bytes)" in err
    assert _last(err) == f"{data}: 3 read, 2 written, 1 failed"
    assert len(out.read_text().splitlines()) == 2
