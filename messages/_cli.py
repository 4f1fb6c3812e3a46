"""The command line: convert, validate and inspect conversation transcripts.

``python -m messages convert | validate | stats``. Exit status: 0 ok, 1 invalid
input (one line on stderr saying where, never the content), 2 usage error.

Input is a JSON document (a request body, a list of messages, or one message) or
JSON Lines (one message per line), detected from the first line or forced with
``--input-format``. JSON Lines are read line by line: converting between canonical
and envelope form, ``validate`` and ``stats`` never hold the file's text whole.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import itertools
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from ._json import json_type, loads
from .errors import DecodeError, MessageError, OrderingError
from .providers import PROVIDERS

if TYPE_CHECKING:
    from ._message import Message
    from ._ordering import OrderingPolicy
    from ._tool_definition import ToolDefinition

__all__ = ["main"]

#: The package's own name, so that a copy vendored under another name says its name.
_PACKAGE = __package__ or "messages"
PROG = f"python -m {_PACKAGE}"

_PROVIDERS = tuple(PROVIDERS)
_FORMATS = ("canonical", "envelope", *_PROVIDERS)
_BOM = b"\xef\xbb\xbf"
_PROGRESS_EVERY = 0x3FFF  # lines between progress updates, minus one (a bit mask)
_INDEXED_PATH = re.compile(r"\[(\d+)\]\.?(.*)", re.DOTALL)
_LOSS_PATH = re.compile(r"messages\[(\d+)\](.*)", re.DOTALL)
_LINE_BREAKS = re.compile("[\u2028\u2029\x85]")


class _Failure(Exception):
    """A problem outside the input's content, such as a file that cannot be read."""


# --------------------------------------------------------------------------- input


@dataclass(frozen=True, slots=True)
class _Document:
    """A whole JSON value: a request body, a list of messages, or one message."""

    value: Any


@dataclass(frozen=True, slots=True)
class _Lines:
    """JSON Lines, not yet parsed: ``(line number, raw bytes)`` of each non-blank line."""

    rows: Iterator[tuple[int, bytes]]


class _Progress:
    """A line count on stderr, shown only when stderr is a terminal."""

    __slots__ = ("_label", "_shown", "_stream")

    def __init__(self, stream: IO[str], label: str) -> None:
        self._stream = stream
        self._label = label
        self._shown = 0

    @staticmethod
    def for_stream(stream: IO[str], label: str) -> _Progress | None:
        """A progress display on ``stream``, or None when it is not a terminal."""
        return _Progress(stream, label) if _isatty(stream) else None

    def show(self, lines: int) -> None:
        """Overwrite the progress line with the current count."""
        text = f"\r{self._label}: {lines:,} lines"
        self._shown = len(text)
        self._stream.write(text)
        self._stream.flush()

    def clear(self) -> None:
        """Erase the progress line, if one was shown."""
        if self._shown:
            self._stream.write("\r" + " " * self._shown + "\r")
            self._stream.flush()
            self._shown = 0


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return False


def _open_input(spec: str) -> tuple[IO[bytes], str]:
    if spec == "-":
        stdin = sys.stdin
        buffer = getattr(stdin, "buffer", None)
        if buffer is None:  # a text-only stream standing in for stdin: small by nature
            return io.BytesIO(stdin.read().encode("utf-8", "surrogateescape")), "<stdin>"
        return buffer, "<stdin>"
    try:
        return open(spec, "rb"), spec
    except OSError as exc:
        raise _Failure(f"{spec}: cannot read ({_reason(exc)})") from None


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def _rows(stream: Iterable[bytes], progress: _Progress | None) -> Iterator[tuple[int, bytes]]:
    # hot path: runs once per line of a possibly huge file; the progress check is a mask.
    if progress is None:
        for n, raw in enumerate(stream, 1):
            if not raw.isspace():
                yield n, raw
        return
    n = 0
    for n, raw in enumerate(stream, 1):
        if not n & _PROGRESS_EVERY:
            progress.show(n)
        if not raw.isspace():
            yield n, raw
    progress.show(n)


def _read(
    stream: IO[bytes],
    name: str,
    forced: str,
    progress: _Progress | None,
    rows: Iterator[tuple[int, bytes]] | None = None,
) -> _Document | _Lines:
    """Detect (or take as forced) JSON or JSON Lines, reading no more than needed."""
    if forced == "json":
        return _Document(loads(stream.read().removeprefix(_BOM), name))
    if rows is None:
        rows = _rows(stream, progress)
    first = next(rows, None)
    if first is None:
        if forced == "jsonl":
            return _Lines(iter(()))
        raise DecodeError("the input is empty; expected JSON or JSON Lines", name)
    n, raw = first
    if n == 1 and raw.startswith(_BOM):
        raw = raw[len(_BOM) :]
        if raw.isspace() or not raw:
            return _read(stream, name, forced, progress, rows)
        first = (n, raw)
    if forced == "jsonl":
        return _Lines(itertools.chain((first,), rows))
    head = raw.strip()
    if head[:1] == b"{" and head[-1:] == b"}":
        try:
            value = loads(head)
        except DecodeError:
            pass  # the first line of an object spread over several lines
        else:
            if type(value) is dict and "role" not in value:
                # One line that is not a message: a request body on a single line,
                # unless more lines follow.
                second = next(rows, None)
                if second is None:
                    return _Document(value)
                return _Lines(itertools.chain((first, second), rows))
            return _Lines(itertools.chain((first,), rows))
    return _Document(loads(raw + stream.read(), name))


# --------------------------------------------------------------------------- decoding


def _at_line(exc: MessageError, line: int) -> MessageError:
    """A copy of ``exc`` located at a line of JSON Lines input."""
    path = exc.path
    if path == "$" or path.startswith("$ "):  # the line as a whole
        return _relocated(exc, f"line {line}")
    return _relocated(exc, f"line {line}, {path}" if path else f"line {line}")


def _relocated(exc: MessageError, path: str) -> MessageError:
    copy = exc.at("")
    copy.path = path
    return copy


def _item_decoder(fmt: str) -> Callable[[Any], Message]:
    if fmt == "canonical":
        from ._codec import from_dict

        def canonical(item: Any) -> Message:
            if type(item) is not dict:  # from_dict would take a list as a list of messages
                raise DecodeError(f"expected a message object, got {json_type(item)}")
            message: Message = from_dict(item)
            return message

        return canonical
    from ._envelope import Envelope

    def envelope(row: Any) -> Message:
        return Envelope.normalize(row).to_message()

    return envelope


#: Top-level keys of a provider's request body that hold conversation content or
#: tool definitions (which a canonical document has not), and the provider each
#: suggests. Other keys (``model``, ``temperature``, ``policy``...) are options,
#: not conversation: a document may have them.
_BODY_KEYS: dict[str, str | None] = {
    "system": "anthropic",
    "systemInstruction": "gemini",
    "system_instruction": "gemini",
    "contents": "gemini",
    "tools": None,
    "functions": None,
}


def _document_items(value: Any, fmt: str) -> list[tuple[str, Any]]:
    """``(location, item)`` of each message in a canonical or envelope document."""
    if type(value) is list:
        return [(f"[{i}]", item) for i, item in enumerate(value)]
    if type(value) is dict:
        inner = value.get("messages")
        if type(inner) is list:
            _refuse_body_keys(value, fmt)
            return [(f"messages[{i}]", item) for i, item in enumerate(inner)]
        if "messages" in value:
            raise DecodeError(f"expected an array, got {json_type(inner)}", "messages")
        if "role" in value:
            return [("", value)]
        _refuse_body_keys(value, fmt)
    raise DecodeError(
        "expected a list of messages, an object with a 'messages' list, or one message; "
        f"got {json_type(value)}"
    )


def _refuse_body_keys(value: dict[str, Any], fmt: str) -> None:
    """DecodeError naming a key that holds a provider body's content, if there is one.

    Reading a request body as canonical would drop its system prompt, contents or
    tools without a word; the error says which ``--from`` reads it.
    """
    found = [key for key in value if key in _BODY_KEYS]
    if not found:
        return
    guess = next((g for g in map(_BODY_KEYS.get, found) if g), None)
    hint = f"--from {guess}" if guess else f"--from PROVIDER (one of {', '.join(_PROVIDERS)})"
    raise DecodeError(
        f"a {fmt} conversation has no such key (it would be lost); "
        f"for a provider's request body, use {hint}",
        found[0],
    )


class _Decoded:
    """One decoded message, where it came from, and whether the input gave its id.

    ``loc`` is the message's place in the input (``messages[3]``, ``line 7``), or
    ``""`` when there is nothing more precise than its index. For a provider's
    request body it is worked out only when asked for (on a problem), because
    that takes a second parse.
    """

    __slots__ = ("_loc", "_where", "given_id", "index", "message")

    def __init__(
        self,
        loc: str,
        message: Message,
        given_id: bool,
        where: _ProviderWhere | None = None,
        index: int = 0,
    ) -> None:
        self._loc = loc
        self.message = message
        self.given_id = given_id
        self._where = where
        self.index = index

    @property
    def loc(self) -> str:
        """Where the message is in the input (``""``: only its index is known)."""
        where = self._where
        if where is not None:
            self._loc = where(self.index)
            self._where = None
        return self._loc


#: Request-body keys whose content becomes the leading system message.
_INSTRUCTION_KEYS = ("system", "systemInstruction", "system_instruction")


class _ProviderWhere:
    """The input location of each message parsed from a provider's request body.

    Worked out on first use by parsing the body's instructions alone, then each
    wire message alone, and counting the messages each gives (one wire message
    may give several: a user turn with tool results). If those counts do not add
    up to the whole parse, no location is given rather than a wrong one.
    """

    __slots__ = ("_body", "_fmt", "_lines", "_table", "_total")

    def __init__(self, fmt: str, body: Any, lines: Sequence[int] | None, total: int) -> None:
        self._fmt = fmt
        self._body = body
        self._lines = lines
        self._total = total
        self._table: list[str] | None = None

    def __call__(self, index: int) -> str:
        table = self._table
        if table is None:
            table = self._table = self._locate() or []
        return table[index] if 0 <= index < len(table) else ""

    def _locate(self) -> list[str] | None:
        from .providers import get_provider

        parse = get_provider(self._fmt).parse_messages
        body = self._body
        locs: list[str] = []
        if type(body) is list:
            items: list[Any] = body
            prefix = ""
        elif type(body) is dict:
            key = next((k for k in ("messages", "contents") if type(body.get(k)) is list), None)
            if key is None:
                return None
            items, prefix = body[key], key
            rest = {k: v for k, v in body.items() if k != key}
            rest[key] = []
            try:
                head = len(parse(rest))
            except MessageError:
                return None
            where = next((k for k in _INSTRUCTION_KEYS if k in body), "")
            locs.extend([where] * head)
        else:
            return None
        lines = self._lines
        for i, item in enumerate(items):
            try:
                count = len(parse([item]))
            except MessageError:
                return None
            loc = f"line {lines[i]}" if lines is not None else f"{prefix}[{i}]"
            locs.extend([loc] * count)
        return locs if len(locs) == self._total else None


def _messages(
    source: _Document | _Lines, fmt: str, problems: list[MessageError] | None
) -> Iterator[_Decoded]:
    """Every message, decoded lazily for JSON Lines.

    With ``problems`` given, a message that fails to decode is recorded there and
    skipped; otherwise its error is raised. ``loc`` is ``""`` when there is nothing
    more precise than the message's index (a provider's request body).
    """
    if fmt in _PROVIDERS:
        yield from _provider_messages(source, fmt, problems)
        return
    decode = _item_decoder(fmt)
    if isinstance(source, _Lines):
        # hot path: one message per line of a possibly huge file.
        for n, raw in source.rows:
            try:
                item = loads(raw)
                message = decode(item)
            except MessageError as exc:
                if problems is None:
                    raise _at_line(exc, n) from None
                problems.append(_at_line(exc, n))
                continue
            yield _Decoded(f"line {n}", message, "id" in item)
        return
    for loc, item in _document_items(source.value, fmt):
        try:
            message = decode(item)
        except MessageError as exc:
            if problems is None:
                raise exc.at(loc) from None
            problems.append(exc.at(loc))
            continue
        yield _Decoded(loc, message, "id" in item)


def _provider_messages(
    source: _Document | _Lines, fmt: str, problems: list[MessageError] | None
) -> Iterator[_Decoded]:
    from .providers import get_provider

    lines: list[int] | None = None
    body: Any
    single = False
    if isinstance(source, _Lines):
        body, lines = [], []
        for n, raw in source.rows:
            try:
                body.append(loads(raw))
            except MessageError as exc:
                if problems is None:
                    raise _at_line(exc, n) from None
                problems.append(_at_line(exc, n))
                continue
            lines.append(n)
    else:
        body = source.value
        if type(body) is dict and "role" in body:
            body = [body]  # one message on its own
            single = True
    try:
        parsed = get_provider(fmt).parse_messages(body)
    except MessageError as exc:
        err = _line_of_item(exc, lines) if lines is not None else exc
        if problems is None:
            raise err from None
        problems.append(err)
        return
    # One message on its own has no place to name but itself.
    where = None if single else _ProviderWhere(fmt, body, lines, len(parsed))
    for i, message in enumerate(parsed):
        # Provider wires carry no message ids.
        yield _Decoded("", message, False, where, i)


def _line_of_item(exc: MessageError, lines: Sequence[int]) -> MessageError:
    """Re-locate an error at ``[i]...`` of a list read from JSON Lines to its line."""
    match = _INDEXED_PATH.fullmatch(exc.path)
    if match is None or int(match.group(1)) >= len(lines):
        return exc
    rest = match.group(2)
    line = lines[int(match.group(1))]
    return _relocated(exc, f"line {line}, {rest}" if rest else f"line {line}")


class _Opened:
    """Open and detect the input; close it (unless stdin) and clear progress on exit."""

    def __init__(self, args: argparse.Namespace, *, progress: bool = True) -> None:
        self._args = args
        self._show_progress = progress
        self._stream: IO[bytes] | None = None
        self._progress: _Progress | None = None
        self.name = ""

    def __enter__(self) -> _Document | _Lines:
        stream, name = _open_input(self._args.input)
        self._stream = stream
        self.name = name
        if self._show_progress:
            self._progress = _Progress.for_stream(sys.stderr, name)
        try:
            return _read(stream, name, self._args.input_format, self._progress)
        except BaseException:
            self.__exit__()
            raise

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.clear()
        if self._stream is not None and self._args.input != "-":
            self._stream.close()


# --------------------------------------------------------------------------- output


class _Sink:
    """Output to stdout, or to ``-o OUT``.

    A regular file (or a new one) is written to a temporary file beside it and
    renamed over it only once all is written, so a failure leaves the old file; a
    symlink is followed, so its target is what gets replaced. Anything else (a
    FIFO, a terminal, ``/dev/null``) is written in place: renaming a regular file
    over it would replace the device itself.
    """

    def __init__(self, spec: str | None) -> None:
        self._spec = spec if spec not in (None, "-") else None
        self._tmp = ""
        self._target = ""
        self._file: IO[bytes] | None = None

    def __enter__(self) -> _Sink:
        spec = self._spec
        if spec is None:
            sys.stdout.flush()
            return self
        try:
            fd = _descriptor_of(spec)
            if fd is not None:
                # the descriptor itself (a duplicate), at its offset and with its
                # flags: reopening /dev/stdout would truncate a file opened with >>
                if sys.stdout is not None:  # None when the process has no stdout
                    sys.stdout.flush()
                self._file = os.fdopen(os.dup(fd), "wb")
                return self
            target = _replaceable(spec)
            if target is None:
                self._file = open(spec, "wb")
            else:
                self._target = target
                fd, self._tmp = _create_beside(target)
                self._file = os.fdopen(fd, "wb")
        except OSError as exc:
            raise _Failure(f"{spec}: cannot write ({_reason(exc)})") from None
        return self

    def write(self, text: str) -> None:
        """Write ``text`` as UTF-8.

        A lone surrogate can only occur inside a JSON string here, where the
        backslash escape that replaces it is the JSON escape of the same code point.
        """
        data = text.encode("utf-8", "backslashreplace")
        if self._file is not None:
            self._file.write(data)
            return
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is None:
            sys.stdout.write(data.decode("utf-8"))
        else:
            buffer.write(data)

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if self._file is None:
            buffer = getattr(sys.stdout, "buffer", None)
            (buffer or sys.stdout).flush()
            return
        try:
            self._file.close()
            if exc_type is None and self._tmp:
                os.replace(self._tmp, self._target)
        except OSError as exc:
            if exc_type is None:
                raise _Failure(f"{self._spec}: cannot write ({_reason(exc)})") from None
        finally:
            if self._tmp and (exc_type is not None or os.path.lexists(self._tmp)):
                with contextlib.suppress(OSError):
                    os.unlink(self._tmp)


def _replaceable(spec: str) -> str | None:
    """The path to replace atomically for output ``spec``; None to write ``spec`` in place.

    A regular file, through any symlinks, is replaced at its real path; a path
    that does not exist yet (or a dangling symlink's target) is created. Anything
    that exists and is not a regular file is written in place.
    """
    if _through_a_descriptor(spec):
        # /dev/stdout, /dev/fd/N, /proc/self/fd/N: an open descriptor (maybe a
        # file the shell appends to), written as it is, never replaced
        return None
    try:
        st = os.stat(spec)
    except FileNotFoundError:
        return os.path.realpath(spec)
    if not stat.S_ISREG(st.st_mode):
        return None
    target = os.path.realpath(spec)
    try:
        same = os.path.samestat(st, os.stat(target))
    except OSError:
        same = False
    # A /proc/self/fd/N link to a deleted or unnamed file has no real path to replace.
    return target if same else None


#: Folders whose entries name open file descriptors of this process.
_FD_DIRS = ("/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/")


def _through_a_descriptor(spec: str) -> bool:
    """Whether ``spec`` names an open file descriptor (or the terminal) rather than a file."""
    path = os.path.abspath(spec)
    return path in ("/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty") or path.startswith(
        _FD_DIRS
    )


def _descriptor_of(spec: str) -> int | None:
    """The open descriptor ``spec`` names (``/dev/stdout``, ``/dev/fd/N``...), else None."""
    path = os.path.abspath(spec)
    if path == "/dev/stdout":
        return 1
    if path == "/dev/stderr":
        return 2
    for prefix in _FD_DIRS:
        if path.startswith(prefix) and path[len(prefix) :].isdigit():
            return int(path[len(prefix) :])
    return None


def _create_beside(target: str) -> tuple[int, str]:
    """A new temporary file in ``target``'s directory: created exclusively, never reused.

    Mode 0666 less the umask, as ``open`` would create the output; an existing
    output's permission bits are kept.
    """
    directory, name = os.path.split(target)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = os.path.join(directory, f".{name[:64]}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        try:
            fd = os.open(tmp, flags, 0o666)
        except FileExistsError:
            continue
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            return fd, tmp
        except BaseException:
            os.close(fd)
            os.unlink(tmp)
            raise
        with contextlib.suppress(OSError):
            os.chmod(tmp, mode)
        return fd, tmp
    raise FileExistsError(errno.EEXIST, "no free temporary file name", directory)


def _escape_line_breaks(text: str) -> str:
    # U+2028, U+2029 and U+0085 end a line for str.splitlines() and some JSON Lines
    # readers, and U+2028/9 break JavaScript before ES2019; JSON text can only hold
    # them inside strings, where their \u escape means the same.
    if _LINE_BREAKS.search(text) is None:
        return text
    return _LINE_BREAKS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _pretty(value: Any) -> str:
    return _escape_line_breaks(json.dumps(value, indent=2, ensure_ascii=False))


def _compact(value: Any) -> str:
    return _escape_line_breaks(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def _warn(line: str) -> None:
    print(line, file=sys.stderr)


# --------------------------------------------------------------------------- commands


def _cmd_convert(args: argparse.Namespace) -> int:
    # A progress line would tear output written to the same terminal.
    to_terminal = args.output in (None, "-") and _isatty(sys.stdout)
    with _Opened(args, progress=not to_terminal) as source:
        tools, dropped = _tools(source, args.from_format)
        located = _messages(source, args.from_format, None)
        if args.to_format in _PROVIDERS:
            return _convert_to_provider(args, list(located), tools, dropped)
        if isinstance(source, _Document):
            # Already in memory: decode it all first, so bad input writes nothing.
            located = iter(list(located))
        if tools:
            dropped.append(("tools", f"not carried: {args.to_format} output holds messages only"))
        report = [(args.from_format, path, rule) for path, rule in dropped]
        if _report(args, report, args.to_format):
            return 1
        encode = _item_encoder(args.to_format)
        with _Sink(args.output) as sink:
            if args.output_format == "jsonl":
                for decoded in located:
                    sink.write(_compact(encode(decoded.message)) + "\n")
            else:
                sep = "[\n  "
                for decoded in located:
                    sink.write(sep + _pretty(encode(decoded.message)).replace("\n", "\n  "))
                    sep = ",\n  "
                sink.write("[]\n" if sep == "[\n  " else "\n]\n")
    return 0


def _tools(
    source: _Document | _Lines, fmt: str
) -> tuple[list[ToolDefinition], list[tuple[str, str]]]:
    """The tool definitions of a provider's request body, and ``(path, why)`` of those left out.

    A body's ``tools`` are carried to a provider output; a tool the input
    provider's ``parse_tools`` does not read (a server tool such as web search),
    or every tool when it has no ``parse_tools``, is reported instead of dropped
    without a word.
    """
    if fmt not in _PROVIDERS or not isinstance(source, _Document):
        return [], []
    body = source.value
    if type(body) is not dict or not body.get("tools"):
        return [], []
    from .providers import get_provider

    parse: Callable[[Any], list[ToolDefinition]] | None = getattr(
        get_provider(fmt), "parse_tools", None
    )
    if parse is None:
        return [], [("tools", f"not carried: reading {fmt} tool definitions is not supported")]
    raw = body["tools"]
    if type(raw) is not list:
        return [], [("tools", "not carried: not a list of tool definitions")]
    # Each entry parsed alone (a short list): one that gives no definition, or that
    # the provider cannot read, is reported and left out; the rest go along.
    tools: list[ToolDefinition] = []
    dropped: list[tuple[str, str]] = []
    for i, entry in enumerate(raw):
        try:
            found = parse([entry])
        except MessageError as exc:
            declarations = entry.get("functionDeclarations") if type(entry) is dict else None
            if type(declarations) is list and len(declarations) > 1:
                # Gemini: one entry holds every declaration; each is read alone,
                # so one bad declaration does not take the others with it
                for k, one in enumerate(declarations):
                    found, problem = _one_tool(parse, {**entry, "functionDeclarations": [one]})
                    if problem is not None:
                        where = problem[0].replace(
                            "functionDeclarations[0]", f"functionDeclarations[{k}]", 1
                        )
                        dropped.append((f"tools[{i}]{where}", problem[1]))
                    tools.extend(found)
                continue
            where = f"tools[{i}]{exc.path[3:] if exc.path.startswith('[0]') else ''}"
            dropped.append((where, f"not carried: {exc.message}"))
            continue
        if not found:
            dropped.append((f"tools[{i}]", "not a function tool; not carried"))
        tools.extend(found)
    return tools, dropped


def _one_tool(
    parse: Callable[[Any], list[ToolDefinition]], entry: Any
) -> tuple[list[ToolDefinition], tuple[str, str] | None]:
    """The definitions of one tools entry, or none and ``(path below it, why)``."""
    try:
        return parse([entry]), None
    except MessageError as exc:
        return [], (
            exc.path[3:] if exc.path.startswith("[0]") else "",
            f"not carried: {exc.message}",
        )


def _report(args: argparse.Namespace, report: list[tuple[str, str, str]], target: str) -> bool:
    """Print each ``(who, path, rule)`` left out as a warning (an error with --strict).

    Only the path and the rule: a loss's description is not needed to find it.
    Returns True when ``--strict`` stops the conversion.
    """
    kind = "error" if args.strict else "warning"
    for who, path, rule in report:
        _warn(f"{kind}: {who}: {path}: {rule}")
    if args.strict and report:
        _warn(f"{target} cannot carry {len(report)} thing(s) here; nothing written (--strict)")
        return True
    return False


def _item_encoder(fmt: str) -> Callable[[Message], Any]:
    if fmt == "canonical":
        return lambda message: message.to_dict()
    from ._envelope import Envelope

    return lambda message: Envelope.from_message(message).to_dict()


def _convert_to_provider(
    args: argparse.Namespace,
    decoded: list[_Decoded],
    tools: Sequence[ToolDefinition],
    dropped: list[tuple[str, str]],
) -> int:
    from .providers import get_provider

    provider = get_provider(args.to_format)
    conversion = provider.convert([d.message for d in decoded], tools)
    # Loss paths name the canonical messages; for canonical input, where they are in the file.
    located = args.from_format not in _PROVIDERS
    report = [(args.from_format, path, rule) for path, rule in dropped]
    report += [
        (provider.name, _input_path(loss.path, decoded) if located else loss.path, loss.rule)
        for loss in conversion.losses
    ]
    if _report(args, report, provider.name):
        return 1
    with _Sink(args.output) as sink:
        sink.write(_pretty(conversion.body) + "\n")
    return 0


def _input_path(path: str, decoded: list[_Decoded]) -> str:
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


def _policy(name: str) -> OrderingPolicy:
    from ._ordering import OrderingPolicy

    return OrderingPolicy.lenient() if name == "lenient" else OrderingPolicy.strict()


def _cmd_validate(args: argparse.Namespace) -> int:
    policy = _policy(args.policy)
    opened = _Opened(args)
    with opened as source:
        if args.all:
            count, problems = _all_problems(source, args.format, policy)
        else:
            count, problems = _replay(source, args.format, policy), []
    if problems:
        for problem in problems:
            _warn(problem)
        _warn(f"{opened.name}: {len(problems)} problem(s)")
        return 1
    print(f"{opened.name}: ok ({count} messages, {args.policy} ordering)")
    return 0


def _replay(source: _Document | _Lines, fmt: str, policy: OrderingPolicy) -> int:
    """Replay every message as ConversationHistory.add would; raise at the first problem.

    The history's own checks (its ordering state machine and the duplicate-id
    rule) run without keeping the messages, so JSON Lines of any length are
    checked in constant memory, plus the set of ids the input itself gives.
    """
    from ._history import _duplicate
    from ._ordering import OrderingState, advance

    state = OrderingState(policy)
    seen: set[str] = set()
    count = 0
    for decoded in _messages(source, fmt, None):
        message = decoded.message
        try:
            # Ids the input leaves out are minted here, unique by construction.
            if decoded.given_id:
                if message.id in seen:
                    raise _duplicate(message.id, count)
                seen.add(message.id)
            advance(state, message, count)
        except OrderingError as exc:
            loc = decoded.loc
            raise (_relocated(exc, loc) if loc else exc) from None
        count += 1
    return count


#: What each rule ``repair`` reports means, for ``validate --all``.
_RULES = {
    "system_first": "the first message must be a system or developer message",
    "single_system": "only one system message is allowed",
    "instructions_first": "system and developer messages must come before the first turn",
    "assistant_first": "the first turn must be a user message",
    "alternation": "user and assistant messages must alternate",
    "orphan_tool_result": "a tool result must follow an assistant message with tool_calls",
    "unknown_tool_call_id": "the tool result answers no call of the preceding tool_calls",
    "duplicate_tool_result": "the tool call was already answered",
    "unanswered_tool_call": "a tool call has no result before the next message",
}


def _all_problems(
    source: _Document | _Lines, fmt: str, policy: OrderingPolicy
) -> tuple[int, list[str]]:
    """Every problem found: decoding, repeated ids, then each fix ``repair`` would make.

    Also returns how many messages decoded.
    """
    from ._history import _duplicate
    from ._repair import repair

    problems: list[MessageError] = []
    decoded = list(_messages(source, fmt, problems))
    where = [d.loc or f"message {i}" for i, d in enumerate(decoded)]
    seen: set[str] = set()
    for i, d in enumerate(decoded):
        message = d.message
        if d.given_id:
            if message.id in seen:
                problems.append(_relocated(_duplicate(message.id, i), where[i]))
            seen.add(message.id)
    lines = [str(p) for p in problems]
    _, repairs = repair([d.message for d in decoded], policy=policy)
    for change in repairs:
        if change.rule == "duplicate_id":
            continue  # reported above, for ids the input gave (not ones made on decoding)
        loc = where[change.index] if 0 <= change.index < len(where) else f"message {change.index}"
        what = _RULES.get(change.rule, change.rule)
        lines.append(f"{loc}: [{change.rule}] {what} (repair: {change.action})")
    return len(decoded), lines


def _cmd_stats(args: argparse.Namespace) -> int:
    from ._message import ToolResultMessage
    from ._role import MessageRole
    from ._tokens import estimate_tokens

    roles = dict.fromkeys(MessageRole, 0)
    calls: dict[str, int] = {}
    pending: dict[str, str] = {}
    tokens = 0
    opened = _Opened(args)
    with opened as source:
        for decoded in _messages(source, args.format, None):
            message = decoded.message
            roles[message.role] += 1
            tokens += estimate_tokens(message)
            if type(message) is ToolResultMessage or isinstance(message, ToolResultMessage):
                pending.pop(message.tool_call_id, None)
            for call in message.tool_calls:
                calls[call.name] = calls.get(call.name, 0) + 1
                pending[call.id] = call.name
    total = sum(roles.values())
    if args.json:
        report = {
            "messages": total,
            "roles": {role.value: n for role, n in roles.items()},
            "tool_calls": dict(sorted(calls.items())),
            "unanswered_tool_calls": [{"id": i, "name": n} for i, n in pending.items()],
            "estimated_tokens": tokens,
        }
        print(_pretty(report))
        return 0
    rows: list[tuple[str, int]] = [("messages", total)]
    rows += [(f"  {role.value}", n) for role, n in roles.items() if n]
    rows.append(("tool calls", sum(calls.values())))
    rows += [(f"  {name}", n) for name, n in sorted(calls.items())]
    rows.append(("unanswered tool calls", len(pending)))
    unanswered: dict[str, int] = {}
    for name in pending.values():
        unanswered[name] = unanswered.get(name, 0) + 1
    rows += [(f"  {name}", n) for name, n in sorted(unanswered.items())]
    rows.append(("estimated tokens", tokens))
    width = max(len(label) for label, _ in rows)
    digits = max(len(str(n)) for _, n in rows)
    print("\n".join(f"{label:<{width}}  {n:>{digits}}" for label, n in rows))
    return 0


# --------------------------------------------------------------------------- arguments

_FORMAT_LIST = ", ".join(_FORMATS)

_CONVERT_EPILOG = f"""\
formats: {_FORMAT_LIST}
  canonical  the library's own message dicts (Message.to_dict)
  envelope   agents-api message envelopes
  a provider that provider's request body (or its list of messages)

input is a JSON request body, a JSON list of messages, or JSON Lines (one
message per line); IN may be - for stdin. JSON Lines are converted line by
line when both sides are canonical or envelope, so files of any size work.

examples:
  {PROG} convert chat.json --from openai --to anthropic -o chat.anthropic.json
  {PROG} convert history.jsonl --to gemini --strict
  cat body.json | {PROG} convert - --from anthropic --to canonical --output-format jsonl
"""

_VALIDATE_EPILOG = f"""\
Decodes every message and replays the conversation through a
ConversationHistory. The first problem is printed as "path: what is wrong"
(never the content) and the exit status is 1; --all lists every problem found.

strict ordering: system (or developer) first, user and assistant alternate,
every tool call answered before the next user or assistant message.
lenient ordering: only the tool-call pairing rules.

examples:
  {PROG} validate chat.jsonl
  {PROG} validate body.json --format anthropic --policy lenient --all
"""

_STATS_EPILOG = f"""\
Counts messages per role, tool calls per tool name, tool calls that no result
answers, and the estimated tokens (the same counter ConversationHistory uses
to truncate).

examples:
  {PROG} stats chat.jsonl
  {PROG} stats body.json --format openai --json
"""


def _format_name(value: str) -> str:
    return value.strip().lower()


def _add_input(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", metavar="IN", help="input file, or - for stdin")
    parser.add_argument(
        "--input-format",
        choices=("auto", "json", "jsonl"),
        default="auto",
        help="read IN as one JSON document or as JSON Lines (default: detect)",
    )


def _reading_command(
    commands: Any, name: str, summary: str, epilog: str
) -> argparse.ArgumentParser:
    """A subcommand that reads one conversation IN of a ``--format`` (validate, stats)."""
    sub: argparse.ArgumentParser = commands.add_parser(
        name,
        help=summary,
        description=summary[0].upper() + summary[1:] + ".",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_input(sub)
    sub.add_argument(
        "--format",
        metavar="P",
        type=_format_name,
        choices=_FORMATS,
        default="canonical",
        help=f"format of IN: {_FORMAT_LIST} (default: canonical)",
    )
    return sub


def _parser() -> argparse.ArgumentParser:
    from . import __version__

    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Convert, validate and inspect LLM conversation transcripts.",
        epilog=f"run '{PROG} COMMAND --help' for the options and an example of each command",
        formatter_class=formatter,
    )
    parser.add_argument("--version", action="version", version=f"{_PACKAGE} {__version__}")
    parser.add_argument(
        "--traceback",
        action="store_true",
        help="on an unexpected internal error, show the traceback (it may include content)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    convert = commands.add_parser(
        "convert",
        help="convert a conversation between canonical, envelope and provider formats",
        description="Convert a conversation from one format to another.",
        epilog=_CONVERT_EPILOG,
        formatter_class=formatter,
    )
    _add_input(convert)
    convert.add_argument(
        "--from",
        dest="from_format",
        metavar="P",
        type=_format_name,
        choices=_FORMATS,
        default="canonical",
        help="format of IN (default: canonical)",
    )
    convert.add_argument(
        "--to",
        dest="to_format",
        metavar="Q",
        type=_format_name,
        choices=_FORMATS,
        required=True,
        help="format to write",
    )
    convert.add_argument("-o", "--output", metavar="OUT", help="output file (default: stdout)")
    convert.add_argument(
        "--output-format",
        choices=("json", "jsonl"),
        help="for canonical or envelope output: a JSON list (default) or JSON Lines",
    )
    convert.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 instead of warning when the target cannot carry something",
    )
    convert.set_defaults(handler=_cmd_convert)

    validate = _reading_command(
        commands,
        "validate",
        "check that a conversation decodes and follows the ordering rules",
        _VALIDATE_EPILOG,
    )
    validate.add_argument(
        "--policy",
        choices=("strict", "lenient"),
        default="strict",
        help="ordering rules to apply (default: strict)",
    )
    validate.add_argument(
        "--all", action="store_true", help="report every problem found, not only the first"
    )
    validate.set_defaults(handler=_cmd_validate)

    stats = _reading_command(
        commands, "stats", "count messages, tool calls and estimated tokens", _STATS_EPILOG
    )
    stats.add_argument("--json", action="store_true", help="print the figures as JSON")
    stats.set_defaults(handler=_cmd_stats)
    return parser


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "convert" and args.output_format and args.to_format in _PROVIDERS:
        parser.error("--output-format applies only to canonical or envelope output")
    if args.command == "convert" and args.output_format is None:
        args.output_format = "json"
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line on ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    try:
        args = _parse(argv)
    except SystemExit as exc:  # argparse: --help / --version (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    try:
        status: int = args.handler(args)
    except (MessageError, _Failure) as exc:
        _warn(str(exc))
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); stop quietly, without a second
        # error when the interpreter flushes stdout at exit.
        _silence_stdout()
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        where = exc.filename if isinstance(exc.filename, str) else "input"
        _warn(f"{where}: {_reason(exc)}")
    except Exception as exc:
        if args.traceback:
            raise
        # Never a traceback by default: its text could quote the input.
        _warn(f"internal error ({type(exc).__name__}); rerun with --traceback to see where")
    else:
        return status
    return 1


def _silence_stdout() -> None:
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
