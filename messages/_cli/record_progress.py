"""The progress bar of ``--records``: records done, their rate, and the time left."""

from __future__ import annotations

import sys
import time

from .terminal import Progress, isatty

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO

__all__ = ["Bar"]

_EVERY = 0.2
"""Seconds between two redraws: a terminal redrawn for every chunk would slow the run."""
_WIDTH = 24


class Bar(Progress):
    """One line on stderr: ``name [#####.....] 12,000 records  8,100/s  ETA 0:03``.

    The bar and the ETA need the input's size (a regular file); for a pipe, only the
    count and the rate are shown.
    """

    __slots__ = ("_last", "_size", "_start")

    def __init__(self, stream: IO[str], label: str, size: int | None) -> None:
        super().__init__(stream, label)
        self._size = size
        self._start = time.monotonic()
        self._last = 0.0

    @staticmethod
    def on_stderr(label: str, size: int | None) -> Bar | None:
        """A bar on stderr, or None when stderr is not a terminal."""
        stream = sys.stderr
        return Bar(stream, label, size) if isatty(stream) else None

    def update(self, records: int, consumed: int) -> None:
        """Redraw (at most every fifth of a second) with ``records`` done and ``consumed`` bytes read."""
        now = time.monotonic()
        if now - self._last < _EVERY:
            return
        self._last = now
        elapsed = max(now - self._start, 1e-9)
        text = f"{self._label} {records:,} records  {records / elapsed:,.0f}/s"
        size = self._size
        if size:
            done = min(consumed / size, 1.0)
            filled = int(done * _WIDTH)
            left = elapsed * (1 - done) / done if done > 0 else 0.0
            minutes, seconds = divmod(int(left), 60)
            text += f"  [{'#' * filled}{'.' * (_WIDTH - filled)}] {done:4.0%}  ETA {minutes}:{seconds:02d}"
        self.write(text)

    def write(self, text: str) -> None:
        """Overwrite the line with ``text``."""
        line = "\r" + text.ljust(self._shown - 1) if self._shown else "\r" + text
        self._shown = len(line)
        self._stream.write(line)
        self._stream.flush()
        Progress.shown = self
