"""``--write-baseline`` / ``--baseline``: old findings stay quiet through unrelated edits, new
ones show, and the baseline works from any working directory."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import POOL_HAZARD as HAZARD  # noqa: E402
from inprocess import zlint
from other_user import owner_names


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "model.py").write_text(HAZARD, encoding="utf-8")
    (tmp_path / "src" / "other.py").write_text(HAZARD.replace("pool", "other"), encoding="utf-8")
    return tmp_path


def _rows(result) -> list[tuple[str, int, str]]:
    return [(f["filename"], f["location"]["row"], f["code"]) for f in json.loads(result.stdout)]


def test_round_trip(project):
    written = zlint("--write-baseline", "zlint-baseline.json", "src", cwd=project)
    assert written.returncode == 0, written.stderr
    assert written.stdout == ""
    assert "zlint: wrote 4 findings to zlint-baseline.json" in written.stderr
    data = json.loads((project / "zlint-baseline.json").read_text(encoding="utf-8"))
    assert data["zlint-baseline"] == 1
    assert sorted((e["path"], e["code"], e["occurrence"]) for e in data["findings"]) == [
        ("src/model.py", "ZL101", 0), ("src/model.py", "ZL102", 0),
        ("src/other.py", "ZL101", 0), ("src/other.py", "ZL102", 0),
    ]
    assert all("line" not in e for e in data["findings"])  # keyed on text, not line numbers

    checked = zlint("--baseline", "zlint-baseline.json", "--format", "json", "src", cwd=project)
    assert (checked.returncode, _rows(checked)) == (0, [])


SHIFTED = """\
import torch
import math


SCALE = math.pi


def pool(x: torch.Tensor) -> torch.Tensor:
    n = x.size(0)
    # whitespace changes keep a line's identity
    if n  ==  1:
        return x
    if x.numel():
        return x.sum(0)
    return x
"""


def test_unrelated_edits_that_shift_lines_do_not_resurrect(project):
    zlint("--write-baseline", "zlint-baseline.json", "src", cwd=project)
    (project / "src" / "model.py").write_text(SHIFTED, encoding="utf-8")
    moved = zlint("--format", "json", "src/model.py", cwd=project)
    assert [row for _, row, _ in _rows(moved)] == [11, 13]  # the findings did move
    checked = zlint("--baseline", "zlint-baseline.json", "--format", "json", "src", cwd=project)
    assert (checked.returncode, _rows(checked)) == (0, [])


def test_a_new_finding_shows(project):
    zlint("--write-baseline", "zlint-baseline.json", "src", cwd=project)
    lines = HAZARD.splitlines(keepends=True)
    lines[9:9] = ["    if x.shape[1] > 0:\n", "        x = x + 1\n"]
    (project / "src" / "model.py").write_text("".join(lines), encoding="utf-8")
    checked = zlint("--baseline", "zlint-baseline.json", "--format", "json", "src", cwd=project)
    assert checked.returncode == 1
    assert _rows(checked) == [("src/model.py", 10, "ZL101")]


def test_a_second_identical_line_is_a_new_finding(project):
    zlint("--write-baseline", "zlint-baseline.json", "src", cwd=project)
    lines = HAZARD.splitlines(keepends=True)
    lines[9:9] = ["    if n == 1:\n", "        x = x + 1\n"]
    (project / "src" / "model.py").write_text("".join(lines), encoding="utf-8")
    checked = zlint("--baseline", "zlint-baseline.json", "--format", "json", "src", cwd=project)
    assert checked.returncode == 1
    assert _rows(checked) == [("src/model.py", 10, "ZL101")]


def test_paths_are_relative_to_the_baseline_not_the_cwd(project):
    (project / "ci").mkdir()
    zlint("--write-baseline", "ci/zlint-baseline.json", "src", cwd=project)
    from_src = zlint("--baseline", "../ci/zlint-baseline.json", "--format", "json", ".", cwd=project / "src")
    assert (from_src.returncode, _rows(from_src)) == (0, [])


def test_fixed_findings_are_reported_as_stale(project):
    zlint("--write-baseline", "zlint-baseline.json", "src", cwd=project)
    (project / "src" / "other.py").write_text("import torch\n", encoding="utf-8")
    checked = zlint("--baseline", "zlint-baseline.json", "src", cwd=project)
    assert checked.returncode == 0
    assert "zlint: 2 baseline entries no longer found (fixed?)" in checked.stderr


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "zlint: error: missing.json: no such file (create it with --write-baseline)\n"),
        ("{not json", "zlint: error: missing.json: not a zlint baseline: invalid JSON at line 1\n"),
        ('{"findings": []}', "zlint: error: missing.json: not a zlint baseline (version 1 expected)\n"),
        ('{"zlint-baseline": 1, "findings": [{"path": "a.py"}]}',
         "zlint: error: missing.json: malformed entry {'path': 'a.py'}\n"),
    ],
)
def test_bad_baselines_are_one_line_errors(project, content, message):
    if content is not None:
        (project / "missing.json").write_text(content, encoding="utf-8")
    checked = zlint("--baseline", "missing.json", "src", cwd=project)
    assert checked.returncode == 2
    assert checked.stderr == message


def test_baseline_and_write_baseline_do_not_mix(project):
    result = zlint("--baseline", "a.json", "--write-baseline", "b.json", "src", cwd=project)
    assert result.returncode == 2
    assert result.stderr == "zlint: error: --baseline and --write-baseline cannot be combined\n"
    assert not (project / "b.json").exists()


def test_a_baseline_of_another_user_is_not_taken_over(shared_dir, nobody):
    """In a world-writable folder ``os.replace`` alone would swap root's file for one of the
    user's: a writable (0666) baseline whose owner the new file cannot keep is refused."""
    project = shared_dir / "project"
    project.mkdir()
    project.chmod(0o777)
    (project / "model.py").write_text(HAZARD, encoding="utf-8")
    baseline = project / "zlint-baseline.json"
    baseline.write_text("{}\n", encoding="utf-8")
    baseline.chmod(0o666)
    result = nobody.python("-m", "zlint", "--no-cache", "--write-baseline", baseline.name, ".", cwd=project)
    assert (result.returncode, result.stdout) == (2, "")
    root = owner_names(0, 0)
    assert result.stderr == (
        f"zlint: error: zlint-baseline.json: cannot write: owner {root}, mode 0666: "
        "the new file could not keep that owner and group, so it was not replaced\n"
    )
    info = baseline.stat()
    assert (baseline.read_text(encoding="utf-8"), info.st_uid, info.st_gid) == ("{}\n", 0, 0)


def test_a_baseline_swapped_for_a_symlink_while_written_is_one_line_exit_2(project, monkeypatch):
    """The swap lands after zlint resolved the name: the link is neither followed nor replaced."""
    victim = project / "victim.txt"
    victim.write_text("mine\n", encoding="utf-8")
    baseline = project / "zlint-baseline.json"
    baseline.write_text("{}\n", encoding="utf-8")
    resolve = os.path.realpath

    def resolve_then_swap(name, *args, **kwargs):
        resolved = resolve(name, *args, **kwargs)
        if Path(name).name == baseline.name and not baseline.is_symlink():
            baseline.unlink()
            baseline.symlink_to(victim)
        return resolved

    monkeypatch.setattr(os.path, "realpath", resolve_then_swap)
    result = zlint("--no-cache", "--write-baseline", baseline.name, "src", cwd=project)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "zlint: error: zlint-baseline.json: cannot write: became a symbolic link before zlint could write it\n"
    )
    assert victim.read_text(encoding="utf-8") == "mine\n"
    assert baseline.is_symlink()
