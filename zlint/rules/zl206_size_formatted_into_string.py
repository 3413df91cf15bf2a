"""ZL206: a size formatted into a string (f-string, ``str()``, ``%``, ``.format()``)."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import DESCRIBING_METHODS, MESSAGE_CALLS, MESSAGE_NAMES, MESSAGE_SUFFIXES, SizeFactsRule
from zlint.rules.calls import method_name, snippet


class SizeFormattedIntoString(SizeFactsRule):
    code = "ZL206"
    name = "size-formatted-into-string"
    summary = "A tensor size formatted into a string (f-string, `str()`, `%`, `.format()`)"

    def __init__(self, context) -> None:
        super().__init__(context)
        self._quiet = 0  # inside raise/assert/warnings/logging

    def _report(self, node: cst.CSTNode, cost: str = "graph break") -> None:
        # measured on 2.13: an f-string specializes the size; str(), % and .format() break
        if self._quiet:
            return
        self.report(
            node,
            f"`{snippet(self.context, node)}` formats a size into a string: {cost}; build strings "
            "outside compiled code",
        )

    # -- where formatting is fine -----------------------------------------------------------
    def visit_Raise(self, node: cst.Raise) -> None:
        self._quiet += 1

    def leave_Raise(self, original_node: cst.Raise) -> None:
        self._quiet -= 1

    def visit_Assert(self, node: cst.Assert) -> None:
        self._quiet += 1

    def leave_Assert(self, original_node: cst.Assert) -> None:
        self._quiet -= 1

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if node.name.value in DESCRIBING_METHODS:
            self._quiet += 1

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        if original_node.name.value in DESCRIBING_METHODS:
            self._quiet -= 1

    @staticmethod
    def _reporting(node: cst.Call) -> bool:
        func = node.func
        last = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
        # torch._check, torch_compilable_check, self.assertEqual, _assert: checks with messages
        return last in MESSAGE_CALLS or last.endswith(MESSAGE_SUFFIXES) or "assert" in last or "check" in last

    @staticmethod
    def _message_target(node: cst.Assign) -> bool:
        """``msg = f"..."``, ``deprecation_message = ...``: a message built for later."""
        return any(
            isinstance(t.target, cst.Name) and any(w in t.target.value.lower() for w in MESSAGE_NAMES)
            for t in node.targets
        )

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._message_target(node):
            self._quiet += 1

    def leave_Assign(self, original_node: cst.Assign) -> None:
        if self._message_target(original_node):
            self._quiet -= 1

    def visit_Call(self, node: cst.Call) -> None:
        if self._reporting(node):
            self._quiet += 1
            return
        func = node.func
        if isinstance(func, cst.Name) and func.value in {"str", "repr"} and len(node.args) == 1:
            if self.holds_size(node.args[0].value):
                self._report(node)
        elif method_name(node) == "format" and isinstance(func.value, (cst.SimpleString, cst.ConcatenatedString)):
            if any(self.holds_size(a.value) for a in node.args):
                self._report(node)

    def leave_Call(self, original_node: cst.Call) -> None:
        if self._reporting(original_node):
            self._quiet -= 1

    def visit_FormattedStringExpression(self, node: cst.FormattedStringExpression) -> None:
        if self.holds_size(node.expression):
            self._report(node.expression, "recompiles for every size")

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.Modulo) and isinstance(
            node.left, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)
        ) and self.holds_size(node.right):
            self._report(node)
