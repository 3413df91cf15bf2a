"""Shared traversal for rules about values that decide control flow.

Visits every place a condition is tested (``if``/``elif``, ``while``, conditional expressions,
``assert``, comprehension ``if``) and every call argument (a size bool passed on, e.g.
``is_causal=q_len > 1``), and hands each condition atom to the rule.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator

import libcst as cst
from libcst.metadata import PositionProvider

from zlint.rules.api import (
    SYMBOLIC_CHECKS,
    ConditionAtomsProvider,
    Fact,
    Kind,
    SizeFactsRule,
    StaticDimsProvider,
    condition_atoms,
    declared_static,
    only_raises,
)
from zlint.rules.calls import snippet


class Where(enum.Enum):
    BRANCH = "branch"  # if/elif/while/ternary/comprehension
    VALIDATION = "validation"  # assert, or an `if` whose body only raises
    ARGUMENT = "argument"  # passed on to a call


class BranchRule(SizeFactsRule):
    """Pick this base for a rule about a value that decides control flow: it calls
    :meth:`check_atom` for each atom of each condition (``if``/``elif``, ``while``, ternary,
    comprehension ``if``, ``assert``; sizes declared static left out) and for each size bool
    passed to a call, with the atom's size fact and where it sits (:class:`Where`). The atoms
    are a shared fact (:class:`~zlint.facts.condition_facts.ConditionAtomsProvider`), worked out
    once per file for every branch rule. ZL101-ZL104, ZL209, ZL303."""

    METADATA_DEPENDENCIES = (ConditionAtomsProvider, StaticDimsProvider)

    def __init__(self, context) -> None:
        super().__init__(context)
        self._reported: set[int] = set()
        self._plain_asserts: set[int] = set()  # ids of `assert a == b` tests (one comparison)
        #: id of a comparison whose truth a binding's value takes (`m = n > 1 and mask is None`)
        #: -> the atom there that takes it (the comparison, or a name carrying it)
        self._truth_at_binding: dict[int, cst.BaseExpression] = {}

    def check_atom(self, atom: cst.BaseExpression, fact: Fact | None, where: Where) -> None:
        raise NotImplementedError

    def report_once(
        self, node: cst.CSTNode, message: str, tier: str | None = None, atom: cst.CSTNode | None = None,
        where: Where = Where.BRANCH,
    ) -> None:
        """Report ``node`` (a comparison, or the atom itself) once, where Python takes its truth
        (:meth:`tested_at`). Tested twice, it is one finding, at the first test."""
        if id(node) in self._reported:
            return
        self._reported.add(id(node))
        at = self.tested_at(node, atom, where) if atom is not None else node
        self.report(at, message, tier=tier, about=node)

    def tested_at(self, comparison: cst.CSTNode, atom: cst.CSTNode, where: Where) -> cst.CSTNode:
        """Where dynamo guards on ``comparison`` when the condition ``atom`` tests it: a size bool
        bound to a name and tested later (``m = n == 4`` ... ``if not m:``) at the test, since
        building the bool guards nothing and Python takes its truth there (the workloads' oracle
        on torch 2.13: the guard is on the ``if``). At the comparison where it is part of the
        atom, where the binding already takes its truth (``m = n > 1 and mask is None``: ``and``
        tests ``n > 1``), and where it is passed on to a call (the callee takes its truth, if
        anywhere)."""
        if where is Where.ARGUMENT or self._inside(comparison, atom):
            return comparison
        return self._truth_at_binding.get(id(comparison), atom)

    def described(self, comparison: cst.CSTNode, atom: cst.CSTNode, where: Where) -> str:
        """The comparison as a message names it: its code, and where a name carries it to the
        test that reports it (``m`` in ``if not m:``), the name and the line that compares."""
        text = f"`{snippet(self.context, comparison)}`"
        at = self.tested_at(comparison, atom, where)
        if at is comparison:
            return text
        line = self.get_metadata(PositionProvider, comparison).start.line
        return f"`{snippet(self.context, at)}` ({text}, line {line})"

    def _inside(self, node: cst.CSTNode, atom: cst.CSTNode) -> bool:
        """Whether ``node`` is part of ``atom``'s own code (``bool(n == 4)``), not bound apart."""
        if node is atom:
            return True
        inner, outer = self.get_metadata(PositionProvider, node), self.get_metadata(PositionProvider, atom)
        return (outer.start.line, outer.start.column) <= (inner.start.line, inner.start.column) and (
            (inner.end.line, inner.end.column) <= (outer.end.line, outer.end.column)
        )

    def visit_Assign(self, node: cst.Assign) -> None:
        self._note_truth_taken(node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._note_truth_taken(node.value)

    def _note_truth_taken(self, value: cst.BaseExpression) -> None:
        """Where a binding's value takes the truth of a size bool: a comparison in it, or a name
        that carries one (``flag = flag and i > 0``: the first test of ``flag``'s comparison)."""
        for atom in truth_taken(value):
            fact = self.fact(atom)
            for comparison in (atom, *(fact.sources if fact is not None and fact.kind is Kind.PREDICATE else ())):
                self._truth_at_binding.setdefault(id(comparison), atom)

    def _condition(self, expr: cst.BaseExpression, where: Where) -> None:
        for atom, fact in self._atoms(expr):
            self.check_atom(atom, fact, where)

    def _atoms(self, expr: cst.BaseExpression) -> tuple[tuple[cst.BaseExpression, Fact | None], ...]:
        """The condition's atoms that are not declared static, with their facts (shared)."""
        return self.get_metadata(ConditionAtomsProvider, expr)

    def _static(self, atom: cst.BaseExpression, fact: Fact | None) -> bool:
        """Every size in the atom is a dim the annotations or settings declare static."""
        functions = self.context.functions
        dims = self.get_metadata(StaticDimsProvider, functions[-1]) if functions else None
        return declared_static(atom, fact, dims, self.fact)

    def visit_If(self, node: cst.If) -> None:
        self._condition(node.test, Where.VALIDATION if only_raises(node.body) else Where.BRANCH)

    def visit_While(self, node: cst.While) -> None:
        self._condition(node.test, Where.BRANCH)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._condition(node.test, Where.BRANCH)

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self._condition(node.test, Where.BRANCH)

    def visit_Assert(self, node: cst.Assert) -> None:
        test = node.test
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            self._plain_asserts.add(id(test))
        self._condition(test, Where.VALIDATION)

    def plain_assertion(self, comparison: cst.BaseExpression) -> bool:
        """Whether ``comparison`` is the whole test of an ``assert`` and one comparison
        (``assert x.size(0) == 1``): dynamo makes it a runtime assert, so it neither guards nor
        breaks under ``mark_unbacked`` (measured on torch 2.13: 1 graph). A chained comparison, or
        one under ``not``/``and``/``or``, is evaluated to a Python bool first: 2 graphs."""
        return id(comparison) in self._plain_asserts

    def visit_Call(self, node: cst.Call) -> None:
        qual = self.context.imports.qualify(node.func) or ""
        if qual.startswith(SYMBOLIC_CHECKS) or _is_assertion(node.func):
            return
        for arg in node.args:
            fact = self.fact(arg.value)
            # only size bools: a plain size passed into an op is how sizes should be used
            if fact is not None and fact.kind is Kind.PREDICATE and not self._static(arg.value, fact):
                self.check_atom(arg.value, fact, Where.ARGUMENT)


def _is_assertion(func: cst.BaseExpression) -> bool:
    """``_assert(cond, msg)``, ``check_shape(...)``, ``self.assertEqual(...)``,
    ``torch_compilable_check(...)``: a validation
    helper (timm's ``_assert`` wraps ``torch._assert``), not a bool passed on to an op."""
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    words = name.lower().split("_")
    # `check_shape`, `_assert`, `assertEqual`, and wrappers named for what they do:
    # `torch_compilable_check(cond, msg)` (a torch._check wrapper), `shape_assert(...)`
    return name.lstrip("_").lower().startswith(("assert", "check")) or bool({"check", "assert"} & set(words))


def truth_taken(value: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The atoms whose truth Python takes while it evaluates ``value``: every operand of
    ``and``/``or`` but the last (the last is the value), everything under ``not``, the test of a
    conditional expression, the argument of ``bool()``."""
    if isinstance(value, cst.BooleanOperation):
        yield from condition_atoms(value.left)
        yield from truth_taken(value.right)
    elif isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Not):
        yield from condition_atoms(value.expression)
    elif isinstance(value, cst.IfExp):
        yield from condition_atoms(value.test)
        yield from truth_taken(value.body)
        yield from truth_taken(value.orelse)
    elif isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "bool":
        for arg in value.args[:1]:
            yield from condition_atoms(arg.value)


def comparisons_of(atom: cst.BaseExpression, fact: Fact | None) -> tuple[cst.Comparison, ...]:
    """The size comparisons a condition atom stands for (itself, or where its bool came from)."""
    if fact is None or fact.kind is not Kind.PREDICATE:
        return ()
    return fact.sources
