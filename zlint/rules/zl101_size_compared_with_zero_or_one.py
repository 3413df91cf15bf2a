"""ZL101: a size compared with 0 or 1 decides control flow."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import Fact, Versus
from zlint.rules.branching import BranchRule, Where, comparisons_of

#: The fix depends on what the test singles out (:attr:`Fact.small`): ``torch._check`` would make
#: an empty-input guard raise on empty inputs, and a size-1 fast path is redundant, not wrong.
ADVICE = {
    frozenset({0}): ("0", "handle size 0 without a branch (ops work on empty tensors)"),
    frozenset({1}): ("1", "drop the size-1 fast path: the general path handles size 1"),
    frozenset({0, 1}): ("0 or 1", "let the general path handle sizes 0 and 1 (ops work on empty tensors)"),
}
#: A check that raises (or asserts) states a fact the code relies on: torch._check states it
#: without a branch, and the size keeps one graph.
VALIDATION_ADVICE = "state the check with torch._check"
#: A size bool handed to a call (``is_causal=q_len > 1``) has no path to drop: the callee needs a
#: value that holds for every size.
ARGUMENT_ADVICE = "pass a value that does not test the size (an explicit mask, a constant)"


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
            being, advice = ADVICE.get(own.small, ADVICE[frozenset({0, 1})])
            verb = "branches on"
            if where is Where.VALIDATION:
                verb, advice = "checks", VALIDATION_ADVICE
            elif where is Where.ARGUMENT:
                verb, advice = "passes on", ARGUMENT_ADVICE
            # sizes 0 and 1 get their own graphs anyway: this costs only once sizes share one graph
            self.report_once(
                comparison,
                f"{self.described(comparison, atom, where)} {verb} a size being {being}: blocks single-graph "
                f"mode; {advice}",
                tier="single-graph",
                atom=atom,
                where=where,
            )
