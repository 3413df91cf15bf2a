"""A finding's identity that survives unrelated edits: path, code, and a hash of the text of
its line (whitespace-normalized) plus which occurrence of that (path, code, text) it is.

Line numbers are deliberately left out, so inserting lines above a known finding does not
make it new again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from zlint.core.diagnostics import Diagnostic
from zlint.core.noqa import physical_lines
from zlint.core.source import SourceError, decode_source

#: key of the fingerprint in SARIF ``partialFingerprints``
FINGERPRINT_KEY = "zlintLineHash/v1"


def line_hash(line: str) -> str:
    """Hash of a source line with its indentation and whitespace runs normalized."""
    return hashlib.sha256(" ".join(line.split()).encode("utf-8")).hexdigest()[:20]


def _lines(path: str) -> list[str] | None:
    try:
        return physical_lines(decode_source(Path(path).read_bytes()))
    except (OSError, SourceError):
        return None


def occurrences(diagnostics: Iterable[Diagnostic]) -> dict[Diagnostic, tuple[str, int]]:
    """``(line hash, occurrence index)`` of each finding whose file can be read.

    The occurrence index counts earlier findings (in file order) with the same path, code and
    line hash, so two identical lines each keep their own identity.
    """
    by_path: dict[str, list[Diagnostic]] = {}
    for diag in diagnostics:
        by_path.setdefault(diag.path, []).append(diag)
    out: dict[Diagnostic, tuple[str, int]] = {}
    for path, diags in by_path.items():
        lines = _lines(path)
        if lines is None:
            continue
        seen: dict[tuple[str, str], int] = {}
        for diag in sorted(diags):
            text = lines[diag.line - 1] if 0 < diag.line <= len(lines) else ""
            digest = line_hash(text)
            count = seen.get((diag.code, digest), 0)
            seen[(diag.code, digest)] = count + 1
            out[diag] = (digest, count)
    return out


def line_fingerprints(diagnostics: Iterable[Diagnostic]) -> dict[Diagnostic, str]:
    """``hash:occurrence`` per finding, for SARIF ``partialFingerprints``."""
    return {diag: f"{digest}:{n}" for diag, (digest, n) in occurrences(diagnostics).items()}
