"""ZL201: ``range()`` over a tensor size (``for i in range(x.size(0))``)."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import Kind, SizeFactsRule, names_fixed_size, visit
from zlint.rules.calls import positional, snippet


class LoopOverSize(SizeFactsRule):
    code = "ZL201"
    name = "loop-over-size"
    summary = "`range()` over a tensor size: dynamo unrolls the loop and guards on the exact size"

    def __init__(self, context) -> None:
        super().__init__(context)
        #: range() calls of loops whose counter picks an entry of a container the model holds, or
        #: names a width (`for channel in range(x.shape[1])`)
        self._structural: set[int] = set()

    def visit_For(self, node: cst.For) -> None:
        # `for level in range(h.shape[1]): self.class_embed[level](...)`: one step per layer
        # (per axis, per head) of the model, a count its structure fixes, not a varying size
        if self._sized_range(node.target, node.iter):
            assert isinstance(node.target, cst.Name)
            finder = _HeldEntries(node.target.value)
            visit(node.body, finder)
            if finder.found or names_fixed_size(node.target.value):
                self._structural.add(id(node.iter))

    def visit_CompFor(self, node: cst.CompFor) -> None:
        # `[c for channel in range(x.shape[1])]`: the counter names a width the model fixes
        # (measured: batch and spatial sizes varying at 3 channels add no graph)
        if self._sized_range(node.target, node.iter) and names_fixed_size(node.target.value):
            self._structural.add(id(node.iter))

    def _sized_range(self, target: cst.BaseExpression, loop: cst.BaseExpression) -> bool:
        """``for <name> in range(<size>)``."""
        return (
            isinstance(target, cst.Name) and isinstance(loop, cst.Call) and isinstance(loop.func, cst.Name)
            and loop.func.value == "range" and any(self.is_kind(a, Kind.SIZE) for a in positional(loop))
        )

    def visit_Call(self, node: cst.Call) -> None:
        if not (isinstance(node.func, cst.Name) and node.func.value == "range") or id(node) in self._structural:
            return
        sizes = [self.fact(arg) for arg in positional(node)]
        sizes = [f for f in sizes if f is not None and f.kind is Kind.SIZE]
        if not sizes:
            return
        bounds = [f.bound for f in sizes]
        if all(b is not None for b in bounds):
            # range(min(n, 4)): one graph for every n >= 4, one per n below; sizes 0 and 1
            # are specialized anyway, so a clamp at 2 or below costs nothing
            bound = max(bounds)
            if bound > 2:
                self.report(
                    node,
                    f"`{snippet(self.context, node)}` loops over a clamped size: recompiles for each "
                    f"size below {bound}; vectorize",
                )
            return
        self.report(
            node,
            f"`{snippet(self.context, node)}` loops over a size: recompiles for every size; "
            "vectorize or use torch.vmap",
        )

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        # [0] * n: a Python list as long as a size, one graph per length
        if not isinstance(node.operator, cst.Multiply):
            return
        for items, count in ((node.left, node.right), (node.right, node.left)):
            fact = self.fact(count)
            if isinstance(items, (cst.List, cst.Tuple)) and fact is not None and fact.kind is Kind.SIZE:
                self.report(
                    node,
                    f"`{snippet(self.context, node)}` is a list as long as a size: recompiles for "
                    "every size",
                )
                return


class _HeldEntries(cst.CSTVisitor):
    """Whether a loop body indexes a container of ``self`` with the bare loop counter."""

    def __init__(self, counter: str) -> None:
        self.counter = counter
        self.found = False

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return
        index = node.slice[0].slice.value
        root = node.value
        while isinstance(root, cst.Attribute):
            root = root.value
        if (
            isinstance(index, cst.Name) and index.value == self.counter and isinstance(node.value, cst.Attribute)
            and isinstance(root, cst.Name) and root.value == "self"
        ):
            self.found = True
