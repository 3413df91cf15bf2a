"""zlint's own code hygiene: ruff (pyflakes, pycodestyle, isort, bugbear) on every Python file
we ship or run, and no ticket numbers in comments. Where modules import from (layers, private
names, re-exports): tests/test_layers.py; what a run loads: tests/engine/test_startup_imports.py."""

from __future__ import annotations

import ast
import io
import json
import re
import subprocess
import sys
import tokenize
from collections import Counter
from pathlib import Path

from conftest import ROOT

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

LINTED = ("zlint", "tests", "benchmarks", "scripts")

# Findings tolerated, per file and code (the check stays able to hold debt while it is paid off)
RUFF_DEBT: dict[str, dict[str, int]] = {}  # none: keep it that way
# Comments and docstrings that still cite a ticket, per file
TICKET_DEBT: dict[str, int] = {}

TICKET = re.compile(r"\b(issue|ticket)s?\s*#?\d+", re.IGNORECASE)


def _ruff() -> list[dict]:
    proc = subprocess.run(
        # an sdist ships no benchmarks/ or scripts/: lint what is there
        [sys.executable, "-m", "ruff", "check", "--output-format", "json", "--no-cache",
         *(name for name in LINTED if (ROOT / name).is_dir())],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def test_ruff_finds_nothing_new():
    found = Counter(
        (Path(finding["filename"]).resolve().relative_to(ROOT).as_posix(), finding["code"]) for finding in _ruff()
    )
    grown = {key: n for key, n in found.items() if n > RUFF_DEBT.get(key[0], {}).get(key[1], 0)}
    assert grown == {}, "new ruff findings: run `ruff check zlint tests benchmarks scripts`"


def test_ruff_is_configured_as_documented():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    lint = config["tool"]["ruff"]["lint"]
    assert {"E", "W", "F", "I", "B"} <= set(lint["select"])
    assert "ZL" in lint["external"]  # suppression comments naming ZL codes are for zlint, not ruff
    test_extra = config["project"]["optional-dependencies"]["test"]
    assert any(dep.startswith("ruff") for dep in test_extra)
    assert any(dep.startswith("pytest-xdist") for dep in test_extra)


def test_ruff_reports_what_it_is_configured_for(tmp_path):
    # the configuration is live: an unsorted import, an unused name and a mutable default are found
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (tmp_path / "bad.py").write_text("import sys\nimport os\n\n\ndef f(x=[]):  # noqa: ZL101\n    return x\n")
    proc = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--output-format", "json", "--no-cache", "bad.py"],
        cwd=tmp_path, capture_output=True, text=True,
    )
    assert sorted(f["code"] for f in json.loads(proc.stdout)) == ["B006", "F401", "F401", "I001"]
    assert "noqa" not in proc.stderr  # no warning about zlint's codes in noqa comments


def _comments_and_docstrings(path: Path) -> list[tuple[int, str]]:
    text = path.read_text(encoding="utf-8")
    found = [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if token.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                found.append((node.body[0].lineno, doc))
    return found


def test_no_ticket_numbers_in_comments_or_docstrings():
    counts = Counter()
    for directory in LINTED:
        for path in sorted((ROOT / directory).rglob("*.py")):
            parts = path.relative_to(ROOT).parts
            # test data, and what the benchmarks download or build (git-ignored): not ours
            if "data" in parts or "corpus" in parts or any(p.startswith(".venv") for p in parts):
                continue
            for _, text in _comments_and_docstrings(path):
                counts[path.relative_to(ROOT).as_posix()] += len(TICKET.findall(text))
    grown = {name: n for name, n in counts.items() if n > TICKET_DEBT.get(name, 0)}
    assert grown == {}, "say why in the comment itself, not which ticket asked for it"


def test_ticket_pattern_matches_citations_and_nothing_else():
    assert TICKET.search("# LibCST can turn it into a KeyError (issue 7)")
    assert TICKET.search('"""Issue 7: whatever fails inside"""')
    assert TICKET.search("# see ticket #12")
    assert not TICKET.search("# guarded on them (PRs #95479, #94365)")
    assert not TICKET.search("# issues a warning when 2 workers ...")
