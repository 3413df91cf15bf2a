"""ZL206: a size formatted into a string (an f-string field that is one size, ``str()``, ``%``)."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import DESCRIBING_METHODS, Kind, SizeFactsRule
from zlint.rules.calls import snippet


class SizeFormattedIntoString(SizeFactsRule):
    code = "ZL206"
    name = "size-formatted-into-string"
    summary = "A tensor size formatted into a string (an f-string field that is one size, `str()`, `%`)"

    def __init__(self, context) -> None:
        super().__init__(context)
        self._quiet = 0  # on the error path, in a lambda, in a describing method
        #: the lambdas passed as torch._check* messages, and how deep the walk is in one
        self._check_messages: set[int] = set()
        self._in_check_message = 0

    def _report(self, node: cst.CSTNode, cost: str = "graph break") -> None:
        # measured on 2.13.0 and 2.14.1: an f-string field that is one size specializes it, str()
        # breaks the graph, and `%` leaves the function uncompiled once the size is dynamic
        if self._in_check_message:
            # 2.13: "Can't convert torch._check*() message closure": the message may close
            # over constants only, so a size in it breaks the graph at the check
            cost = "graph break (a torch._check message may hold only constants)"
        elif self._quiet:
            return
        self.report(
            node,
            f"`{snippet(self.context, node)}` formats a size into a string: {cost}; build strings "
            "outside compiled code",
        )

    # -- where a string is built only when it is read ----------------------------------------
    # A string is built where it is written, whatever it is for: `print(f"{n}")`,
    # `logger.info(f"{n}")`, `torch._assert(ok, f"{n}")` and `msg = f"{n}"` all format the size on
    # every call (measured on 2.13: one graph per size). Only a message dynamo never builds on the
    # normal path is free: inside a `raise` or an `assert`'s message, in a block that ends by
    # raising (the error path), in a `lambda` (`torch._check(ok, lambda: f"{n}")`), and in the
    # methods that describe the object. Logging's own `%` arguments (`logger.info("%d", n)`) are
    # not formatted here at all.
    def visit_Raise(self, node: cst.Raise) -> None:
        self._quiet += 1

    def leave_Raise(self, original_node: cst.Raise) -> None:
        self._quiet -= 1

    def visit_Assert(self, node: cst.Assert) -> None:
        self._quiet += 1

    def leave_Assert(self, original_node: cst.Assert) -> None:
        self._quiet -= 1

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._quiet += 1
        if id(node) in self._check_messages:
            self._in_check_message += 1

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._quiet -= 1
        if id(original_node) in self._check_messages:
            self._in_check_message -= 1

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        if _ends_by_raising(node):
            self._quiet += 1

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        if _ends_by_raising(original_node):
            self._quiet -= 1

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.name.value in DESCRIBING_METHODS:
            self._quiet += 1

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        if original_node.name.value in DESCRIBING_METHODS:
            self._quiet -= 1

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if (self.context.imports.qualify(func) or "").startswith("torch._check"):
            self._check_messages.update(id(a.value) for a in node.args if isinstance(a.value, cst.Lambda))
        if isinstance(func, cst.Name) and func.value in {"str", "repr"} and len(node.args) == 1:
            if self.holds_size(node.args[0].value):
                self._report(node)
        # "{}".format(n), of a size or a shape: dynamo builds the string at run time from the
        # symbolic sizes, without a guard or a break (measured on 2.13.0 and 2.14.1): no finding

    def visit_FormattedStringExpression(self, node: cst.FormattedStringExpression) -> None:
        # only a field that is one size specializes it (`{n}`, `{x.shape[0]}`, `{x.numel()}`); a
        # field holding a whole shape, a slice of one or a tuple of sizes (`{x.shape}`,
        # `{tuple(x.shape)}`, `{(h, w)}`) is formatted at run time without a guard. In a
        # torch._check message closure any size breaks the graph, a shape too
        fact = self.fact(node.expression)
        if (fact is not None and fact.kind is Kind.SIZE) or (
            self._in_check_message and self.holds_size(node.expression)
        ):
            self._report(node.expression, "recompiles for every size")

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.Modulo) and isinstance(
            node.left, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
        ) and self.holds_size(node.right):
            self._report(node, "runs eagerly once the size is dynamic")


def _ends_by_raising(block: cst.IndentedBlock) -> bool:
    """The block's last statement is a ``raise``: everything in it runs only on the error path."""
    if not block.body:
        return False
    last = block.body[-1]
    return isinstance(last, cst.SimpleStatementLine) and any(isinstance(s, cst.Raise) for s in last.body)
