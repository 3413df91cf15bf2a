"""The linter core never imports torch: only zlint.verify may, and only lazily."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT

SCRIPT = r"""
import contextlib, importlib, io, pkgutil, sys
import zlint
for info in pkgutil.walk_packages(zlint.__path__, "zlint."):
    if info.name in ("zlint.verify", "zlint.__main__") or info.name.startswith("zlint.verify."):
        continue
    importlib.import_module(info.name)
from zlint.frontends.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    main(["rules"])
    main(["rule", "ZL101"])
    main([sys.argv[1]])
print("TORCH" if "torch" in sys.modules else "NO-TORCH")
"""


def test_core_modules_and_cli_do_not_import_torch():
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(ROOT / "examples")], capture_output=True, text=True
    )
    assert proc.stdout.strip().splitlines()[-1] == "NO-TORCH", proc.stderr
