"""The rule contract: a small batchable LibCST visitor that reports diagnostics.

A rule declares its code, kebab-case name and one-line summary, reads shared facts through
metadata (never re-deriving them), and calls :meth:`Rule.report` on the narrowest node.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import libcst as cst
from libcst.metadata import PositionProvider

from zlint.diagnostics import Diagnostic
from zlint.facts.imports import ImportMap
from zlint.facts.size_facts import Fact, SizeFactsProvider

MAX_SNIPPET = 48


@dataclass
class FileContext:
    """Per-file state shared by every rule in one traversal."""

    path: str
    module: cst.Module
    imports: ImportMap = field(default_factory=ImportMap)
    #: qualified names of the enclosing classes/functions, maintained by :class:`ScopeTracker`
    scope: list[str] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def function(self) -> str | None:
        return ".".join(self.scope) if self.scope else None

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

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.context.scope.pop()


class Rule(cst.BatchableCSTVisitor):
    """Base class of every zlint rule."""

    code: ClassVar[str]
    name: ClassVar[str]
    #: one line: what the rule finds (``zlint rules``, SARIF short description)
    summary: ClassVar[str]
    #: False for opt-in rules, enabled only by an explicit --select/--extend-select
    default_enabled: ClassVar[bool] = True

    METADATA_DEPENDENCIES = (PositionProvider, SizeFactsProvider)

    def __init__(self, context: FileContext) -> None:
        super().__init__()
        self.context = context

    def fact(self, node: cst.CSTNode) -> Fact | None:
        return self.get_metadata(SizeFactsProvider, node, None)

    def report(self, node: cst.CSTNode, message: str) -> None:
        pos = self.get_metadata(PositionProvider, node)
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
                function=self.context.function,
            )
        )
