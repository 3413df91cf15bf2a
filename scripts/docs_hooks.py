"""MkDocs hooks (``hooks:`` in mkdocs.yml): one site page per rule doc, generated at build time.

The rule docs live in ``rules/`` (tests execute their examples, ``zlint rule CODE`` prints them,
the wheel ships them). Copying them into ``docs/`` would make two sources that drift, so the build
reads them from ``rules/`` and adds them to the site as ``rules/<CODE>-<name>.md``, plus a
``rules/index.md`` built from the README's rule table (which tests/test_readme.py holds to the
registry). Nothing generated is written into the source tree.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parent.parent
RULES_DIR = ROOT / "rules"
README = ROOT / "README.md"

_TABLE = re.compile(r"<!-- rule-table -->\n(.*?)<!-- /rule-table -->", re.S)
_FAMILIES = re.compile(r"<!-- rule-families -->\n(.*?)<!-- /rule-families -->", re.S)


def rule_docs() -> list[Path]:
    """The rule docs, in code order."""
    return sorted(RULES_DIR.glob("ZL[0-9][0-9][0-9]-*.md"))


def rule_page(doc: Path) -> str:
    """A rule doc as a site page: the same Markdown, with a line that says where it comes from."""
    text = doc.read_text(encoding="utf-8")
    title, _, body = text.partition("\n")
    code = doc.name.split("-", 1)[0]
    source = f"`rules/{doc.name}` (also printed by `zlint rule {code}`)"
    return f"{title}\n\n*Source: {source}.*\n{body}"


def rules_index() -> str:
    """The rules overview page: the README's rule table with links to the generated pages."""
    readme = README.read_text(encoding="utf-8")
    table = _TABLE.search(readme)
    if table is None:
        raise ValueError("README.md has no <!-- rule-table --> block")
    rows = table.group(1).replace("](rules/", "](")
    families = _FAMILIES.search(readme)
    intro = families.group(1).strip() + "\n\n" if families else ""
    return (
        "# Rules\n\n"
        "`zlint rules` lists them; `zlint rule CODE` prints one rule's page. Each page has the same "
        "sections: what it does, why it is bad, an example and what to use instead (both executed "
        "by the tests), known problems and references.\n\n"
        f"{intro}{rows}"
    )


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Put every rule page under "Rules" in the navigation, in code order."""
    pages = ["rules/index.md"] + [f"rules/{doc.name}" for doc in rule_docs()]
    config.nav = [*(config.nav or []), {"Rules": pages}]
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated rule pages to the site's files."""
    files.append(File.generated(config, "rules/index.md", content=rules_index()))
    for doc in rule_docs():
        files.append(File.generated(config, f"rules/{doc.name}", content=rule_page(doc)))
    return files
