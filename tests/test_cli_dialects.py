"""The command line with the chat-completions dialects deepseek, openrouter and mistral:
``convert --to`` each lists every loss on stderr, ``--strict`` refuses a lossy one, and
``--from`` each reads its request bodies (the fixtures) and its own output back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from messages.providers import get_provider
from messages.providers.mistral import PROVIDER as MISTRAL
from tests.cli_support import EXAMPLE, cli, example, same_conversation

DIALECTS = ("deepseek", "openrouter", "mistral")


@pytest.mark.parametrize("provider", DIALECTS)
def test_convert_example_to_each_dialect(capsys: pytest.CaptureFixture[str], provider: str) -> None:
    code, out, err = cli(capsys, "convert", str(EXAMPLE), "--to", provider)
    assert code == 0
    body = json.loads(out)
    conversion = get_provider(provider).convert(example())
    assert body == json.loads(json.dumps(conversion.body))
    if provider == "mistral":
        # the example's ids are not nine letters and digits: mapped back with wire_ids
        back = MISTRAL.parse_messages(body, ids=MISTRAL.wire_ids(example()))
    else:
        back = get_provider(provider).parse_messages(body)
    same_conversation(back, example())
    lines = err.splitlines()
    assert conversion.losses and len(lines) == len(conversion.losses)
    for line, loss in zip(lines, conversion.losses, strict=True):
        where = loss.path.removeprefix("messages")
        assert line == f"warning: {provider}: {where}: {loss.what} ({loss.rule})"


@pytest.mark.parametrize("provider", DIALECTS)
def test_strict_refuses_a_lossy_conversion(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, provider: str
) -> None:
    out_path = tmp_path / "body.json"
    code, out, err = cli(
        capsys, "convert", str(EXAMPLE), "--to", provider, "--strict", "-o", str(out_path)
    )
    assert (code, out) == (1, "")
    assert not out_path.exists()
    assert err.splitlines()[0].startswith(f"error: {provider}: ")


@pytest.mark.parametrize("provider", DIALECTS)
def test_a_dialects_own_body_converts_back(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, provider: str
) -> None:
    _, out, _ = cli(capsys, "convert", str(EXAMPLE), "--to", provider)
    path = tmp_path / "body.json"
    path.write_text(out, encoding="utf-8")
    code, again, err = cli(capsys, "convert", str(path), "--from", provider, "--to", provider)
    assert (code, err) == (0, "")  # what was lost once is not lost again
    assert json.loads(again)["messages"] == json.loads(out)["messages"]
