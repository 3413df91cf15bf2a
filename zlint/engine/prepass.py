"""The fast path: decide, before paying for LibCST, which of the enabled rules can report
anything in a file, and parse nothing when none can.

Each static rule's gate (:class:`zlint.candidates.gates.gate.Gate`, declared in
:mod:`zlint.candidates.gates` and bound onto the rule class) may declare:

- ``trigger_words``: identifiers, attribute names or keywords without which the rule cannot
  report anything (the size rules use :data:`zlint.facts.vocabulary.SIZE_WORDS`). ``None`` (the
  default) means "unknown": the rule always runs.
- ``may_report(text, tree, settings)``: a cheap check on the text and the ``ast`` that may say
  "silent here" (ZL412: no ``compile`` and no call of ``optimize``).

A rule whose trigger words do not occur in the text, or whose ``may_report`` says no, is skipped;
the rules left run as on the full path. So the fast path can only
differ from the full path where a declaration is wrong, and ``tests/candidates/test_fast_path.py``, the rule
tests and the doc examples (run on both paths) and ``benchmarks/run.py --check`` compare them.

The engine passes the gates themselves (no rule module, hence no LibCST, is imported to decide);
the rule classes, which carry the same declarations, work as well. The rules left then meet the
candidate stage (:mod:`zlint.candidates.stage`), which decides per
function, from each gate's ``candidate`` test, which code LibCST parses at all. An earlier
reduction of each file to the functions that hold a trigger word did not pay (trigger words sit
in 94% of lines); the candidate stage asks what a finding needs instead (a size at a condition, a
tensor in a loop) and follows names through each function.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=64)
def _words_pattern(words: frozenset[str]) -> re.Pattern[str]:
    alternatives = "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})\b")


_WORD = re.compile(r"\w+")


@lru_cache(maxsize=64)
def _plain_words(words: frozenset[str]) -> bool:
    return all(_WORD.fullmatch(w) for w in words)


def words_in(text: str, words: frozenset[str]) -> set[str]:
    """The words of ``words`` that occur in ``text`` (anywhere: code, strings, comments)."""
    if not words:
        return set()
    if _plain_words(words):
        # a word bounded by ``\b`` on both sides is exactly one maximal run of word characters:
        # collecting the runs once is twice as fast as searching for the alternatives
        return set(_WORD.findall(text)).intersection(words)
    return set(_words_pattern(words).findall(text))


def relevant_rules(text: str, tree: ast.Module, rules: Sequence[Any], settings: object = None) -> tuple:
    """The rules among ``rules`` (the gates of the enabled rules, or their classes) that can report
    something in this file."""
    declared = [rule.trigger_words for rule in rules if rule.trigger_words is not None]
    present = words_in(text, frozenset().union(*declared))
    return tuple(
        rule
        for rule in rules
        if (rule.trigger_words is None or rule.trigger_words & present) and rule.may_report(text, tree, settings)
    )
