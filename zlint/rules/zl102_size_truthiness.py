"""ZL102: the truth value of a size decides control flow (``if x.numel():``)."""

from __future__ import annotations

import libcst as cst

from zlint.facts.size_facts import Fact, Kind
from zlint.rules.branching import BranchRule, Where
from zlint.facts.size_facts import SIZE_WORDS


class SizeTruthiness(BranchRule):
    code = "ZL102"
    trigger_words = SIZE_WORDS
    name = "size-truthiness"
    summary = "The truth value of a tensor size (`if x.numel():`) decides control flow"

    def check_atom(self, atom: cst.BaseExpression, fact: Fact | None, where: Where) -> None:
        if fact is None or fact.kind is not Kind.SIZE or where is Where.ARGUMENT:
            return
        self.report_once(
            atom,
            f"`{self.context.snippet(atom)}` tests a size for truth (a hidden `!= 0`): dynamo "
            "guards Ne(s, 0) and size 0 gets its own graph; under mark_unbacked it is a "
            "data-dependent branch; handle the empty case branch-free or torch._check(n > 0)",
        )
