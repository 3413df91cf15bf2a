"""Positions of reported nodes, paid for one statement at a time.

LibCST computes positions by generating the code of the whole module (``PositionProvider``);
on a model file that costs more than parsing it, though a file has only a handful of findings.
Here only the *units* that hold a reported node are generated: a unit is a statement of the
module, of a class body or of a function body (a method's ``if`` block, not the whole class). A
unit is generated on its own (:func:`zlint.cst.compat.generate_unit`), at the indentation of
the blocks around it, and its lines are offset by where ``ast`` says the statement starts. The
unit of a node is looked up in the functions that enclosed it when it was reported (a walk of
that function only), else in the whole module.

The shortcut is checked against the text: the generated code of a unit must be, line for line,
the source from where ``ast`` puts it. Whenever anything does not line up (statement counts,
that text, a node outside the units) the whole-module ``PositionProvider`` answers instead:
positions may only be cheaper, never different. ``tests/cst/test_positions.py`` compares both on
every node.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from zlint.core.noqa import physical_lines
from zlint.core.source import ODD_SEPARATORS
from zlint.cst.batched import DELEGATE, IS_WALKED, field_children, field_order
from zlint.cst.compat import generate_unit


class _Unaligned(Exception):
    """The per-unit shortcut does not apply to this file."""


class _Unit:
    """A statement generated on its own: its indentation and first line (``ast``'s)."""

    __slots__ = ("statement", "indent", "first_line", "tree")

    def __init__(self, statement: cst.BaseStatement, indent: tuple[str, ...], first_line: int, tree: ast.stmt) -> None:
        self.statement, self.indent, self.first_line, self.tree = statement, indent, first_line, tree


class StatementPositions(Mapping):
    """``positions[node]`` like ``wrapper.resolve(PositionProvider)[node]``, computed lazily."""

    def __init__(self, wrapper: MetadataWrapper, source: str, tree: ast.Module | None = None) -> None:
        self._wrapper, self._source, self._tree = wrapper, source, tree
        self._units: dict[int, _Unit] | None = None  # id(statement) -> its unit
        self._owners: dict[int, dict[int, _Unit]] = {}  # id(unit or module) -> id(node) -> unit
        self._lines: list[str] | None = None
        self._done: dict[int, dict[cst.CSTNode, CodeRange]] = {}
        self._whole: Mapping[cst.CSTNode, CodeRange] | None = None
        # LibCST and ast count lines differently around form feeds and lone CRs: decided once
        self._odd = ODD_SEPARATORS.search(source) is not None

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        return self.lookup(node)

    def lookup(self, node: cst.CSTNode, enclosing: Sequence[cst.CSTNode] = ()) -> CodeRange:
        """The node's position; ``enclosing``: the defs around it, innermost last (a hint)."""
        if self._whole is None and self._odd:
            self._whole = self._wrapper.resolve(PositionProvider)
        if self._whole is None:
            try:
                return self._from_unit(node, enclosing)
            except _Unaligned:
                self._whole = self._wrapper.resolve(PositionProvider)
        return self._whole[node]

    def __iter__(self):
        raise TypeError("StatementPositions computes positions on demand; it cannot be iterated")

    def __len__(self) -> int:
        raise TypeError("StatementPositions computes positions on demand; it has no length")

    def _from_unit(self, node: cst.CSTNode, enclosing: Sequence[cst.CSTNode]) -> CodeRange:
        module = self._wrapper.module
        if self._units is None:
            tree = self._tree if self._tree is not None else ast.parse(self._source)
            self._units = {}
            self._top = _index(module.body, tree.body, (), module.default_indent, self._units)
        unit = None
        for scope in reversed(enclosing):
            scope_unit = self._units.get(id(scope))
            if scope_unit is not None:
                unit = self._owner_map(id(scope_unit), [scope_unit]).get(id(node))
                if unit is not None:
                    break
        if unit is None:
            unit = self._owner_map(id(module), self._top).get(id(node))
        if unit is None:
            raise _Unaligned
        positions = self._done.get(id(unit))
        if positions is None:
            positions = self._done[id(unit)] = self._unit_positions(module, unit)
        found = positions.get(node)
        if found is None:
            raise _Unaligned
        return found

    def _owner_map(self, key: int, units: list[_Unit]) -> dict[int, _Unit]:
        owner = self._owners.get(key)
        if owner is None:
            owner = self._owners[key] = {}
            _mark_units(units, self._units, self._wrapper.module.default_indent, owner)
        return owner

    def _unit_positions(self, module: cst.Module, unit: _Unit) -> dict[cst.CSTNode, CodeRange]:
        code, generated_positions, first = generate_unit(module, unit.statement, unit.indent)
        generated = physical_lines(code)[first - 1 :]
        if self._lines is None:
            self._lines = physical_lines(self._source)
        statement = unit.statement
        decorators = getattr(statement, "decorators", ())
        before = len(statement.leading_lines) + (len(decorators[0].leading_lines) if decorators else 0)
        offset = unit.first_line - 1 - before  # lines above the unit's first generated line
        # the unit's code must be the source's lines from there on, verbatim
        if not generated or offset < 0 or self._lines[offset : offset + len(generated)] != generated:
            raise _Unaligned
        shift = offset - (first - 1)
        return {
            node: CodeRange(
                CodePosition(where.start.line + shift, where.start.column),
                CodePosition(where.end.line + shift, where.end.column),
            )
            for node, where in generated_positions.items()
        }


_SCOPES = (cst.ClassDef, cst.FunctionDef)
_TREE_SCOPES = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _index(
    statements, tree_body: list[ast.stmt], indent: tuple[str, ...], default_indent: str, units: dict
) -> list[_Unit]:
    """Pair LibCST statements with ``ast``'s; record a unit for each, and for the statements of
    every class and function body below them (statements only: no expression is visited)."""
    out, taken = [], 0
    for statement in statements:
        count = len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
        if taken + count > len(tree_body):
            raise _Unaligned
        first = tree_body[taken]
        taken += count
        start = min([first.lineno, *(d.lineno for d in getattr(first, "decorator_list", ()))])
        unit = units[id(statement)] = _Unit(statement, indent, start, first)
        out.append(unit)
        block = _body_block(unit)
        if block is not None:
            inner = block.indent if block.indent is not None else default_indent
            _index(block.body, first.body, (*indent, inner), default_indent, units)
    if taken != len(tree_body):
        raise _Unaligned
    return out


def _body_block(unit: _Unit) -> cst.IndentedBlock | None:
    """The indented body of a class or def whose statements are units of their own."""
    statement = unit.statement
    if isinstance(statement, _SCOPES) and isinstance(unit.tree, _TREE_SCOPES):
        block = statement.body
        if isinstance(block, cst.IndentedBlock):
            return block
    return None


def _mark_units(units: list[_Unit], index: dict, default_indent: str, owner: dict) -> None:
    """id of every node (trivia excepted) below ``units`` -> the smallest unit holding it."""
    for unit in units:
        block = _body_block(unit)
        statement = unit.statement
        if block is None:
            _mark(statement, unit, owner)
            continue
        # a class's or def's header belongs to it as a whole; its body statements are units
        for attribute in field_order(statement):
            if attribute != "body":
                for child in field_children(statement, attribute, IS_WALKED):
                    _mark(child, unit, owner)
        owner[id(statement)] = owner[id(block)] = unit
        _mark_units([index[id(s)] for s in block.body], index, default_indent, owner)


def _mark(node: cst.CSTNode, unit: _Unit, owner: dict) -> None:
    owner[id(node)] = unit
    order = field_order(node)
    children = node.children if order is DELEGATE else [
        child for attribute in order for child in field_children(node, attribute, IS_WALKED)
    ]
    for child in children:
        _mark(child, unit, owner)
