"""Output formats. Each writer takes every diagnostic of the run (and the :class:`Run` around it:
the files linted, the files that failed) and returns the text to print."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable

from zlint.diagnostics import Diagnostic
from zlint.report.github import github
from zlint.report.junit import junit
from zlint.report.run import Run
from zlint.report.sarif import sarif
from zlint.report.verify_text import evidence_lines, status_suffix


def text(diagnostics: list[Diagnostic], run: Run | None = None) -> str:
    """``path:line:col: CODE message`` (1-based columns, like Ruff and flake8)."""
    return "".join(
        f"{d.path}:{d.line}:{d.column + 1}: {d.code} {d.message}{status_suffix(d)}\n{evidence_lines(d)}"
        for d in diagnostics
    )


def json_(diagnostics: list[Diagnostic], run: Run | None = None) -> str:
    return json.dumps([d.to_dict() for d in diagnostics], indent=2) + "\n"


def statistics(diagnostics: list[Diagnostic]) -> str:
    """Counts per code, most frequent first."""
    counts = Counter((d.code, d.name) for d in diagnostics)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0][0]))
    width = max((len(str(n)) for _, n in rows), default=1)
    return "".join(f"{n:>{width}}\t{code}\t{name}\n" for (code, name), n in rows)


def grouped(diagnostics: list[Diagnostic], run: Run | None = None) -> str:
    """Findings under a heading per file, like Ruff's ``grouped`` format."""
    out: list[str] = []
    current = None
    for d in diagnostics:
        if d.path != current:
            if current is not None:
                out.append("\n")
            current = d.path
            out.append(f"{d.path}:\n")
        out.append(f"  {d.line}:{d.column + 1} {d.code} {d.message}\n")
    return "".join(out)


Writer = Callable[[list[Diagnostic], "Run | None"], str]
FORMATS: dict[str, Writer] = {
    "text": text,
    "concise": text,  # Ruff's name for one line per finding
    "grouped": grouped,
    "json": json_,
    "sarif": sarif,
    "github": github,
    "junit": junit,
}


def write_report(fmt: str, diagnostics: list[Diagnostic], run: Run | None = None) -> str:
    return FORMATS[fmt](diagnostics, run)
