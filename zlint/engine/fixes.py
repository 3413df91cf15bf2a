"""The fix loop (a front end over the engine): applying the edits rules offer, safely.

A rule attaches a :class:`~zlint.core.diagnostics.Fix` to a finding. ``--fix`` applies the safe ones, ``--unsafe-fixes``
adds those that change behaviour in corner cases, ``--diff`` shows them without writing. A fixed
file must parse again, keeps its encoding, BOM and line endings, and is written with
:func:`zlint.core.atomic.atomic_write` only if it still holds the bytes zlint read.
"""

from __future__ import annotations

import difflib
import io
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from zlint.core.atomic import ChangedOnDisk, Snapshot, atomic_write, read_snapshot
from zlint.core.diagnostics import Applicability, Diagnostic, FileError, Fix
from zlint.core.source import SourceError, check_syntax
from zlint.engine import lint as engine

if TYPE_CHECKING:
    from zlint.scope.classify import FileScope

#: Fix passes per file: a fix skipped for overlapping another is applied in the next pass.
MAX_PASSES = 10
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def lines_of(text: str) -> list[str]:
    """Physical lines with their endings (only \\n, \\r\\n, \\r end a line, as for the parser)."""
    return _LINE.findall(text)


def apply_fixes(text: str, fixes: list[Fix]) -> tuple[str, int]:
    """Apply non-overlapping fixes in order of position; returns the text and how many applied."""
    lines = lines_of(text)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return starts[min(line, len(starts)) - 1] + column

    spans = []
    for fix in fixes:
        edits = sorted((offset(e.line, e.column), offset(e.end_line, e.end_column), e.content) for e in fix.edits)
        spans.append((edits[0][0], edits[-1][1], edits))
    spans.sort(key=lambda s: (s[0], s[1]))
    out, cursor, applied = [], 0, 0
    for start, _end, edits in spans:
        if start < cursor:
            continue  # overlaps a fix already taken: next pass
        for edit_start, edit_end, content in edits:
            out.append(text[cursor:edit_start])
            out.append(content)
            cursor = edit_end
        applied += 1
    out.append(text[cursor:])
    return "".join(out), applied


def hidden_fixes(diagnostics: list[Diagnostic]) -> int:
    """How many distinct unsafe fixes ``diagnostics`` offer: what ``--unsafe-fixes`` would add."""
    return len(selected_fixes(diagnostics, True)) - len(selected_fixes(diagnostics, False))


def selected_fixes(diagnostics: list[Diagnostic], unsafe: bool) -> list[Fix]:
    fixes = []
    for diag in diagnostics:
        fix = diag.fix
        if fix is not None and (unsafe or fix.applicability is Applicability.SAFE) and fix not in fixes:
            fixes.append(fix)
    return fixes


@dataclass
class FixOutcome:
    """What ``fix_file`` did to one file."""

    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)  # remaining findings
    fixed: int = 0
    diff: str = ""
    error: FileError | None = None
    #: the fixed file's bytes, when not written (``write=False``) and a fix changed it
    source: bytes | None = None


@dataclass
class FixedText:
    """A text with its fixes applied (:func:`fix_text`): the findings left, how many fixes
    applied, or why the fixes were refused (``error``: the text is then the one given)."""

    text: str
    diagnostics: list[Diagnostic]
    fixed: int = 0
    error: str | None = None


def fix_text(
    text: str, diagnostics: list[Diagnostic], name: str, settings, unsafe: bool = False, scope: FileScope | None = None
) -> FixedText:
    """Apply the fixes of ``diagnostics`` (``text``'s findings) in passes, linting the text again
    after each, until none is left; refused whole when a pass would make code that does not
    parse or that zlint cannot read. What ``--fix`` writes and the language server's "fix all"."""
    fixed = 0
    for _ in range(MAX_PASSES):
        fixes = selected_fixes(diagnostics, unsafe)
        if not fixes:
            break
        new_text, applied = apply_fixes(text, fixes)
        if new_text == text:
            break
        try:
            check_syntax(new_text, name)
        except SourceError as exc:
            return FixedText(text, diagnostics, error=f"fix would make invalid code ({exc})")
        result = engine.lint_source(new_text, name, settings, scope=scope)
        if result.error is not None:
            return FixedText(text, diagnostics, error=f"fix would make code zlint cannot read ({result.error.reason})")
        text, diagnostics, fixed = new_text, result.diagnostics, fixed + applied
    return FixedText(text, diagnostics, fixed)


def _encoding(data: bytes) -> tuple[str, bytes]:
    """The file's encoding and its BOM (kept on write)."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    bom = b"\xef\xbb\xbf" if data.startswith(b"\xef\xbb\xbf") else b""
    return ("utf-8" if encoding == "utf-8-sig" else encoding), bom


def fix_file(
    path: str | Path,
    settings,
    unsafe: bool = False,
    write: bool = True,
    scope: FileScope | None = None,
    data: bytes | None = None,
) -> FixOutcome:
    """Lint ``path``, apply its fixes (safe ones, or all with ``unsafe``), and write the result
    atomically unless ``write`` is False (then ``diff`` holds a unified diff). ``scope``: the
    file's place in the run's project index, so that its findings, before and after each pass,
    are placed as the run places them (None: by the file alone, as ``zlint FILE``). ``data``: the
    file's bytes from elsewhere (stdin), fixed and never written."""
    name = str(path)
    snapshot: Snapshot | None = None
    if data is not None:
        write = False
    else:
        try:
            snapshot = read_snapshot(path)
            data = snapshot.data
        except OSError:
            first = engine.lint_file(path, settings)  # the same one-line error as without --fix
            return FixOutcome(name, first.diagnostics, error=first.error)
    first = engine.lint_source(data, name, settings, scope=scope)
    outcome = FixOutcome(name, first.diagnostics, error=first.error)
    if first.error is not None or not selected_fixes(first.diagnostics, unsafe):
        return outcome
    try:
        encoding, bom = _encoding(data)
        original = data[len(bom):].decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return outcome  # lint_file would have failed already; be safe
    fixing = fix_text(original, first.diagnostics, name, settings, unsafe, scope)
    if fixing.error is not None:
        outcome.error = FileError(name, f"{fixing.error}; not written")
        return outcome
    text, diagnostics, fixed = fixing.text, fixing.diagnostics, fixing.fixed
    if text == original:
        return outcome
    outcome.diagnostics, outcome.fixed = diagnostics, fixed
    if not write:
        outcome.source = bom + text.encode(encoding)
        outcome.diff = "".join(
            difflib.unified_diff(
                lines_of(original), lines_of(text), fromfile=f"a/{name}", tofile=f"b/{name}"
            )
        )
        return outcome
    try:
        atomic_write(path, bom + text.encode(encoding), expected=snapshot)
    except ChangedOnDisk as exc:
        outcome.error = FileError(name, f"{exc}; fixes not written")
        outcome.diagnostics, outcome.fixed = first.diagnostics, 0
    except OSError as exc:
        outcome.error = FileError(name, f"cannot write fixes: {exc.strerror or exc}")
        outcome.diagnostics, outcome.fixed = first.diagnostics, 0
    return outcome


class FixSession:
    """The CLI's ``--fix``/``--unsafe-fixes``/``--diff`` run over many files: totals and diffs."""

    def __init__(self, unsafe: bool, diff: bool, write: bool = True) -> None:
        self.unsafe, self.diff = unsafe, diff
        self.write = write and not diff
        self.fixed = 0
        #: unsafe fixes left unapplied for want of ``--unsafe-fixes`` (set by the run's fix step)
        self.hidden = 0
        self.diffs: list[str] = []
        #: the fixed bytes of the files not written (``zlint - --fix``), in order
        self.sources: list[bytes] = []

    def lint(
        self, path: str | Path, settings, scope: FileScope | None = None, data: bytes | None = None
    ) -> FixOutcome:
        outcome = fix_file(path, settings, unsafe=self.unsafe, write=self.write, scope=scope, data=data)
        self.fixed += outcome.fixed
        if outcome.diff and self.diff:
            self.diffs.append(outcome.diff)
        if outcome.source is not None:
            self.sources.append(outcome.source)
        return outcome

    def summary(self) -> str:
        noun = "finding" if self.fixed == 1 else "findings"
        if self.diff:
            files = len(self.diffs)
            done = f"Would fix {self.fixed} {noun} in {files} file{'s' if files != 1 else ''}"
        else:
            done = f"Fixed {self.fixed} {noun}"
        if not self.hidden:
            return done + "."
        # as Ruff: a user who ran --fix should learn that more fixes exist and how to get them
        fixes = "1 unsafe fix" if self.hidden == 1 else f"{self.hidden} unsafe fixes"
        return f"{done} ({fixes} not applied: --unsafe-fixes applies {'it' if self.hidden == 1 else 'them'})."
