"""ZL208: ``x.squeeze()`` without a dim, a guard per dim on torch releases before 2.13."""

from __future__ import annotations

import libcst as cst

from zlint.rules.calls import method_name, snippet, torch_function
from zlint.rules.versioned import BeforeSymbolicRelease


class SqueezeWithoutDim(BeforeSymbolicRelease):
    code = "ZL208"
    name = "squeeze-without-dim"
    summary = "`x.squeeze()` without a dim (guards every dim on torch before 2.13)"

    def visit_Call(self, node: cst.Call) -> None:
        if not self.applies:
            return
        if torch_function(node, self.context.imports) == "squeeze":
            if len(node.args) != 1:
                return
        elif method_name(node) == "squeeze" and not node.args:
            assert isinstance(node.func, cst.Attribute)
            qual = self.context.imports.qualify(node.func.value) or ""
            if qual.startswith(("numpy", "np")) or not self.context.imports.imports_torch:
                return
        else:
            return
        self.report(
            node,
            f"`{snippet(self.context, node)}` squeezes every size-1 dim: recompiles when one flips "
            "before torch 2.13; use squeeze(dim)",
        )
