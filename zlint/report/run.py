"""The context of one run that some output formats need beyond the findings."""

from __future__ import annotations

from dataclasses import dataclass

from zlint.core.diagnostics import FileError


@dataclass(frozen=True)
class Run:
    """Every file linted (JUnit lists the clean ones too) and every file that failed."""

    files: tuple[str, ...] = ()
    errors: tuple[FileError, ...] = ()
    #: the docs site the reports link rules to (:func:`zlint.core.rule_docs.docs_base`), or None
    docs_url: str | None = None
