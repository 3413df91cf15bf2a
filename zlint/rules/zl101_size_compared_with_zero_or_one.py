"""ZL101: a size compared with 0 or 1 decides control flow."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import Fact, Versus
from zlint.rules.branching import BranchRule, Where, comparisons_of
from zlint.rules.calls import snippet


class SizeComparedWithZeroOrOne(BranchRule):
    code = "ZL101"
    name = "size-compared-with-zero-or-one"
    summary = "A tensor size compared with 0 or 1 decides control flow"

    def check_atom(self, atom: cst.BaseExpression, fact: Fact | None, where: Where) -> None:
        for comparison in comparisons_of(atom, fact):
            own = self.fact(comparison)
            if own is None or Versus.ZERO_ONE not in own.versus:
                continue
            if where is Where.VALIDATION and self.plain_assertion(comparison):
                continue  # a runtime assert under mark_unbacked: no guard, no break
            # sizes 0 and 1 get their own graphs anyway: this costs only once sizes share one graph
            verb = "passes on" if where is Where.ARGUMENT else "branches on"
            self.report_once(
                comparison,
                f"`{snippet(self.context, comparison)}` {verb} a size being 0/1: blocks single-graph "
                "mode; use torch._check",
                tier="single-graph",
            )
