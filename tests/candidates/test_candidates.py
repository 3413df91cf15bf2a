"""The candidate stage (zlint/candidates/stage.py): which functions can hold a finding, and the reduced
text LibCST parses. The rule tests run every example on both paths; these test the stage itself."""

from __future__ import annotations

import ast
import textwrap

import pytest

from zlint.candidates import stage as candidates
from zlint.candidates import summary as candidate_summary
from zlint.core.settings import Settings
from zlint.engine.lint import lint_source
from zlint.rules import visitors

ALL = Settings(select=("ALL",), scope="all", target="single-graph")


def _summaries(code: str) -> dict[str, candidate_summary.FunctionSummary]:
    units, _ = candidates.summarize(ast.parse(textwrap.dedent(code)))
    return {unit.node.name: unit.summary for unit in units}


def _plan(code: str, codes: list[str]) -> candidates.Plan | None:
    text = textwrap.dedent(code)
    return candidates.plan(text, ast.parse(text), visitors(codes), ALL)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("n = x.size(0)\n    if n == 1:\n        return x", True),
        ("if x.shape[-1] > 4:\n        return x", True),
        ("b, t = x.shape[:2]\n    small = t < 2\n    if small:\n        return x", True),
        ("if x.numel():\n        return x", True),
        ("return torch.where(x.size(0) > 1, x, x)", True),  # a size bool passed to a call
        # near misses: ranks, a length of a shape, sizes only passed on, plain ints
        ("if x.dim() == 1:\n        return x", False),
        ("if x.ndim == 2:\n        return x", False),
        ("if len(x.shape) == 3:\n        return x", False),
        ("return x.view(x.shape[0], -1)", False),
        ("if k == 1:\n        return x", False),
        ("if x.shape is None:\n        return x", False),
    ],
)
def test_a_size_condition_makes_a_candidate(body, expected):
    summary = _summaries(f"import torch\ndef f(x, k: int):\n    {body}\n")["f"]
    assert candidate_summary.size_condition(summary) is expected


def test_sizes_flow_through_helpers_defined_anywhere():
    code = """
        def below_user(x):
            if width(x) == 1:
                return x
        def width(x):
            return x.shape[-1]
        def name_of(x):
            return "x"
        def other_user(x):
            if name_of(x) == 1:
                return x
    """
    found = _summaries(code)
    assert candidate_summary.size_condition(found["below_user"])
    assert not candidate_summary.size_condition(found["other_user"])  # the helper returns no size


def test_tensor_tests_need_a_value_that_may_be_a_tensor():
    code = """
        import torch
        def f(x: torch.Tensor, use_cache: bool, n: int):
            if use_cache:
                return x
            if n > 2:
                return x
        def g(x: torch.Tensor):
            if (x > 0).any():
                return x
        def h(mask):
            if mask.sum(dim=1):  # evidence: only a tensor takes dim=
                return mask
    """
    found = _summaries(code)
    assert not found["f"].tensor_test
    assert found["g"].tensor_test
    assert found["h"].tensor_test


def test_mask_index_needs_a_bool_tensor():
    code = """
        import torch
        def masked(x: torch.Tensor):
            keep = x > 0
            return x[keep]
        def gathered(x: torch.Tensor):
            idx = torch.arange(x.size(0))
            return x[idx]
    """
    found = _summaries(code)
    assert found["masked"].mask_index
    assert not found["gathered"].mask_index


def test_the_reduced_text_keeps_lines_and_columns():
    code = """\
        import torch


        def hot(x):
            if x.size(0) == 1:
                return x
            return x


        def cold(x):
            import math
            y = math.pi * 2
            return y


        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.proj = torch.nn.Linear(4, 4)

            @torch.no_grad()
            def forward(self, x):
                # a comment
                return self.proj(x)
    """
    text = textwrap.dedent(code)
    plan = _plan(code, ["ZL101"])
    assert plan is not None and plan.candidates == 1 and plan.units == 4
    original, reduced = text.split("\n"), plan.text.split("\n")
    assert len(reduced) == len(original)
    # the candidate, the class and the def of a body with an import stay character for character
    for number in (1, 4, 5, 6, 7, 10, 11, 16):
        assert reduced[number - 1] == original[number - 1]
    # a body with an import keeps it (the import map is the file's) and `...` at its indentation
    assert reduced[10:13] == ["    import math", "    ...", ""]
    # other definitions go whole, decorators and comments too: `...` at the def's indentation
    assert reduced[16:20] == ["    ...", "", "", ""]
    assert reduced[20:24] == ["    ...", "", "", ""]
    assert plan.drops(12) and plan.drops(22) and not plan.drops(5)


def _statements(body: list[ast.stmt]) -> list[tuple]:
    """What positions read of a tree: each statement's kind, first line (decorators included) and,
    for a class or def, its body's statements."""
    return [
        (type(s).__name__, min([s.lineno, *(d.lineno for d in getattr(s, "decorator_list", ()))]),
         _statements(s.body) if isinstance(s, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) else None)
        for s in body
    ]


def test_the_reduced_tree_is_the_reduced_text_parsed_without_parsing_it():
    code = """\
        import torch


        def hot(x):
            if x.size(0) == 1:
                return x
            return x


        def cold(x):
            import math
            y = math.pi * 2
            return y


        def only_imports():
            import os


        if torch.cuda.is_available():
            @torch.no_grad()
            def guarded(x):
                return x
        else:
            class Net(torch.nn.Module):
                @torch.no_grad()
                def forward(self, x):
                    # a comment
                    return x
    """
    text = textwrap.dedent(code)
    tree = ast.parse(text)
    before = ast.dump(tree, include_attributes=True)
    plan = candidates.plan(text, tree, visitors(["ZL101"]), ALL)
    assert plan is not None and plan.candidates == 1 and plan.units == 5
    assert _statements(plan.tree.body) == _statements(ast.parse(plan.text).body)
    assert ast.dump(tree, include_attributes=True) == before  # the file's own tree is not touched
    # the blanked defs: `...` on the def's first line (its decorator's), or after the kept imports
    cold, only_imports = plan.tree.body[2], plan.tree.body[3]
    assert [type(s).__name__ for s in cold.body] == ["Import", "Expr"] and cold.body[1].lineno == 12
    assert [type(s).__name__ for s in only_imports.body] == ["Import"]
    assert plan.tree.body[4].body[0].lineno == 21 and plan.tree.body[4].orelse[0].body[0].lineno == 26


def test_a_helper_called_from_a_candidate_is_kept_and_its_findings_left_out():
    code = """\
        def seq_len(x):
            n = x.shape[1]
            return n


        def use(x):
            if seq_len(x) == 1:
                return x
            return x


        def unrelated(x):
            return x + 1
    """
    text = textwrap.dedent(code)
    plan = _plan(code, ["ZL101"])
    assert plan is not None and plan.candidates == 1
    assert "n = x.shape[1]" in plan.text  # the helper's body is read for its return value
    assert "return x + 1" not in plan.text
    assert plan.drops(2) and not plan.drops(7)  # the helper is parsed, not reported on
    settings = Settings(select=("ZL101",))
    fast = lint_source(text, "m.py", settings, full_path=False)
    full = lint_source(text, "m.py", settings, full_path=True)
    assert [(d.line, d.column, d.code) for d in fast.diagnostics] == [(7, 7, "ZL101")]
    assert fast.diagnostics == full.diagnostics


def test_the_class_facts_of_a_candidate_are_kept():
    code = """\
        import torch


        class Block(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = torch.nn.Conv2d(3, 8, 3)

            def forward(self, x):
                y = self.conv(x)
                if y.shape[1] == 8:  # the channel dim of a conv output: static
                    return y
                if y.shape[2] == 1:
                    return y
                return y

            def describe(self):
                return "block"
    """
    text = textwrap.dedent(code)
    plan = _plan(code, ["ZL101", "ZL103"])
    assert plan is not None and "torch.nn.Conv2d(3, 8, 3)" in plan.text
    assert 'return "block"' not in plan.text
    settings = Settings(select=("ZL1",))
    fast = lint_source(text, "m.py", settings, full_path=False)
    full = lint_source(text, "m.py", settings, full_path=True)
    assert [(d.line, d.code) for d in fast.diagnostics] == [(13, "ZL101")]
    assert fast.diagnostics == full.diagnostics


def test_whole_file_when_a_rule_declares_nothing_or_the_file_compiles():
    code = "import torch\ndef f(x):\n    return x\ndef g(x):\n    if x.size(0) == 1:\n        return x\n"
    assert _plan(code, ["ZL101"]) is not None
    assert _plan(code, ["ZL101", "ZL403"]) is None  # ZL403: no candidate declaration
    # the compiled scope reads every function of a file that may compile something
    assert _plan(code + "h = torch.compile(g)\n", ["ZL101", "ZL401"]) is None
    assert _plan(code + "h = g.compile()\n", ["ZL101"]) is None
    # ... which a comment does not
    assert _plan(code + "# no torch.compile here\n", ["ZL101", "ZL401"]) is not None


def test_unknown_torch_attributes_are_candidates_only_where_spelled():
    code = """
        import torch
        def typo(x):
            return torch.compiler.disabel(x)
        def fine(x):
            return torch.compiler.disable(x)
        def late_import():
            from torch import not_a_thing
    """
    found = _summaries(code)
    rule = visitors(["ZL415"])[0]
    assert rule.candidate(found["typo"], ALL)
    assert not rule.candidate(found["fine"], ALL)
    assert rule.candidate(found["late_import"], ALL)


def test_noqa_and_unused_noqa_see_the_same_findings():
    code = """\
        def hot(x):
            if x.size(0) == 1:  # noqa: ZL101
                return x
            return x


        def cold(x):
            return x  # noqa: ZL101
    """
    text = textwrap.dedent(code)
    settings = Settings(select=("ZL101", "ZL901"))
    fast = lint_source(text, "m.py", settings, full_path=False)
    full = lint_source(text, "m.py", settings, full_path=True)
    assert [(d.line, d.code) for d in fast.diagnostics] == [(8, "ZL901")]
    assert fast.diagnostics == full.diagnostics


def test_nothing_is_parsed_where_no_code_can_hold_a_finding(monkeypatch):
    quiet = "import torch\n\n\ndef f(x):\n    return x + 1\n\n\nclass C:\n    n = 3\n"
    plan = _plan(quiet, ["ZL101", "ZL202"])
    assert plan is not None and plan.text is None
    # a finding in module-level code keeps the file parsed, and it is found on both paths
    loud = quiet + "if torch.ones(n).size(0) == 1:\n    pass\n"
    plan = _plan(loud, ["ZL101", "ZL202"])
    assert plan is not None and plan.text is not None
    parsed: list[str] = []
    import libcst

    real = libcst.parse_module
    monkeypatch.setattr(libcst, "parse_module", lambda text, *a, **k: parsed.append(text) or real(text, *a, **k))
    settings = Settings(select=("ZL101",), scope="all")
    assert lint_source(quiet, "m.py", settings, full_path=False).diagnostics == []
    assert parsed == []
    fast = lint_source(loud, "m.py", settings, full_path=False)
    full = lint_source(loud, "m.py", settings, full_path=True)
    assert [(d.line, d.code) for d in fast.diagnostics] == [(10, "ZL101")]
    assert fast.diagnostics == full.diagnostics
