"""Rule documentation: the Markdown files in ``rules/``, shipped inside the wheel."""

from __future__ import annotations

import functools
import os
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


#: The docs site's address, where the reports link each rule's page: the ``site_url`` of
#: mkdocs.yml (tests/test_docs.py holds the two equal). None while the project publishes no site:
#: then the reports carry no link unless ``docs-url`` or ``ZLINT_DOCS_URL`` names one.
DEFAULT_DOCS_URL: str | None = None
DOCS_URL_ENV = "ZLINT_DOCS_URL"


def docs_base(configured: str | None = None) -> str | None:
    """The docs site to link: ``ZLINT_DOCS_URL``, else the ``docs-url`` setting, else the default."""
    base = os.environ.get(DOCS_URL_ENV, "").strip() or configured or DEFAULT_DOCS_URL
    return base.rstrip("/") + "/" if base else None


@functools.lru_cache(maxsize=None)
def page_path(code: str) -> str | None:
    """A rule's page on the docs site, relative to its root: scripts/docs_hooks.py adds each
    ``rules/<CODE>-<name>.md`` as a page, which MkDocs serves as ``rules/<CODE>-<name>/``."""
    path = doc_path(code)
    return f"rules/{path.stem}/" if path else None


def rule_url(code: str, base: str | None) -> str | None:
    """The address of a rule's page on the docs site at ``base`` (from :func:`docs_base`)."""
    page = page_path(code) if base else None
    return base + page if page else None
