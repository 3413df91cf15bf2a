"""A rule that crashes costs one clear line for the file it crashed on, exit 2, and nothing else:
the other files are still linted, and the output is the same for any ``--jobs``.

The failing rule is injected for the test only (registered by monkeypatching the registry in
this process; ``--jobs`` workers are forked and inherit it), never by breaking a real rule.
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from inprocess import zlint
from zlint.core import registry
from zlint.core.settings import Settings
from zlint.engine.lint import lint_source
from zlint.rules.base import Rule

HAZARD = "def f(x):\n    if x.size(0) == 1:\n        return x\n"


class ExplodingRule(Rule):
    """Fails on any call to a function named ``boom``."""

    code = "ZL998"
    name = "exploding-test-rule"
    summary = "test only: raises inside the traversal"

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "boom":
            raise ValueError("kaboom\nwith a second line " + "x" * 500)


class UnprintableError(Exception):
    def __str__(self) -> str:
        raise RecursionError("cannot render")


class UnprintableRule(ExplodingRule):
    code = "ZL997"
    name = "unprintable-test-rule"

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "boom":
            raise UnprintableError


@pytest.fixture
def exploding(monkeypatch):
    extra = {
        rule.code: registry.RuleRecord(
            rule.code, rule.name, rule.summary, family="test", module=__name__, visitor=rule.__name__
        )
        for rule in (ExplodingRule, UnprintableRule)
    }
    monkeypatch.setattr(registry, "RULES_BY_CODE", {**registry.RULES_BY_CODE, **extra})


def test_rule_failure_is_one_line_naming_rule_and_file(exploding):
    result = lint_source(HAZARD + "boom()\n", "m.py", Settings(select=("ZL1", "ZL998")), full_path=True)
    assert result.diagnostics == []
    reason = result.error.reason
    assert "\n" not in reason and len(reason) < 300
    assert reason.startswith("internal error in ZL998: ValueError: kaboom with a second line xxx")
    assert reason.endswith("... (please report)")


def test_unprintable_exception_still_gives_a_line(exploding):
    result = lint_source("boom()\n", "m.py", Settings(select=("ZL997",)), full_path=True)
    assert result.error.reason == "internal error in ZL997: UnprintableError (please report)"


def _tree(root: Path, files: int) -> None:
    for i in range(files):
        body = HAZARD + ("boom()\n" if i % 5 == 2 else "") + f"y{i} = {i}\n"
        (root / f"m{i:02d}.py").write_text(body)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_cli_reports_the_failing_files_and_lints_the_rest_identically_for_any_jobs(tmp_path, exploding, fmt):
    _tree(tmp_path, 20)
    runs = {
        jobs: zlint("--no-cache", "--select", "ZL101,ZL998", "--format", fmt, "--jobs", str(jobs), ".", cwd=tmp_path)
        for jobs in (1, 2, 3)
    }
    first = runs[1]
    assert first.returncode == 2
    errors = [line for line in first.stderr.splitlines() if line.startswith("zlint: error: ")]
    assert [e.split(": ")[2] for e in errors] == ["m02.py", "m07.py", "m12.py", "m17.py"]
    for error in errors:
        assert ": internal error in ZL998: ValueError: kaboom" in error
    assert "Traceback" not in first.stderr
    if fmt == "text":  # every other file still linted
        assert [line.split(":")[0] for line in first.stdout.splitlines()] == [
            f"m{i:02d}.py" for i in range(20) if i % 5 != 2
        ]
    for jobs, run in runs.items():
        assert (run.returncode, run.stdout, run.stderr) == (first.returncode, first.stdout, first.stderr), jobs
