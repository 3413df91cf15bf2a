"""The per-file time budget (``file-time-budget``) in every host: a file past it is reported as not
linted with the reason, the run goes on with the other files, and the summary says so; the result
is never cached; a bad value is a one-line error. A budget of a microsecond is past for any file
(deterministic); the budget's own mechanics are tests/core/test_budget.py's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SIZE_HAZARD, run_zlint
from zlint.core.budget import budget_reason, tick
from zlint.core.settings import Settings
from zlint.engine.lint import lint_source
from zlint.frontends.server.workspace import Workspace
from zlint.scope import index

TINY = 0.000001
PAST = budget_reason(TINY)


@pytest.fixture
def two_projects(tmp_path: Path) -> Path:
    """``slow/`` whose configuration gives each file a microsecond, ``fast/`` with the default."""
    for name in ("slow", "fast"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "model.py").write_text(SIZE_HAZARD, encoding="utf-8")
    (tmp_path / "slow" / "pyproject.toml").write_text(f"[tool.zlint]\nfile-time-budget = {TINY}\n", encoding="utf-8")
    return tmp_path


def test_a_file_past_its_budget_is_not_linted_and_the_run_goes_on(two_projects: Path):
    done = run_zlint("--no-cache", "slow", "fast", cwd=two_projects)
    assert done.returncode == 2
    assert done.stdout.splitlines() == [
        "fast/model.py:5:8: ZL101 `x.size(0) == 1` branches on a size being 1: blocks single-graph mode; "
        "drop the size-1 fast path: the general path handles size 1",
        "fast/model.py:7:12: ZL102 `x.numel()` tests a size for truth: blocks single-graph mode; "
        "handle 0 branch-free",
    ]
    assert done.stderr.splitlines() == [
        f"zlint: error: slow/model.py: {PAST}",
        "Found 2 findings in 1 file (2 files checked; 1 not linted, 1 past its time budget).",
    ]


def test_the_command_line_budget_wins_and_zero_turns_it_off(two_projects: Path):
    done = run_zlint("--no-cache", "--file-time-budget", "0", "slow", cwd=two_projects)
    assert done.returncode == 1 and done.stderr.splitlines()[-1] == "Found 2 findings in 1 file (1 file checked)."
    done = run_zlint("--no-cache", "--file-time-budget", str(TINY), "fast", cwd=two_projects)
    assert done.returncode == 2 and f"fast/model.py: {PAST}" in done.stderr


def test_a_result_past_the_budget_is_never_cached(two_projects: Path, tmp_path: Path):
    cache = str(tmp_path / "cache")
    first = run_zlint("--cache-dir", cache, "--file-time-budget", str(TINY), "fast", cwd=two_projects)
    assert first.returncode == 2
    second = run_zlint("--cache-dir", cache, "fast", cwd=two_projects)  # the default budget now
    assert (second.returncode, len(second.stdout.splitlines())) == (1, 2), second.stderr


@pytest.mark.parametrize(
    ("value", "shown"), [("-1", "-1"), ("'soon'", "'soon'"), ("true", "True"), ("inf", "inf")]
)
def test_a_bad_budget_is_a_one_line_error(tmp_path: Path, value: str, shown: str):
    (tmp_path / "pyproject.toml").write_text(f"[tool.zlint]\nfile-time-budget = {value}\n", encoding="utf-8")
    (tmp_path / "m.py").write_text("x = 1\n", encoding="utf-8")
    done = run_zlint("m.py", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"zlint: error: {tmp_path / 'pyproject.toml'}: [tool.zlint] file-time-budget must be a number of seconds "
        f">= 0 (0: no budget), got {shown}"
    ]
    flag = run_zlint("--file-time-budget", "-2", "m.py", cwd=tmp_path)
    assert flag.returncode == 2 and "file-time-budget must be a number of seconds >= 0" in flag.stderr


def test_flake8_reports_zl000_with_the_reason(tmp_path: Path):
    (tmp_path / "model.py").write_text(SIZE_HAZARD, encoding="utf-8")
    env = {**os.environ, "ZLINT_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select=ZL", f"--zlint-file-time-budget={TINY}", "model.py"],
        cwd=tmp_path, capture_output=True, text=True, env=env,
    )
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout == f"model.py:1:1: ZL000 zlint could not lint this file: {PAST}\n"


def test_the_language_server_shows_the_reason_and_keeps_serving(two_projects: Path):
    workspace = Workspace([two_projects])
    workspace.index_workspace()
    slow, fast = str(two_projects / "slow" / "model.py"), str(two_projects / "fast" / "model.py")
    workspace.open(slow, SIZE_HAZARD)
    workspace.open(fast, SIZE_HAZARD)
    assert workspace.documents[slow].error is not None and workspace.documents[slow].error.reason == PAST
    assert [(d.code, d.line) for d in workspace.documents[fast].diagnostics] == [("ZL101", 5), ("ZL102", 7)]


def test_the_engine_call_every_host_makes_keeps_the_budget():
    result = lint_source(SIZE_HAZARD, "m.py", Settings(file_time_budget=TINY))
    assert (result.diagnostics, result.error.reason) == ([], PAST)
    assert [d.code for d in lint_source(SIZE_HAZARD, "m.py", Settings()).diagnostics] == ["ZL101", "ZL102"]


def test_a_project_step_past_the_budget_places_each_file_by_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The run-wide step (classifying the project index) has the run's budget too: past it, each
    file is placed as a project of its own, and the run says so."""
    helper = "def helper(x):\n    if x.size(0) == 1:\n        return x\n    return x + 1\n"
    caller = "import torch\nfrom a import helper\n\n\n@torch.compile\ndef run(x):\n    return helper(x)\n"
    (tmp_path / "a.py").write_text(helper, encoding="utf-8")
    (tmp_path / "b.py").write_text(caller, encoding="utf-8")
    files = [(str(tmp_path / n), (tmp_path / n).read_bytes()) for n in ("a.py", "b.py")]
    real = index.classify

    def classify(summaries, whole=frozenset()):
        summaries = list(summaries)
        while len(summaries) > 1:  # the whole project: never ends but by the budget
            tick()
        return real(summaries, whole)

    monkeypatch.setattr(index, "classify", classify)
    pending = index.PendingIndex(files, budget=0.2)
    summaries = {path: index.summary_of(path, index.parse_source(data, path)) for path, data in files}
    project = pending.finish(summaries)
    assert project.notes == (
        "the project index took longer than its time budget (0.2 s; the file-time-budget setting): "
        "each file's findings are placed by the file alone",
    )
    # by itself, the helper has no compiled caller (the project would have said: called from run)
    assert project.scope_of(files[0][0]).regions[0][2:] == ("unknown", "no compiled caller found")
