"""ZL209: control flow on memory layout (``if x.is_contiguous():``, ``x.stride(0) == 1``)."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import LAYOUT_METHODS, Fact
from zlint.rules.branching import BranchRule, Where
from zlint.rules.calls import method_name, snippet


def _layout_call(node: cst.BaseExpression) -> bool:
    """``x.is_contiguous(...)``, ``x.stride(i)``, ``x.stride()[i]``."""
    if isinstance(node, cst.Subscript):
        node = node.value
    return isinstance(node, cst.Call) and method_name(node) in LAYOUT_METHODS


class BranchOnLayout(BranchRule):
    code = "ZL209"
    name = "branch-on-layout"
    summary = "Control flow on memory layout: `if x.is_contiguous():`, branching on strides"

    def visit_Call(self, node: cst.Call) -> None:
        return  # only conditions; a layout query passed to an op is fine

    def check_atom(self, atom: cst.BaseExpression, fact: Fact | None, where: Where) -> None:
        if where is not Where.BRANCH:
            return  # a validation that raises has no second graph
        operands = [atom]
        if isinstance(atom, cst.Comparison):
            operands = [atom.left, *(t.comparator for t in atom.comparisons)]
        if not any(_layout_call(o) for o in operands):
            return
        self.report_once(
            atom,
            f"`{snippet(self.context, atom)}` branches on memory layout: recompiles when it flips; "
            "call .contiguous() unconditionally",
        )
