"""Loops around the code, and the names that change from one iteration to the next.

A shared analysis for the rules about calls to compiled callables (ZL401, ZL403, ZL404): per
function (and the module body) the enclosing loops, the names that vary per iteration (loop
targets and names assigned inside a loop), those assigned a literal-sized torch factory (the same
size every time), the ``mark_dynamic`` & co calls seen so far, and the current statement and
indentation (for fixes).

Every rule of the batch hands each traversal event to the one :class:`LoopFacts` of the file;
each event takes effect once (the first rule to see a node applies it, the others find it done),
so the state is built once per file however many rules read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from zlint.facts.dynamic_dims import mark_kind
from zlint.facts.imports import ImportMap
from zlint.facts.literals import int_literal

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


def assigned_names(target: cst.BaseExpression) -> list[str]:
    """The plain names an assignment target binds (``a``, ``a, (b, *c)``)."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in assigned_names(e.value)]
    if isinstance(target, cst.StarredElement):
        return assigned_names(target.value)
    return []


class LoopFacts:
    """The loop state at the current point of the file's one traversal."""

    def __init__(self, module: cst.Module, imports: ImportMap) -> None:
        self.module = module
        self.imports = imports
        self.frames: list[Frame] = [Frame()]
        self._owners: list[cst.CSTNode | None] = [None]  # the def of each frame
        self.statements: list[cst.SimpleStatementLine] = []
        self.indents: list[tuple[cst.IndentedBlock, str]] = []
        self._seen: set[tuple[str, int]] = set()  # (event, node) applied once

    @property
    def frame(self) -> Frame:
        return self.frames[-1]

    @property
    def indent(self) -> str:
        return "".join(text for _, text in self.indents)

    def _first(self, event: str, node: cst.CSTNode) -> bool:
        key = (event, id(node))
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    # -- scopes and statements: pushed once per node, popped by the first leave -----------------
    def enter_function(self, node: cst.FunctionDef) -> None:
        if self._owners[-1] is not node:
            self.frames.append(Frame())
            self._owners.append(node)

    def leave_function(self, node: cst.FunctionDef) -> None:
        if self._owners[-1] is node:
            self.frames.pop()
            self._owners.pop()

    def enter_block(self, node: cst.IndentedBlock) -> None:
        if not self.indents or self.indents[-1][0] is not node:
            self.indents.append((node, self.module.default_indent if node.indent is None else node.indent))

    def leave_block(self, node: cst.IndentedBlock) -> None:
        if self.indents and self.indents[-1][0] is node:
            self.indents.pop()

    def enter_statement(self, node: cst.SimpleStatementLine) -> None:
        if not self.statements or self.statements[-1] is not node:
            self.statements.append(node)

    def leave_statement(self, node: cst.SimpleStatementLine) -> None:
        if self.statements and self.statements[-1] is node:
            self.statements.pop()

    def enter_loop(self, node: cst.For | cst.While) -> None:
        frame = self.frame
        if not frame.loops or frame.loops[-1] is not node:
            frame.loops.append(node)
            if isinstance(node, cst.For):
                frame.varying.update(assigned_names(node.target))

    def leave_loop(self, node: cst.For | cst.While) -> None:
        loops = self.frame.loops
        if loops and loops[-1] is node:
            loops.pop()

    # -- facts made by statements and calls -------------------------------------------------
    def assign(self, node: cst.Assign) -> None:
        frame = self.frame
        if not frame.loops or not self._first("assign", node):
            return
        names = [n for t in node.targets for n in assigned_names(t.target)]
        frame.varying.update(names)
        if self._literal_sized_factory(node.value):
            frame.fixed_size.update(names)
        else:
            frame.fixed_size.difference_update(names)

    def call(self, node: cst.Call) -> bool:
        """Records a ``mark_dynamic``-style call; True when ``node`` is one."""
        kind = mark_kind(self.imports.qualify(node.func))
        if kind is None:
            return False
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        if positional and self._first("mark", node):
            dim = int_literal(positional[1]) if len(positional) > 1 else None
            text = " ".join(self.module.code_for_node(positional[0]).split())
            self.frame.marks.append(Mark(kind, node, text, dim))
        return True

    def _literal_sized_factory(self, value: cst.BaseExpression) -> bool:
        if not isinstance(value, cst.Call):
            return False
        qual = self.imports.qualify(value.func) or ""
        if not qual.startswith("torch.") or qual.rsplit(".", 1)[-1] not in _FACTORIES:
            return False
        positional = [a.value for a in value.args if a.keyword is None]
        first = positional[0] if positional else None
        sizes = first.elements if isinstance(first, (cst.Tuple, cst.List)) else positional
        sizes = [s.value if isinstance(s, cst.Element) else s for s in sizes]
        return bool(sizes) and all(int_literal(s) is not None for s in sizes)
