"""What dynamo does with data-dependent values and output sizes (ZL3xx), said once for all rules.

Measured on torch 2.13 (CPU): each of these graph-breaks by default; with the capture flags on,
the same code traces into one graph with an unbacked symbol (u0), and a later branch on it raises
GuardOnDataDependentSymNode.
"""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import SizeFactsRule
from zlint.rules.calls import method_name, torch_function

#: the cost, said the same way by every ZL3xx message (the details live in the rule docs:
#: with capture_scalar_outputs / capture_dynamic_output_shape_ops it traces with an unbacked
#: symbol instead, and a branch on it raises GuardOnDataDependentSymNode)
SCALAR = "graph break"
OUTPUT_SHAPE = "data-dependent size: graph break"


def root_of(node: cst.BaseExpression) -> cst.BaseExpression:
    """The head of a call/attribute/subscript chain: ``np`` for ``np.float32(3).item``."""
    while isinstance(node, (cst.Call, cst.Attribute, cst.Subscript)):
        node = node.func if isinstance(node, cst.Call) else node.value
    return node


class CallRule(SizeFactsRule):
    """Pick this base for a rule about calls of some tensor methods or ``torch.*`` functions
    (by name, through import aliases): list them in ``METHODS``/``FUNCTIONS`` and write
    :meth:`check`. A method call counts only in tensor code (the file imports torch or the
    receiver is a known tensor; reads the size facts). ZL301, ZL304-ZL307. For a call that
    must resolve to one exact ``torch`` name, plain ``Rule`` and ``context.imports`` suffice
    (ZL308)."""

    METHODS: frozenset[str] = frozenset()
    FUNCTIONS: frozenset[str] = frozenset()

    def visit_Call(self, node: cst.Call) -> None:
        fn = torch_function(node, self.context.imports)
        if fn is not None:
            if fn in self.FUNCTIONS:
                self.check(node, fn, is_method=False)
            return
        method = method_name(node)
        if method in self.METHODS and self.imports_torch_or_tensor(node):
            self.check(node, method, is_method=True)

    def imports_torch_or_tensor(self, node: cst.Call) -> bool:
        """Only tensor code: the file imports torch or the receiver is a known tensor."""
        assert isinstance(node.func, cst.Attribute)
        qual = self.context.imports.qualify(root_of(node.func.value)) or ""
        if qual.split(".", 1)[0] in {"numpy", "np", "pandas", "jax"}:
            return False
        fact = self.fact(node.func.value)
        return (fact is not None and fact.kind.value == "tensor") or self.context.imports.imports_torch

    def check(self, node: cst.Call, name: str, is_method: bool) -> None:
        raise NotImplementedError
