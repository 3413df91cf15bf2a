"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request.

``::warning file=PATH,line=L,endLine=L,col=C,endColumn=C,title=ZL101::message``; files that could
not be linted become ``::error`` annotations. Values are escaped as the runner expects.
"""

from __future__ import annotations

from zlint.core.diagnostics import Diagnostic
from zlint.report.run import Run
from zlint.report.severity import severity_of


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(d: Diagnostic) -> str:
    props = [f"file={_property(d.path)}", f"line={d.line}"]
    if d.end_line >= d.line:
        props.append(f"endLine={d.end_line}")
    props.append(f"col={d.column + 1}")
    if d.end_line == d.line and d.end_column > d.column:
        props.append(f"endColumn={d.end_column}")  # inclusive and 1-based: our exclusive 0-based end
    props.append(f"title={_property(d.code)}")
    # GitHub knows error, warning and notice
    level = {"error": "error", "note": "notice"}.get(severity_of(d.code), "warning")
    return f"::{level} {','.join(props)}::{_data(d.message)}\n"


def github(diagnostics: list[Diagnostic], run: Run | None = None) -> str:
    out = [annotation(d) for d in diagnostics]
    for error in (run.errors if run else ()):
        out.append(f"::error file={_property(error.path)},title=zlint::{_data(error.reason)}\n")
    return "".join(out)
