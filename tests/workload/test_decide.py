"""Findings decided by a workload (zlint.workload.decide, ``--workload``): what a recording hides,
what it keeps and what each kept message says; then the whole path, a real program recorded with
``zlint record`` and linted with its recording."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT, run_zlint

MODEL = textwrap.dedent(
    """\
    import torch


    class Pool(torch.nn.Module):
        def forward(self, x: torch.Tensor, boxes: torch.Tensor):
            n = boxes.shape[0]
            b, c, h, w = x.shape
            if n == 0:
                return x
            if h * w > 512:
                x = x + 1
            if x.numel() == 1:
                return x
            for i in range(len(boxes)):
                x = x + i
            return x

        def never_called(self, x: torch.Tensor):
            if x.size(0) == 1:
                return x
            return x


    def helper(y: torch.Tensor):
        if y.size(1) > 8:
            return y
        return y
    """
)


def workload(tmp_path: Path, model: Path, lines, params, function=("Pool.forward", 5, 3)) -> Path:
    """A workload file of one recorded function: ``function`` is its (name, first line, calls)."""
    name, line, calls = function
    data = {
        "zlint_workload": 1,
        "command": ["serve.py"],
        "cwd": str(tmp_path),
        "python": "3.11",
        "torch": "2.13.0",
        "files": {
            str(model.resolve()): {
                "lines": sorted(lines),
                "functions": [{"name": name, "line": line, "calls": calls, "params": params}],
            }
        },
    }
    path = tmp_path / "w.json"
    path.write_text(json.dumps(data))
    return path


def findings(tmp_path: Path, *args: str) -> tuple[list[dict], str]:
    done = run_zlint("--no-cache", "--format", "json", *args, "model.py", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout), done.stderr


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "model.py"
    path.write_text(MODEL)
    return path


TENSOR_2x3x4x4 = {"kind": "tensor", "ranks": [4], "dims": [[2], [3], [4], [4]]}


def test_without_a_workload_every_size_finding_is_reported(tmp_path, model):
    found, _ = findings(tmp_path)
    assert [(d["location"]["row"], d["code"]) for d in found] == [
        (8, "ZL101"), (10, "ZL103"), (12, "ZL101"), (14, "ZL201"), (19, "ZL101"), (25, "ZL103"),
    ]


def test_a_workload_hides_sizes_it_held_constant_and_says_why_the_others_vary(tmp_path, model):
    boxes = {"kind": "tensor", "ranks": [2], "dims": [[2, 3, 5], [4]]}
    path = workload(tmp_path, model, range(1, 17), {"x": TENSOR_2x3x4x4, "boxes": boxes})
    found, stderr = findings(tmp_path, "--workload", str(path))
    assert [(d["location"]["row"], d["code"]) for d in found] == [(8, "ZL101"), (14, "ZL201")]
    why = "[workload: `boxes.size(0)` recorded 2, 3, 5 in Pool.forward (line 5, 3 calls)]"
    assert found[0]["message"].endswith(why)
    assert found[0]["tier"] == "single-graph"  # 0 and 1 were never recorded
    # h * w and x.numel(): x held one shape; never_called and helper never ran
    assert "2 findings hidden on sizes the workload held constant (workload w.json)" in stderr
    assert "2 findings hidden on lines the workload never ran (workload w.json)" in stderr


def test_a_size_recorded_at_0_or_1_makes_its_0_1_test_default_tier(tmp_path, model):
    boxes = {"kind": "tensor", "ranks": [2], "dims": [[0, 1, 2], [4]]}
    path = workload(tmp_path, model, range(1, 17), {"x": TENSOR_2x3x4x4, "boxes": boxes})
    found, _ = findings(tmp_path, "--workload", str(path))
    assert [(d["location"]["row"], d["tier"]) for d in found] == [(8, "default"), (14, "default")]


def test_sizes_the_recording_cannot_see_keep_their_findings(tmp_path, model):
    # no record of x or boxes (say they held lists): the recording has no say on their sizes
    path = workload(tmp_path, model, range(1, 17), {})
    found, _ = findings(tmp_path, "--workload", str(path))
    assert [(d["location"]["row"], d["code"]) for d in found] == [
        (8, "ZL101"), (10, "ZL103"), (12, "ZL101"), (14, "ZL201"),
    ]
    assert all("[workload:" not in d["message"] for d in found)


def test_a_file_the_workload_never_loaded_is_hidden_and_counted(tmp_path, model):
    path = workload(tmp_path, model, range(1, 17), {})
    other = tmp_path / "other.py"
    other.write_text(MODEL)
    done = run_zlint("--no-cache", "--workload", str(path), "model.py", "other.py", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert {f.split(":")[0] for f in done.stdout.splitlines()} == {"model.py"}
    assert "6 findings hidden in files the workload never loaded (workload w.json)" in done.stderr
    covered = "workload w.json recorded 1 of the 2 files linted; findings in the 1 it did not record are hidden"
    assert covered in done.stderr


def test_a_workload_that_recorded_none_of_the_files_linted_is_an_error(tmp_path, model):
    """A stale workload would hide every finding and pass: one line, exit 2, what it recorded."""
    path = workload(tmp_path, model, range(1, 17), {})
    (tmp_path / "other.py").write_text(MODEL)
    done = run_zlint("--no-cache", "--workload", str(path), "-q", "other.py", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [
        "zlint: error: workload w.json did not record the file linted (other.py); it recorded model.py: record "
        "the program that runs them (zlint record), or lint the files it ran"
    ]


def test_an_option_path_that_ran_is_reported_under_a_workload(tmp_path):
    # without a workload, a path only a non-default option takes is hidden; the recording says it ran
    (tmp_path / "model.py").write_text(textwrap.dedent(
        """\
        import torch


        class Pool(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.use_fast = False

            def forward(self, x: torch.Tensor):
                if self.use_fast:
                    if x.size(0) > 16:
                        return x
                return x + 1
        """
    ))
    assert findings(tmp_path)[0] == []
    params = {"x": {"kind": "tensor", "ranks": [1], "dims": [[8, 32]]}}
    workload(tmp_path, tmp_path / "model.py", range(1, 14), params, ("Pool.forward", 9, 2))
    found, _ = findings(tmp_path, "--workload", "w.json")
    assert [(d["location"]["row"], d["code"]) for d in found] == [(11, "ZL103")]


def test_the_workload_setting_and_a_bad_workload_file(tmp_path, model):
    boxes = {"kind": "tensor", "ranks": [2], "dims": [[2, 3, 5], [4]]}
    workload(tmp_path, model, range(1, 17), {"x": TENSOR_2x3x4x4, "boxes": boxes})
    (tmp_path / "pyproject.toml").write_text('[tool.zlint]\nworkload = "w.json"\n')
    found, _ = findings(tmp_path)
    assert [(d["location"]["row"], d["code"]) for d in found] == [(8, "ZL101"), (14, "ZL201")]
    (tmp_path / "pyproject.toml").write_text('[tool.zlint]\nworkload = "missing.json"\n')
    done = run_zlint("--no-cache", "model.py", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "missing.json" in done.stderr and "Traceback" not in done.stderr
    (tmp_path / "pyproject.toml").write_text("[tool.zlint]\nworkload = 3\n")
    done = run_zlint("--no-cache", "model.py", cwd=tmp_path)
    assert done.returncode == 2
    assert "workload must be the path of a workload file" in done.stderr


def test_a_real_recording_decides_the_findings(tmp_path, model):
    pytest.importorskip("torch")
    (tmp_path / "serve.py").write_text(textwrap.dedent(
        """\
        import torch
        from model import Pool

        pool = Pool()
        for n in (2, 3, 5):
            pool(torch.randn(2, 3, 4, 4), torch.randn(n, 4))
        """
    ))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "ignore"}
    done = subprocess.run(
        [sys.executable, "-m", "zlint", "record", "--out", "w.json", "serve.py"],
        cwd=tmp_path, capture_output=True, text=True, env=env,
    )
    assert done.returncode == 0, done.stderr
    found, stderr = findings(tmp_path, "--workload", "w.json")
    assert [(d["location"]["row"], d["code"]) for d in found] == [(8, "ZL101"), (14, "ZL201")]
    assert "recorded 2, 3, 5 in Pool.forward" in found[1]["message"]
    assert "2 findings hidden on sizes the workload held constant" in stderr


def test_a_threshold_the_recorded_sizes_never_cross_is_hidden(tmp_path):
    # diffusers' Upsample2D: `hidden_states.shape[0] >= 64` with batches of 2..5 guards but never
    # flips (the workload oracle saw no recompile there); with batches up to 80 it flips
    (tmp_path / "model.py").write_text(textwrap.dedent(
        """\
        import torch


        class Up(torch.nn.Module):
            def forward(self, hidden_states: torch.Tensor):
                if hidden_states.shape[0] >= 64:
                    hidden_states = hidden_states.contiguous()
                if hidden_states.shape[0] * 2 > 64:
                    hidden_states = hidden_states + 1
                return hidden_states
        """
    ))
    cases = (
        ([2, 3, 5], [(6, "single-graph"), (8, "default")]),
        ([2, 80], [(6, "default"), (8, "default")]),
    )
    for batches, expected in cases:
        params = {"hidden_states": {"kind": "tensor", "ranks": [2], "dims": [batches, [4]]}}
        workload(tmp_path, tmp_path / "model.py", range(1, 11), params, ("Up.forward", 5, 3))
        found, stderr = findings(tmp_path, "--workload", "w.json")
        assert [(d["location"]["row"], d["tier"]) for d in found] == expected
        moved = "1 finding on thresholds the workload's sizes never crossed moved to the single-graph tier"
        assert (moved in stderr) == (batches == [2, 3, 5])
        if batches == [2, 3, 5]:
            why = "never crosses the threshold, so it costs only where sizes are made one graph]"
            assert found[0]["message"].endswith(why)
            default_only, _ = findings(tmp_path, "--workload", "w.json", "--target", "default")
            assert [d["location"]["row"] for d in default_only] == [8]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        # the dims that varied, 2 first where unseen, then the sizes dynamo specializes
        ({"x": {"kind": "tensor", "ranks": [4], "dims": [[3, 7], [3], [4], [4]]}}, [2, 3, 7, 1, 0]),
        ({"x": {"kind": "tensor", "ranks": [2], "dims": [[0, 1, 2, 40], [16]]}}, [2, 40, 1, 0]),
        # a list of tensors: its length and its items' varying dims
        (
            {"boxes": {"kind": "sequence", "len": [1, 3],
                       "items": {"kind": "tensor", "ranks": [2], "dims": [[5, 9], [4]]}}},
            [2, 3, 5, 9, 1, 0],
        ),
        # a dict of tensors, each key's record
        ({"batch": {"kind": "mapping", "keys": {"ids": {"kind": "tensor", "ranks": [1], "dims": [[6, 11]]}}}},
         [2, 6, 11, 1, 0]),
        # at most six recorded sizes, the smallest and the largest kept
        ({"x": {"kind": "tensor", "ranks": [1], "dims": [list(range(2, 30))]}}, [2, 7, 13, 18, 24, 29, 1, 0]),
        # nothing varied, or only an int: the default sweep stands
        ({"x": TENSOR_2x3x4x4}, None),
        ({"n": {"kind": "int", "values": [3, 5]}}, None),
    ],
)
def test_verify_sweeps_a_recorded_function_over_the_sizes_it_saw(tmp_path, model, params, expected):
    from zlint.workload.decide import recorded_sweep
    from zlint.workload.model import load_workload

    recorded = load_workload(workload(tmp_path, model, [5, 6], params))
    assert recorded_sweep(recorded, str(model), "Pool.forward") == expected
    assert recorded_sweep(recorded, str(model), "helper") is None  # not recorded
