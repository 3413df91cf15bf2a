"""What a function of a file can hold a finding from, decided on the ``ast``: the summaries the
candidate tests of the rules' gates read (:class:`FunctionSummary`), one walk of each function.

Sizes, tensors and masks follow the function's names flow-insensitively, from the same sources
the shared facts use (:mod:`zlint.facts.size_facts`, the evidence of :mod:`zlint.facts.tensor_evidence`,
annotations, ``isinstance`` checks, module-level names and the return values of same-module
helpers), so that a new source of a fact is a new source here. :mod:`zlint.candidates.stage` plans
what LibCST parses from them.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from zlint.candidates.values import ELEMENTWISE_COMPARISONS, ValueReadings, literal_number
from zlint.candidates.walk import call_arguments, chain_head, condition_atoms
from zlint.facts.vocabulary import ITERATING_BUILTINS, SYMBOLIC_CHECKS

if TYPE_CHECKING:
    from zlint.core.settings import Settings


Predicate = Callable[["FunctionSummary", "Settings | None"], bool]


@dataclass
class Unit:
    """A function that is not nested in another function: the stage keeps or blanks these."""

    node: ast.FunctionDef | ast.AsyncFunctionDef
    #: the enclosing class definitions, outermost first
    classes: tuple[ast.ClassDef, ...]
    summary: FunctionSummary = field(init=False, repr=False)

    @property
    def first_line(self) -> int:
        return min([self.node.lineno, *(d.lineno for d in self.node.decorator_list)])

    @property
    def last_line(self) -> int:
        return self.node.end_lineno or self.node.lineno


class FunctionSummary(ValueReadings):
    """What one function's code can give a rule: where the values its names may hold
    (:class:`~zlint.candidates.values.ValueReadings`) reach a place a rule looks at."""

    # -- where the rules look -----------------------------------------------------------------
    @cached_property
    def _conditions(self) -> tuple[list[ast.AST], list[ast.AST], list[ast.AST]]:
        """The atoms of the conditions that branch (``if``/``while``/ternaries/comprehension
        filters), of the ``if`` validations (whose body only raises) and of the ``assert``s."""
        branches: list[ast.AST] = []
        raising: list[ast.AST] = []
        asserts: list[ast.AST] = []
        for node in self.of(ast.If, ast.While, ast.IfExp, ast.Assert, ast.comprehension):
            if isinstance(node, ast.comprehension):
                for test in node.ifs:
                    branches.extend(condition_atoms(test))
            elif isinstance(node, ast.Assert):
                asserts.extend(condition_atoms(node.test))
            elif isinstance(node, ast.If) and all(isinstance(s, ast.Raise) for s in node.body):
                raising.extend(condition_atoms(node.test))
            else:
                branches.extend(condition_atoms(node.test))
        return branches, raising, asserts

    @cached_property
    def tests(self) -> list[ast.AST]:
        """The atoms of the conditions of ``if``/``while``/ternaries/comprehension filters/``assert``."""
        branches, raising, asserts = self._conditions
        return branches + raising + asserts

    @cached_property
    def sized_test(self) -> bool:
        """A condition may test a size."""
        self.size_names  # noqa: B018
        return any(self._size(atom) for atom in self.tests)

    @cached_property
    def sized_truth_test(self) -> bool:
        """A condition's atom may be a size tested for truth, not compared (``if n:``; ZL102)."""
        self.size_names  # noqa: B018
        return any(not isinstance(atom, ast.Compare) and self._size(atom) for atom in self.tests)

    @cached_property
    def sized_zero_test(self) -> bool:
        """A condition's atom may compare a size with a literal 0 or 1, once (``n > 0``; ZL104)."""
        self.size_names  # noqa: B018
        return any(
            isinstance(atom, ast.Compare) and len(atom.ops) == 1
            and any(literal_number(o) in (0, 1) for o in (atom.left, *atom.comparators)) and self._size(atom)
            for atom in self.tests
        )

    @cached_property
    def zero_one_comparison(self) -> bool:
        """A comparison in the function may be of a size with 0 or 1 (ZL101 reports at such a
        comparison, which sits where it is written: a literal 0, 1 or 2, or a size shifted by
        arithmetic), or the function reads a module-level size comparison."""
        self.size_names  # noqa: B018
        for node in self.of(ast.Compare):
            if _may_compare_with_zero_one(node) and self._size(node):
                return True
        module = self.module
        return module is not None and not (self.words - self._bound).isdisjoint(module.predicate_names)

    @cached_property
    def sized_predicate_argument(self) -> bool:
        """A call argument may be a size comparison (``torch.where(n > 1, ...)``), other than of
        a validation (``torch._check(n > 1)``, ``check_shape(...)``)."""
        self.predicate_names  # noqa: B018
        return any(
            self._predicate(arg) for call in self.calls() if not self._validates(call)
            for arg in call_arguments(call)
        )

    def _validates(self, call: ast.Call) -> bool:
        """``torch._check(...)``, ``_assert(...)``, ``self.assertEqual(...)``: the calls whose
        arguments the branch rules skip (:mod:`zlint.rules.branching`)."""
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name.lstrip("_").lower().startswith(("assert", "check")) or {"check", "assert"} & set(
            name.lower().split("_")
        ):
            return True
        qualified = self.index.qualified(func)
        return bool(qualified) and all(q.startswith(SYMBOLIC_CHECKS) for q in qualified)

    def sized_argument(self, callees: Iterable[str], first: bool = False) -> bool:
        """A call of one of ``callees`` (last name) takes an argument (``first``: as its first
        positional argument) that may be a size."""
        self.size_names  # noqa: B018
        for call in self.calls(callees):
            args = call.args[:1] if first else call_arguments(call)
            if any(self._size(arg) for arg in args):
                return True
        return False

    @cached_property
    def sized_repeat(self) -> bool:
        """``[0] * n``: a list literal repeated a size times."""
        self.size_names  # noqa: B018
        return any(
            isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)
            and any(
                isinstance(items, (ast.List, ast.Tuple)) and self._size(count)
                for items, count in ((node.left, node.right), (node.right, node.left))
            )
            for node in self.of(ast.BinOp)
        )

    @cached_property
    def sized_key(self) -> bool:
        """A size indexes, keys or is looked up in something (``cache[n]``, ``{n: v}``, ``n in seen``)."""
        self.size_names  # noqa: B018
        for node in self.of(ast.Subscript, ast.Dict, ast.Compare):
            if isinstance(node, ast.Subscript):
                index = node.slice
                if not isinstance(index, ast.Slice) and not (
                    isinstance(index, ast.Tuple) and any(isinstance(p, ast.Slice) for p in index.elts)
                ) and self._size(index):
                    return True
            elif isinstance(node, ast.Dict) and any(self._size(k) for k in node.keys if k is not None):
                return True
            elif isinstance(node, ast.Compare):
                operands = [node.left, *node.comparators]
                if any(isinstance(op, (ast.In, ast.NotIn)) and self._size(operands[i])
                       for i, op in enumerate(node.ops)):
                    return True
        return self.sized_argument(("get", "setdefault", "pop", "__getitem__", "__contains__"), first=True)

    @cached_property
    def sized_format(self) -> bool:
        """A size formatted into a string (f-string, ``str()``, ``%``, ``.format()``)."""
        self.size_names  # noqa: B018
        for node in self.of(ast.FormattedValue, ast.BinOp):
            if isinstance(node, ast.FormattedValue) and self._size(node.value):
                return True
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and self._size(node.right):
                return True
        return self.sized_argument(("str", "repr", "format"))

    def sized_format_outside(self, quiet: Callable[[ast.AST], bool]) -> bool:
        """:attr:`sized_format` at a place no node on the way down is ``quiet`` about (a
        ``raise``, a log call, a message): a string the rule reports (ZL206)."""
        if not self.sized_format:
            return False
        todo: list[ast.AST] = [self.node]
        while todo:
            node = todo.pop()
            if quiet(node):
                continue
            if isinstance(node, ast.FormattedValue) and self._size(node.value):
                return True
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _is_string(node.left) and (
                self._size(node.right)
            ):
                return True
            if isinstance(node, ast.Call) and (
                isinstance(node.func, ast.Name) and node.func.id in {"str", "repr"}
                or isinstance(node.func, ast.Attribute) and node.func.attr == "format" and _is_string(node.func.value)
            ) and any(self._size(a) for a in call_arguments(node)):
                return True
            todo.extend(ast.iter_child_nodes(node))
        return False

    def tested_call(self, methods: frozenset[str]) -> bool:
        """A condition's atom (or an operand of one, or an item of one) is a call of one of
        ``methods``: ``if x.is_contiguous():``, ``if x.stride()[0] == 1:``."""
        for atom in self.tests:
            operands = [atom.left, *atom.comparators] if isinstance(atom, ast.Compare) else [atom]
            for operand in operands:
                if isinstance(operand, ast.Subscript):
                    operand = operand.value
                if isinstance(operand, ast.Call) and isinstance(operand.func, ast.Attribute) and (
                    operand.func.attr in methods
                ):
                    return True
        return False

    @cached_property
    def tensor_test(self) -> bool:
        """A condition's atom may be a tensor (ZL303); of an ``assert``, only under ``not``,
        ``and`` or ``or`` (where Python may take its truth)."""
        self.tensor_names  # noqa: B018
        branches, raising, _ = self._conditions
        combined = [
            atom for node in self.of(ast.Assert) if isinstance(node.test, (ast.BoolOp, ast.UnaryOp))
            for atom in condition_atoms(node.test)
        ]
        return any(self._tensor(atom) for atom in branches + raising + combined)

    @cached_property
    def tensor_iteration(self) -> bool:
        """A loop or comprehension may run over a tensor, or an iterating builtin called by name
        may take one as a positional argument (its first but for ``map``) (ZL202)."""
        self.tensor_names  # noqa: B018
        for node in self.of(ast.For, ast.AsyncFor, ast.comprehension):
            if self._tensor(node.iter):
                return True
        for call in self.calls(ITERATING_BUILTINS):
            if isinstance(call.func, ast.Name) and call.func.id in ITERATING_BUILTINS:
                args = [a for a in call.args if not isinstance(a, ast.Starred)]
                if any(self._tensor(a) for a in (args[1:] if call.func.id == "map" else args)):
                    return True
        return False

    def data_dependent_call(self, names: frozenset[str], keep: Callable[[ast.Call], bool] | None = None) -> bool:
        """A call of one of ``names`` as a method or as a ``torch.<name>`` function (through
        aliases), that ``keep`` (if given) accepts: the calls a
        :class:`zlint.rules.data_dependent.CallRule` checks."""
        index = self.index
        for call in self.of(ast.Call):
            func = call.func
            spelled = {q[6:] for q in index.qualified(func) if q.startswith("torch.") and q.count(".") == 1}
            if isinstance(func, ast.Attribute):
                spelled.add(func.attr)
            if not spelled.isdisjoint(names) and (keep is None or keep(call)):
                return True
        return False

    def tensor_argument(self, callees: Iterable[str]) -> bool:
        """A call of one of ``callees`` (last name) takes an argument that may be a tensor."""
        self.tensor_names  # noqa: B018
        return any(self._tensor(arg) for call in self.calls(callees) for arg in call_arguments(call))

    def tensor_receiver(self, methods: Iterable[str]) -> bool:
        """``t.tolist()``: a call of one of ``methods`` on a receiver that may be a tensor."""
        self.tensor_names  # noqa: B018
        return any(
            isinstance(call.func, ast.Attribute) and self._tensor(call.func.value) for call in self.calls(methods)
        )

    @cached_property
    def tensor_handed_to_a_check(self) -> bool:
        """A call made as a statement whose first argument may be a tensor: a check's condition
        (ZL308, whether the callee checks it with ``torch._check_tensor_all`` the run decides)."""
        self.tensor_names  # noqa: B018
        return any(
            isinstance(call := node.value, ast.Call) and call.args and not isinstance(call.args[0], ast.Starred)
            and isinstance(head := chain_head(call.func), ast.Name) and head.id != "self"
            and self._check_callee(call.func) and self._tensor(call.args[0])
            for node in self.of(ast.Expr)
        )

    def _check_callee(self, func: ast.expr) -> bool:
        """Whether the rule may take ``func`` for a check wrapper: a bare name, or an attribute of
        an imported module that is not torch's (``out.append``, ``nn.init.zeros_`` never are)."""
        if isinstance(func, ast.Name):
            return True
        return any(not q.startswith("torch.") for q in self.index.qualified(func))

    @cached_property
    def tensor_slice_bound(self) -> bool:
        """``x[:t.max()]``: a slice bound that may be a tensor."""
        self.tensor_names  # noqa: B018
        return any(
            self._tensor(node.lower) or self._tensor(node.upper) for node in self.of(ast.Slice)
        )

    @cached_property
    def mask_index(self) -> bool:
        """``x[m]``, ``x[:, m]``: a subscript with an index that may be a bool tensor (ZL305)."""
        self.mask_names  # noqa: B018
        for node in self.of(ast.Subscript):
            if isinstance(node, ast.Subscript):
                index = node.slice
                if any(map(self._mask, index.elts if isinstance(index, ast.Tuple) else [index])):
                    return True
        return False

    @cached_property
    def tensor_unpacked(self) -> bool:
        """``a, b = x``: a tuple target bound from a value that may be a tensor."""
        self.tensor_names  # noqa: B018
        return any(
            isinstance(node, ast.Assign) and any(isinstance(t, (ast.Tuple, ast.List)) for t in node.targets)
            and self._tensor(node.value)
            for node in self.of(ast.Assign)
        )

    # -- torch names --------------------------------------------------------------------------
    @cached_property
    def torch_names(self) -> frozenset[str]:
        """Every torch-qualified dotted name the function spells (each prefix of an attribute
        chain, and what its import statements name), resolved through any import of the file."""
        found: set[str] = set()
        for node in self.of(ast.Attribute, ast.ImportFrom, ast.Import):
            if isinstance(node, ast.Attribute):
                found.update(q for q in self.index.qualified(node) if q.startswith("torch."))
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                found.update(f"{node.module}.{a.name}" for a in node.names if a.name != "*")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    found.update(".".join(parts[: i + 1]) for i in range(1, len(parts)))
        return frozenset(found)


def _may_compare_with_zero_one(node: ast.Compare) -> bool:
    """Whether the facts may find a size compared with 0 or 1 here (:mod:`zlint.facts.comparisons`):
    a literal 0, 1 or 2 (``n >= 2``), an arithmetic side (``n - 3 > 0``, ``n // 2 > 0``), or
    ``in`` a literal tuple holding 0 or 1."""
    operands = [node.left, *node.comparators]
    for i, op in enumerate(node.ops):
        left, right = operands[i], operands[i + 1]
        if isinstance(op, (ast.In, ast.NotIn)):
            elements = right.elts if isinstance(right, (ast.Tuple, ast.List, ast.Set)) else ()
            if any(literal_number(e) in (0, 1) for e in elements):
                return True
        elif isinstance(op, ELEMENTWISE_COMPARISONS):
            for mine, other in ((left, right), (right, left)):
                value = literal_number(other)
                if value is not None and (value in (0, 1, 2) or isinstance(mine, ast.BinOp)):
                    return True
    return False


def _is_string(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or isinstance(node, ast.Constant) and isinstance(node.value, str)


def spells(words: frozenset[str], strings: bool = False) -> Predicate:
    """The candidate test of a rule that reports at a node spelling one of ``words`` (as an
    identifier; ``strings``: or inside a string, such as a config key)."""

    def test(summary: FunctionSummary, settings: Settings | None = None) -> bool:
        return not words.isdisjoint(summary.string_words if strings else summary.words)

    return test


def at_compile_sites(summary: FunctionSummary, settings: Settings | None = None) -> bool:
    """For rules that report only around a ``torch.compile`` site (a compile call, what it
    compiles, the loops calling it): no function is a candidate, since :func:`plan` parses a
    file that names ``compile`` in its code whole."""
    return False


def size_condition(summary: FunctionSummary, settings: Settings | None = None) -> bool:
    """A condition, or a bool passed to a call, that may test a size (the ZL1 rules)."""
    return summary.sized_test or summary.sized_predicate_argument


def size_compared_with_zero_or_one(summary: FunctionSummary, settings: Settings | None = None) -> bool:
    """ZL101: a size condition, and a comparison that may be of a size with 0 or 1."""
    return size_condition(summary, settings) and summary.zero_one_comparison


def size_tested_for_truth(summary: FunctionSummary, settings: Settings | None = None) -> bool:
    """ZL102: a condition's atom that may be a size itself."""
    return summary.sized_truth_test


def size_branch(summary: FunctionSummary, settings: Settings | None = None) -> bool:
    """ZL103: a condition (a branch, or a validation: a threshold there is a single-graph
    finding), or a bool passed to a call, that may test a size."""
    return summary.sized_test or summary.sized_predicate_argument


def size_zero_test(summary: FunctionSummary, settings: Settings | None = None) -> bool:
    """ZL104: a condition's atom that may be a size, or a size compared once with 0 or 1."""
    return summary.sized_truth_test or summary.sized_zero_test
