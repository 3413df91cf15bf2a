"""ZL201: ``range()`` over a tensor size (``for i in range(x.size(0))``)."""

from __future__ import annotations

import libcst as cst

from zlint.facts.size_facts import SIZE_WORDS, Kind
from zlint.rules.base import Rule
from zlint.rules.calls import positional, snippet


class LoopOverSize(Rule):
    code = "ZL201"
    trigger_words = SIZE_WORDS
    candidate = staticmethod(lambda s, _: s.sized_argument(("range",)) or s.sized_repeat)
    name = "loop-over-size"
    summary = "`range()` over a tensor size: dynamo unrolls the loop and guards on the exact size"

    def visit_Call(self, node: cst.Call) -> None:
        if not (isinstance(node.func, cst.Name) and node.func.value == "range"):
            return
        sizes = [self.fact(arg) for arg in positional(node)]
        sizes = [f for f in sizes if f is not None and f.kind is Kind.SIZE]
        if not sizes:
            return
        bounds = [f.bound for f in sizes]
        if all(b is not None for b in bounds):
            # range(min(n, 4)): one graph for every n >= 4, one per n below; sizes 0 and 1
            # are specialized anyway, so a clamp at 2 or below costs nothing
            bound = max(bounds)
            if bound > 2:
                self.report(
                    node,
                    f"`{snippet(self.context, node)}` loops over a clamped size: recompiles for each "
                    f"size below {bound}; vectorize",
                )
            return
        self.report(
            node,
            f"`{snippet(self.context, node)}` loops over a size: recompiles for every size; "
            "vectorize or use torch.vmap",
        )

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        # [0] * n: a Python list as long as a size, one graph per length
        if not isinstance(node.operator, cst.Multiply):
            return
        for items, count in ((node.left, node.right), (node.right, node.left)):
            fact = self.fact(count)
            if isinstance(items, (cst.List, cst.Tuple)) and fact is not None and fact.kind is Kind.SIZE:
                self.report(
                    node,
                    f"`{snippet(self.context, node)}` is a list as long as a size: recompiles for "
                    "every size",
                )
                return
