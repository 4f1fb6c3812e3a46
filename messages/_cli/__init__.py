"""The command line: ``python -m messages convert | validate | stats | repair | export | import``.

One module per concern: ``parser`` (arguments), ``source`` (reading, size
limits, JSON or JSON Lines), ``decode`` (messages and where they are in the
input), ``ids`` (deterministic ids and times), ``sink`` (writing), ``terminal``
(what people read), ``tools`` (a body's tool definitions), ``store`` (what a
STORE argument names), and one module per command, each with a
``run(args) -> int``, imported only when its command runs (``import`` in
``import_``).
``main`` (in ``main``) ties them together; see it for the exit statuses.
"""

from __future__ import annotations

from .main import main

__all__ = ["main"]
