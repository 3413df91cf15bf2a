"""The atoms of each tested condition with their size facts, less the sizes declared static.

A shared fact of the branch rules (ZL101-ZL104, ZL209, ZL303): computed once per file for every
``if``/``elif``, ``while``, conditional expression, comprehension ``if`` and ``assert``, and read
by each of those rules (``zlint.rules.branching``) instead of being worked out once per rule.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst
from libcst.metadata import BatchableMetadataProvider

from zlint.facts.conditions import condition_atoms
from zlint.facts.dynamic_dims import StaticDims, StaticDimsProvider
from zlint.facts.size_facts import Fact, Kind, SizeFactsProvider

#: (atom, its size fact or None) for each atom of a condition that is not declared static
Atoms = tuple[tuple[cst.BaseExpression, Fact | None], ...]


def declared_static(
    atom: cst.BaseExpression,
    fact: Fact | None,
    dims: StaticDims | None,
    fact_of: Callable[[cst.BaseExpression], Fact | None],
) -> bool:
    """Every size in the atom is a dim the annotations or settings (``dims``: those of the
    innermost function, None outside one) declare static."""
    if fact is None or fact.kind not in (Kind.SIZE, Kind.PREDICATE):
        return False
    if dims is None or not dims.dims:
        return False
    if fact.kind is Kind.SIZE:
        return dims.is_static(atom)
    sizes = [
        operand
        for comparison in fact.sources
        for operand in (comparison.left, *(t.comparator for t in comparison.comparisons))
        if (fact_of(operand) or fact).kind is Kind.SIZE
    ]
    return bool(sizes) and all(dims.is_static(size) for size in sizes)


class ConditionAtomsProvider(BatchableMetadataProvider[Atoms]):
    """Sets :data:`Atoms` on the test of every condition (``If.test``, ``While.test``,
    ``IfExp.test``, ``CompIf.test``, ``Assert.test``)."""

    METADATA_DEPENDENCIES = (SizeFactsProvider, StaticDimsProvider)

    def __init__(self, cache: object = None) -> None:
        super().__init__(cache)
        self._functions: list[cst.FunctionDef] = []

    def _fact(self, node: cst.BaseExpression) -> Fact | None:
        return self.get_metadata(SizeFactsProvider, node, None)

    def _condition(self, test: cst.BaseExpression) -> None:
        dims = self.get_metadata(StaticDimsProvider, self._functions[-1]) if self._functions else None
        pairs = ((atom, self._fact(atom)) for atom in condition_atoms(test))
        self.set_metadata(test, tuple((a, f) for a, f in pairs if not declared_static(a, f, dims, self._fact)))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._functions.pop()

    def visit_If(self, node: cst.If) -> None:
        self._condition(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._condition(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._condition(node.test)

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self._condition(node.test)

    def visit_Assert(self, node: cst.Assert) -> None:
        self._condition(node.test)
