"""ZL201: ``range()`` over a tensor size (``for i in range(x.size(0))``)."""

from __future__ import annotations

import libcst as cst

from zlint.facts.size_facts import Kind
from zlint.rules.base import Rule
from zlint.rules.calls import positional
from zlint.facts.size_facts import SIZE_WORDS


class LoopOverSize(Rule):
    code = "ZL201"
    trigger_words = SIZE_WORDS
    name = "loop-over-size"
    summary = "`range()` over a tensor size: dynamo unrolls the loop and guards on the exact size"

    def visit_Call(self, node: cst.Call) -> None:
        if not (isinstance(node.func, cst.Name) and node.func.value == "range"):
            return
        if not any(self.fact(arg) is not None and self.fact(arg).kind is Kind.SIZE for arg in positional(node)):
            return
        self.report(
            node,
            f"`{self.context.snippet(node)}` loops over a tensor size: dynamo unrolls the loop and "
            "guards Eq(s, N), so every new size compiles a new graph (also with dynamic=True); "
            "vectorize over that dim, use torch.vmap, or keep the loop outside compiled code",
        )
