"""Run the ``zlint`` command in this process: the same ``main`` as the console script, without
paying interpreter start-up per call. End-to-end subprocess runs live in test_cli.py."""

from __future__ import annotations

import io
import os
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

from zlint.frontends.cli import main


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


def zlint(*args: str, cwd: str | Path) -> Result:
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(list(args))
    finally:
        os.chdir(old)
    return Result(code, out.getvalue(), err.getvalue())
