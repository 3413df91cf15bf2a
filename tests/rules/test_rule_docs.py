"""The rule docs are the tests: every Example block must produce exactly the findings its
``# error: CODE`` comments mark, and every Use instead block must produce none."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import ALL, ROOT
from zlint.core.registry import RULES_BY_CODE
from zlint.engine.lint import lint_source
from zlint.frontends.flake8 import FILE_NOT_LINTED

DOCS = sorted((ROOT / "rules").glob("*.md"))
REQUIRED = ["What it does", "Why is this bad?", "Example", "Use instead", "Known problems", "References"]
OPTIONAL = {"Options", "Fix safety", "Torch versions"}
FENCE = re.compile(r"```python\n(.*?)```", re.S)
MARK = re.compile(r"#\s*error:\s*(ZL\d{3}(?:\s*,\s*ZL\d{3})*)")
#: runtime-only codes (ZL8xx) are marked ``# verify: ZL801``: static lint must stay quiet there,
#: tests/test_verify_docs.py checks that ``--verify`` reports them
VERIFY_MARK = re.compile(r"#\s*verify:\s*(ZL8\d{2})")


def sections(text: str) -> dict[str, str]:
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts), 2)}


def expected(block: str) -> list[tuple[int, str]]:
    out = []
    for lineno, line in enumerate(block.splitlines(), 1):
        match = MARK.search(line)
        if match:
            out.extend((lineno, code.strip()) for code in match.group(1).split(","))
    return sorted(out)


#: a version-dependent rule's doc names the torch its examples target (default: the installed one)
DOC_TORCH = re.compile(r'Examples are checked with `torch-version = "([\d.]+)"`')


def found(block: str, path: Path) -> list[tuple[int, str]]:
    target = DOC_TORCH.search(path.read_text(encoding="utf-8"))
    settings = replace(ALL, torch_version=target.group(1)) if target else ALL
    result = lint_source(block, str(path), settings)
    assert result.error is None, f"{path.name}: {result.error}"
    return sorted((d.line, d.code) for d in result.diagnostics)


def test_one_doc_per_code_and_one_code_per_doc():
    doc_codes = [p.name.split("-", 1)[0] for p in DOCS]
    assert sorted(doc_codes) == sorted(set(doc_codes)), "two docs for one code"
    assert sorted(doc_codes) == sorted(RULES_BY_CODE), "docs and registered rules differ"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.stem)
def test_doc_shape(doc: Path):
    code, name = doc.stem.split("-", 1)
    rule = RULES_BY_CODE[code]
    assert rule.name == name, f"{doc.name}: file name says {name}, rule says {rule.name}"
    text = doc.read_text(encoding="utf-8")
    assert text.splitlines()[0] == f"# {code} {name}"
    found_sections = list(sections(text))
    assert [s for s in found_sections if s in REQUIRED] == REQUIRED, found_sections
    assert set(found_sections) <= set(REQUIRED) | OPTIONAL, found_sections


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.stem)
def test_examples_produce_exactly_the_marked_findings(doc: Path):
    code = doc.stem.split("-", 1)[0]
    if code == FILE_NOT_LINTED:
        # ZL000: flake8 output, checked with real flake8 in tests/frontends/test_flake8_plugin.py
        assert f": {code} " in sections(doc.read_text(encoding="utf-8"))["Example"]
        return
    blocks = FENCE.findall(sections(doc.read_text(encoding="utf-8"))["Example"])
    assert blocks, f"{doc.name}: no python block under Example"
    marked_codes = set()
    for block in blocks:
        want = expected(block)
        marked_codes |= {c for _, c in want}
        if RULES_BY_CODE[code].kind == "runtime":
            marked_codes |= set(VERIFY_MARK.findall(block))
        assert found(block, doc) == want
    assert code in marked_codes, f"{doc.name}: its Example never marks {code}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.stem)
def test_use_instead_is_clean(doc: Path):
    blocks = FENCE.findall(sections(doc.read_text(encoding="utf-8"))["Use instead"])
    assert blocks, f"{doc.name}: no python block under Use instead"
    for block in blocks:
        assert found(block, doc) == []


def test_each_doc_test_runs_on_the_path_it_names(lint_path):
    # conftest runs every test here on both paths; this one fails if the switch does nothing
    from zlint.engine.lint import full_path_default

    assert full_path_default() is (lint_path == "full")
