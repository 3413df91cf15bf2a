"""Suppression comments, in flake8's grammar so one comment serves the CLI and the plugin.

- ``# noqa`` on the reported line suppresses everything there;
- ``# noqa: ZL101,ZL102`` suppresses those codes (a code also covers longer ones it prefixes,
  as in flake8);
- ``# zlint: noqa`` on a line of its own skips the file; ``# zlint: noqa: ZL101`` skips those
  codes in the whole file.

Also here: the opt-in ZL901 check for ``# noqa: ZL...`` codes that suppress nothing, which needs
every finding from before suppression, so the engine calls it after the traversal.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass

from zlint.core import registry
from zlint.core.diagnostics import Diagnostic

_CODE_LIST = r"[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*"
INLINE = re.compile(rf"#\s*noqa(?::[\s]?(?P<codes>{_CODE_LIST}))?", re.IGNORECASE)
FILE_LEVEL = re.compile(
    rf"^[ \t\f]*#[ \t]*zlint:[ \t]*noqa(?::[ \t]*(?P<codes>{_CODE_LIST}))?[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
_SPLIT = re.compile(r"[,\s]+")


@dataclass(frozen=True)
class Suppression:
    """``codes`` is None for a blanket suppression."""

    codes: frozenset[str] | None

    def covers(self, code: str) -> bool:
        return self.codes is None or any(code.startswith(c) for c in self.codes)


def _codes(group: str | None) -> frozenset[str] | None:
    if not group:
        return None
    return frozenset(c.upper() for c in _SPLIT.split(group.strip()) if c)


def inline_suppression(line: str) -> Suppression | None:
    match = INLINE.search(line)
    return Suppression(_codes(match.group("codes"))) if match else None


def file_suppression(source: str) -> Suppression | None:
    """The file-level ``# zlint: noqa`` (blanket wins over code lists)."""
    found: set[str] = set()
    for match in FILE_LEVEL.finditer(source):
        codes = _codes(match.group("codes"))
        if codes is None:
            return Suppression(None)
        found |= codes
    return Suppression(frozenset(found)) if found else None


def filter_suppressed(diagnostics: Iterable[Diagnostic], lines: list[str]) -> list[Diagnostic]:
    """Drop diagnostics whose reported line carries a matching ``# noqa``."""
    kept = []
    for diag in diagnostics:
        line = lines[diag.line - 1] if 0 < diag.line <= len(lines) else ""
        suppression = inline_suppression(line) if "noqa" in line.lower() else None
        if suppression is None or not suppression.covers(diag.code):
            kept.append(diag)
    return kept


# -- physical lines ----------------------------------------------------------------------------

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def physical_lines(text: str, keepends: bool = False) -> list[str]:
    """Lines as Python's tokenizer counts them: only ``\\n``, ``\\r\\n`` and ``\\r`` end a line.

    ``str.splitlines`` also splits on form feeds and other separators, which would shift every
    later line against the line numbers the parser reports.
    """
    lines = _LINE.findall(text)
    return lines if keepends else [line.rstrip("\r\n") for line in lines]


def for_tokenize(text: str) -> io.StringIO:
    """A readable for :mod:`tokenize`, which does not end lines at a lone ``\r`` (old Mac files):
    those become ``\n``, which keeps every line number and column."""
    if "\r" in text:
        text = re.sub(r"\r(?!\n)", "\n", text)
    return io.StringIO(text, newline="")


# -- unused suppressions (ZL901, opt-in) -------------------------------------------------------

UNUSED_NOQA_CODE = "ZL901"
UNUSED_NOQA_NAME = "unused-noqa"
#: codes zlint owns in a noqa comment; others belong to other tools and are left alone
_OWN_PREFIX = "ZL"


def _names_only_runtime_codes(code: str, known: Collection[str]) -> bool:
    """True when the codes a noqa code names are all reported by ``zlint --verify`` only: the
    static lint cannot tell whether such a suppression is used."""
    named = [c for c in known if c.startswith(code)]
    return bool(named) and all(registry.kind_of(c) == "runtime" for c in named)


def noqa_comments(text: str) -> Iterator[tuple[int, int, int, str]]:
    """``(line, column, end_column, comment)`` of every real comment carrying ``noqa``.

    Uses the tokenizer so that ``"# noqa"`` inside a string is not taken for a comment.
    """
    try:
        for tok in tokenize.generate_tokens(for_tokenize(text).readline):
            if tok.type == tokenize.COMMENT and "noqa" in tok.string.lower():
                yield tok.start[0], tok.start[1], tok.end[1], tok.string
    except (tokenize.TokenError, SyntaxError):  # the engine already parsed it; be safe anyway
        return


def unused_noqa(
    text: str,
    path: str,
    diagnostics: Sequence[Diagnostic],
    enabled: Collection[str],
    known: Collection[str],
) -> list[Diagnostic]:
    """ZL901 for each ``# noqa: ZL...`` comment that names a code which suppressed nothing.

    ``diagnostics`` are all findings before suppression. A code counts as unused when it
    matched no finding on its line and either names an enabled rule or names no rule at all.
    Blanket ``# noqa``, other tools' codes, disabled rules and ``--verify``-only codes are
    never reported: this run cannot know whether they are needed.
    """
    fired: dict[int, set[str]] = {}
    for diag in diagnostics:
        fired.setdefault(diag.line, set()).add(diag.code)
    found = []
    for line, column, end_column, comment in noqa_comments(text):
        suppression = inline_suppression(comment)
        if suppression is None or suppression.codes is None:
            continue
        unused, unknown = [], []
        for code in sorted(suppression.codes):
            if not code.startswith(_OWN_PREFIX) or _names_only_runtime_codes(code, known):
                continue
            if code == UNUSED_NOQA_CODE or any(c.startswith(code) for c in fired.get(line, ())):
                continue
            if not any(c.startswith(code) for c in known):
                unknown.append(code)
            elif any(c.startswith(code) for c in enabled):
                unused.append(code)
        if not unused and not unknown:
            continue
        parts = []
        if unused:
            parts.append(f"{', '.join(unused)} reported nothing on this line")
        if unknown:
            parts.append(f"{', '.join(unknown)} is not a zlint rule")
        found.append(
            Diagnostic(
                path=path,
                line=line,
                column=column,
                code=UNUSED_NOQA_CODE,
                name=UNUSED_NOQA_NAME,
                message=f"unused `noqa`: {'; '.join(parts)}; remove the code so the comment "
                "does not hide a future finding",
                end_line=line,
                end_column=end_column,
            )
        )
    return found
