"""Parallel workers: the output is byte-identical for any --jobs."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_zlint
from zlint.core.settings import Settings
from zlint.engine import parallel

SIZES = ("x.size(0) == 1", "x.shape[-1] > 64", "x.numel()", "len(x) != 2", "x.shape[0] != y.shape[0]")


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("jobs")
    for i in range(14):
        condition = SIZES[i % len(SIZES)]
        body = "".join(
            f"def f{k}(x: torch.Tensor, y: torch.Tensor):\n    if {condition}:\n        return x\n    return y\n\n"
            for k in range(i % 4 + 1)
        )
        (root / f"pkg{i % 3}").mkdir(exist_ok=True)
        (root / f"pkg{i % 3}" / f"m{i:02d}.py").write_text("import torch\n\n" + body)
    (root / "pkg0" / "broken.py").write_text("def f(:\n")
    (root / "pkg1" / "latin.py").write_bytes(b"s = '\xe9'\n")  # not UTF-8: an error line
    return root


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_output_is_byte_identical_for_any_jobs(tree, fmt):
    one = run_zlint("--no-cache", "--jobs", "1", "--format", fmt, ".", cwd=tree)
    two = run_zlint("--no-cache", "--jobs", "2", "--format", fmt, ".", cwd=tree)
    assert one.returncode == two.returncode == 2
    assert one.stdout == two.stdout and one.stderr == two.stderr
    assert one.stdout.count("ZL10") >= 14 and "broken.py" in one.stderr and "latin.py" in one.stderr


def test_worker_results_come_back_in_target_order(tree):
    paths = sorted(str(p) for p in tree.rglob("*.py"))
    targets = [(p, Settings()) for p in paths]
    serial = parallel.lint_files(targets, jobs=1)
    pooled = parallel.lint_files(targets, jobs=2)
    assert [r.path for r in pooled] == paths
    assert [(r.diagnostics, r.error) for r in pooled] == [(r.diagnostics, r.error) for r in serial]


def test_default_jobs_is_all_usable_cores():
    assert parallel.default_jobs() >= 1


def test_the_collector_runs_less_often_while_linting_and_is_restored_after(tmp_path, monkeypatch):
    import gc

    from inprocess import zlint
    from zlint import pipeline

    (tmp_path / "m.py").write_text("def f(x):\n    for i in range(x.shape[0]):\n        pass\n")
    seen = []
    real = pipeline.lint_run

    def lint_run(*args, **kwargs):
        seen.append((gc.get_threshold(), gc.get_freeze_count()))
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "lint_run", lint_run)
    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    assert zlint("--no-cache", "m.py", cwd=tmp_path).returncode == 1
    (threshold, frozen_inside), = seen
    assert threshold[0] > before[0] and frozen_inside > frozen  # fewer young scans, imports frozen
    assert (gc.get_threshold(), gc.get_freeze_count()) == (before, frozen)  # the host's own settings
