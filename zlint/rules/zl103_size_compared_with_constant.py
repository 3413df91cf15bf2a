"""ZL103: a size compared with a constant other than 0/1, or with another size, decides control flow."""

from __future__ import annotations

import libcst as cst

from zlint.facts.size_facts import Fact, Versus
from zlint.rules.branching import BranchRule, Where, comparisons_of
from zlint.facts.size_facts import SIZE_WORDS


class SizeComparedWithConstant(BranchRule):
    code = "ZL103"
    trigger_words = SIZE_WORDS
    name = "size-compared-with-constant"
    summary = "A tensor size compared with a constant (`seq_len > 512`) or another size decides control flow"

    def check_atom(self, atom: cst.BaseExpression, fact: Fact | None, where: Where) -> None:
        # A check that only raises (or an assert) cannot flip into another graph: the other
        # side is an error. Validations like `if x.size(1) != y.size(1): raise` stay quiet.
        if where is Where.VALIDATION:
            return
        for comparison in comparisons_of(atom, fact):
            own = self.fact(comparison)
            if own is None or Versus.ZERO_ONE in own.versus:
                continue  # ZL101's finding
            if Versus.CONSTANT in own.versus:
                what = "a constant" + (f" ({', '.join(own.constants)})" if own.constants else "")
            elif Versus.SIZE in own.versus:
                what = "another size"
            elif Versus.DIVISIBILITY in own.versus:
                what = "0 after `%` (a divisibility guard)"
            else:
                continue
            self.report_once(
                comparison,
                f"`{self.context.snippet(comparison)}` branches on a size compared with {what}: "
                "dynamo guards the outcome and recompiles whenever it flips; move the check out "
                "of compiled code, torch._check() it if it always holds, or use torch.cond()",
            )
