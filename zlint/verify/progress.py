"""A one-line progress bar for ``--verify`` on stderr, only when stderr is a terminal.

A run compiles each function over a sweep in three modes: tens of seconds to minutes before the
first verdict. Without a sign of life a user kills it; in CI (not a terminal) it stays silent so
the log holds only the report.
"""

from __future__ import annotations

import sys
from typing import TextIO

_WIDTH = 30


def line(done: int, total: int, current: str = "") -> str:
    """``zlint --verify [#####.....] 3/10 LikesPooler.forward`` (no newline)."""
    filled = _WIDTH * done // max(total, 1)
    tail = f" {current}" if current and done < total else ""
    return f"zlint --verify [{'#' * filled}{'.' * (_WIDTH - filled)}] {done}/{total}{tail}"


class Progress:
    """Redraws one stderr line: the jobs done, and the function being verified now."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.width = 0

    @classmethod
    def for_terminal(cls) -> Progress | None:
        return cls() if sys.stderr.isatty() else None

    def _draw(self, text: str, end: str = "") -> None:
        pad = " " * max(0, self.width - len(text))  # wipe the longer line drawn before
        self.stream.write(f"\r{text}{pad}{end}")
        self.width = 0 if end else len(text)
        self.stream.flush()

    def starting(self) -> None:
        self._draw("zlint --verify: starting a worker (importing torch) ...")

    def __call__(self, done: int, total: int, current: str = "") -> None:
        self._draw(line(done, total, current), "\n" if done == total else "")
