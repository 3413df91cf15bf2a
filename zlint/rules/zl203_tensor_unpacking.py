"""ZL203 (opt-in): unpacking a tensor (``a, b = x``) pins its first dim."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import Kind, SizeFactsRule
from zlint.rules.calls import snippet


class TensorUnpacking(SizeFactsRule):
    code = "ZL203"
    name = "tensor-unpacking"
    summary = "Unpacking a tensor (`a, b = x`) pins its first dim to the number of targets"
    # the unpacked dim is almost always fixed by the model (q, k, v = qkv): opt-in
    default_enabled = False

    def visit_Assign(self, node: cst.Assign) -> None:
        fact = self.fact(node.value)
        if fact is None or fact.kind is not Kind.TENSOR:
            return
        for target in node.targets:
            if isinstance(target.target, (cst.Tuple, cst.List)):
                count = len(target.target.elements)
                self.report(
                    node.value,
                    f"unpacking `{snippet(self.context, node.value)}` pins its first dim to {count}: "
                    "errors under mark_dynamic; index it",
                )
                return
