"""Output formats. Each writer takes every diagnostic of the run and returns the text to print."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable

from zlint.diagnostics import Diagnostic


def text(diagnostics: list[Diagnostic]) -> str:
    """``path:line:col: CODE message`` (1-based columns, like Ruff and flake8)."""
    return "".join(f"{d.path}:{d.line}:{d.column + 1}: {d.code} {d.message}\n" for d in diagnostics)


def json_(diagnostics: list[Diagnostic]) -> str:
    return json.dumps([d.to_dict() for d in diagnostics], indent=2) + "\n"


def statistics(diagnostics: list[Diagnostic]) -> str:
    """Counts per code, most frequent first."""
    counts = Counter((d.code, d.name) for d in diagnostics)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0][0]))
    width = max((len(str(n)) for _, n in rows), default=1)
    return "".join(f"{n:>{width}}\t{code}\t{name}\n" for (code, name), n in rows)


FORMATS: dict[str, Callable[[list[Diagnostic]], str]] = {"text": text, "json": json_}


def write_report(fmt: str, diagnostics: list[Diagnostic]) -> str:
    return FORMATS[fmt](diagnostics)
