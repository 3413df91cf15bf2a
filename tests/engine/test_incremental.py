"""Re-linting with a memo (the language server's path) parses only the candidate functions an
edit can change, and finds exactly what a lint without one finds."""

from __future__ import annotations

import ast
import random
import textwrap
from pathlib import Path

import pytest
from lsprotocol import types

from conftest import ROOT
from lsp_support import apply_edits, random_edit
from zlint.core.diagnostics import Diagnostic, Edit, Fix
from zlint.core.settings import Settings
from zlint.core.source import SourceError, parse_source
from zlint.engine.incremental import Memo, _moved
from zlint.engine.lint import lint_parsed

MODEL = textwrap.dedent(
    """\
    import torch


    def width(x):
        return x.shape[1]


    class Model(torch.nn.Module):
        def first(self, x):
            if x.size(0) == 1:
                return x
            return x * 2

        def second(self, x):
            n = width(x)
            if n == 1:
                return x
            return x + 1

        def third(self, x):
            if x.shape[0] == 1:
                x = x + 1
            return x

        def extra_repr(self):  # read by no candidate: blanked, so the text is reduced at all
            return "model"
    """
)


def _lint(text: str, memo: Memo | None = None, settings: Settings | None = None) -> list[tuple]:
    result = lint_parsed(parse_source(text, "model.py"), "model.py", settings or Settings(), memo=memo)
    assert result.error is None
    return [(d.code, d.line, d.column, d.end_line, d.end_column, d.message) for d in result.diagnostics]


def _lines(found: list[tuple]) -> list[tuple[str, int]]:
    return [(code, line) for code, line, *_ in found]


def _typed_in_a_function(rng: random.Random, text: str) -> str:
    """``text`` with a statement typed before a random statement of a function body (or, when
    the text does not parse, as it is)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    starts = sorted({
        statement.lineno for function in ast.walk(tree) if isinstance(function, ast.FunctionDef)
        for node in ast.walk(function) for field in ("body", "orelse", "finalbody")
        for statement in (getattr(node, field, None) if isinstance(getattr(node, field, None), list) else ())
        if node is not function or field == "body"
        if not getattr(statement, "decorator_list", ())
    })
    if not starts:
        return text
    lines = text.splitlines(keepends=True)
    index = rng.choice(starts) - 1
    indent = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
    typed = rng.choice(["y = x", "n = x.size(0)", "if x.shape[0] == 1:\n" + indent + "    x = x + 1", "pass"])
    return "".join(lines[:index] + [indent + typed + "\n"] + lines[index:])


def _insert(text: str, after: str, line: str) -> str:
    """``text`` with ``line`` inserted after the first line that is ``after`` (stripped)."""
    lines = text.splitlines(keepends=True)
    index = next(i for i, t in enumerate(lines) if t.strip() == after)
    return "".join(lines[: index + 1] + [line + "\n"] + lines[index + 1:])


def test_a_first_lint_with_a_memo_lints_every_piece_and_finds_what_a_plain_lint_finds():
    memo = Memo()
    assert _lint(MODEL, memo) == _lint(MODEL)
    assert _lines(_lint(MODEL)) == [("ZL101", 10), ("ZL101", 16), ("ZL101", 21)]
    assert (memo.linted, memo.reused) == (4, 0)  # the module-level code and three candidates


def test_an_edit_inside_one_function_lints_it_alone_and_moves_the_findings_below():
    memo = Memo()
    _lint(MODEL, memo)
    edited = _insert(MODEL, "def first(self, x):", "        y = x")
    found = _lint(edited, memo)
    assert (memo.linted, memo.reused) == (1, 3)
    assert found == _lint(edited)
    assert _lines(found) == [("ZL101", 11), ("ZL101", 17), ("ZL101", 22)]


def test_an_edit_to_a_helper_lints_again_the_functions_that_read_it():
    memo = Memo()
    _lint(MODEL, memo)
    edited = MODEL.replace("return x.shape[1]", "return x.shape[-1]")
    found = _lint(edited, memo)
    assert (memo.linted, memo.reused) == (1, 3)  # `second`, whose facts read `width`
    assert found == _lint(edited)
    # `width` no longer returns a size: `second` is no candidate, and its finding goes
    edited = MODEL.replace("return x.shape[1]", "return 3")
    assert _lines(_lint(edited, memo)) == [("ZL101", 10), ("ZL101", 21)] == _lines(_lint(edited))


def test_an_edit_to_module_level_code_lints_every_piece_again():
    memo = Memo()
    _lint(MODEL, memo)
    edited = _insert(MODEL, "import torch", "import math")
    found = _lint(edited, memo)
    assert (memo.linted, memo.reused) == (4, 0)
    assert found == _lint(edited)


def test_other_settings_reuse_nothing():
    memo = Memo()
    _lint(MODEL, memo)
    everything = Settings(select=("ALL",))
    assert _lint(MODEL, memo, everything) == _lint(MODEL, settings=everything)
    assert memo.reused == 0


def test_a_removed_finding_is_not_brought_back_by_the_memo():
    memo = Memo()
    _lint(MODEL, memo)
    edited = MODEL.replace("if x.shape[0] == 1:", "if x.dim() == 1:")  # a near miss: no size
    found = _lint(edited, memo)
    assert _lines(found) == [("ZL101", 10), ("ZL101", 16)] == _lines(_lint(edited))
    assert (memo.linted, memo.reused) == (0, 3)  # `third` is no candidate any more


def test_a_fix_moves_with_its_finding():
    fix = Fix("insert", (Edit(4, 0, 4, 0, "y\n"), Edit(6, 2, 7, 0, "")))
    diagnostic = Diagnostic("m.py", 5, 4, "ZL401", "n", "m", end_line=5, end_column=9, fix=fix)
    (moved,) = _moved([diagnostic], lambda line: line + 2)
    assert (moved.line, moved.end_line, moved.column, moved.end_column) == (7, 7, 4, 9)
    assert [(e.line, e.column, e.end_line, e.end_column) for e in moved.fix.edits] == [(6, 0, 6, 0), (8, 2, 9, 0)]
    assert _moved([diagnostic], lambda line: None if line == 6 else line) is None


CASES = sorted((Path(ROOT) / "benchmarks" / "accuracy" / "cases").glob("*.py"))


def _edited(start: int) -> str:
    """Real model code with candidates and no compile call (a file that compiles is parsed
    whole, memo or not): six of the accuracy cases, one after the other."""
    texts = [p.read_text(encoding="utf-8") for p in CASES if "compile" not in p.read_text(encoding="utf-8")]
    text = "\n\n".join(texts[start:start + 6])
    return text.replace("from __future__ import annotations\n", "")  # only at the top of a file


@pytest.mark.parametrize("name", ["model", "cases-0", "cases-12"])
def test_seeded_random_edits_find_what_a_plain_lint_finds(name: str):
    """After each of 40 seeded random edits (statements typed in function bodies, snippets
    inserted, lines deleted, syntax broken and undone), a lint with the memo of the edits
    before equals a lint without one."""
    rng = random.Random(name)
    text = good = MODEL * 3 if name == "model" else _edited(int(name.split("-")[1]))
    memo, compared, reused = Memo(), 0, 0
    for _ in range(40):
        if rng.random() < 0.7:
            text = _typed_in_a_function(rng, text)
        else:
            where, new = random_edit(rng, text)
            text = apply_edits(text, [types.TextEdit(range=where, new_text=new)])
        try:
            parsed = parse_source(text, name)
        except SourceError:
            text = good  # undone before the next edit
            continue
        good = text
        with_memo = lint_parsed(parsed, name, Settings(), memo=memo)
        plain = lint_parsed(parsed, name, Settings())
        assert [(d, d.message, d.end_line, d.end_column) for d in with_memo.diagnostics] == [
            (d, d.message, d.end_line, d.end_column) for d in plain.diagnostics
        ]
        compared, reused = compared + 1, reused + memo.reused
    assert compared >= 20
    assert reused > 0  # the memo did serve: the comparison is not of two plain lints
