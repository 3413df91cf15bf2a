"""Where a function specializes one dim of one of its tensor parameters.

Used to predict ``ConstraintViolationError``: ``mark_dynamic(x, d)`` promises that dim ``d``
stays symbolic, and these uses turn it into a constant (measured on torch 2.13): ``range`` over
the size, iterating/unbinding/``list()``-ing the tensor along it, formatting the size into a
string, comparing it with ``==``/``!=`` to a constant >= 2 (specialized whenever it is equal).
"""

from __future__ import annotations

import libcst as cst

from zlint.cst.batched import visit
from zlint.facts.literals import int_literal

_ITERATE = frozenset({"list", "tuple", "enumerate", "zip", "iter", "sorted"})


class _Finder(cst.CSTVisitor):
    def __init__(self, param: str, dim: int) -> None:
        self.param, self.dim = param, dim
        self.sizes: set[str] = set()  # names bound to the size
        self.found: cst.CSTNode | None = None

    def is_param(self, node: cst.BaseExpression) -> bool:
        return isinstance(node, cst.Name) and node.value == self.param

    def is_size(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Name):
            return node.value in self.sizes
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value == "size" and self.is_param(node.func.value) and len(node.args) == 1:
                return int_literal(node.args[0].value) == self.dim
        if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            index = int_literal(node.slice[0].slice.value)
            value = node.value
            if isinstance(value, cst.Attribute) and value.attr.value == "shape" and self.is_param(value.value):
                return index == self.dim
            if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
                if value.func.attr.value == "size" and not value.args and self.is_param(value.func.value):
                    return index == self.dim
        return False

    def hit(self, node: cst.CSTNode) -> None:
        if self.found is None:
            self.found = node

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            t = target.target
            if isinstance(t, cst.Name) and self.is_size(node.value):
                self.sizes.add(t.value)
            elif isinstance(t, (cst.Tuple, cst.List)) and self.dim >= 0:
                value = node.value
                shape = (
                    isinstance(value, cst.Attribute) and value.attr.value == "shape" and self.is_param(value.value)
                ) or (
                    isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
                    and value.func.attr.value == "size" and not value.args and self.is_param(value.func.value)
                )
                if shape and self.dim < len(t.elements) and isinstance(t.elements[self.dim].value, cst.Name):
                    self.sizes.add(t.elements[self.dim].value.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        args = [a.value for a in node.args]
        if isinstance(func, cst.Name):
            if func.value == "range" and any(self.is_size(a) for a in args):
                self.hit(node)
            elif func.value in _ITERATE and self.dim == 0 and any(self.is_param(a) for a in args):
                self.hit(node)
        elif isinstance(func, cst.Attribute) and func.attr.value == "unbind" and self.is_param(func.value):
            dim = int_literal(args[0]) if args else 0
            if dim == self.dim:
                self.hit(node)

    def visit_For(self, node: cst.For) -> None:
        if self.dim == 0 and self.is_param(node.iter):
            self.hit(node.iter)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        if self.dim == 0 and self.is_param(node.iter):
            self.hit(node.iter)

    def visit_FormattedStringExpression(self, node: cst.FormattedStringExpression) -> None:
        if self.is_size(node.expression):
            self.hit(node)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        left = node.left
        for target in node.comparisons:
            right = target.comparator
            if isinstance(target.operator, (cst.Equal, cst.NotEqual)):
                for size, other in ((left, right), (right, left)):
                    value = int_literal(other)
                    if self.is_size(size) and value is not None and value >= 2:
                        self.hit(node)
            left = right


def specializing_use(function: cst.FunctionDef, param: str, dim: int) -> cst.CSTNode | None:
    """The first node in ``function`` that specializes dim ``dim`` of parameter ``param``."""
    finder = _Finder(param, dim)
    visit(function.body, finder)  # zlint.cst.batched.visit: no node rebuilding
    return finder.found


def positional_params(function: cst.FunctionDef) -> list[str]:
    """Names of the parameters a positional call argument binds (``self`` dropped)."""
    params = [p.name.value for p in (*function.params.posonly_params, *function.params.params)]
    return params[1:] if params[:1] == ["self"] else params
