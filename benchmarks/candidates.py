"""The candidate share: the lines zlint hands to LibCST's parser ÷ the lines of the files it lints.

    python benchmarks/candidates.py DIR [zlint options]    # prints {"parsed": N, "total": M}

Counts what ``libcst.parse_module`` is given during one cold, single-process ``zlint`` run, so it
measures whatever the engine decides to parse without knowing how it decides. Lines are the
non-blank ones on both sides: the candidate stage hands LibCST a text with the same line
numbers, the bodies it leaves out replaced by ``...`` and blank lines.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from pathlib import Path

import libcst


def _code_lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip())


def main(argv: list[str]) -> int:
    root, *options = argv
    parsed = 0
    parse_module = libcst.parse_module

    def counting(source, *args, **kwargs):
        nonlocal parsed
        parsed += _code_lines(source if isinstance(source, str) else source.decode("utf-8", "replace"))
        return parse_module(source, *args, **kwargs)

    libcst.parse_module = counting
    from zlint.frontends.cli import main as zlint

    os.chdir(root)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        zlint(["--no-cache", "--jobs", "1", "--exit-zero", *options, "."])
    total = sum(_code_lines(path.read_text("utf-8", "replace")) for path in Path(".").rglob("*.py"))
    print(json.dumps({"parsed": parsed, "total": total}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
