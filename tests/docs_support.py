"""Helpers shared by the README and docs tests."""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from conftest import ROOT

#: a fenced block: (info string, body)
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)


def load_script(name: str) -> ModuleType:
    """Import ``scripts/<name>.py`` once (the scripts directory is not a package)."""
    key = f"zlint_scripts_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, ROOT / "scripts" / f"{name}.py")
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module  # dataclasses look their module up while the file runs
        spec.loader.exec_module(module)
    return sys.modules[key]


def require(available: bool, what: str) -> None:
    """Skip when a docs tool from the ``test`` extra is missing, except in CI, where it is an
    error: CI installs the extra, so a skip there would hide a broken install."""
    if available:
        return
    message = f"{what} is not installed (pip install -e '.[test]')"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def doc_markdown() -> list[Path]:
    """Every Markdown file of the docs: README, docs/ and the rule docs."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "rules").glob("*.md"))]


def fenced_blocks(text: str, language: str) -> list[str]:
    return [body for info, body in FENCE.findall(text) if info == language]
