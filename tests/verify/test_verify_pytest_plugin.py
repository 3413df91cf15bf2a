"""The ``zlint_check`` pytest fixture, used by a real pytest run on a user's test file."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT

pytest.importorskip("torch")

USER_TESTS = textwrap.dedent(
    """\
    import torch


    def pool(x):
        return x.sum(0)


    def loop(x):
        out = x[0] * 0
        for i in range(x.size(0)):
            out = out + x[i]
        return out


    def test_pool_compiles_once_under_mark_unbacked(zlint_check):
        report = zlint_check(
            pool, lambda n: (torch.randn(n, 4),), sizes=[2, 3, 1, 0], modes=["mark_unbacked"], backend="eager"
        )
        assert report.graphs("mark_unbacked") == 1 and not report.mismatches


    def test_loop_guards_at_its_range_line(zlint_check):
        report = zlint_check(loop, lambda n: (torch.randn(n, 4),), sizes=[2, 3, 5], modes=["default"], backend="eager")
        assert report.at(10) and report.graphs() > 2


    def test_loop_compiles_once(zlint_check):  # fails: the loop recompiles per size
        report = zlint_check(loop, lambda n: (torch.randn(n, 4),), sizes=[2, 3, 5], modes=["default"], backend="eager")
        assert report.graphs() == 1
    """
)


def test_fixture_runs_check_in_a_users_pytest_session(tmp_path):
    (tmp_path / "test_user.py").write_text(USER_TESTS, encoding="utf-8")
    # the installed entry point loads the plugin by itself; -p loads it even where zlint's
    # metadata predates the entry point (autoload off so it is not registered twice)
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [
            sys.executable, "-m", "pytest", "-q", "-p", "zlint.verify.pytest_plugin", "-p", "no:cacheprovider",
            "test_user.py",
        ],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300,
    )
    assert "1 failed, 2 passed" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "FAILED test_user.py::test_loop_compiles_once - AssertionError: assert 3 == 1" in proc.stdout
    assert proc.returncode == 1


def test_plugin_is_declared_as_a_pytest11_entry_point():
    from zlint.core.settings import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"]["pytest11"] == {
        "zlint_verify": "zlint.verify.pytest_plugin",
        "zlint_record": "zlint.frontends.pytest_record",  # tests/workload/test_pytest_record.py
    }
