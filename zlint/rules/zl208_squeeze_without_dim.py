"""ZL208: ``x.squeeze()`` without a dim, a guard per dim on torch releases before 2.13."""

from __future__ import annotations

import libcst as cst

from zlint.rules.calls import method_name, torch_function
from zlint.rules.versioned import BeforeSymbolicRelease


class SqueezeWithoutDim(BeforeSymbolicRelease):
    code = "ZL208"
    trigger_words = frozenset({"squeeze"})
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
            f"`{self.context.snippet(node)}` squeezes every dim of size 1: on the targeted torch "
            "(before 2.13) dynamo guards each dim on ==1, so a dynamic dim that becomes 1 gets "
            "its own graph and a different result rank; name the dim: squeeze(dim)",
        )
