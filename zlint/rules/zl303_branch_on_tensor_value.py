"""ZL303: a tensor's value decides Python control flow (``if (x > 0).any():``, ``if t:``)."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from zlint.rules.api import Fact, Kind, condition_atoms, truth_tested_in_assert
from zlint.rules.branching import BranchRule, Where
from zlint.rules.calls import snippet


class BranchOnTensorValue(BranchRule):
    code = "ZL303"
    name = "branch-on-tensor-value"
    summary = "The value of a tensor (`if (x > 0).any():`, `if t:`) decides control flow"

    def visit_Assert(self, node: cst.Assert) -> None:
        # measured on 2.13: `assert t` and `assert n > 0 and t` trace (a runtime assert of the
        # value asserted), but `assert not t` and `assert t and u` take a tensor's truth in
        # Python first: data-dependent branching, 4 graphs over 3 sizes instead of 2
        atom = self._first_tensor(truth_tested_in_assert(node.test))
        if atom is not None:
            self.report_once(
                atom,
                f"`{snippet(self.context, atom)}` is tested for truth inside an assert: graph break; "
                "assert one tensor condition (combine with &, |, ~)",
            )

    def _condition(self, expr: cst.BaseExpression, where: Where) -> None:
        # `if not torch.isfinite(w).all() or (w < 0).any():` is one data-dependent jump: report once
        atom = self._first_tensor(condition_atoms(expr))
        if atom is not None:
            self.check_atom(atom, self.fact(atom), where)

    def _first_tensor(self, atoms: Iterable[cst.BaseExpression]) -> cst.BaseExpression | None:
        return next((a for a in atoms if (fact := self.fact(a)) is not None and fact.kind is Kind.TENSOR), None)

    def check_atom(self, atom: cst.BaseExpression, fact: Fact | None, where: Where) -> None:
        if where is Where.ARGUMENT or fact is None or fact.kind is not Kind.TENSOR:
            return
        self.report_once(
            atom,
            f"`{snippet(self.context, atom)}` branches on a tensor value: graph break; use "
            "torch.where",
        )
