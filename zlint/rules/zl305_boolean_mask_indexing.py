"""ZL305: indexing with a boolean mask (``x[mask]``, ``masked_select``): data-dependent sizes."""

from __future__ import annotations

import libcst as cst

from zlint.rules.calls import snippet
from zlint.rules.data_dependent import OUTPUT_SHAPE, CallRule


class BooleanMaskIndexing(CallRule):
    code = "ZL305"
    name = "boolean-mask-indexing"
    summary = "Boolean-mask indexing `x[mask]` or `masked_select`: the output size depends on the data"

    METHODS = frozenset({"masked_select"})
    FUNCTIONS = frozenset({"masked_select"})

    def __init__(self, context) -> None:
        super().__init__(context)
        # x[mask] = v writes in place (index_put): no data-dependent size, measured on 2.13
        self._stores: set[int] = set()

    def _store(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Subscript):
            self._stores.add(id(target))
        elif isinstance(target, (cst.Tuple, cst.List)):  # a[m], b[m] = f(...)
            for element in target.elements:
                self._store(element.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._store(target.target)

    # x[mask] += v reads x[mask] before writing it back: a data-dependent read (measured on
    # 2.13: a graph break per call), so an augmented assignment is not a store

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if id(node) in self._stores or not node.slice:
            return
        # a mask at any position selects (`x[mask]`, `x[:, mask]`, `x[i, ..., mask]`)
        if not any(
            isinstance(element.slice, cst.Index) and (fact := self.fact(element.slice.value)) is not None
            and fact.boolean
            for element in node.slice
        ):
            return
        self.report(
            node,
            f"`{snippet(self.context, node)}` selects by a mask, a {OUTPUT_SHAPE}; use torch.where",
        )

    def check(self, node: cst.Call, name: str, is_method: bool) -> None:
        self.report(
            node,
            f"`{snippet(self.context, node)}` has a {OUTPUT_SHAPE}; use torch.where",
        )
