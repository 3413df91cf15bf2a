from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from zlint.core.settings import Settings
from zlint.engine.lint import lint_source

ROOT = Path(__file__).resolve().parent.parent
# every rule, every finding: rule tests are about what a rule finds, not what a run shows
ALL = Settings(select=("ALL",), scope="all", target="single-graph")
#: the rule tests and the doc examples: each of their tests runs twice, on the fast path (the
#: pre-pass decides what to parse) and on the full path (every file parsed whole), and both
#: must find exactly what the test says
BOTH_PATHS = re.compile(r"test_rules_zl\d+|test_rule_docs|test_compile_calls")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if BOTH_PATHS.fullmatch(metafunc.module.__name__) and "lint_path" not in metafunc.fixturenames:
        metafunc.fixturenames.append("lint_path")
        metafunc.parametrize("lint_path", ["fast", "full"], indirect=True)


@pytest.fixture
def lint_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """``fast`` or ``full``: the path every lint in the test takes (``ZLINT_FULL_PATH``, which
    in-process linting and zlint subprocesses both read)."""
    path = getattr(request, "param", "fast")
    monkeypatch.setenv("ZLINT_FULL_PATH", "1" if path == "full" else "0")
    return path


# a file with one ZL101 (line 5) and one ZL102 (line 7), shared by the command-line tests
SIZE_HAZARD = """\
import torch


def pool(x: torch.Tensor) -> torch.Tensor:
    if x.size(0) == 1:
        return x[0]
    if not x.numel():
        return x.sum(0)
    return x.mean(0)
"""
#: a safe fix (ZL403: mark_dynamic on a dim `step` specializes; the fix: maybe_mark_dynamic);
#: ZL401 on `mask` has only an unsafe fix and stays (the fix and stdin tests)
FIXABLE = """\
import torch


@torch.compile
def step(x):
    for i in range(x.size(0)):
        x = x + i
    return x


def serve(model, requests):
    compiled = torch.compile(model)
    for batch, mask in requests:
        torch._dynamo.mark_dynamic(batch, 0)
        step(batch)
        out = compiled(batch, mask)
    return out
"""

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
    """Run the real console entry point in a subprocess (``env``: variables to add)."""
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", **kwargs.pop("env", {})}
    return subprocess.run(
        [sys.executable, "-m", "zlint", *args], cwd=cwd, capture_output=True, text=True, env=env, **kwargs
    )


@pytest.fixture
def zlint_cli():
    return run_zlint


@pytest.fixture
def nobody():
    """An unprivileged user to run writes as (skips the test where none can be had)."""
    from other_user import other_user

    return other_user()


@pytest.fixture
def shared_dir():
    """A folder every user may enter, outside pytest's owner-only temporary directory."""
    from other_user import shared_directory

    yield from shared_directory()
