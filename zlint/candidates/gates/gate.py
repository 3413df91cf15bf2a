"""What one rule needs to see before it can report anything: its gate, decided without LibCST."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zlint.candidates.summary import Predicate
    from zlint.core.settings import Settings

#: ``may_report(text, tree, settings)``: False only where the rule certainly reports nothing
TextCheck = Callable[[str, ast.Module, "Settings | None"], bool]


def anywhere(text: str, tree: ast.Module, settings: Settings | None = None) -> bool:
    """The default ``may_report``: no cheap look rules the file out."""
    return True


@dataclass(frozen=True)
class Gate:
    """The declarations of the rule ``code`` that the fast path and the candidate stage read.

    Each may only over-approximate (say "can report" where the rule stays silent), never the
    reverse: a wrong gate is the one way the fast path can differ from the full path."""

    code: str
    #: words (identifiers, attribute names, keywords) without which the rule cannot report in a
    #: file (:mod:`zlint.engine.prepass`); None: unknown, the rule always sees the file
    trigger_words: frozenset[str] | None = None
    #: True for every function in which the rule can report (:mod:`zlint.candidates.stage`);
    #: None: unknown, the files the rule runs on are parsed whole
    candidate: Predicate | None = None
    #: a cheap look at the file's text and ``ast`` after the trigger words
    may_report: TextCheck = anywhere
