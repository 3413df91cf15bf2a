"""An internal error names what failed: the rule whose own hook raised, or the shared facts
(naming the provider), never the first rule that happened to ask for the facts."""

from __future__ import annotations

import libcst as cst
import pytest

from zlint.core import registry
from zlint.core.settings import Settings
from zlint.engine.lint import lint_source
from zlint.facts.size_facts import SizeFactsProvider
from zlint.rules.base import SizeFactsRule

SOURCE = "import torch\n\n\ndef f(x):\n    n = x.size(0)\n    if n == 1:\n        return x\n    return boom(n)\n"


class FactsThenBoomRule(SizeFactsRule):
    """Reads the shared facts, then fails in its own code."""

    code = "ZL996"
    name = "facts-then-boom-test-rule"
    summary = "test only: raises in its own hook after using the facts"

    def visit_Call(self, node: cst.Call) -> None:
        self.fact(node)
        if isinstance(node.func, cst.Name) and node.func.value == "boom":
            raise LookupError("rule broke")


@pytest.fixture
def failing_rule(monkeypatch):
    rule = FactsThenBoomRule
    record = registry.RuleRecord(
        rule.code, rule.name, rule.summary, family="test", module=__name__, visitor=rule.__name__
    )
    monkeypatch.setattr(registry, "RULES_BY_CODE", {**registry.RULES_BY_CODE, rule.code: record})


@pytest.mark.parametrize("full_path", [True, False])
def test_failure_inside_the_shared_facts_names_the_provider(monkeypatch, full_path):
    def broken(self, original_node):
        raise RuntimeError("facts broke")

    monkeypatch.setattr(SizeFactsProvider, "leave_Assign", broken)
    result = lint_source(SOURCE, "m.py", Settings(select=("ALL",)), full_path=full_path)
    assert result.diagnostics == []
    assert result.error.reason == (
        "internal error in shared facts (SizeFactsProvider): RuntimeError: facts broke (please report)"
    )


def test_failure_in_a_facts_helper_is_the_facts_not_the_rule(monkeypatch):
    import zlint.facts.size_facts as size_facts

    def broken(*args, **kwargs):
        raise RuntimeError("helper broke")

    # a module-level helper of the facts, called while a provider hook runs
    monkeypatch.setattr(size_facts, "arith_fact", broken)
    result = lint_source("def f(x):\n    return x.size(0) + 1\n", "m.py", Settings(select=("ALL",)), full_path=True)
    assert result.error.reason.startswith("internal error in shared facts")
    assert "ZL" not in result.error.reason


@pytest.mark.parametrize("full_path", [True, False])
def test_failure_in_a_rule_hook_names_that_rule(failing_rule, full_path):
    result = lint_source(SOURCE, "m.py", Settings(select=("ALL",)), full_path=full_path)
    assert result.error.reason == "internal error in ZL996: LookupError: rule broke (please report)"


def test_a_healthy_run_of_the_same_rule_reports_no_error(failing_rule):
    result = lint_source(SOURCE.replace("boom(n)", "x"), "m.py", Settings(select=("ALL",)), full_path=True)
    assert result.error is None
    assert [(d.line, d.code) for d in result.diagnostics if d.code == "ZL101"] == [(6, "ZL101")]
