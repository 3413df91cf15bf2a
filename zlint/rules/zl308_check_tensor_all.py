"""ZL308: ``torch._check_tensor_all(cond)`` reads the whole condition tensor into Python."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import TENSOR_CHECKS, Rule
from zlint.rules.calls import snippet
from zlint.rules.data_dependent import SCALAR


class CheckTensorAll(Rule):
    code = "ZL308"
    name = "check-tensor-all"
    summary = "`torch._check_tensor_all(cond)` reads a tensor condition into Python: graph break"

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.imports.qualify(node.func) or ""
        head, _, function = qualified.rpartition(".")
        if head != "torch" or function not in TENSOR_CHECKS:
            return
        self.report(
            node,
            f"`{snippet(self.context, node)}` reads its condition tensor into Python: {SCALAR}; "
            "use `torch._assert_async(cond.all(), msg)`",
        )
