"""The pre-commit hooks, run for real: ``pre-commit try-repo`` and ``pre-commit run`` build a
hook environment from this repository (``pip install .``, which needs the package index) and
run ``zlint`` on the files staged in a temporary git repository.

Building an environment is the slow part (tens of seconds), so the repository is snapshotted
once per session (so uncommitted work is tested too: try-repo itself only sees tracked files),
try-repo builds its own throw-away environment once, and the ``pre-commit run`` cases share one
PRE_COMMIT_HOME, so they build theirs once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

HAZARD = """\
import torch


def pool(x: torch.Tensor) -> torch.Tensor:
    if x.size(0) == 1:
        return x
    return x.sum(0)
"""
CLEAN = """\
import torch


def pool(x: torch.Tensor) -> torch.Tensor:
    return x.sum(0, keepdim=x.dim() == 1)
"""
PRE_COMMIT = [sys.executable, "-m", "pre_commit"]


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=zlint-tests", "-c", "user.email=tests@zlint.invalid", *args],
        cwd=cwd, check=True, capture_output=True, text=True,
    ).stdout


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRE_COMMIT", "GIT_"))}
    env.pop("SKIP", None)
    return {**env, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory) -> tuple[Path, str]:
    """A committed copy of the working tree (tracked and untracked, minus ignored files)."""
    if shutil.which("git") is None:
        pytest.fail("git is required for the pre-commit tests")
    snapshot = tmp_path_factory.mktemp("hook-repo")
    listed = _git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT)
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snapshot / name)
    _git("init", "-q", cwd=snapshot)
    _git("add", "-A", cwd=snapshot)
    _git("commit", "-q", "-m", "snapshot", cwd=snapshot)
    return snapshot, _git("rev-parse", "HEAD", cwd=snapshot).strip()


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    repo = tmp_path / "project"
    repo.mkdir()
    _git("init", "-q", cwd=repo)
    for name, text in files.items():
        (repo / name).write_text(text, encoding="utf-8")
    if files:
        _git("add", *files, cwd=repo)
    return repo


def _run(args: list[str], repo: Path, home: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*PRE_COMMIT, *args], cwd=repo, env=_env(home), capture_output=True, text=True, timeout=600
    )


def _config(repo: Path, hook_repo: tuple[Path, str]) -> None:
    """The config try-repo writes, plus the manual-stage verify hook, for ``pre-commit run``."""
    path, rev = hook_repo
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n-   repo: {path}\n    rev: {rev}\n    hooks:\n    -   id: zlint\n    -   id: zlint-verify\n",
        encoding="utf-8",
    )


def test_manifest_is_valid():
    proc = subprocess.run(
        [*PRE_COMMIT, "validate-manifest", str(ROOT / ".pre-commit-hooks.yaml")], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_try_repo_fails_on_a_staged_hazard_and_shows_it(tmp_path, hook_repo, pre_commit_home):
    repo = _project(tmp_path, {"model.py": HAZARD, "notes.txt": "if x.size(0) == 1\n"})
    path, rev = hook_repo
    proc = _run(["try-repo", str(path), "zlint", "--ref", rev], repo, pre_commit_home)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "zlint" in out and "Failed" in out, out
    assert "model.py:5:8: ZL101 " in out, out
    assert "notes.txt" not in out.split("Using config")[-1].split("=" * 79)[-1], out


def test_clean_file_passes(tmp_path, hook_repo, pre_commit_home):
    repo = _project(tmp_path, {"model.py": CLEAN})
    _config(repo, hook_repo)
    proc = _run(["run"], repo, pre_commit_home)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "zlint." in out and "Passed" in out, out
    assert "ZL1" not in out
    # the verify hook is manual-stage: it neither runs nor installs torch on commit
    assert "verify" not in out, out


def test_only_non_python_files_pass_quietly(tmp_path, hook_repo, pre_commit_home):
    repo = _project(tmp_path, {"README.md": "x.size(0) == 1\n", "data.json": "{}\n"})
    _config(repo, hook_repo)
    proc = _run(["run"], repo, pre_commit_home)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "(no files to check)Skipped" in out, out
    assert "ZL" not in out and "error" not in out.lower(), out


def test_hazard_fails_through_pre_commit_run_too(tmp_path, hook_repo, pre_commit_home):
    repo = _project(tmp_path, {"model.py": HAZARD, "clean.py": CLEAN})
    _config(repo, hook_repo)
    proc = _run(["run"], repo, pre_commit_home)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "model.py:5:8: ZL101 " in out and "clean.py" not in out, out
