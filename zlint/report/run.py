"""The context of one run that some output formats need beyond the findings."""

from __future__ import annotations

from dataclasses import dataclass

from zlint.core.diagnostics import FileError


@dataclass(frozen=True)
class Run:
    """Every file linted (JUnit lists the clean ones too) and every file that failed."""

    files: tuple[str, ...] = ()
    errors: tuple[FileError, ...] = ()
