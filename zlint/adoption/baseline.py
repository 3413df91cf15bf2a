"""A baseline: the findings a code base already has, so CI can fail only on new ones.

``zlint --write-baseline FILE`` records each finding as (path, code, line hash, occurrence) —
see :mod:`zlint.adoption.fingerprint` — with paths relative to the baseline's directory, so the
file works from any working directory and survives edits that only move lines.
``zlint --baseline FILE`` then drops the findings it lists.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from zlint.adoption.fingerprint import occurrences
from zlint.core.atomic import atomic_write
from zlint.core.diagnostics import Diagnostic

FORMAT_VERSION = 1
Key = tuple[str, str, str, int]  # (path, code, line hash, occurrence)


class BaselineError(Exception):
    """A baseline that cannot be read or written; ``str()`` is one line."""


def _relative(path: str, base: Path) -> str:
    absolute = os.path.abspath(path)
    try:
        return Path(os.path.relpath(absolute, base)).as_posix()
    except ValueError:  # another drive on Windows
        return Path(absolute).as_posix()


def keys(diagnostics: Iterable[Diagnostic], baseline_file: str | Path) -> dict[Diagnostic, Key]:
    """The baseline key of each finding whose file can be read."""
    base = Path(os.path.abspath(baseline_file)).parent
    return {
        diag: (_relative(diag.path, base), diag.code, digest, n)
        for diag, (digest, n) in occurrences(diagnostics).items()
    }


def write_baseline(baseline_file: str | Path, diagnostics: Iterable[Diagnostic]) -> int:
    """Record the findings (atomically); returns how many were recorded."""
    entries = sorted(set(keys(diagnostics, baseline_file).values()))
    data = {
        "zlint-baseline": FORMAT_VERSION,
        "findings": [
            {"path": path, "code": code, "line-hash": digest, "occurrence": n}
            for path, code, digest, n in entries
        ],
    }
    text = json.dumps(data, indent=2) + "\n"
    try:
        atomic_write(baseline_file, text.encode("utf-8"))
    except OSError as exc:
        raise BaselineError(f"{baseline_file}: cannot write: {exc.strerror or exc}") from None
    return len(entries)


@dataclass(frozen=True)
class Baseline:
    path: Path
    entries: frozenset[Key]

    def split(self, diagnostics: list[Diagnostic]) -> tuple[list[Diagnostic], int]:
        """``(new findings, number of baseline entries no longer found)``."""
        found = keys(diagnostics, self.path)
        new = [d for d in diagnostics if found.get(d) not in self.entries]
        stale = len(self.entries - set(found.values()))
        return new, stale


def load_baseline(baseline_file: str | Path) -> Baseline:
    """Read a baseline written by :func:`write_baseline`; errors are one line."""
    name = str(baseline_file)
    try:
        data = json.loads(Path(baseline_file).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BaselineError(f"{name}: no such file (create it with --write-baseline)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BaselineError(f"{name}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise BaselineError(f"{name}: not a zlint baseline: invalid JSON at line {exc.lineno}") from None
    if not isinstance(data, dict) or data.get("zlint-baseline") != FORMAT_VERSION:
        raise BaselineError(f"{name}: not a zlint baseline (version {FORMAT_VERSION} expected)")
    entries = set()
    for item in data.get("findings", []):
        try:
            entries.add((str(item["path"]), str(item["code"]), str(item["line-hash"]), int(item["occurrence"])))
        except (KeyError, TypeError, ValueError):
            raise BaselineError(f"{name}: malformed entry {item!r}") from None
    return Baseline(Path(baseline_file), frozenset(entries))
