"""ZL102: the truth value of a size decides control flow (``if x.numel():``)."""

from __future__ import annotations

import libcst as cst

from zlint.facts.size_facts import Fact, Kind
from zlint.rules.branching import BranchRule, Where


class SizeTruthiness(BranchRule):
    code = "ZL102"
    name = "size-truthiness"
    summary = "The truth value of a tensor size (`if x.numel():`) decides control flow"

    def check_atom(self, atom: cst.BaseExpression, fact: Fact | None, where: Where) -> None:
        if fact is None or fact.kind is not Kind.SIZE or where is Where.ARGUMENT:
            return
        self.report_once(
            atom,
            f"`{self.context.snippet(atom)}` tests a size for truth, a hidden `!= 0`: dynamo "
            "guards Ne(s, 0), size 0 gets its own graph, and under mark_unbacked this is a "
            "data-dependent branch that breaks the graph; handle the empty case branch-free, "
            "or state it with torch._check(n > 0)",
        )
