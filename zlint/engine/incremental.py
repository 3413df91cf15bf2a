"""Re-linting one file after an edit: LibCST parses only the candidate functions whose findings
the edit can change.

The candidate stage (:mod:`zlint.candidates.stage`) keeps, for each candidate function, the code
its facts read: the function, the helpers, methods and callers it names, and the module-level
code. A text reduced to one candidate and that context finds exactly the candidate's findings of
the whole plan (checked on both pinned corpora). So each candidate's findings are a function of
a *key*: the enabled rules, the file's skeleton (every line outside the functions the stage can
blank, each of those functions as its blanked form) and the text of every function in its
context. A :class:`Memo` keeps the findings of the last text under those keys; after an edit,
the candidates whose key is unchanged take their findings from it, moved by as many lines as
their function moved, and only the others are linted, in one text reduced to them. The
module-level code is one more piece, keyed the same way.

A key holds text, never line numbers: typing in one function leaves every other function's
key as it was, even though their lines move. Positions are kept relative to the piece that
holds them (a line of the function, or a line of the skeleton), so they can be placed again;
a finding with a fix that edits code of another function is not kept (its piece is linted
again next time).
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from zlint.core.diagnostics import Diagnostic, FileError
from zlint.core.settings import Settings

if TYPE_CHECKING:
    from zlint.candidates.stage import Split
    from zlint.candidates.summary import Unit
    from zlint.rules.base import Rule

#: a line as a piece sees it: ("in", lines after the function's first) or ("at", skeleton entry)
Anchor = tuple[str, int]

MODULE = "<module>"


@dataclass
class Memo:
    """The findings of a file's last lint, by the key of each piece (see the module's doc); a
    front end keeps one per open document and hands it to every lint of that document."""

    settings: Settings | None = None
    pieces: dict[tuple, list[Diagnostic]] = field(default_factory=dict)
    #: what the last lint parsed: the candidates linted again and those reused (for tests, logs)
    linted: int = 0
    reused: int = 0


class _Skeleton:
    """The lines of a file outside the functions the stage can blank, each such function as one
    entry: its blanked form. Two texts with equal skeletons differ only inside those functions."""

    def __init__(self, found: Split) -> None:
        lines = found.split_lines(found.reduced(set()))  # every unit that can be, blanked
        spans = sorted((u.first_line, u.last_line) for u in found.blankable)
        entries: list[object] = []
        numbers: list[int] = []  # the file's line of each entry
        line = 1
        for first, last in spans:
            for number in range(line, first):
                entries.append(lines[number - 1])
                numbers.append(number)
            entries.append(tuple(t for t in lines[first - 1:last] if t.strip()))
            numbers.append(first)
            line = last + 1
        for number in range(line, len(lines) + 1):
            entries.append(lines[number - 1])
            numbers.append(number)
        self.key = tuple(entries)
        self._numbers = numbers
        self._inside = {n for first, last in spans for n in range(first, last + 1)}

    def anchor(self, line: int) -> int | None:
        """The entry of the file's ``line``, when it is a line of its own in the skeleton."""
        if line in self._inside:
            return None
        index = bisect.bisect_left(self._numbers, line)
        return index if index < len(self._numbers) and self._numbers[index] == line else None

    def line(self, entry: int) -> int:
        return self._numbers[entry]


def relint(
    found: Split, path: str, rules: list[type[Rule]], settings: Settings, memo: Memo,
    parse_and_run: Callable[[str, str, list[type[Rule]], Settings], list[Diagnostic] | FileError],
) -> list[Diagnostic] | FileError:
    """The findings of ``found``'s candidates and module-level code (those of the whole plan),
    linting only the pieces whose key ``memo`` does not hold; ``memo`` then holds this text's."""
    if memo.settings != settings:
        memo.settings, memo.pieces = settings, {}
    skeleton = _Skeleton(found)
    codes = tuple(sorted(rule.code for rule in rules))
    ordinal = {id(u): i for i, u in enumerate(found.units)}
    texts: dict[int, str] = {}  # by ordinal: the text of each unit a key holds
    contexts: dict[tuple, set[int]] = {}  # by key: the ids of the units its piece's facts read

    def key(group: Sequence[Unit], name: object) -> tuple:
        context = found.context(group)
        read = sorted(ordinal[i] for i in context)
        for i in read:
            if i not in texts:
                unit = found.units[i]
                texts[i] = "\n".join(found.lines[unit.first_line - 1:unit.last_line])
        k = (codes, skeleton.key, tuple((i, texts[i]) for i in read), name)
        contexts[k] = context
        return k

    pieces: list[tuple[tuple, Unit | None]] = [(key([], MODULE), None)]
    pieces += [(key([u], ordinal[id(u)]), u) for u in found.candidates]
    if not found.blanked(set().union(*contexts.values())):
        # nothing to blank (every function is read): the whole file, as the plan parses it
        memo.pieces, memo.linted, memo.reused = {}, len(pieces), 0
        return parse_and_run(found.text, path, rules, settings)
    missing = [(k, unit) for k, unit in pieces if k not in memo.pieces]
    found_now: dict[tuple, list[Diagnostic]] = {}
    if missing:
        # a group's context is the union of its members': one text for every piece to lint
        outcome = parse_and_run(found.reduced(set().union(*(contexts[k] for k, _ in missing))), path, rules, settings)
        if isinstance(outcome, FileError):
            return outcome
        found_now = _by_piece(outcome, missing, found, skeleton)
    out: list[Diagnostic] = []
    kept: dict[tuple, list[Diagnostic]] = {}
    for k, unit in pieces:
        if k in found_now:
            diagnostics = found_now[k]
            stored = _stored(diagnostics, unit, skeleton)
            if stored is not None:
                kept[k] = stored
        else:
            stored = kept[k] = memo.pieces[k]
            diagnostics = [_placed(d, unit, skeleton) for d in stored]
        out.extend(diagnostics)
    memo.pieces = kept
    memo.linted, memo.reused = len(missing), len(pieces) - len(missing)
    return out


def _by_piece(
    outcome: list[Diagnostic], missing: list[tuple[tuple, Unit | None]], found: Split, skeleton: _Skeleton
) -> dict[tuple, list[Diagnostic]]:
    """The findings of a run over the missing pieces, each under its piece's key: a candidate's
    are those on its lines; the module's, those on lines outside every function."""
    spans = sorted((u.first_line, u.last_line) for u in found.units)
    starts = [first for first, _ in spans]

    def in_function(line: int) -> bool:
        index = bisect.bisect_right(starts, line) - 1
        return index >= 0 and spans[index][0] <= line <= spans[index][1]

    out: dict[tuple, list[Diagnostic]] = {}
    for k, unit in missing:
        if unit is None:
            out[k] = [d for d in outcome if not in_function(d.line)]
        else:
            out[k] = [d for d in outcome if unit.first_line <= d.line <= unit.last_line]
    return out


def _stored(diagnostics: list[Diagnostic], unit: Unit | None, skeleton: _Skeleton) -> list[Diagnostic] | None:
    """``diagnostics`` with their lines as anchors of the piece; None when a position is on
    neither the piece's lines nor the skeleton's (the piece is not kept)."""

    def anchor(line: int) -> Anchor | None:
        if unit is not None and unit.first_line <= line <= unit.last_line:
            return ("in", line - unit.first_line)
        entry = skeleton.anchor(line)
        return None if entry is None else ("at", entry)

    return _moved(diagnostics, anchor)


def _placed(diagnostic: Diagnostic, unit: Unit | None, skeleton: _Skeleton) -> Diagnostic:
    def line(where: Anchor) -> int:
        kind, offset = where
        return unit.first_line + offset if kind == "in" and unit is not None else skeleton.line(offset)

    moved = _moved([diagnostic], line)
    assert moved is not None  # every anchor has a line
    return moved[0]


def _moved(diagnostics: list[Diagnostic], move: Callable) -> list[Diagnostic] | None:
    """``diagnostics`` with every line (start, end, and those of their fix's edits) passed
    through ``move``; None when ``move`` has no answer for one."""
    out = []
    for d in diagnostics:
        lines = [d.line, d.end_line or d.line]
        edits = d.fix.edits if d.fix is not None else ()
        lines.extend(n for e in edits for n in (e.line, e.end_line))
        moved = [move(n) for n in lines]
        if any(m is None for m in moved):
            return None
        fix = d.fix
        if fix is not None:
            fix = dataclasses.replace(fix, edits=tuple(
                dataclasses.replace(e, line=moved[2 + 2 * i], end_line=moved[3 + 2 * i]) for i, e in enumerate(edits)
            ))
        out.append(dataclasses.replace(d, line=moved[0], end_line=moved[1] if d.end_line else 0, fix=fix))
    return out
