"""ZL207: ``int()``/``float()``/``math.*`` of a size, a guard on torch releases before 2.13."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import SIZE_CONVERSIONS, Kind, SizeFactsRule
from zlint.rules.calls import positional, snippet
from zlint.rules.versioned import BeforeSymbolicRelease


class SizeToPythonNumber(BeforeSymbolicRelease, SizeFactsRule):
    code = "ZL207"
    name = "size-to-python-number"
    summary = "`int()`/`float()`/`math.ceil()` of a tensor size (specializes on torch before 2.13)"

    def visit_Call(self, node: cst.Call) -> None:
        if not self.applies:
            return
        func = node.func
        name = func.value if isinstance(func, cst.Name) else self.context.imports.qualify(func)
        if name not in SIZE_CONVERSIONS:
            return
        args = positional(node)
        fact = self.fact(args[0]) if len(args) == 1 else None
        if fact is None or fact.kind is not Kind.SIZE:
            return
        fix = "torch.sym_float(n)" if name == "float" else "n // k or torch.sym_int"
        self.report(
            node,
            f"`{snippet(self.context, node)}` turns a size into a number: recompiles for every size "
            f"before torch 2.13; use {fix}",
        )
