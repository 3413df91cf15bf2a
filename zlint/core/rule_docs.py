"""Rule documentation: the Markdown files in ``rules/``, shipped inside the wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGED = Path(__file__).resolve().parents[1] / "_rules"  # the wheel: force-included by pyproject.toml
_SOURCE = Path(__file__).resolve().parents[2] / "rules"  # a source checkout or editable install


def docs_dir() -> Path:
    return _PACKAGED if _PACKAGED.is_dir() else _SOURCE


def doc_path(code: str) -> Path | None:
    matches = sorted(docs_dir().glob(f"{code.upper()}-*.md"))
    return matches[0] if matches else None


def doc_text(code: str) -> str | None:
    path = doc_path(code)
    return path.read_text(encoding="utf-8") if path else None
