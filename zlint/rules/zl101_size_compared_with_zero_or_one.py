"""ZL101: a size compared with 0 or 1 decides control flow."""

from __future__ import annotations

import libcst as cst

from zlint.facts.size_facts import Fact, Versus
from zlint.rules.branching import BranchRule, Where, comparisons_of
from zlint.facts.size_facts import SIZE_WORDS


class SizeComparedWithZeroOrOne(BranchRule):
    code = "ZL101"
    trigger_words = SIZE_WORDS
    name = "size-compared-with-zero-or-one"
    summary = "A tensor size compared with 0 or 1 decides control flow"

    def check_atom(self, atom: cst.BaseExpression, fact: Fact | None, where: Where) -> None:
        for comparison in comparisons_of(atom, fact):
            own = self.fact(comparison)
            if own is None or Versus.ZERO_ONE not in own.versus:
                continue
            passed_on = " (passed on as a bool)" if where is Where.ARGUMENT else ""
            self.report_once(
                comparison,
                f"`{self.context.snippet(comparison)}` branches on a size being 0 or 1{passed_on}: "
                "dynamo gives sizes 0 and 1 their own graphs, and mark_unbacked/"
                "backed_size_oblivious turn this into a guard or graph break; use torch._check(), "
                "torch.cond() or branch-free code",
            )
