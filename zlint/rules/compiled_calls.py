"""Shared traversal for rules about calls to compiled callables (ZL401, ZL403, ZL404).

Per function (and the module body) it tracks the enclosing loops, the names that change from
one iteration to the next (loop targets and names assigned inside a loop), the inputs marked
with ``mark_dynamic`` & co, the current statement and its indentation (for fixes).
"""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import CompileSite, Frame, Kind, LoopFacts, SizeFactsRule, dotted_name

_NON_TENSOR_KINDS = (Kind.SIZE, Kind.RANK, Kind.PREDICATE, Kind.SHAPE, Kind.STATIC)

__all__ = ["CompiledCallRule", "root_name"]


def root_name(expr: cst.BaseExpression) -> str | None:
    """``batch`` for ``batch``, ``batch["ids"]``, ``batch.ids``, ``batch[0].x``."""
    while isinstance(expr, (cst.Subscript, cst.Attribute)):
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) else None


class CompiledCallRule(SizeFactsRule):
    """Pick this base for a rule about how a callable compiled in this file is *called* (in a
    loop, on new tensors, with marked dims): it calls :meth:`compiled_call` for each call to
    one, with the :class:`CompileSite` and the loop :class:`Frame` around the call, and offers
    ``varying_args`` (reads the size facts). ZL401, ZL403, ZL404.

    The loop state (:mod:`zlint.facts.loops`) is one shared fact of the file: every rule of
    this kind forwards its traversal events to it, and each event takes effect once.
    """

    @property
    def loops(self) -> LoopFacts:
        return self.context.loops

    # -- hooks --------------------------------------------------------------------------
    def compiled_call(self, call: cst.Call, site: CompileSite, frame: Frame) -> None:
        raise NotImplementedError

    # -- helpers ------------------------------------------------------------------------
    def text_of(self, node: cst.CSTNode) -> str:
        return " ".join(self.context.module.code_for_node(node).split())

    def varying_args(self, call: cst.Call, frame: Frame) -> list[cst.BaseExpression]:
        """Arguments that hold a new (likely tensor) value each iteration and are not marked."""
        if not frame.loops:
            return []
        marked = {m.target for m in frame.marks}
        out = []
        for arg in call.args:
            # a call or arithmetic makes a new tensor each time: a mark on it would be lost
            if arg.star or not isinstance(arg.value, (cst.Name, cst.Attribute, cst.Subscript)):
                continue
            root = root_name(arg.value)
            if root is None or root not in frame.varying or root in frame.fixed_size or root == "self":
                continue
            fact = self.fact(arg.value)
            if fact is not None and fact.kind in _NON_TENSOR_KINDS:
                continue
            text = self.text_of(arg.value)
            if text in marked or root in marked:
                continue
            out.append(arg.value)
        return out

    def statement_of(self, call: cst.Call) -> cst.SimpleStatementLine | None:
        statements = self.loops.statements
        return statements[-1] if statements else None

    @property
    def indents(self) -> list:
        return self.loops.indents

    @property
    def indent(self) -> str:
        return self.loops.indent

    # -- traversal: forwarded to the shared loop facts ------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.loops.enter_function(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.loops.leave_function(original_node)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.loops.enter_block(node)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self.loops.leave_block(original_node)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.loops.enter_statement(node)

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine) -> None:
        self.loops.leave_statement(original_node)

    def visit_For_body(self, node: cst.For) -> None:
        self.loops.enter_loop(node)

    def leave_For_body(self, node: cst.For) -> None:
        self.loops.leave_loop(node)

    def visit_While_body(self, node: cst.While) -> None:
        self.loops.enter_loop(node)

    def leave_While_body(self, node: cst.While) -> None:
        self.loops.leave_loop(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        self.loops.assign(node)

    def visit_Call(self, node: cst.Call) -> None:
        if self.loops.call(node) or dotted_name(node.func) is None:
            return
        site = self.context.compiled_scope.site_for_call(node.func, self.context.function)
        if site is not None:
            self.compiled_call(node, site, self.loops.frame)
