"""Suppression comments, in flake8's grammar so one comment serves the CLI and the plugin.

- ``# noqa`` on the reported line suppresses everything there;
- ``# noqa: ZL101,ZL102`` suppresses those codes (a code also covers longer ones it prefixes,
  as in flake8);
- ``# zlint: noqa`` on a line of its own skips the file; ``# zlint: noqa: ZL101`` skips those
  codes in the whole file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from zlint.diagnostics import Diagnostic

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
