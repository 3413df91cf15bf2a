"""Shared traversal for rules about calls to compiled callables (ZL401, ZL403, ZL404).

Per function (and the module body) it tracks the enclosing loops, the names that change from
one iteration to the next (loop targets and names assigned inside a loop), the inputs marked
with ``mark_dynamic`` & co, the current statement and its indentation (for fixes).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from zlint.facts.compiled_scope import CompileSite
from zlint.facts.dynamic_dims import int_literal, mark_kind
from zlint.facts.imports import dotted_name
from zlint.facts.size_facts import Kind
from zlint.rules.base import Rule

_NON_TENSOR_KINDS = (Kind.SIZE, Kind.RANK, Kind.PREDICATE, Kind.SHAPE, Kind.STATIC)
# torch factories whose sizes are their positional int arguments
_FACTORIES = frozenset({"randn", "rand", "zeros", "ones", "empty", "full", "randint", "arange"})


@dataclass
class Mark:
    kind: str  # mark_dynamic / maybe_mark_dynamic / mark_unbacked
    call: cst.Call
    target: str  # the marked expression's code
    dim: int | None


@dataclass
class Frame:
    loops: list[cst.CSTNode] = field(default_factory=list)
    varying: set[str] = field(default_factory=set)
    #: names assigned in a loop from a torch factory with literal sizes: same size every time
    fixed_size: set[str] = field(default_factory=set)
    marks: list[Mark] = field(default_factory=list)


def _names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _names(e.value)]
    if isinstance(target, cst.StarredElement):
        return _names(target.value)
    return []


def root_name(expr: cst.BaseExpression) -> str | None:
    """``batch`` for ``batch``, ``batch["ids"]``, ``batch.ids``, ``batch[0].x``."""
    while isinstance(expr, (cst.Subscript, cst.Attribute)):
        expr = expr.value
    return expr.value if isinstance(expr, cst.Name) else None


class CompiledCallRule(Rule):
    """Calls :meth:`compiled_call` for each call to a callable compiled in this file."""

    def __init__(self, context) -> None:
        super().__init__(context)
        self.frames: list[Frame] = [Frame()]
        self.statements: list[cst.SimpleStatementLine] = []
        self.indents: list[str] = []

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
        return self.statements[-1] if self.statements else None

    @property
    def indent(self) -> str:
        return "".join(self.indents)

    # -- traversal ----------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.frames.append(Frame())

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.frames.pop()

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.indents.append(self.context.module.default_indent if node.indent is None else node.indent)

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self.indents.pop()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.statements.append(node)

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine) -> None:
        self.statements.pop()

    def visit_For_body(self, node: cst.For) -> None:
        frame = self.frames[-1]
        frame.loops.append(node)
        frame.varying.update(_names(node.target))

    def leave_For_body(self, node: cst.For) -> None:
        self.frames[-1].loops.pop()

    def visit_While_body(self, node: cst.While) -> None:
        self.frames[-1].loops.append(node)

    def leave_While_body(self, node: cst.While) -> None:
        self.frames[-1].loops.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        frame = self.frames[-1]
        if not frame.loops:
            return
        names = [n for t in node.targets for n in _names(t.target)]
        frame.varying.update(names)
        if self._literal_sized_factory(node.value):
            frame.fixed_size.update(names)
        else:
            frame.fixed_size.difference_update(names)

    def _literal_sized_factory(self, value: cst.BaseExpression) -> bool:
        if not isinstance(value, cst.Call):
            return False
        qual = self.context.imports.qualify(value.func) or ""
        if not qual.startswith("torch.") or qual.rsplit(".", 1)[-1] not in _FACTORIES:
            return False
        positional = [a.value for a in value.args if a.keyword is None]
        sizes = positional[0].elements if positional and isinstance(positional[0], (cst.Tuple, cst.List)) else positional
        sizes = [s.value if isinstance(s, cst.Element) else s for s in sizes]
        return bool(sizes) and all(int_literal(s) is not None for s in sizes)

    def visit_Call(self, node: cst.Call) -> None:
        frame = self.frames[-1]
        kind = mark_kind(self.context.imports.qualify(node.func))
        if kind is not None:
            positional = [a.value for a in node.args if a.keyword is None and not a.star]
            if positional:
                dim = int_literal(positional[1]) if len(positional) > 1 else None
                frame.marks.append(Mark(kind, node, self.text_of(positional[0]), dim))
            return
        if dotted_name(node.func) is None:
            return
        site = self.context.compiled_scope.site_for_call(node.func, self.context.function)
        if site is not None:
            self.compiled_call(node, site, frame)
