"""Positions of reported nodes, paid for one top-level statement at a time.

LibCST computes positions by generating the code of the whole module (``PositionProvider``);
on a model file that costs more than parsing it, though a file has only a handful of findings.
Here only the top-level statements that hold a reported node are generated: each is put alone
in a module of its own, and its lines are offset by where ``ast`` says the statement starts
(top-level statements start at column 0, so columns need no offset).

The shortcut is checked against the text: the generated code of a statement must be, line for
line, the source from the line ``ast`` points at. Whenever anything does not line up (statement counts, that
line, a node outside the statements) the whole-module ``PositionProvider`` answers instead:
positions may only be cheaper, never different. ``tests/test_positions.py`` compares both.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

import libcst as cst
from libcst.metadata import CodeRange, CodePosition, MetadataWrapper, PositionProvider

from zlint.batched import _DELEGATE, _IS_WALKED, _children, _field_order
from zlint.noqa import physical_lines
from zlint.prepass import ODD_SEPARATORS


class _Unaligned(Exception):
    """The per-statement shortcut does not apply to this file."""


class StatementPositions(Mapping):
    """``positions[node]`` like ``wrapper.resolve(PositionProvider)[node]``, computed lazily."""

    def __init__(self, wrapper: MetadataWrapper, source: str, tree: ast.Module | None = None) -> None:
        self._wrapper, self._source, self._tree = wrapper, source, tree
        self._owner: dict[int, int] | None = None  # id(node) -> index of its top-level statement
        self._starts: list[int] | None = None  # first line of each top-level statement
        self._lines: list[str] | None = None
        self._done: dict[int, Mapping[cst.CSTNode, CodeRange]] = {}
        self._whole: Mapping[cst.CSTNode, CodeRange] | None = None

    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        if self._whole is None and ODD_SEPARATORS.search(self._source):
            # LibCST and ast count lines differently around form feeds and lone CRs
            self._whole = self._wrapper.resolve(PositionProvider)
        if self._whole is None:
            try:
                return self._from_statement(node)
            except _Unaligned:
                self._whole = self._wrapper.resolve(PositionProvider)
        return self._whole[node]

    def __iter__(self):
        raise TypeError("StatementPositions computes positions on demand; it cannot be iterated")

    def __len__(self) -> int:
        raise TypeError("StatementPositions computes positions on demand; it has no length")

    def _from_statement(self, node: cst.CSTNode) -> CodeRange:
        module = self._wrapper.module
        if self._owner is None:
            self._starts = self._statement_starts(module)
            self._owner = _owners(module.body)
        index = self._owner.get(id(node))
        if index is None:
            raise _Unaligned
        positions = self._done.get(index)
        if positions is None:
            positions = self._done[index] = self._statement_positions(module, index)
        found = positions.get(node)
        if found is None:
            raise _Unaligned
        return found

    def _statement_starts(self, module: cst.Module) -> list[int]:
        tree = self._tree if self._tree is not None else ast.parse(self._source)
        body, starts, taken = tree.body, [], 0
        for statement in module.body:
            count = len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
            if taken + count > len(body):
                raise _Unaligned
            first = body[taken]
            decorators = getattr(first, "decorator_list", ())
            starts.append(min([first.lineno, *(d.lineno for d in decorators)]))
            taken += count
        if taken != len(body):
            raise _Unaligned
        return starts

    def _statement_positions(self, module: cst.Module, index: int) -> Mapping[cst.CSTNode, CodeRange]:
        statement = module.body[index]
        alone = statement.with_changes(leading_lines=())
        last = index == len(module.body) - 1
        sub = module.with_changes(
            body=[alone], header=(), footer=(), has_trailing_newline=module.has_trailing_newline or not last
        )
        generated = physical_lines(sub.code)
        if self._lines is None:
            self._lines = physical_lines(self._source)
        start, lines = self._starts[index], self._lines
        # the statement's code must be the source's lines from there on, verbatim
        if not generated or start < 1 or lines[start - 1 : start - 1 + len(generated)] != generated:
            raise _Unaligned
        offset = start - 1
        resolved = MetadataWrapper(sub, unsafe_skip_copy=True).resolve(PositionProvider)
        shifted = {}
        for key, where in resolved.items():
            shifted[statement if key is alone else key] = CodeRange(
                CodePosition(where.start.line + offset, where.start.column),
                CodePosition(where.end.line + offset, where.end.column),
            )
        return shifted


def _owners(statements) -> dict[int, int]:
    """id of every node (trivia excepted) -> index of the top-level statement it lies in."""
    owner: dict[int, int] = {}

    def mark(node: cst.CSTNode, index: int) -> None:
        owner[id(node)] = index
        order = _field_order(node)
        if order is _DELEGATE:
            for child in _all_children(node):
                mark(child, index)
            return
        for attribute in order:
            for child in _children(node, attribute, _IS_WALKED):
                mark(child, index)

    for index, statement in enumerate(statements):
        mark(statement, index)
    return owner


def _all_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    return list(node.children)
