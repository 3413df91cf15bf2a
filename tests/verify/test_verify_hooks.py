"""``zlint.verify.sandbox.torch_hooks``: dynamo's texts parsed, verdicts built honestly from reports, and
a broken torch touchpoint that never turns into evidence (failures injected into real torch)."""

from __future__ import annotations

import textwrap

import pytest

from zlint.verify.evidence import (
    CONFIRMED,
    GRAPH_BREAK,
    GUARD,
    GUARDED,
    MODES,
    NOT_OBSERVED,
    RECOMPILE,
    SPECIALIZATION,
    UNVERIFIABLE,
    Evidence,
    FunctionReport,
    ModeRun,
    plain_guard,
)
from zlint.verify.runner import runtime_diagnostics, share_evidence, status_for
from zlint.verify.sandbox import torch_hooks as hooks

SDPA_BREAK = """Graph break in user code at /src/attn.py:8
Graph Break Reason: Encountered graph break when attempting to trace CALL: a function call, e.g. f(x, y):

TypeError when making fake tensor call
  Explanation: \n  Hint: Your code may result in an error when running in eager.

  Developer debug context: TypeError <built-in function scaled_dot_product_attention>: \
scaled_dot_product_attention(): argument 'is_causal' must be bool, not SymBool

 For more details about this graph break, please visit: https://example.invalid/gb0112.html

User code traceback:
  File "/src/attn.py", line 8, in f
    return F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
"""


# -- dynamo's texts ----------------------------------------------------------------------------


def test_graph_break_reason_is_whole_and_names_the_cause():
    assert hooks.graph_break_site(SDPA_BREAK) == ("/src/attn.py", 8)
    assert hooks.graph_break_reason(SDPA_BREAK) == (
        "TypeError when making fake tensor call: TypeError <built-in function scaled_dot_product_attention>: "
        "scaled_dot_product_attention(): argument 'is_causal' must be bool, not SymBool"
    )
    item = SDPA_BREAK.replace("TypeError when making fake tensor call", "Unsupported Tensor.item() call").replace(
        "Explanation: \n", "Explanation: Dynamo does not support tracing `Tensor.item()`.\n")
    assert hooks.graph_break_reason(item) == (
        "Unsupported Tensor.item() call: Dynamo does not support tracing `Tensor.item()`"
    )
    assert hooks.graph_break_reason("something else entirely") == "something else entirely"


def test_guards_read_in_the_users_names():
    assert plain_guard("Eq(s77, 1)", {"s77": "x.size(0)"}) == "Eq(s77, 1), i.e. x.size(0) == 1"
    assert (
        plain_guard("Ne(s1, s0)", {"s0": "a.size(0)", "s1": "b.size(0)"}) == "Ne(s1, s0), i.e. b.size(0) != a.size(0)"
    )
    assert plain_guard("2 <= s0", {"s0": "q.size(2)"}) == "2 <= s0, i.e. 2 <= q.size(2)"
    # nothing named: the sympy stays as it is rather than a rewrite that reads no better
    assert plain_guard("Eq((PythonMod(s9, 4)) + 1, 1)", {}) == "Eq((PythonMod(s9, 4)) + 1, 1)"
    assert hooks.plain_source("L['hidden'].size()[2]") == "hidden.size(2)"
    assert hooks.plain_stack_names("tensor '___stack0' size mismatch", ["x"]) == "tensor 'x' size mismatch"
    assert hooks.plain_stack_names("tensor '___stack3' at L['q']") == "tensor 'an intermediate value' at q"
    assert hooks.plain_stack_names("You marked L['s'].size()[0] as dynamic") == "You marked s.size(0) as dynamic"


def test_recompile_reasons_without_the_frameworks_own_part():
    own = ("2 <= x.size()[0] <= 4  # y = x * 2  # m.py:5 in f (user code shown is first use of this value--the "
           "guard itself is not due user code) and if x.size(0) > 4:  # m.py:6 in f (_dynamo/variables/tensor.py:2606 "
           "in evaluate_expr)")
    kept = hooks.without_framework_specialization(own)
    assert "m.py:6 in f" in kept and "m.py:5" not in kept
    assert hooks.without_framework_specialization("x  # m.py:5 in f (user code shown is first use of this value)") == ""
    assert hooks.split_reason("0/3: Ne(s0, 1)  # m.py:4 in f") == ("0/3", "Ne(s0, 1)  # m.py:4 in f")
    assert not hooks.reason_from_torch_op(own)
    assert hooks.reason_from_torch_op("x.size()[0] != 1  # m.py:8 in f (_dynamo/utils.py:4243 in run_node)")


def test_guards_asked_for_by_ops_are_told_from_the_users_if():
    op = "<FrameSummary file /venv/torch/_dynamo/utils.py, line 4243 in run_node>"
    user_if = "<FrameSummary file /venv/torch/_dynamo/variables/tensor.py, line 2606 in evaluate_expr>"
    meta = "<FrameSummary file /venv/torch/_meta_registrations.py, line 10 in meta_bmm>"
    assert hooks.guard_from_torch_op(op) and hooks.guard_from_torch_op(meta)
    assert not hooks.guard_from_torch_op(user_if) and not hooks.guard_from_torch_op("")


# -- verdicts ----------------------------------------------------------------------------------


def _report(evidence=(), runs=None, **kw) -> FunctionReport:
    runs = runs if runs is not None else [ModeRun(m, graphs=2, baseline=2, sizes_run=[2, 3]) for m in ("default",)]
    return FunctionReport("m.py::f", path="m.py", first_line=1, last_line=9, sizes=[2, 3], runs=runs,
                          evidence=list(evidence), **kw)


def test_a_guard_that_costs_nothing_is_guarded_not_confirmed():
    guard = Evidence(GUARD, "default", 4, [3], "Ne(s1, s0), i.e. y.size(0) != x.size(0)")
    info = status_for(_report([guard]), [4])
    assert info["status"] == GUARDED and "no graph, break or error" in info["note"]
    costly = _report([guard], [ModeRun("default", graphs=4, baseline=2, sizes_run=[2, 3], graph_sizes=[2, 3, 5, 8])])
    info = status_for(costly, [4])
    assert info["status"] == CONFIRMED
    assert info["cost"] == (
        "extra graphs; default: 4 graphs where a trivial function needs 2 (graphs compiled at sizes 2,3,5,8)"
    )


def test_not_observed_only_when_the_line_ran_compiled_everywhere():
    assert status_for(_report(), [4])["status"] == NOT_OBSERVED
    eager_failed = status_for(_report(eager_errors={0: "IndexError: boom"}), [4])
    assert eager_failed["status"] == UNVERIFIABLE and eager_failed["reason"].startswith("eager failed at sizes 0 ")
    broken = _report([Evidence(GRAPH_BREAK, "default", 3, [2], "Unsupported Tensor.item() call")])
    info = status_for(broken, [4])
    assert info["status"] == UNVERIFIABLE and info["reason"].startswith("skipped by an earlier graph break at line 3")
    # a break after the line does not hide it
    assert status_for(_report([Evidence(GRAPH_BREAK, "default", 6, [2], "x")]), [4])["status"] == NOT_OBSERVED
    partial = _report(runs=[ModeRun("default", graphs=1, baseline=1, sizes_run=[2])])
    assert status_for(partial, [4])["reason"] == "compiling failed in default mode at sizes 3"
    # a helper's line verified through its caller (lines 1-9): its guards show at the call
    helper = status_for(_report(), [14])
    assert helper["status"] == UNVERIFIABLE
    assert helper["reason"] == "outside the verified function (lines 1-9): what this line costs shows at its call there"


def test_extra_graphs_over_a_baseline_that_failed_are_no_cost():
    run = ModeRun("backed_size_oblivious", graphs=2, baseline=1, sizes_run=[2, 3], baseline_failed=[0])
    assert run.extra_graphs == 0
    no_line = Evidence(RECOMPILE, "backed_size_oblivious", None, [3], "2 graphs over the sweep")
    assert runtime_diagnostics(_report([no_line], [run]), set(), "m.py", 1, frozenset({"ZL801"})) == []
    run.baseline_failed = []
    [found] = runtime_diagnostics(_report([no_line], [run]), set(), "m.py", 1, frozenset({"ZL801"}))
    assert (found.code, found.line, found.verify["status"]) == ("ZL801", 1, CONFIRMED)


def test_pins_inside_torch_ops_are_no_finding():
    pin = Evidence(SPECIALIZATION, "backed_size_oblivious", 5, [1], "Eq(s7, 1)", inside_torch=True)
    report = _report([pin])
    assert runtime_diagnostics(report, set(), "m.py", 1, frozenset({"ZL801"})) == []
    assert status_for(report, [5])["status"] == NOT_OBSERVED


def test_two_findings_sharing_one_guard_state_it_once():
    from zlint.core.diagnostics import Diagnostic

    verify = {"status": CONFIRMED, "evidence": [{"kind": GUARD, "line": 3}]}
    a = Diagnostic(path="m.py", line=3, column=8, code="ZL101", name="a", message="a", verify=verify)
    b = Diagnostic(path="m.py", line=3, column=30, code="ZL101", name="b", message="b", verify=dict(verify))
    first, second = share_evidence([b, a])
    assert "same_as" not in first.verify and second.verify["same_as"] == "ZL101 at column 9"


# -- failures injected into real torch ----------------------------------------------------------

torch_needed = pytest.mark.skipif(
    __import__("importlib").util.find_spec("torch") is None, reason="needs torch"
)

SUBJECT = textwrap.dedent(
    """\
    import torch


    def head(x):
        if x.size(0) == 1:  # line 5
            return x.sum(0, keepdim=True)
        return x * 2
    """
)


@pytest.fixture()
def head(tmp_path, monkeypatch):
    from zlint.verify.sandbox.subjects import import_file

    path = tmp_path / "hook_subject.py"
    path.write_text(SUBJECT)
    return import_file(str(path)).head


@torch_needed
def test_self_test_passes_here_and_names_a_missing_touchpoint(monkeypatch):
    import torch._guards

    from zlint.verify.sandbox import probe

    assert probe.self_test() == ""
    monkeypatch.delattr(torch._guards.CompileContext, "current_compile_id")
    assert probe.self_test() == "missing torch._guards.CompileContext.current_compile_id"


@torch_needed
@pytest.mark.parametrize("broken", ["compile_id", "no_backed_size_oblivious", "guards"])
def test_a_broken_hook_makes_the_finding_unverifiable(head, monkeypatch, broken):
    import torch
    import torch.fx.experimental._config as fx_config

    from zlint.verify import check

    if broken == "compile_id":
        def boom():
            raise RuntimeError("CompileContext moved")
        monkeypatch.setattr(hooks, "current_compile_id", boom)
    elif broken == "no_backed_size_oblivious":  # a torch without the knob (pyproject allows 2.4)
        monkeypatch.delattr(fx_config, "backed_size_oblivious")
    else:
        monkeypatch.setattr(hooks, "shape_guards", lambda env: [][0])
    report = check(head, lambda n: (torch.randn(n, 3),), sizes=[2, 3, 1], backend="eager",
                   modes=["default", "backed_size_oblivious"])
    assert report.unverifiable.startswith(f"zlint's hook into torch {torch.__version__} failed: ")
    assert report.evidence == [] and report.runs == []
    assert {"compile_id": "CompileContext moved", "no_backed_size_oblivious": "backed_size_oblivious",
            "guards": "reading shape guards: IndexError"}[broken] in report.unverifiable
    # the verdicts built on it: no NOT OBSERVED for the finding, no invented runtime finding
    assert status_for(report, [5])["status"] == UNVERIFIABLE
    assert runtime_diagnostics(report, set(), "m.py", 4, frozenset({"ZL801", "ZL802", "ZL803", "ZL804"})) == []


@torch_needed
def test_the_knob_restored_after_the_vanishing_test():
    import torch.fx.experimental._config as fx_config

    assert fx_config.backed_size_oblivious is False



@torch_needed
def test_a_broken_hook_in_a_caller_run_is_unverifiable_not_a_compile_error(tmp_path, monkeypatch):
    import torch

    from zlint.verify.sandbox import caller_probe as callsite
    from zlint.verify.sandbox.subjects import import_file

    path = tmp_path / "hook_caller.py"
    path.write_text(textwrap.dedent(
        """\
        import torch


        def serve(sizes):
            f = torch.compile(lambda x: x * 2)
            return [f(torch.randn(n, 3)) for n in sizes]
        """
    ))
    module = import_file(str(path))

    def boom():
        raise RuntimeError("CompileContext moved")

    monkeypatch.setattr(hooks, "current_compile_id", boom)
    report = FunctionReport(f"{path}::serve", path=str(path), first_line=4, last_line=6)
    callsite.run_caller(module.serve, [(None, ([2, 3, 5],), {})], module, {}, report, [2, 3, 5], "eager")
    assert report.unverifiable == (
        f"zlint's hook into torch {torch.__version__} failed: RuntimeError: CompileContext moved"
    )
    assert report.evidence == []


def test_recompile_limit_and_constants_read_from_dynamos_text():
    assert hooks.recompile_limit_hit(hooks.CONVERT_FRAME_LOG, "torch._dynamo hit config.recompile_limit (8)") == "8"
    assert hooks.recompile_limit_hit(hooks.CONVERT_FRAME_LOG, "hit config.recompile_limit") == "?"
    assert hooks.recompile_limit_hit("torch._dynamo.other", "hit config.recompile_limit (8)") is None
    assert hooks.without_constant("specialized it to be a constant (3)") == "specialized it to be a constant"
    assert hooks.constraint_summary(
        "blah You marked L['x'].size()[0] as dynamic but your code specialized it to be a constant (3) more"
    ) == "You marked L['x'].size()[0] as dynamic but your code specialized it to be a constant (3)"


def test_a_guard_that_costs_nothing_does_not_skip_the_modes_that_decide_its_line(tmp_path):
    # default mode only guards at line 11 (a threshold that both sides of the sweep pass through
    # with the trivial function's graph count); mark_unbacked breaks the graph there. Skipping
    # mark_unbacked after the guard left the finding UNVERIFIABLE ("mode not run").
    from zlint.verify.sandbox.worker import run_job

    path = tmp_path / "grow.py"
    path.write_text(textwrap.dedent(
        """\
        import torch
        from torch import nn


        class Table(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.pe = torch.zeros(1, 64)

            def extend(self, x):
                if self.pe.size(1) >= x.size(1) * 2 - 1:
                    return self.pe
                return torch.zeros(1, x.size(1) * 2)
        """
    ))
    job = {"path": str(path), "qualname": "Table.extend", "focus": [11], "sizes": [2, 3, 5, 1, 0, 8],
           "modes": list(MODES), "backend": "eager", "device": "cpu"}
    report = FunctionReport.from_dict(run_job(job, {}, set()))
    assert [r.mode for r in report.runs if r.skipped] == []
    info = status_for(report, [11])
    assert (info["status"], info["mode"]) == (CONFIRMED, "mark_unbacked")
    assert info["cost"].startswith("graph break")


def test_verdicts_per_mode_follow_the_findings_tier():
    runs = [ModeRun(m, graphs=2, baseline=2, sizes_run=[2, 3]) for m in ("default", "mark_unbacked")]
    early = Evidence(GRAPH_BREAK, "mark_unbacked", 2, [2], "Data-dependent branching")
    report = _report([early], runs)
    # a recompile finding (tier default): decided by the default mode, which ran the line
    info = status_for(report, [4], tier="default")
    assert info["status"] == NOT_OBSERVED
    assert info["modes"] == {
        "default": NOT_OBSERVED,
        "mark_unbacked": "not decided: skipped by an earlier graph break at line 2 (mark_unbacked mode): the rest "
                         "may have run eagerly",
    }
    # a finding about single-graph modes: the mode that broke first cannot say
    info = status_for(report, [4], tier="single-graph")
    assert info["status"] == UNVERIFIABLE and info["reason"].startswith("skipped by an earlier graph break at line 2")


def test_a_related_line_lends_size_guards_not_its_own_breaks():
    # `n = x.size(0)` on line 4, read on line 5: a guard there is the finding's; a break there
    # (a print of n) is line 5's own
    guard = Evidence(SPECIALIZATION, "default", 5, [3], "Eq(s0, 3)")
    broken = Evidence(GRAPH_BREAK, "default", 5, [2], "print")
    assert status_for(_report([guard]), [4, 5], own=[4])["status"] == CONFIRMED
    assert status_for(_report([broken]), [4, 5], own=[4])["status"] == NOT_OBSERVED
    assert status_for(_report([broken]), [5], own=[5])["status"] == CONFIRMED


def test_eager_failures_at_sizes_zero_or_one_leave_the_other_sizes_to_decide():
    runs = [ModeRun("default", graphs=3, baseline=3, sizes_run=[2, 3, 1])]
    empty = _report(runs=runs, eager_errors={0: "RuntimeError: empty"})
    empty.sizes = [2, 3, 1, 0]
    info = status_for(empty, [4], tier="default")
    assert info["status"] == NOT_OBSERVED and "eager failed at sizes 0 (RuntimeError: empty)" in info["note"]
    assert status_for(empty, [4], tier="single-graph")["status"] == NOT_OBSERVED  # size 1 ran
    both = _report(runs=[ModeRun("default", graphs=2, baseline=2, sizes_run=[2, 3])],
                   eager_errors={0: "RuntimeError: empty", 1: "RuntimeError: one"})
    both.sizes = [2, 3, 1, 0]
    assert status_for(both, [4], tier="default")["status"] == NOT_OBSERVED
    assert status_for(both, [4], tier="single-graph")["status"] == UNVERIFIABLE  # neither 0 nor 1 ran
    larger = _report(eager_errors={3: "ValueError: odd"})
    assert status_for(larger, [4], tier="default")["reason"].startswith("eager failed at sizes 3 (ValueError: odd)")


def test_unverifiable_text_says_what_was_tried_and_what_to_register():
    from zlint.core.diagnostics import Diagnostic
    from zlint.report.verify_text import evidence_lines

    verify = {"status": UNVERIFIABLE, "reason": "not reached", "inputs": "synthesized: x[n,4]",
              "example": "import torch\nexample(f, lambda n: (torch.randn(n, 4),))"}
    d = Diagnostic(path="m.py", line=3, column=0, code="ZL101", name="a", message="a", verify=verify)
    assert evidence_lines(d) == (
        "    UNVERIFIABLE: not reached\n    inputs tried: synthesized: x[n,4]\n"
        "    register: example(f, lambda n: (torch.randn(n, 4),))\n"
    )
