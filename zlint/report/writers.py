"""Output formats. Each writer takes every diagnostic of the run (and the :class:`Run` around it:
the files linted, the files that failed) and returns the text to print."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable

from zlint.core.diagnostics import Diagnostic
from zlint.report.run import Run
from zlint.report.severity import severity_of
from zlint.report.verify_text import evidence_lines, status_suffix


def text(diagnostics: list[Diagnostic], run: Run | None = None) -> str:
    """``path:line:col: CODE message`` (1-based columns, like Ruff and flake8)."""
    return "".join(
        f"{d.path}:{d.line}:{d.column + 1}: {d.code} {d.message}{status_suffix(d)}\n{evidence_lines(d)}"
        for d in diagnostics
    )


def finding_dict(d: Diagnostic, docs_url: str | None = None) -> dict:
    """One finding as JSON: the diagnostic's own fields, its rule's page on the docs site at
    ``docs_url`` (None without one) and its rule's severity."""
    from zlint.core.rule_docs import rule_url

    data = d.to_dict(url=rule_url(d.code, docs_url))
    data["severity"] = severity_of(d.code)
    return data


def json_(diagnostics: list[Diagnostic], run: Run | None = None) -> str:
    docs_url = run.docs_url if run is not None else None
    return json.dumps([finding_dict(d, docs_url) for d in diagnostics], indent=2) + "\n"


def _statistics_rows(diagnostics: list[Diagnostic]) -> list[dict]:
    by_code: dict[tuple[str, str], list[Diagnostic]] = {}
    for d in diagnostics:
        by_code.setdefault((d.code, d.name), []).append(d)
    rows = [
        {
            "code": code,
            "name": name,
            "count": len(found),
            "severity": severity_of(code),
            "tier": dict(sorted(Counter(d.tier for d in found).items())),
            "scope": dict(sorted(Counter(d.scope for d in found).items())),
        }
        for (code, name), found in by_code.items()
    ]
    return sorted(rows, key=lambda row: (-row["count"], row["code"]))


def statistics(diagnostics: list[Diagnostic], fmt: str = "text") -> str:
    """Counts per code, most frequent first, with how many fall in each tier and scope; as JSON
    when ``fmt`` is ``json``."""
    rows = _statistics_rows(diagnostics)
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    width = max((len(str(row["count"])) for row in rows), default=1)
    return "".join(
        f"{row['count']:>{width}}\t{row['code']}\t{row['name']}\t{_counts(row['tier'])}\t{_counts(row['scope'])}\n"
        for row in rows
    )


def _counts(counter: dict[str, int]) -> str:
    return ", ".join(f"{key} {n}" for key, n in counter.items())


def grouped(diagnostics: list[Diagnostic], run: Run | None = None) -> str:
    """Findings under a heading per file, like Ruff's ``grouped`` format, each with its cost
    tier and where its code runs."""
    out: list[str] = []
    current = None
    for d in diagnostics:
        if d.path != current:
            if current is not None:
                out.append("\n")
            current = d.path
            out.append(f"{d.path}:\n")
        where = f"{d.scope}: {d.scope_reason}" if d.scope_reason else d.scope
        out.append(f"  {d.line}:{d.column + 1} {d.code} {d.message}  [{d.tier} tier; {where}]\n")
    return "".join(out)


# The machine formats load their modules (package metadata, XML, fingerprints) only when chosen:
# every run imports this module.
def sarif(diagnostics: list[Diagnostic], run: Run | None = None) -> str:
    from zlint.report.sarif import sarif as write

    return write(diagnostics, run)


def github(diagnostics: list[Diagnostic], run: Run | None = None) -> str:
    from zlint.report.github import github as write

    return write(diagnostics, run)


def junit(diagnostics: list[Diagnostic], run: Run | None = None) -> str:
    from zlint.report.junit import junit as write

    return write(diagnostics, run)


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
