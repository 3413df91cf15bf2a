"""The narrower candidate tests and context of the candidate stage: per rule, a near miss that is
no candidate and a case that must stay one; per context reason, what is kept and what is not.
Each case that lints also compares the fast path with the full path."""

from __future__ import annotations

import ast
import textwrap

import pytest

from zlint.candidates import stage as candidates
from zlint.candidates import summary as candidate_summary
from zlint.core.settings import Settings
from zlint.engine.lint import lint_source
from zlint.rules import visitors
from zlint.rules.zl206_size_formatted_into_string import SizeFormattedIntoString

ALL = Settings(select=("ALL",), scope="all", target="single-graph")


def _summary(body: str, name: str = "f") -> candidate_summary.FunctionSummary:
    code = f"import torch\nimport logging\ndef {name}(x: torch.Tensor, k: int):\n    {body}\n"
    units, _ = candidates.summarize(ast.parse(code))
    return units[0].summary


def _same_on_both_paths(code: str, select: tuple[str, ...]) -> list[tuple[int, str]]:
    text = textwrap.dedent(code)
    settings = Settings(select=select, scope="all", target="single-graph")
    fast = lint_source(text, "m.py", settings, full_path=False)
    full = lint_source(text, "m.py", settings, full_path=True)
    assert fast.diagnostics == full.diagnostics
    return [(d.line, d.code) for d in fast.diagnostics]


@pytest.mark.parametrize(
    ("body", "zl101", "zl102", "zl103", "zl104"),
    [
        ("if x.shape[0] == 1:\n        return x", True, False, True, True),
        ("if x.shape[0] >= 2:\n        return x", True, False, True, False),
        ("if x.shape[0] - 3 > k:\n        return x", False, False, True, False),
        ("if x.shape[0] // 4 > 3:\n        return x", True, False, True, False),  # shifted
        ("if x.shape[0] > 512:\n        return x", False, False, True, False),
        # a validation: ZL103 reports a threshold there at the single-graph tier
        ("if x.shape[0] != k:\n        raise ValueError", False, False, True, False),
        ("assert x.shape[0] == 1", True, False, True, True),  # ZL101 reports validations too
        ("if x.numel():\n        return x", False, True, True, True),
        ("return torch.where(x.size(0) > 1, x, x)", True, False, True, False),
        ("torch._check(x.size(0) > 1)\n    return x", False, False, False, False),  # symbolic
        ("check_shape(x.size(0) > 1)\n    return x", False, False, False, False),  # a validation helper
    ],
)
def test_each_size_rule_has_its_own_test(body, zl101, zl102, zl103, zl104):
    summary = _summary(body)
    assert candidate_summary.size_compared_with_zero_or_one(summary) is zl101
    assert candidate_summary.size_tested_for_truth(summary) is zl102
    assert candidate_summary.size_branch(summary) is zl103
    assert candidate_summary.size_zero_test(summary) is zl104


def test_a_module_level_size_comparison_keeps_its_readers():
    code = """\
        import torch
        SMALL = torch.ones(3).shape[0] == 1


        def f(x):
            if SMALL:
                return x
            return x


        def g(x):
            return x + 1
    """
    plan = candidates.plan(textwrap.dedent(code), ast.parse(textwrap.dedent(code)), visitors(["ZL101"]), ALL)
    assert plan is not None and plan.candidates == 1
    _same_on_both_paths(code, ("ZL101",))


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('return f"{x.shape[0]} rows"', True),
        ('return "%d rows" % x.shape[0]', True),
        ('return "{} rows".format(x.shape[0])', True),
        ("return str(x.shape[0])", True),
        # a message built on the normal path is built on every call
        ('logging.warning(f"{x.shape[0]} rows")', True),
        ('msg = f"{x.shape[0]} rows"\n    return msg', True),
        # a torch._check message closing over a size breaks the graph
        ('torch._check(k > 0, lambda: f"{x.shape[0]} rows")', True),
        # near misses: where the rule is quiet
        ('raise ValueError(f"{x.shape[0]} rows")', False),
        ('assert k, f"{x.shape[0]} rows"', False),
        ("return k % x.shape[0]", False),  # a remainder, not a format
    ],
)
def test_a_size_format_outside_messages_makes_a_zl206_candidate(body, expected):
    assert SizeFormattedIntoString.candidate(_summary(body), None) is expected
    # a method that only describes its object formats quietly
    assert SizeFormattedIntoString.candidate(_summary(body, "__repr__"), None) is False


def test_only_the_writers_of_attributes_a_kept_function_reads_are_kept():
    code = """\
        import torch


        class Block(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = torch.nn.Conv2d(3, 8, 3)

            def build_head(self):
                self.head = torch.nn.Linear(8, 2)
                return None

            def forward(self, x):
                y = self.conv(x)
                if y.shape[1] == 8:  # the channel dim of a conv output: static
                    return y
                if y.shape[2] == 1:
                    return y
                return y
    """
    text = textwrap.dedent(code)
    plan = candidates.plan(text, ast.parse(text), visitors(["ZL101", "ZL103"]), ALL)
    assert plan is not None and plan.text is not None
    assert "torch.nn.Conv2d(3, 8, 3)" in plan.text  # self.conv is read by forward
    assert "torch.nn.Linear(8, 2)" not in plan.text  # self.head is read by no kept function
    assert _same_on_both_paths(code, ("ZL1",)) == [(17, "ZL101")]


CALLED = """\
    import torch


    def scale(x: torch.Tensor, n):
        if isinstance(x, torch.Tensor) and x.shape[0] == 1:
            return x
        return x


    def caller_a(y):
        z = torch.ones(3)
        return scale(z, 2)


    def caller_b(shape):
        return scale(shape, 2)


    def plain(n):
        if n.shape[0] == 1:
            return n
        return n


    def caller_c(t):
        return plain(3)
"""


def test_one_call_passing_a_tensor_is_all_the_call_site_facts_need():
    text = textwrap.dedent(CALLED)
    plan = candidates.plan(text, ast.parse(text), visitors(["ZL101"]), ALL)
    assert plan is not None and plan.text is not None
    # scale's x: caller_a passes a tensor (a witness), so caller_b is not read
    assert "return scale(z, 2)" in plan.text
    assert "return scale(shape, 2)" not in plan.text
    # plain's n may be a tensor only by evidence: its one caller passes 3, which the facts read
    assert "return plain(3)" in plan.text
    assert _same_on_both_paths(CALLED, ("ZL101",)) == [(5, "ZL101"), (20, "ZL101")]


def test_a_function_without_tensor_parameters_needs_no_callers():
    code = """\
        import torch


        def rows(n: int):
            y = torch.ones(n)
            if y.shape[0] == 1:
                return y
            return y


        def caller(x):
            return rows(x.shape[0])
    """
    text = textwrap.dedent(code)
    plan = candidates.plan(text, ast.parse(text), visitors(["ZL101"]), ALL)
    assert plan is not None and plan.candidates == 1 and "rows(x.shape[0])" not in plan.text
    assert _same_on_both_paths(code, ("ZL101",)) == [(6, "ZL101")]


@pytest.mark.parametrize(
    ("body", "code", "expected"),
    [
        ("return torch.nonzero(x)", "ZL304", True),
        ("return x.argwhere()", "ZL304", True),
        ("return torch.where(x > 0)", "ZL304", True),
        ("return torch.where(x > 0, x, 0)", "ZL304", False),  # elementwise: a static size
        ("return x.repeat_interleave(x.sum(0))", "ZL307", True),
        ("return torch.repeat_interleave(x, x.long())", "ZL307", True),
        ("return x.repeat_interleave(k, dim=1)", "ZL307", False),  # an int repeat count
        ("return torch.repeat_interleave(x, x.long(), output_size=k)", "ZL307", False),
        ("if x.any():\n        return x", "ZL303", True),
        ("if x.any():\n        raise ValueError", "ZL303", True),
        ("assert x.any()", "ZL303", False),  # an assert on a tensor traces
        ("for row in x:\n        pass", "ZL202", True),
        ("return list(map(abs, x))", "ZL202", True),
        ("return list(map(x, [1, 2]))", "ZL202", False),  # map's first argument is the function
        ("return x.sorted(x)", "ZL202", False),  # a method, not the builtin
        # ZL308: a tensor handed to a function that may be a check wrapper of the run
        ("check(x.sum() > 0, 'empty')", "ZL308", True),
        ("logging.check(x.sum() > 0, 'empty')", "ZL308", True),  # a function of an imported module
        ("out.append(x)", "ZL308", False),  # a method of a local object: never a module's check
        ("torch.nn.init.zeros_(x)", "ZL308", False),  # torch's own functions are no wrapper
        ("self.check(x.sum() > 0)", "ZL308", False),
        ("check(k > 0, 'empty')", "ZL308", False),  # no tensor
    ],
)
def test_calls_and_conditions_the_rules_check(body, code, expected):
    (rule,) = visitors([code])
    assert rule.candidate(_summary(body), None) is expected
