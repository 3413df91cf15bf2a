"""``zlint --add-noqa``: suppress every current finding in place, to adopt zlint on old code.

Each reported line gets ``# noqa: CODE``; a line that already has a noqa comment with codes gets
the new codes added to it (never twice). Bytes other than the comments are left as they were:
encoding, BOM and line endings included. Files are written atomically, and only if unchanged
since they were read. A second run finds nothing to add.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from zlint.core.atomic import atomic_write, read_snapshot
from zlint.core.diagnostics import Diagnostic
from zlint.core.noqa import INLINE, UNUSED_NOQA_CODE, for_tokenize, physical_lines

_SPLIT = re.compile(r"[,\s]+")


@dataclass
class NoqaEdit:
    """The outcome for one file."""

    path: str
    added: int = 0  # codes added
    #: (line, reason) for findings whose line cannot take a comment
    skipped: list[tuple[int, str]] = field(default_factory=list)


def _layout(text: str) -> tuple[set[int], dict[int, tuple[int, int]]]:
    """Lines whose end may take a comment (they end in a NEWLINE or NL token, not inside a
    string or a backslash continuation), and the (start, end) columns of each line's comment."""
    ends: set[int] = set()
    comments: dict[int, tuple[int, int]] = {}
    for tok in tokenize.generate_tokens(for_tokenize(text).readline):
        if tok.type in (tokenize.NEWLINE, tokenize.NL):
            ends.add(tok.start[0])
        elif tok.type == tokenize.COMMENT:
            comments[tok.start[0]] = (tok.start[1], tok.end[1])
    return ends, comments


def _with_codes(line: str, comment: tuple[int, int] | None, codes: list[str]) -> tuple[str, list[str]]:
    """The line with ``codes`` suppressed, and the codes actually added."""
    if comment is not None:
        start, end = comment
        text = line[start:end]
        match = INLINE.search(text)
        if match and match.group("codes"):
            existing = [c for c in _SPLIT.split(match.group("codes").strip()) if c]
            have = {c.upper() for c in existing}
            new = [c for c in codes if c not in have]
            if not new:
                return line, []
            merged = f"# noqa: {', '.join([*existing, *new])}"
            text = text[: match.start()] + merged + text[match.end():]
            return line[:start] + text + line[end:], new
    return f"{line.rstrip()}  # noqa: {', '.join(codes)}", codes


def add_noqa(path: str | Path, diagnostics: Iterable[Diagnostic]) -> NoqaEdit:
    """Suppress ``diagnostics`` (all in ``path``) with noqa comments; writes only on change.

    Raises OSError (:class:`zlint.core.atomic.ChangedOnDisk` and ``WriteRefused`` among them) when
    the file cannot be updated.
    """
    edit = NoqaEdit(str(path))
    wanted: dict[int, list[str]] = {}
    for diag in sorted(diagnostics):
        if diag.code != UNUSED_NOQA_CODE and diag.code not in wanted.get(diag.line, []):
            wanted.setdefault(diag.line, []).append(diag.code)
    if not wanted:
        return edit

    snapshot = read_snapshot(path)
    data = snapshot.data
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)  # 'utf-8-sig' keeps a BOM
    text = data.decode(encoding)
    lines = physical_lines(text, keepends=True)
    ends, comments = _layout(text)
    for lineno, codes in sorted(wanted.items()):
        if lineno not in ends or not 0 < lineno <= len(lines):
            edit.skipped.append((lineno, "the line ends inside a string or a backslash continuation"))
            continue
        raw = lines[lineno - 1]
        body = raw.rstrip("\r\n")
        new_body, added = _with_codes(body, comments.get(lineno), sorted(codes))
        lines[lineno - 1] = new_body + raw[len(body):]
        edit.added += len(added)
    if edit.added:
        atomic_write(path, "".join(lines).encode(encoding), expected=snapshot)
    return edit


def with_noqa(text: str, lineno: int, codes: Iterable[str]) -> str | None:
    """Line ``lineno`` (1-based) of ``text``, without its line ending, with ``codes`` added to its
    noqa comment as ``--add-noqa`` would; None when the line cannot take a comment (it ends inside
    a string or a backslash continuation, or the text does not tokenize) or has them all already."""
    lines = physical_lines(text, keepends=True)
    if not 0 < lineno <= len(lines):
        return None
    try:
        ends, comments = _layout(text)
    except (tokenize.TokenError, SyntaxError):
        return None
    if lineno not in ends:
        return None
    body = lines[lineno - 1].rstrip("\r\n")
    new_body, added = _with_codes(body, comments.get(lineno), sorted({c.upper() for c in codes}))
    return new_body if added else None
