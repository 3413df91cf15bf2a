"""ZL301: a tensor value pulled into Python (``.item()``, ``int(t)``, ``float(t)``, ``bool(t)``)."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import SIZED_FACTORIES, VALUE_CONVERSIONS, Kind
from zlint.rules.calls import method_name, positional, snippet
from zlint.rules.data_dependent import SCALAR, CallRule


class TensorItem(CallRule):
    code = "ZL301"
    name = "tensor-item"
    summary = "`.item()` or `int()`/`float()`/`bool()` of a tensor pulls a data-dependent value into Python"

    METHODS = frozenset({"item"})

    def _as_size(self, node: cst.CSTNode, value: cst.BaseExpression) -> None:
        # range(counts.max()), torch.zeros(n_max), x[:t.max()]: the tensor is read as an int
        # (measured on 2.13: a graph break at each)
        self.report(
            node,
            f"`{snippet(self.context, value)}` is a tensor used as a size: {SCALAR}; keep sizes out "
            "of tensors",
        )

    def visit_Subscript(self, node: cst.Subscript) -> None:
        for element in node.slice:
            if isinstance(element.slice, cst.Slice):
                for bound in (element.slice.lower, element.slice.upper):
                    if self.is_kind(bound, Kind.TENSOR):
                        self._as_size(bound, bound)
                        return

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        args = positional(node)
        if isinstance(func, cst.Name) and func.value == "range":
            found = next((a for a in args if self.is_kind(a, Kind.TENSOR)), None)
            if found is not None:
                self._as_size(node, found)
            return
        qual = self.context.imports.qualify(func) or ""
        if qual.startswith("torch.") and qual[len("torch."):] in SIZED_FACTORIES:
            sizes = args[:1] if qual.endswith((".full", ".randint")) else args
            found = next((a for a in sizes if self.is_kind(a, Kind.TENSOR)), None)
            if found is not None:
                self._as_size(node, found)
            return
        if isinstance(func, cst.Name) and func.value in VALUE_CONVERSIONS:
            args = positional(node)
            fact = self.fact(args[0]) if len(args) == 1 and len(node.args) == 1 else None
            if fact is not None and fact.kind is Kind.TENSOR:
                self.report(
                    node,
                    f"`{snippet(self.context, node)}` reads a tensor value into Python: {SCALAR}; "
                    "keep it a tensor",
                )
            return
        if method_name(node) == "item" and not node.args:
            super().visit_Call(node)

    def check(self, node: cst.Call, name: str, is_method: bool) -> None:
        self.report(
            node,
            f"`{snippet(self.context, node)}` reads a tensor value into Python: {SCALAR}; keep it "
            "a tensor",
        )
