"""ZL102: the truth value of a size decides control flow (``if x.numel():``)."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import Fact, Kind
from zlint.rules.branching import BranchRule, Where
from zlint.rules.calls import snippet


class SizeTruthiness(BranchRule):
    code = "ZL102"
    name = "size-truthiness"
    summary = "The truth value of a tensor size (`if x.numel():`) decides control flow"

    def check_atom(self, atom: cst.BaseExpression, fact: Fact | None, where: Where) -> None:
        if fact is None or fact.kind is not Kind.SIZE or where is Where.ARGUMENT:
            return
        if fact.remainder and where is Where.BRANCH:
            return  # `if n % 8:` branches on divisibility, which costs by default: ZL103's finding
        if fact.positive:
            return  # `k - n % k` is at least 1: always true
        # a check that raises on an empty input is right as a check: torch._check keeps it without
        # a branch; a branch around size 0 is what ops on empty tensors make unnecessary
        advice = "state the check with torch._check" if where is Where.VALIDATION else "handle 0 branch-free"
        self.report_once(
            atom,
            f"`{snippet(self.context, atom)}` tests a size for truth: blocks single-graph mode; {advice}",
            tier="single-graph",
        )
