"""The adoption steps the CLI runs after linting: filter by a baseline, write one, add noqa."""

from __future__ import annotations

from dataclasses import dataclass, field

from zlint.adoption.add_noqa import add_noqa
from zlint.adoption.baseline import load_baseline, write_baseline
from zlint.core.diagnostics import Diagnostic, FileError


@dataclass
class Adoption:
    """What is left to report, what to tell the user, and what failed."""

    diagnostics: list[Diagnostic]
    notes: list[str] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)


def adopt(
    diagnostics: list[Diagnostic],
    *,
    baseline: str | None = None,
    write_baseline_to: str | None = None,
    add_noqa_comments: bool = False,
) -> Adoption:
    """Apply ``--baseline``, then ``--write-baseline`` or ``--add-noqa``.

    Raises :class:`~zlint.adoption.baseline.BaselineError` (one line) when a baseline cannot be read or written.
    """
    out = Adoption(list(diagnostics))
    if baseline is not None:
        out.diagnostics, stale = load_baseline(baseline).split(out.diagnostics)
        if stale:
            out.notes.append(
                f"{stale} baseline entr{'y' if stale == 1 else 'ies'} no longer found (fixed?); "
                f"run --write-baseline {baseline} to drop them"
            )
    if write_baseline_to is not None:
        count = write_baseline(write_baseline_to, out.diagnostics)
        out.notes.append(f"wrote {count} finding{'s' if count != 1 else ''} to {write_baseline_to}")
        out.diagnostics = []
    elif add_noqa_comments:
        by_path: dict[str, list[Diagnostic]] = {}
        for diag in out.diagnostics:
            by_path.setdefault(diag.path, []).append(diag)
        left: list[Diagnostic] = []
        added = files = 0
        for path, diags in by_path.items():
            try:
                edit = add_noqa(path, diags)
            except OSError as exc:  # atomic_write's refusals (ChangedOnDisk, WriteRefused) too
                out.errors.append(FileError(path, f"cannot add noqa: {exc}"))
                left.extend(diags)  # not suppressed, so still reported
                continue
            added += edit.added
            files += 1 if edit.added else 0
            skipped = {line for line, _ in edit.skipped}
            left.extend(d for d in diags if d.line in skipped)
            for line, reason in edit.skipped:
                out.notes.append(f"{path}:{line}: no noqa added: {reason}")
        codes, files_word = "code" if added == 1 else "codes", "file" if files == 1 else "files"
        out.notes.append(f"added {added} noqa {codes} in {files} {files_word}")
        out.diagnostics = left
    return out


__all__ = ["Adoption", "adopt"]
