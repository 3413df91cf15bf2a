"""Analyses several rules need are facts of the file, worked out once per traversal."""

from __future__ import annotations

import textwrap

from zlint.core.settings import Settings
from zlint.engine.lint import lint_source
from zlint.facts import condition_facts

LOOP = textwrap.dedent(
    """\
    import torch

    @torch.compile
    def step(x):
        if x.size(0) == 2:
            return x.sum(0)
        return x.mean(0)

    def serve(batches):
        for b in batches:
            torch._dynamo.mark_dynamic(b, 0)
            step(b)
        for n in range(2, 9):
            y = torch.randn(n, 4)
            step(y)
    """
)


def _findings(source: str, *select: str) -> list[tuple[int, int, str]]:
    result = lint_source(source, "m.py", Settings(select=select, scope="all", target="single-graph"), full_path=True)
    assert result.error is None
    return sorted((d.line, d.column, d.code) for d in result.diagnostics)


def test_each_loop_rule_reports_the_same_alone_and_batched():
    batched = _findings(LOOP, "ZL401", "ZL403", "ZL404")
    alone = sorted(f for code in ("ZL401", "ZL403", "ZL404") for f in _findings(LOOP, code))
    assert batched == alone
    # the loop state is real: the unmarked `y` in a loop is found, the marked `b` is not
    assert batched == [(11, 8, "ZL403"), (15, 13, "ZL401")]


def test_a_condition_is_analysed_once_for_every_branch_rule(monkeypatch):
    calls = []
    real = condition_facts.condition_atoms

    def counting(expr):
        calls.append(expr)
        return real(expr)

    monkeypatch.setattr(condition_facts, "condition_atoms", counting)
    source = "def f(x):\n    if x.size(0) == 1 or x.shape[1] > 8:\n        return x\n    return -x\n"
    found = _findings(source, "ZL101", "ZL102", "ZL103", "ZL209", "ZL303")
    assert [code for _, _, code in found] == ["ZL101", "ZL103"]
    assert len(calls) == 1  # five rules, one analysis


def test_loop_events_take_effect_once_however_many_rules_forward_them():
    import libcst as cst

    from zlint.facts.imports import ImportMap
    from zlint.facts.loops import LoopFacts

    source = "import torch\nfor b in bs:\n    y = torch.zeros(2, 3)\n    torch._dynamo.mark_dynamic(b, 0)\n"
    module = cst.parse_module(source)
    imports = ImportMap()
    imports.add_import(module.body[0].body[0])
    loop = module.body[1]
    assign = loop.body.body[0].body[0]
    mark = loop.body.body[1].body[0].value
    facts = LoopFacts(module, imports)
    for _ in range(3):  # three rules in one batch see the same events
        facts.enter_loop(loop)
        facts.assign(assign)
        assert facts.call(mark)
    frame = facts.frame
    assert frame.loops == [loop] and frame.varying == {"b", "y"} and frame.fixed_size == {"y"}
    assert [(m.kind, m.target, m.dim) for m in frame.marks] == [("mark_dynamic", "b", 0)]
    for _ in range(3):
        facts.leave_loop(loop)
    assert frame.loops == []
