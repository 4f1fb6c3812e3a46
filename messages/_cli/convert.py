"""``convert IN --from P --to Q``: a conversation from one format to another.

Deterministic: the same input gives byte-identical output (ids and times as in
``ids``). Whatever the target cannot carry is reported on stderr, never dropped
without a word; ``--strict`` turns that into an error that writes nothing.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from .._jsonl import encode_line
from .decode import Decoded, decode
from .detect import choose
from .formats import is_provider
from .ids import Identities
from .sink import Sink, pretty
from .source import Document, Opened
from .terminal import isatty, loss_words, warn_losses
from .tools import body_tools

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

    from ..tools import ToolDefinition

__all__ = ["input_path", "run"]

_LOSS_PATH = re.compile(r"messages\[(\d+)\](.*)", re.DOTALL)


def run(args: argparse.Namespace) -> int:
    """Run ``convert``; return the exit status."""
    if args.records:
        from .records import convert as records_convert

        return records_convert(args)
    # A progress line would tear output written to the same terminal.
    to_terminal = args.output in (None, "-") and isatty(sys.stdout)
    with Opened(args, progress=not to_terminal) as source:
        if getattr(args, "detect_from", False):
            args.from_format = choose(source)
        tools, dropped = body_tools(source, args.from_format)
        located = decode(source, args.from_format)
        if is_provider(args.to_format):
            return _to_provider(args, list(located), tools, dropped)
        if isinstance(source, Document):
            # Already in memory: decode it all first, so bad input writes nothing.
            located = iter(list(located))
        if tools:
            dropped.append(("tools", f"not carried: {args.to_format} output holds messages only"))
        report = [(args.from_format, path, rule) for path, rule in dropped]
        if warn_losses(args.strict, report, args.to_format):
            return 1
        ids = Identities()
        encode = ids.canonical if args.to_format == "canonical" else ids.envelope
        with Sink(args.output) as sink:
            if args.output_format == "jsonl":
                sink.write_lines(encode_line(encode(decoded)) for decoded in located)
            else:
                sep = "[\n  "
                for decoded in located:
                    sink.write(sep + pretty(encode(decoded)).replace("\n", "\n  "))
                    sep = ",\n  "
                sink.write("[]\n" if sep == "[\n  " else "\n]\n")
    return 0


def _to_provider(
    args: argparse.Namespace,
    decoded: list[Decoded],
    tools: Sequence[ToolDefinition],
    dropped: list[tuple[str, str]],
) -> int:
    from ..providers import get_provider

    provider = get_provider(args.to_format)
    conversion = provider.convert([d.message for d in decoded], tools, on_loss="ignore")
    # Loss paths name the canonical messages; for canonical input, where they are in the file.
    located = not is_provider(args.from_format)
    report = [(args.from_format, path, rule) for path, rule in dropped]
    report += [
        (provider.name, input_path(loss.path, decoded) if located else loss.path, loss_words(loss))
        for loss in conversion.losses
    ]
    if warn_losses(args.strict, report, provider.name):
        return 1
    del decoded  # written from here on: the body alone
    with Sink(args.output) as sink:
        sink.write_json(conversion.body)
    return 0


def input_path(path: str, decoded: Sequence[Decoded]) -> str:
    """A loss path ``messages[i]...`` (i: the input message) as the input's own location."""
    match = _LOSS_PATH.fullmatch(path)
    if match is None or int(match.group(1)) >= len(decoded):
        return path
    loc = decoded[int(match.group(1))].loc
    rest = match.group(2)
    if not loc:
        return path
    if loc.startswith("line "):
        return f"{loc}, {rest[1:]}" if rest.startswith(".") else f"{loc}{rest}"
    return loc + rest
