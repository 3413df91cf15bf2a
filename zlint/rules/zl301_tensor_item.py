"""ZL301: a tensor value pulled into Python (``.item()``, ``int(t)``, ``float(t)``, ``bool(t)``)."""

from __future__ import annotations

import libcst as cst

from zlint.facts.size_facts import Kind
from zlint.rules.calls import method_name, positional
from zlint.rules.data_dependent import SCALAR, CallRule

CONVERSIONS = frozenset({"int", "float", "bool"})


class TensorItem(CallRule):
    code = "ZL301"
    trigger_words = CONVERSIONS | {"item"}
    name = "tensor-item"
    summary = "`.item()` or `int()`/`float()`/`bool()` of a tensor pulls a data-dependent value into Python"

    METHODS = frozenset({"item"})

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name) and func.value in CONVERSIONS:
            args = positional(node)
            fact = self.fact(args[0]) if len(args) == 1 and len(node.args) == 1 else None
            if fact is not None and fact.kind is Kind.TENSOR:
                self.report(
                    node,
                    f"`{self.context.snippet(node)}` reads a tensor's value into a Python "
                    f"{func.value}: {SCALAR}; keep it a tensor (torch.where, tensor arithmetic) "
                    "or, if it must be a number, state its range with torch._check()",
                )
            return
        if method_name(node) == "item" and not node.args:
            super().visit_Call(node)

    def check(self, node: cst.Call, name: str, is_method: bool) -> None:
        self.report(
            node,
            f"`{self.context.snippet(node)}` reads a tensor's value into Python: {SCALAR}; keep "
            "it a tensor (torch.where, tensor arithmetic, torch.clamp), or state its range with "
            "torch._check() after capturing it",
        )
