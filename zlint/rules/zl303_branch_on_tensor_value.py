"""ZL303: a tensor's value decides Python control flow (``if (x > 0).any():``, ``if t:``)."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import Fact, Kind, condition_atoms
from zlint.rules.branching import BranchRule, Where
from zlint.rules.calls import snippet


class BranchOnTensorValue(BranchRule):
    code = "ZL303"
    name = "branch-on-tensor-value"
    summary = "The value of a tensor (`if (x > 0).any():`, `if t:`) decides control flow"

    def visit_Assert(self, node: cst.Assert) -> None:
        # measured on 2.13: an assert on a tensor traces (a runtime assert), no graph break
        return

    def _condition(self, expr: cst.BaseExpression, where: Where) -> None:
        # `if not torch.isfinite(w).all() or (w < 0).any():` is one data-dependent jump: report once
        for atom in condition_atoms(expr):
            fact = self.fact(atom)
            if fact is not None and fact.kind is Kind.TENSOR:
                self.check_atom(atom, fact, where)
                return

    def check_atom(self, atom: cst.BaseExpression, fact: Fact | None, where: Where) -> None:
        if where is Where.ARGUMENT or fact is None or fact.kind is not Kind.TENSOR:
            return
        self.report_once(
            atom,
            f"`{snippet(self.context, atom)}` branches on a tensor value: graph break; use "
            "torch.where",
        )
