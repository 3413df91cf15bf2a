"""``pytest --zlint-record``: a real pytest session in a subprocess records its tests' code; without
the option the plugin changes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT

USER_TESTS = textwrap.dedent(
    """\
    import sys

    import torch

    from helpers import head


    def test_sizes():
        assert head(torch.ones(2, 3), 4).shape == (3,)
        assert head(torch.ones(1, 3), 0).shape == (3,)
        assert sys.gettrace() is not None
    """
)
HELPERS = "def head(x, k):\n    if k:\n        return x.sum(0) * k\n    return x[0]\n"


def pytest_run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # -p loads the plugin from this checkout even where the installed zlint's metadata predates
    # its entry point (autoload off, so that it is not registered twice)
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "ignore"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "zlint.frontends.pytest_record", "-p", "no:cacheprovider", *args],
        cwd=cwd, capture_output=True, text=True, env=env, timeout=300,
    )


def test_a_test_session_is_recorded_into_the_default_file(tmp_path):
    pytest.importorskip("torch")
    (tmp_path / "test_user.py").write_text(USER_TESTS)
    (tmp_path / "helpers.py").write_text(HELPERS)
    proc = pytest_run(tmp_path, "test_user.py", "--zlint-record")  # after the paths: no FILE
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "zlint: workload written to .zlint/workload.json" in proc.stdout.splitlines()
    data = json.loads((tmp_path / ".zlint" / "workload.json").read_text())
    assert data["command"] == ["pytest", "-q", "-p", "zlint.frontends.pytest_record", "-p", "no:cacheprovider",
                               "test_user.py", "--zlint-record"]
    assert data["cwd"] == str(tmp_path)
    assert data["files"][str(tmp_path / "helpers.py")] == {
        "lines": [1, 2, 3, 4],
        "functions": [{
            "name": "head", "line": 1, "calls": 2,
            "params": {
                "x": {"kind": "tensor", "ranks": [2], "dims": [[1, 2], [3]]},
                "k": {"kind": "int", "values": [0, 4]},
            },
        }],
    }
    tests = data["files"][str(tmp_path / "test_user.py")]
    assert [f["name"] for f in tests["functions"]] == ["test_sizes"]
    assert tests["lines"] == [1, 3, 5, 8, 9, 10, 11]  # the module's import-time lines count too
    # pytest's own code is the runner, not the workload
    assert not [p for p in data["files"] if f"{os.sep}_pytest{os.sep}" in p or f"{os.sep}pluggy{os.sep}" in p]


def test_without_the_option_nothing_is_traced_or_written(tmp_path):
    (tmp_path / "test_plain.py").write_text(
        "import sys\n\n\ndef test_plain():\n    assert sys.gettrace() is None\n"
    )
    proc = pytest_run(tmp_path, "test_plain.py")
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "zlint" not in proc.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["test_plain.py"]


@pytest.mark.parametrize("value", ["tests", "test_x.py"])
def test_a_test_path_taken_as_the_file_is_refused(tmp_path, value):
    (tmp_path / "tests").mkdir()
    (tmp_path / "test_x.py").write_text("def test_x():\n    pass\n")
    proc = pytest_run(tmp_path, "--zlint-record", value)
    assert proc.returncode == 4  # pytest's usage error
    assert proc.stderr.strip() == (
        f"ERROR: --zlint-record: {value!r} is not a workload file name; write --zlint-record=FILE, "
        "or put the option after the test paths"
    )
    assert (tmp_path / "test_x.py").read_text() == "def test_x():\n    pass\n"
    assert not (tmp_path / ".zlint").exists()
