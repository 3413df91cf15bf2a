"""Shared traversal for rules about values that decide control flow.

Visits every place a condition is tested (``if``/``elif``, ``while``, conditional expressions,
``assert``, comprehension ``if``) and every call argument (a size bool passed on, e.g.
``is_causal=q_len > 1``), and hands each condition atom to the rule.
"""

from __future__ import annotations

import enum

import libcst as cst

from zlint.rules.api import (
    SYMBOLIC_CHECKS,
    ConditionAtomsProvider,
    Fact,
    Kind,
    SizeFactsRule,
    StaticDimsProvider,
    declared_static,
    only_raises,
)


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

    def check_atom(self, atom: cst.BaseExpression, fact: Fact | None, where: Where) -> None:
        raise NotImplementedError

    def report_once(self, node: cst.CSTNode, message: str, tier: str | None = None) -> None:
        # a size bool assigned once and tested twice is one finding, at the comparison
        if id(node) not in self._reported:
            self._reported.add(id(node))
            self.report(node, message, tier=tier)

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


def comparisons_of(atom: cst.BaseExpression, fact: Fact | None) -> tuple[cst.Comparison, ...]:
    """The size comparisons a condition atom stands for (itself, or where its bool came from)."""
    if fact is None or fact.kind is not Kind.PREDICATE:
        return ()
    return fact.sources
