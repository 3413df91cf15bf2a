"""The rule contract: a small batchable LibCST visitor that reports diagnostics.

A rule declares its code, kebab-case name and one-line summary as literal class attributes (the
registry reads them without importing the module: :mod:`zlint.core.registry`), reads shared facts
through metadata (never re-deriving them), and calls :meth:`Rule.report` on the narrowest node.
Rule modules take these names from :mod:`zlint.rules.api`, not from here.

How rules share a fact (one way): a fact about nodes that several rules read is a LibCST
metadata provider in ``zlint/facts`` (:class:`~zlint.facts.size_facts.SizeFactsProvider`,
:class:`~zlint.facts.dynamic_dims.StaticDimsProvider`,
:class:`~zlint.facts.condition_facts.ConditionAtomsProvider`); each rule, or the base it picks,
names the providers it reads in ``METADATA_DEPENDENCIES``, and the engine resolves each one once
per file, only when a rule of the run declares it. A provider that needs the settings gets them
through the MetadataWrapper's cache (``engine/lint.py``). :class:`FileContext` holds no per-node
caches: only the file's inputs (path, module, settings, imports, which every rule gets without
declaring anything) and per-file objects computed on first use (``compiled_scope`` and the
positions, which only files with findings pay for; ``loops``, the loop state of the traversal
that the loop rules forward their events to).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from zlint.candidates.gates import gate_of
from zlint.candidates.gates.gate import TextCheck, anywhere
from zlint.core.ast_walk import binding_lines
from zlint.core.diagnostics import Diagnostic, Fix
from zlint.cst.positions import StatementPositions
from zlint.facts.compiled_scope import CompiledScope, compute_compiled_scope
from zlint.facts.imports import ImportMap
from zlint.facts.lattice import CONDITIONAL, Fact, Kind
from zlint.facts.literals import number_literal
from zlint.facts.loops import LoopFacts
from zlint.facts.size_facts import SizeFactsProvider

if TYPE_CHECKING:
    from zlint.candidates.summary import Predicate
    from zlint.core.settings import Settings

MAX_SNIPPET = 48
_NO_DEFAULT = object()


@dataclass
class FileContext:
    """Per-file state shared by every rule in one traversal: the file's inputs and per-file
    objects (see the module docstring); per-node facts are metadata providers, not fields here."""

    path: str
    module: cst.Module
    imports: ImportMap = field(default_factory=ImportMap)
    #: qualified names of the enclosing classes/functions, maintained by :class:`ScopeTracker`
    scope: list[str] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    settings: Settings | None = None
    #: the enclosing FunctionDef nodes, innermost last (maintained by ScopeTracker)
    functions: list[cst.FunctionDef] = field(default_factory=list)
    #: the module's MetadataWrapper and, once resolved, its positions (see :meth:`position`)
    wrapper: MetadataWrapper | None = field(default=None, repr=False)
    positions: Mapping[cst.CSTNode, CodeRange] | None = field(default=None, repr=False)
    #: the text the module was parsed from, and its ``ast`` when already at hand (positions)
    source: str | None = field(default=None, repr=False)
    tree: ast.Module | None = field(default=None, repr=False)

    @property
    def function(self) -> str | None:
        return ".".join(self.scope) if self.scope else None

    @cached_property
    def compiled_scope(self) -> CompiledScope:
        """What this file compiles; computed on first use, once per file."""
        return compute_compiled_scope(self.module)

    @cached_property
    def loops(self) -> LoopFacts:
        """The loop state of the traversal (ZL401, ZL403, ZL404 share it)."""
        return LoopFacts(self.module, self.imports)

    def position(self, node: cst.CSTNode) -> CodeRange:
        """The node's position, computed on first use: for the node's top-level statement only
        when the parsed ``source`` is known (:mod:`zlint.cst.positions`), else for the whole module."""
        if self.positions is None:
            if self.wrapper is None:
                raise RuntimeError("FileContext.position needs the MetadataWrapper of the module")
            if self.source is not None:
                self.positions = StatementPositions(self.wrapper, self.source, self.tree)
            else:
                self.positions = self.wrapper.resolve(PositionProvider)
        if isinstance(self.positions, StatementPositions):
            return self.positions.lookup(node, self.functions)  # the defs around the traversal
        return self.positions[node]

    def snippet(self, node: cst.CSTNode) -> str:
        text = " ".join(self.module.code_for_node(node).split())
        return text if len(text) <= MAX_SNIPPET else text[: MAX_SNIPPET - 3] + "..."


class ScopeTracker(cst.BatchableCSTVisitor):
    """Keeps ``FileContext.scope`` in step with the traversal; runs first in the batch."""

    def __init__(self, context: FileContext) -> None:
        super().__init__()
        self.context = context

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.context.scope.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.context.scope.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.context.scope.append(node.name.value)
        self.context.functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.context.scope.pop()
        self.context.functions.pop()


class Rule(cst.BatchableCSTVisitor):
    """Base class of every static rule. Pick it directly for a rule that reads only syntax and
    ``context.imports`` (qualified names of calls and attributes): it depends on no shared fact,
    so a run of only such rules never computes the size facts (ZL308, ZL402, ZL405, ZL406).
    The metadata below are read by :mod:`zlint.core.registry` from the subclass's own literal
    assignments: declare them in the rule class, first."""

    code: ClassVar[str]
    name: ClassVar[str]
    #: one line: what the rule finds (``zlint rules``, SARIF short description)
    summary: ClassVar[str]
    #: False for opt-in rules, enabled only by an explicit --select/--extend-select
    default_enabled: ClassVar[bool] = True
    #: "warning"; "error" for a wrong result; "info" for advice (SARIF level)
    severity: ClassVar[str] = "warning"
    #: False for rules about compile calls or configuration: their findings matter wherever they sit
    about_compiled_code: ClassVar[bool] = True
    #: True for rules that only exist under ``backed_size_oblivious``
    needs_size_oblivious: ClassVar[bool] = False
    #: the usual cost tier of a finding ("default" or "single-graph"); report(tier=...) overrides
    tier: ClassVar[str] = "default"
    #: The rule's gate (:class:`~zlint.candidates.gates.gate.Gate`): its trigger words, its
    #: ``candidate(summary, settings)`` test and its ``may_report(text, tree, settings)`` check,
    #: bound from the gate of ``code`` when the class is defined (see ``__init_subclass__``).
    trigger_words: ClassVar[frozenset[str] | None] = None
    candidate: ClassVar[Predicate | None] = None
    may_report: ClassVar[TextCheck] = staticmethod(anywhere)

    def __init_subclass__(cls, **kwargs) -> None:
        # declared once, in zlint/candidates/gates/, where the engine reads it without importing
        # any rule module: a class that states its own would be a second answer the engine ignores
        super().__init_subclass__(**kwargs)
        stated = sorted({"trigger_words", "candidate", "may_report"} & set(vars(cls)))
        if stated:
            raise TypeError(f"{cls.__name__} states {', '.join(stated)}: declare the gate of its code in "
                            "zlint/candidates/gates/ instead")
        if "code" in vars(cls):
            gate = gate_of(cls.code)
            cls.trigger_words = gate.trigger_words
            cls.candidate = None if gate.candidate is None else staticmethod(gate.candidate)
            cls.may_report = staticmethod(gate.may_report)

    #: The shared per-node facts the rule reads (LibCST metadata providers): none by default, so a
    #: rule that reads no size fact never makes a file pay for them. Declare what you read, or pick
    #: :class:`SizeFactsRule`. ``context.imports`` needs no declaration: the engine fills it for
    #: every file. PositionProvider is resolved lazily (see get_metadata): only files with
    #: findings pay for it. LibCST unions the declarations along the class's bases.
    METADATA_DEPENDENCIES: ClassVar[tuple] = ()

    def __init__(self, context: FileContext) -> None:
        super().__init__()
        self.context = context

    def get_metadata(self, key, node, default=_NO_DEFAULT):  # type: ignore[override]
        # Positions cost ~2.5x the parse over a whole file and are needed only for reported
        # nodes: computed on first use, once per file, unless the rule declared them itself.
        if key is PositionProvider and PositionProvider not in self.metadata:
            return self.context.position(node)
        if default is _NO_DEFAULT:
            return super().get_metadata(key, node)
        return super().get_metadata(key, node, default)

    def report(
        self, node: cst.CSTNode, message: str, fix: Fix | None = None, tier: str | None = None, needs: str = ""
    ) -> None:
        self._append(node, message, fix, tier, needs, reads="")

    def _append(
        self, node: cst.CSTNode, message: str, fix: Fix | None, tier: str | None, needs: str, reads: str,
        threshold: str = "",
    ) -> None:
        pos = self.get_metadata(PositionProvider, node)
        function = self.context.function
        self.context.diagnostics.append(
            Diagnostic(
                path=self.context.path,
                line=pos.start.line,
                column=pos.start.column,
                code=self.code,
                name=self.name,
                message=message,
                end_line=pos.end.line,
                end_column=pos.end.column,
                function=function,
                compiled=self.context.compiled_scope.contains(function),
                fix=fix,
                tier=tier or self.tier,
                needs=needs,
                reads=reads,
                threshold=threshold,
            )
        )


_OPERATORS = {
    cst.LessThan: "<", cst.LessThanEqual: "<=", cst.GreaterThan: ">", cst.GreaterThanEqual: ">=",
    cst.Equal: "==", cst.NotEqual: "!=",
}
_FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


class SizeFactsRule(Rule):
    """Pick this base (directly, or through a base built on it) when the rule reads the shared
    size facts: what each expression holds (a size, a shape, a rank, a tensor, a size bool), from
    :class:`~zlint.facts.size_facts.SizeFactsProvider`. It declares the provider, so a run pays
    for the facts only when one of its rules reads them; a rule on plain ``Rule`` that calls
    ``fact()`` fails loudly (LibCST: not declared in METADATA_DEPENDENCIES)."""

    METADATA_DEPENDENCIES = (SizeFactsProvider,)

    def report(
        self, node: cst.CSTNode, message: str, fix: Fix | None = None, tier: str | None = None, needs: str = "",
        about: cst.CSTNode | None = None,
    ) -> None:
        """Report at ``node``; the sizes the finding reads and its threshold are ``about``'s (the
        comparison a name carries to the test that reports it), ``node``'s by default."""
        about = node if about is None else about
        reads = " ".join(self._with_binding_lines(self.sizes_read(about), about))
        self._append(node, message, fix, tier, needs, reads=reads, threshold=self.threshold_of(about))

    def _with_binding_lines(self, origins: tuple[str, ...], node: cst.CSTNode) -> list[str]:
        """The origins, each conditional one (``"x?:0"``: the parameter's only where no statement
        that binds ``x`` ran, :data:`~zlint.facts.lattice.CONDITIONAL`) with the lines of those
        statements (``"x?12,15:0"``), for a recording to tell; dropped when they cannot be found."""
        out = []
        for origin in origins:
            name, sep, dim = origin.partition(":")
            if not name.endswith(CONDITIONAL):
                out.append(origin)
                continue
            tree = self.context.tree
            line = self.get_metadata(PositionProvider, node).start.line
            lines = binding_lines(tree, line, name[: -len(CONDITIONAL)]) if tree is not None else None
            if lines:
                out.append(f"{name}{','.join(map(str, lines))}{sep}{dim}")
            elif lines is not None:  # bound only after the read: the parameter there
                out.append(f"{name[: -len(CONDITIONAL)]}{sep}{dim}")
        return out

    def threshold_of(self, node: cst.CSTNode) -> str:
        """``">=64"`` when ``node`` compares exactly one dim's size with a number (either side)."""
        if not isinstance(node, cst.Comparison) or len(node.comparisons) != 1:
            return ""
        target = node.comparisons[0]
        sides = [(node.left, target.comparator, False), (target.comparator, node.left, True)]
        for size, other, flipped in sides:
            fact, value = self.fact(size), number_literal(other)
            if fact is None or not fact.exact or value is None:
                continue
            operator = _OPERATORS.get(type(target.operator))
            if operator is None:
                return ""
            return f"{_FLIPPED[operator] if flipped else operator}{value}"
        return ""

    def sizes_read(self, node: cst.CSTNode) -> tuple[str, ...]:
        """Where the sizes under ``node`` come from (:attr:`Fact.origin`), each once, outermost
        first: what a workload looks up to tell whether the finding's sizes vary."""
        seen: dict[str, None] = {}
        pending = [node]
        while pending:
            current = pending.pop()
            fact = self.fact(current)
            if fact is not None and (fact.kind is Kind.SIZE or (fact.origin and fact.kind is Kind.SHAPE)):
                # its parts say the same, less precisely; a size of no known origin (a dim that
                # cannot be told: `x.transpose(1, 2).shape[-1]`) is not its shape's
                seen.update(dict.fromkeys(fact.origin))
                continue
            pending.extend(reversed(current.children))
        return tuple(seen)

    def fact(self, node: cst.CSTNode) -> Fact | None:
        """What the size facts say ``node`` holds; None: nothing they know of."""
        return self.get_metadata(SizeFactsProvider, node, None)

    def is_kind(self, node: cst.BaseExpression | None, kind: Kind) -> bool:
        """Whether the shared facts give ``node`` (None: no expression) the value ``kind``."""
        fact = self.fact(node) if node is not None else None
        return fact is not None and fact.kind is kind

    def holds_size(self, node: cst.BaseExpression) -> bool:
        """A size or shape, or a tuple with one in it (``(h, w)`` as a key or format argument)."""
        fact = self.fact(node)
        if fact is not None and fact.kind in (Kind.SIZE, Kind.SHAPE):
            return True
        return isinstance(node, cst.Tuple) and any(self.holds_size(e.value) for e in node.elements)
