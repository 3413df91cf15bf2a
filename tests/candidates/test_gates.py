"""The rules' gates: declared once in zlint/candidates/gates/, bound onto every rule class, and
read by the engine without importing a rule module."""

from __future__ import annotations

import ast

import pytest

from zlint import rules as rule_modules
from zlint.candidates.gates import GATES, gate_of
from zlint.core import registry
from zlint.rules.api import Rule

#: the static rules that declared no candidate test before the gates moved off the rule classes
#: (the files they run on are parsed whole); every other one narrows LibCST to functions
WITHOUT_CANDIDATE = {"ZL403"}


def test_every_static_rule_exposes_the_gate_of_its_code():
    static = {record.code for record in registry.records() if record.is_static}
    assert set(GATES) == static  # no gate without a rule, no rule without a gate
    for visitor in rule_modules.all_visitors():
        gate = GATES[visitor.code]
        assert gate_of(visitor.code) is gate
        assert visitor.trigger_words == gate.trigger_words and visitor.trigger_words, visitor.code
        assert visitor.candidate is gate.candidate and visitor.may_report is gate.may_report, visitor.code
    assert {code for code, gate in GATES.items() if gate.candidate is None} == WITHOUT_CANDIDATE


def test_a_rule_class_states_no_gate_of_its_own():
    with pytest.raises(TypeError, match="declare the gate of its code in zlint/candidates/gates/"):

        class Restated(Rule):
            code = "ZL101"
            name = "restated"
            summary = "s"
            trigger_words = frozenset({"size"})

    # the near miss: a rule of no gate keeps the open defaults (always runs, on whole files)
    class Ungated(Rule):
        code = "ZL995"
        name = "ungated"
        summary = "s"

    assert (Ungated.trigger_words, Ungated.candidate) == (None, None)
    assert Ungated.may_report("x = 1\n", ast.parse("x = 1\n"), None)
    assert gate_of("ZL995").candidate is None
