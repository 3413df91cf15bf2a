"""ZL302: ``.tolist()`` on a tensor turns data into Python ints."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import Kind, SizeFactsRule
from zlint.rules.calls import method_name, snippet


class TensorTolist(SizeFactsRule):
    code = "ZL302"
    name = "tensor-tolist"
    summary = "`.tolist()` on a tensor turns its data into Python numbers"

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) != "tolist" or node.args:
            return
        assert isinstance(node.func, cst.Attribute)
        fact = self.fact(node.func.value)
        # numpy arrays have .tolist() too: only a receiver known to be a tensor counts
        if fact is None or fact.kind is not Kind.TENSOR:
            return
        self.report(
            node,
            f"`{snippet(self.context, node)}` turns tensor data into Python: graph break; keep it a tensor",
        )
