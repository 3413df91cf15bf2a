"""ZL405: ``torch.export.Dim(..., min=0)`` or ``min=1``."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import DIM_FACTORIES, Rule, int_literal


class ExportDimMinZeroOrOne(Rule):
    code = "ZL405"
    about_compiled_code = False  # about a call site, wherever it sits
    name = "export-dim-min-zero-or-one"
    summary = "`torch.export.Dim(..., min=0)`/`min=1`: export still traces for sizes >= 2"

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.imports.qualify(node.func) not in DIM_FACTORIES:
            return
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "min" and int_literal(arg.value) in (0, 1):
                value = int_literal(arg.value)
                self.report(
                    arg,
                    f"`Dim(..., min={value})`: export assumes the dim is never 0 or 1; use min=2 and "
                    "handle sizes 0/1 outside",
                )
