"""The built wheel carries the rule docs, so `zlint rule CODE` works from an installed wheel."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(ROOT)],
        capture_output=True, text=True,
    )
    if proc.returncode != 0:
        pytest.fail(f"building the wheel failed:\n{proc.stderr[-2000:]}")
    (found,) = out.glob("zlint-*.whl")
    return found


def test_wheel_ships_every_rule_doc_and_the_console_script(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    docs = sorted(p.name for p in (ROOT / "rules").glob("*.md"))
    assert sorted(n.rsplit("/", 1)[1] for n in names if n.startswith("zlint/_rules/")) == docs
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "zlint = zlint.frontends.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_rule_doc_printed_from_the_installed_wheel(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(target), str(wheel)],
        check=True, capture_output=True,
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    proc = subprocess.run(
        [
            sys.executable, "-c",
            "import zlint, sys; from zlint.frontends.cli import main; "
            "print(zlint.__file__, file=sys.stderr); main(['rule', 'ZL102'])",
        ],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().startswith(str(target))  # the wheel's copy, not the checkout
    assert proc.stdout == (ROOT / "rules" / "ZL102-size-truthiness.md").read_text()
