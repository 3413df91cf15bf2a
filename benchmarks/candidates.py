"""The candidate share: the lines zlint hands to LibCST's parser ÷ the lines of the files it lints.

    python benchmarks/candidates.py DIR [zlint options]    # prints {"parsed": N, "total": M}

Counts what ``libcst.parse_module`` is given during one cold, single-process ``zlint`` run, so it
measures whatever the engine decides to parse (whole files today, anything smaller later)
without knowing how it decides.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from pathlib import Path

import libcst


def main(argv: list[str]) -> int:
    root, *options = argv
    parsed = 0
    parse_module = libcst.parse_module

    def counting(source, *args, **kwargs):
        nonlocal parsed
        parsed += source.count(b"\n" if isinstance(source, bytes) else "\n")
        return parse_module(source, *args, **kwargs)

    libcst.parse_module = counting
    from zlint.cli import main as zlint

    os.chdir(root)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        zlint(["--no-cache", "--jobs", "1", "--exit-zero", *options, "."])
    total = sum(path.read_bytes().count(b"\n") for path in Path(".").rglob("*.py"))
    print(json.dumps({"parsed": parsed, "total": total}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
