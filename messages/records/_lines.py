"""Reading and writing records one line at a time, with the line in every error and loss."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Literal

from .. import _json
from ..errors import DecodeError, LossError, MessageError, ValidationError, ident
from ..providers._base import GUARDED_ERRORS, Loss, LossWarning
from ._common import Options
from ._formats import Format, format_named
from ._record import Record

__all__ = ["OnLoss", "decode_line", "encode_record", "loss_handler", "read", "write"]

# Compact ASCII JSON, as ``_json.dumps_compact``, without the check for cycles: a line is
# built here from fresh dicts and frozen values, which cannot hold one, and the check's
# bookkeeping for every object and array is a measurable share of writing a line.
_dumps = json.JSONEncoder(separators=(",", ":"), allow_nan=False, check_circular=False).encode

OnLoss = Literal["warn", "ignore", "raise"] | Callable[[Loss], object]
"""What ``write`` does with a loss: warn, ignore, raise LossError, or call a function with it."""


def at_line(exc: BaseException, n: int) -> DecodeError:
    """``exc`` (raised reading line ``n``) as a DecodeError whose path starts with ``line n``."""
    if not isinstance(exc, MessageError):
        what = (
            "nested too deeply"
            if isinstance(exc, RecursionError)
            else f"malformed record ({type(exc).__name__})"
        )
        return DecodeError(what, f"line {n}")
    path = exc.path
    if not path or path == "$":
        return DecodeError(exc.message, f"line {n}")
    if path.startswith("$ ("):  # "$ (line 1, column 5)": the line is the file's, the column its own
        return DecodeError(exc.message, f"line {n}, column {path.rpartition(' ')[2].rstrip(')')}")
    return DecodeError(exc.message, f"line {n}, {path.removeprefix('$.')}")


def decode_line(line: str | bytes, n: int, fmt: Format) -> Record:
    """The record of one line (``n``: its 1-based number); DecodeError at ``line n`` otherwise."""
    try:
        obj = _json.loads(line)
        if type(obj) is not dict:
            raise DecodeError(f"expected a JSON object, got {_json.json_type(obj)}")
        return fmt.read(obj)
    except GUARDED_ERRORS as exc:
        raise at_line(exc, n) from None


def read(file: IO[str] | Iterable[str | bytes], format: str) -> Iterator[Record]:
    """The records of a dataset, one per line, read as they are asked for.

    ``file`` is a text file (or any iterable of lines, ``str`` or UTF-8 ``bytes``);
    ``format`` one of ``FORMATS``. Blank lines are skipped. A line that cannot be
    read raises DecodeError whose path starts with ``line N`` (1-based); the records
    before it have been yielded already.
    """
    fmt = format_named(format)
    return _records(file, fmt)


def _records(lines: Iterable[str | bytes], fmt: Format) -> Iterator[Record]:
    for n, line in enumerate(lines, 1):
        if not isinstance(line, (str, bytes)):
            raise DecodeError(
                f"expected a line (str or bytes), got {type(line).__name__}", f"line {n}"
            )
        if line.strip():
            yield decode_line(line, n, fmt)


def located(loss: Loss, n: int, key: str | None) -> Loss:
    """``loss`` (its path within a record) with the record's line and key in front."""
    where = f"line {n}" if key is None else f"line {n} (key {ident(key)})"
    return Loss(f"{where}, {loss.path}" if loss.path else where, loss.what, loss.rule)


def encode_record(record: Record, n: int, fmt: Format, options: Options) -> tuple[str, list[Loss]]:
    """One output line (without its line end) and its losses, located at line ``n``."""
    try:
        value, losses = fmt.write(record, n, options)
    except MessageError as exc:
        raise ValidationError(exc.message, _at(n, record.key, exc.path)) from None
    text: str = _dumps(value)
    return text, [located(loss, n, record.key) for loss in losses]


def _at(n: int, key: str | None, path: str) -> str:
    return located(Loss(path, "", ""), n, key).path


def loss_handler(on_loss: OnLoss, target: str) -> Callable[[list[Loss]], None]:
    """What ``write`` calls with each record's losses, as ``on_loss`` says."""
    if callable(on_loss):
        report = on_loss

        def call(losses: list[Loss]) -> None:
            for loss in losses:
                report(loss)

        return call
    if on_loss == "ignore":
        return _ignore
    if on_loss == "raise":

        def stop(losses: list[Loss]) -> None:
            if losses:
                first = losses[0]
                raise LossError(
                    f"{target} cannot carry {first.what} ({first.rule}); {len(losses)} loss(es) in this record",
                    first.path,
                    losses,
                )

        return stop
    if on_loss == "warn":

        def warn(losses: list[Loss]) -> None:
            for loss in losses:
                warnings.warn(LossWarning(f"{target}: {loss}"), stacklevel=3)

        return warn
    raise ValidationError("expected 'warn', 'ignore', 'raise' or a function of a Loss", "on_loss")


def _ignore(losses: list[Loss]) -> None:
    return None


def write(
    records: Iterable[Record],
    file: IO[str],
    format: str,
    *,
    on_loss: OnLoss = "warn",
    url: str | None = None,
) -> int:
    """Write each record as one line of ``format`` to the text file ``file``; return the count.

    ``on_loss``: ``"warn"`` (a LossWarning per loss, its path naming the output line
    and the record's key), ``"ignore"``, ``"raise"`` (LossError before the record's
    line is written; the lines before it stay written), or a function called with
    each Loss (``losses.append`` collects them). ``url`` sends every ``openai-batch``
    line to that endpoint (``/v1/chat/completions`` or ``/v1/responses``); by default
    a line goes where its record came from, else to chat completions. A record without
    a key gets ``request-N`` (N: its line) in the formats that need one.
    """
    fmt = format_named(format)
    options = _options(url)
    report = loss_handler(on_loss, format)
    count = 0
    for i, record in enumerate(records):
        if not isinstance(record, Record):
            raise ValidationError(
                f"expected a Record, got {type(record).__name__}", f"records[{i}]"
            )
        text, losses = encode_record(record, i + 1, fmt, options)
        if losses:
            report(losses)
        file.write(text + "\n")
        count += 1
    return count


def _options(url: str | None, stamps: bool = True) -> Options:
    from ._batches import URLS

    if url is not None and url not in URLS:
        raise ValidationError(f"url {ident(url)} is not one of {', '.join(URLS)}", "url")
    return Options(url, stamps)


def convert_line(
    line: str | bytes, n: int, source: Format, target: Format, options: Options
) -> tuple[str, list[Loss]]:
    """One line of ``source`` as one line of ``target`` (DecodeError at ``line n`` when unreadable)."""
    return encode_record(decode_line(line, n, source), n, target, options)
