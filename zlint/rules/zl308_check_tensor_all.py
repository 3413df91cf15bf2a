"""ZL308: ``torch._check_tensor_all(cond)`` reads the whole condition tensor into Python."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import Rule, spells
from zlint.rules.calls import snippet
from zlint.rules.data_dependent import SCALAR

#: the checks whose condition is a tensor (``torch._check`` takes a Python or symbolic bool)
CHECKS = frozenset({"_check_tensor_all", "_check_tensor_all_with"})


class CheckTensorAll(Rule):
    code = "ZL308"
    trigger_words = CHECKS
    candidate = staticmethod(spells(CHECKS))
    name = "check-tensor-all"
    summary = "`torch._check_tensor_all(cond)` reads a tensor condition into Python: graph break"

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.imports.qualify(node.func) or ""
        head, _, function = qualified.rpartition(".")
        if head != "torch" or function not in CHECKS:
            return
        self.report(
            node,
            f"`{snippet(self.context, node)}` reads its condition tensor into Python: {SCALAR}; "
            "use `torch._assert_async(cond.all(), msg)`",
        )
