from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from zlint.engine import lint_source
from zlint.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
# every rule, every finding: rule tests are about what a rule finds, not what a run shows
ALL = Settings(select=("ALL",), scope="all", target="single-graph")

# a small file with one ZL101 (line 6) and one ZL102 (line 8), shared by the output-format tests
POOL_HAZARD = """\
import torch


def pool(x: torch.Tensor) -> torch.Tensor:
    n = x.size(0)
    if n == 1:
        return x
    if x.numel():
        return x.sum(0)
    return x
"""


def lint(code: str, settings: Settings = ALL, path: str = "t.py"):
    """Lint dedented source with every rule; returns the diagnostics."""
    result = lint_source(textwrap.dedent(code), path, settings)
    assert result.error is None, result.error
    return result.diagnostics


def codes_at(code: str, settings: Settings = ALL) -> list[tuple[int, int, str]]:
    """(line, 1-based column, code) of every finding."""
    return [(d.line, d.column + 1, d.code) for d in lint(code, settings)]


def run_zlint(*args: str, cwd: str | Path | None = None, **kwargs) -> subprocess.CompletedProcess:
    """Run the real console entry point in a subprocess."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "zlint", *args], cwd=cwd, capture_output=True, text=True, env=env, **kwargs
    )


@pytest.fixture
def zlint_cli():
    return run_zlint
