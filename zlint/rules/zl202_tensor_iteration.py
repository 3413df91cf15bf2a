"""ZL202: iterating a tensor (``for row in x``, ``enumerate(x)``, ``zip(x, y)``, ``list(x)``)."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import ITERATING_BUILTINS, Kind, SizeFactsRule
from zlint.rules.calls import positional, snippet


class TensorIteration(SizeFactsRule):
    code = "ZL202"
    name = "tensor-iteration"
    summary = "Iterating a tensor over its first dim (`for row in x`, `zip(x, y)`, `list(x)`)"

    def _is_tensor(self, node: cst.BaseExpression) -> bool:
        fact = self.fact(node)
        # torch.logspace(0, 1, 5), torch.stack(per_layer): a first dim known up front unrolls
        # the same steps every call
        return fact is not None and fact.kind is Kind.TENSOR and not fact.fixed and 0 not in fact.static_dims

    def _report(self, node: cst.CSTNode) -> None:
        self.report(
            node,
            f"`{snippet(self.context, node)}` iterates a tensor: recompiles for every size; vectorize it",
        )

    def visit_For(self, node: cst.For) -> None:
        if self._is_tensor(node.iter):
            self._report(node.iter)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        if self._is_tensor(node.iter):
            self._report(node.iter)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Name) and func.value in ITERATING_BUILTINS):
            return
        args = positional(node)
        if func.value == "map":
            args = args[1:]
        if any(self._is_tensor(arg) for arg in args):
            self._report(node)
