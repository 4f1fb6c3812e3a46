"""Writing the output: to stdout, or to ``-o OUT`` replaced only once all is written.

A regular file (or a new one) is written to a temporary file beside it and
renamed over it at the end, so a failure leaves the old file; a symlink is
followed, so its target is what gets replaced. Anything else (a FIFO, a
terminal, ``/dev/null``, ``/dev/stdout``) is written in place: renaming a regular
file over it would replace the device itself.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
import sys

from .source import reason
from .terminal import STDOUT_CLOSED, Failure, stream_closed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import IO, Any

__all__ = ["Sink", "compact", "pretty"]

_LINE_BREAKS = re.compile("[\u2028\u2029\x85]")

#: Lines joined into one write by ``Sink.write_lines``.
_BATCH = 512

#: Pieces of encoded JSON joined into one write by ``Sink.write_json``.
_PIECES = 8192

#: The encoder of ``pretty``, made once.
_PRETTY = json.JSONEncoder(indent=2, ensure_ascii=False)


class Sink:
    """Output to stdout, or to ``-o OUT`` (see the module's docstring)."""

    def __init__(self, spec: str | None) -> None:
        self._spec = spec if spec not in (None, "-") else None
        self._tmp = ""
        self._target = ""
        self._file: IO[bytes] | None = None

    def __enter__(self) -> Sink:
        spec = self._spec
        if spec is None:
            if stream_closed(sys.stdout):
                raise Failure(STDOUT_CLOSED)
            sys.stdout.flush()
            return self
        try:
            fd = _descriptor_of(spec)
            if fd is not None:
                # the descriptor itself (a duplicate), at its offset and with its
                # flags: reopening /dev/stdout would truncate a file opened with >>
                if fd == 1 and sys.stdout is None:
                    # stdout was closed when Python started: fd 1 may since have
                    # been reused for another file (the input), never to be written
                    raise Failure(STDOUT_CLOSED)
                if sys.stdout is not None:
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
            raise Failure(f"{spec}: cannot write ({reason(exc)})") from None
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

    def write_lines(self, lines: Iterable[str]) -> None:
        """Write each of ``lines`` (each with its line end), as they come, in batches.

        A batch is written once it holds ``_BATCH`` lines, so that the output of a
        long stream never sits in memory whole; joining lines saves a write per line.
        """
        batch: list[str] = []
        append = batch.append
        for line in lines:
            append(line)
            if len(batch) == _BATCH:
                self.write("".join(batch))
                batch.clear()
        if batch:
            self.write("".join(batch))

    def write_json(self, value: Any) -> None:
        """``value`` as ``pretty`` writes it, and a line end, written as it is encoded.

        The text of a large request body is never held whole: it is written in
        batches of the encoder's pieces (a string is always one piece, so the line
        breaks inside it are escaped within one batch).
        """
        batch: list[str] = []
        append = batch.append
        for piece in _PRETTY.iterencode(value):
            append(piece)
            if len(batch) == _PIECES:
                self.write(_escape_line_breaks("".join(batch)))
                batch.clear()
        append("\n")
        self.write(_escape_line_breaks("".join(batch)))

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
                raise Failure(f"{self._spec}: cannot write ({reason(exc)})") from None
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


def pretty(value: Any) -> str:
    """``value`` as indented JSON (two spaces), line breaks inside strings escaped."""
    return _escape_line_breaks(json.dumps(value, indent=2, ensure_ascii=False))


def compact(value: Any) -> str:
    """``value`` as one line of JSON, line breaks inside strings escaped."""
    return _escape_line_breaks(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
