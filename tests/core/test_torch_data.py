"""The shipped per-version torch data: regenerated from the installed torch it must not change, and
cross_check() (what --verify calls) finds a difference when there is one."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest

from conftest import ROOT
from zlint.core import torch_versions as tv

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")

# One torch process for everything: regenerate with the script's own code path, then cross-check
# against the shipped data and against a doctored copy.
SCRIPT = r"""
import json, runpy, sys, tempfile, warnings
from pathlib import Path
warnings.filterwarnings("ignore")
root, out = sys.argv[1], sys.argv[2]
sys.argv = ["gen_torch_data.py", "--out", out]
try:
    runpy.run_path(root + "/scripts/gen_torch_data.py", run_name="__main__")
except SystemExit as exc:
    assert not exc.code, exc.code
import torch
from zlint.core import torch_versions as tv
clean = tv.cross_check(torch)
doctored = Path(tempfile.mkdtemp())
shipped = tv.DATA_DIR / (tv.format_version(tv.parse_version(torch.__version__)) + ".json")
data = json.loads(shipped.read_text())
data["modes"].pop("lite")
data["backends"].append("made_up_backend")
data["names"]["torch.compiler"].remove("reset")
data["dynamo_limits"]["recompile_limit"] = 64
(doctored / shipped.name).write_text(tv.dumps(data))
tv.DATA_DIR = doctored
mismatches = tv.cross_check(torch)
print(json.dumps({"version": torch.__version__, "clean": clean, "mismatches": mismatches}))
"""


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    out = tmp_path_factory.mktemp("torch-data")
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(ROOT), str(out)], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["written"] = sorted(out.glob("*.json"))
    return result


def test_regenerated_data_equals_the_shipped_file(live):
    """The generator script, run with the installed torch, writes exactly the shipped file."""
    (written,) = live["written"]
    assert written.stem == tv.format_version(tv.parse_version(live["version"]))
    shipped = tv.DATA_DIR / written.name
    if not shipped.is_file():
        pytest.skip(f"no shipped data for the installed torch {written.stem}")
    assert written.read_bytes() == shipped.read_bytes()
    assert oct(written.stat().st_mode & 0o777) == "0o644"


def test_cross_check_is_clean_against_the_installed_torch(live):
    assert live["clean"] == []


def test_cross_check_reports_each_mismatch(live):
    text = "\n".join(live["mismatches"])
    assert "modes: live torch has 1 not in the data: lite" in text
    assert "backends: the data has 1 not in live torch: made_up_backend" in text
    assert "names[torch.compiler]: live torch has 1 not in the data: reset" in text
    assert "dynamo_limits['recompile_limit']: live 8, data 64" in text


def test_shipped_files_are_small_and_well_formed():
    files = sorted(tv.DATA_DIR.glob("*.json"))
    assert files, "no torch data shipped"
    for path in files:
        assert path.stat().st_size < 120_000, path
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["schema"] == tv.SCHEMA and data["torch"] == path.stem
        assert set(data["names"]) == set(tv.NAMESPACES)
        assert "inductor" in data["backends"] and "default" in data["modes"]
        assert "model" in data["compile_parameters"]
