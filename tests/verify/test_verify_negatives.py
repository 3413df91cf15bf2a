"""``zlint --verify`` end to end where it must stay quiet or refuse cleanly: the hard negatives
(code that costs nothing) verify clean, a torch whose internals moved is refused in one line, and
bad verify options are usage errors."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT, run_zlint

torch = pytest.importorskip("torch")

NEGATIVES = ROOT / "tests" / "data" / "verify_negatives"
#: static rules flag these two lines (sizes of dims that never vary); --verify must not confirm them
STATIC_ONLY = {27, 74}


def test_hard_negatives_verify_clean():
    # the two static findings remain (exit 1 by default); none is confirmed
    proc = run_zlint(
        "--verify", "--verify-fail-on", "confirmed", "--format", "json", "negatives.py", cwd=NEGATIVES, timeout=900
    )
    assert proc.returncode == 0, proc.stderr
    import json

    findings = json.loads(proc.stdout)
    assert {d["location"]["row"] for d in findings} == STATIC_ONLY
    assert {d["verify"]["status"] for d in findings} == {"NOT OBSERVED"}
    assert not [d for d in findings if d["code"].startswith("ZL8")]
    assert proc.stderr == ""  # no caveats, no progress, nothing


def _model(tmp_path: Path) -> Path:
    (tmp_path / "model.py").write_text(textwrap.dedent(
        """\
        import torch


        def loop_sum(x: torch.Tensor) -> torch.Tensor:
            out = x.new_zeros(x.shape[1:])
            for i in range(x.size(0)):
                out = out + x[i]
            return out
        """
    ))
    return tmp_path


MOVED = textwrap.dedent(
    """\
    import importlib.abc
    import sys


    class _Moved(importlib.abc.MetaPathFinder):
        # the worker imports zlint.verify.sandbox.probe after torch: take a private name away first
        def find_spec(self, name, path=None, target=None):
            if name == "zlint.verify.sandbox.probe":
                import torch._guards

                if hasattr(torch._guards.CompileContext, "current_compile_id"):
                    del torch._guards.CompileContext.current_compile_id
            return None


    sys.meta_path.insert(0, _Moved())
    """
)


def test_a_torch_whose_internals_moved_is_refused_in_one_line(tmp_path, monkeypatch):
    project = _model(tmp_path)
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(MOVED)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = run_zlint("--verify", "--backend", "eager", "--sizes", "2,3", "--jobs", "2", "model.py",
                     cwd=project, timeout=600)
    version = ".".join(torch.__version__.split("+")[0].split(".")[:2])
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"zlint: error: --verify does not support torch {version}: "
        "missing torch._guards.CompileContext.current_compile_id"
    ]
    assert proc.stdout == ""


def test_a_memory_limit_too_small_for_torch_says_so(tmp_path):
    proc = run_zlint("--verify", "--verify-memory", "100", "model.py", cwd=_model(tmp_path), timeout=600)
    assert proc.returncode == 2
    [line] = proc.stderr.splitlines()
    assert line.startswith("zlint: error: --verify-memory 100 MiB is too small: torch alone takes ")
    assert line.endswith(" (or 0 for no limit)")


@pytest.mark.parametrize("value", ["0", "-1", "soon"])
def test_verify_timeout_must_be_positive(tmp_path, value):
    proc = run_zlint("--verify", "--verify-timeout", value, "model.py", cwd=_model(tmp_path), timeout=60)
    assert proc.returncode == 2
    assert "argument --verify-timeout: --verify-timeout wants a" in proc.stderr
    assert "cannot start a verify worker" not in proc.stderr
