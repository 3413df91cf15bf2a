"""Findings inside helpers: verified through a function of the same file that calls them (real
torch.compile on CPU), effects placed on the helper's own line, line order that follows calls,
and thresholds a synthesized sweep cannot cross left UNVERIFIABLE instead of NOT OBSERVED."""

from __future__ import annotations

import ast
import json
import textwrap

import pytest

from conftest import run_zlint
from zlint.verify.call_graph import CallPaths, callers, entry_paths
from zlint.verify.evidence import (
    CONFIRMED,
    GRAPH_BREAK,
    GUARD,
    GUARDED,
    NOT_OBSERVED,
    SPECIALIZATION,
    UNVERIFIABLE,
    Evidence,
    FunctionReport,
    ModeRun,
)
from zlint.verify.runner import pick, status_for
from zlint.verify.synth import plan_inputs
from zlint.verify.thresholds import known_ints, open_thresholds, threshold_sizes

FRONT = textwrap.dedent(
    """\
    import os

    import torch
    import torch.nn as nn

    AXIS = int(os.environ.get("TRIM_AXIS", "-1"))


    def pad_or_trim(x, length: int = 6, axis: int = -1):
        if x.shape[axis] > length:  # line 10: a threshold in a helper
            x = x.narrow(axis, 0, length)
        return x


    def check_channels(x):
        if x.shape[1] > 6:  # line 16: channels never vary
            return x * 2
        return x


    class Front(nn.Module):
        def forward(self, mel):
            mel = check_channels(mel)
            if self.training:  # verified in eval mode: never taken
                mel = drop_frames(mel)
            return pad_or_trim(mel, 6)


    def trim_frames(x, length: int = 6):
        if x.shape[-1] > length:  # line 30: a helper only never-compiled code calls
            return x[..., :length]
        return x


    def clip_frames(x, axis=AXIS):
        if x.shape[axis] > 6:  # line 36: a dim nothing tells before running
            return x.narrow(axis, 0, 6)
        return x


    def load(path):
        data = torch.load(path)
        return clip_frames(trim_frames(data))


    def drop_frames(x):
        if x.shape[-1] > 4:  # line 47: a helper the forward calls only while training
            return x[..., ::2]
        return x
    """
)
EXAMPLES = textwrap.dedent(
    """\
    import torch

    import front
    from zlint.verify import example

    example(front.Front.forward, lambda n: (torch.randn(1, 4, n),), factory=front.Front)
    """
)


# -- call paths (no torch) -----------------------------------------------------------------------


def test_call_paths_follow_calls_into_helpers():
    tree = ast.parse(FRONT)
    assert entry_paths(tree, "Front.forward") == {
        "Front.forward": (), "check_channels": (23,), "drop_frames": (25,), "pad_or_trim": (26,),
    }
    assert entry_paths(tree, "load") == {"load": (), "clip_frames": (43,), "trim_frames": (43,)}
    assert sorted(callers(tree, "pad_or_trim")) == [("Front.forward", 1)]
    order = CallPaths.of(tree, "Front.forward")
    assert order.key(10) == (26, 10) and order.key(23) == (23,) and order.key(30) is None
    assert order.precedes(23, 10)  # a forward line before the call
    assert order.precedes(16, 10)  # a line of a helper called first
    assert not order.precedes(26, 10)  # the call leading to line 10 is not before it
    assert not order.precedes(11, 10) and order.precedes(10, 11)
    assert order.precedes(None, 10) and order.precedes(36, 10)  # unknown: it may run first
    assert order.first([11, 23]) == 23 and order.first([26, 10]) == 26  # a call starts before its callee


def _report(evidence=(), **kw) -> FunctionReport:
    runs = [ModeRun("default", graphs=4, baseline=4, sizes_run=[2, 3])]
    return FunctionReport("front.py::Front.forward", path="front.py", first_line=22, last_line=26, sizes=[2, 3],
                          runs=runs, evidence=list(evidence), **kw)


def test_helper_lines_are_verified_in_call_order():
    order = CallPaths.of(ast.parse(FRONT), "Front.forward")
    assert status_for(_report(), [10], order)["status"] == NOT_OBSERVED
    # without the call paths a helper line is outside the verified function
    assert status_for(_report(), [10])["reason"].startswith("outside the verified function (lines 22-26)")
    # never reached from forward: still outside
    assert status_for(_report(), [30], order)["status"] == UNVERIFIABLE
    # a break in the helper called first skips the later helper's line; a break at line 11 does not
    first = status_for(_report([Evidence(GRAPH_BREAK, "default", 16, [2], "x")]), [10], order)
    assert first["reason"].startswith("skipped by an earlier graph break at line 16")
    assert status_for(_report([Evidence(GRAPH_BREAK, "default", 11, [2], "x")]), [10], order)["status"] == NOT_OBSERVED
    # a size pinned at forward's line 23 masks the helper's later line
    pinned = status_for(_report([Evidence(SPECIALIZATION, "default", 23, [3], "Eq(s0, 3)")]), [10], order)
    assert pinned["reason"].startswith("masked: line 23")


def test_silence_under_a_sweep_that_cannot_cross_the_threshold_is_unverifiable():
    why = "compares a size with `limit`, whose value the synthesized inputs do not set"
    quiet = _report(open_thresholds={10: why})
    order = CallPaths.of(ast.parse(FRONT), "Front.forward")
    assert status_for(quiet, [10], order) == {"status": UNVERIFIABLE, "function": "Front.forward", "reason": why}
    recompiled = _report([Evidence(SPECIALIZATION, "default", 10, [3], "Eq(s0, 3)")], open_thresholds={10: why})
    assert status_for(recompiled, [10], order)["status"] == CONFIRMED  # a cost seen is a cost


def test_a_cost_seen_by_any_run_decides_else_the_first_that_could():
    confirmed, quiet = {"status": CONFIRMED, "function": "f"}, {"status": NOT_OBSERVED, "function": "g"}
    unverifiable = {"status": UNVERIFIABLE, "function": "g", "reason": "r"}
    assert pick([quiet, confirmed]) is confirmed
    assert pick([unverifiable, quiet]) is quiet
    assert pick([unverifiable]) is unverifiable
    both = pick([dict(unverifiable, function="Front.forward"), dict(unverifiable, function="h", reason="s")])
    assert both == {
        "status": UNVERIFIABLE, "function": "h", "reason": "through Front.forward: r; on its own: s",
    }


# -- thresholds under a synthesized sweep (no torch) ---------------------------------------------


def test_thresholds_known_statically_are_swept_unknown_ones_are_open():
    tree = ast.parse(FRONT)
    functions = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert known_ints(tree, functions["pad_or_trim"]) == {"length": 6, "axis": -1}
    assert known_ints(tree, functions["clip_frames"]) == {}  # AXIS comes from the environment
    sizes = [2, 3, 5, 1, 0, 8]
    # the helper's own plan sweeps the dim its axis default names
    plan = plan_inputs(functions["pad_or_trim"], [10], False, known_ints(tree, functions["pad_or_trim"]))
    assert plan.describe() == "x[4,n]"
    assert open_thresholds(tree, [10], sizes, functions["pad_or_trim"]) == {}
    [why] = open_thresholds(tree, [36], sizes, functions["clip_frames"]).values()
    assert why.startswith("reads `x.shape[axis]`, a dim the synthesized inputs cannot tell")
    # seen from a caller with synthesized inputs, a helper's parameters are unknown
    [why] = open_thresholds(tree, [10], sizes, functions["forward"]).values()
    assert why.startswith("reads `x.shape[axis]`, a dim the synthesized inputs cannot tell")
    limit = ast.parse("def f(x, limit=int('6')):\n    return x.size(0) > limit\n").body[0]
    [why] = open_thresholds(limit, [2], sizes, limit).values()
    assert why.startswith("compares a size with `limit`, whose value the synthesized inputs do not set")
    far = ast.parse("def f(x):\n    return x.size(0) > 9000\n").body[0]
    assert open_thresholds(far, [2], sizes, far) == {2: "compares a size with 9000 = 9000, outside the swept sizes 0-8"}
    assert open_thresholds(tree, [16], sizes, functions["forward"]) == {}  # a literal: crossed
    big = ast.parse("N = 30 * 100\ndef f(x, length: int = N):\n    return x.size(0) > length\n")
    assert threshold_sizes(big, [3], sizes, known_ints(big, big.body[1])) == [3000, 3001]


# -- end to end --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def verified(tmp_path_factory):
    pytest.importorskip("torch")
    project = tmp_path_factory.mktemp("helpers")
    (project / "pyproject.toml").write_text("[tool.zlint]\n")
    (project / "front.py").write_text(FRONT)
    (project / "zlint_examples.py").write_text(EXAMPLES)
    # `load` reads a file: never compiled, so its helpers show only with --scope all
    proc = run_zlint(
        "--verify", "--backend", "eager", "--format", "json", "--scope", "all", "front.py", cwd=project, timeout=600
    )
    return proc, {(d["location"]["row"], d["code"]): d for d in json.loads(proc.stdout)}


def test_helper_threshold_is_confirmed_through_the_forward_at_its_own_line(verified):
    proc, found = verified
    verify = found[(10, "ZL103")]["verify"]
    assert verify["status"] == CONFIRMED
    assert verify["through"] == "Front.forward" and verify["inputs"] == "registered: registered example"
    assert {e["line"] for e in verify["evidence"]} == {10}
    assert "guard 0 <= mel.size(2) <= 6 failed" in [e["detail"] for e in verify["evidence"]]  # the caller's names
    assert proc.returncode == 1


def test_helper_comparing_a_static_dim_is_not_observed(verified):
    _, found = verified
    verify = found[(16, "ZL103")]["verify"]
    assert (verify["status"], verify["through"]) == (NOT_OBSERVED, "Front.forward")
    assert verify["evidence"] == []


def test_helper_only_never_compiled_code_calls_is_verified_on_its_own(verified):
    _, found = verified
    verify = found[(30, "ZL103")]["verify"]
    assert verify["status"] == CONFIRMED and "through" not in verify
    assert (verify["function"], verify["inputs"]) == ("trim_frames", "synthesized: x[4,n]")
    assert {e["line"] for e in verify["evidence"]} == {30}


def test_a_helper_the_caller_never_reaches_is_unverifiable(verified):
    _, found = verified
    verify = found[(47, "ZL103")]["verify"]
    assert (verify["status"], verify["function"]) == (UNVERIFIABLE, "Front.forward")
    assert verify["reason"] == (
        "not reached: Front.forward did not call the function holding this line at any swept size"
    )


def test_a_threshold_the_sweep_cannot_cross_is_unverifiable(verified):
    _, found = verified
    verify = found[(36, "ZL103")]["verify"]
    assert (verify["status"], verify["function"]) == (UNVERIFIABLE, "clip_frames")
    assert verify["reason"].startswith("reads `x.shape[axis]`, a dim the synthesized inputs cannot tell")


def test_no_runtime_finding_repeats_a_helpers_static_one(verified):
    proc, found = verified
    assert not [key for key in found if key[1].startswith("ZL8")]
    assert sorted(found) == [(10, "ZL103"), (16, "ZL103"), (30, "ZL103"), (36, "ZL103"), (47, "ZL103")]
    assert proc.stderr == ""



def test_text_output_names_the_caller_a_helper_was_verified_through():
    from zlint.core.diagnostics import Diagnostic
    from zlint.report.verify_text import evidence_lines

    verify = {"status": CONFIRMED, "function": "Front.forward", "through": "Front.forward", "mode": "default",
              "cost": "recompile", "evidence": [{"kind": "recompile", "mode": "default", "line": 10, "sizes": [8],
                                                 "detail": "guard 2 <= mel.size(2) <= 6 failed"}]}
    d = Diagnostic(path="front.py", line=10, column=7, code="ZL103", name="n", message="m", verify=verify)
    assert evidence_lines(d) == ("    CONFIRMED in default mode through Front.forward (recompile): recompile guard "
                                 "2 <= mel.size(2) <= 6 failed (default, line 10, size 8)\n")
    quiet = Diagnostic(path="front.py", line=16, column=7, code="ZL103", name="n", message="m",
                       verify={"status": NOT_OBSERVED, "through": "Front.forward", "note": "no effect"})
    assert evidence_lines(quiet) == "    NOT OBSERVED through Front.forward: no effect; \n"


# -- a graph break in a loop: the caller's frame runs eagerly, the helpers it calls do not ---------

#: ``print`` in ``forward``'s loop makes dynamo run that frame eagerly; ``scale``, called from the
#: eager frame, is compiled as a frame of its own, where its own ``print`` breaks (a ZL802) after
#: the flagged line 6
LOOP = textwrap.dedent(
    """\
    import torch
    from torch import nn


    def scale(x, y):
        if x.size(0) == y.size(0):  # line 6: ZL103, always true here (x is y)
            x = x * 2
        print("scaled")  # line 8: a runtime graph break after it, in scale's own frame
        return x


    class Stack(nn.Module):
        def forward(self, x):
            for i in range(2):
                print("step", i)  # line 15: a break in a loop
                x = scale(x, x)
            return x
    """
)
LOOP_EXAMPLES = textwrap.dedent(
    """\
    import torch

    import stack
    from zlint.verify import example

    example(stack.Stack.forward, lambda n: (torch.randn(n, 4),), factory=stack.Stack)
    """
)


def test_a_break_does_not_skip_a_frame_that_shows_effects_after_it():
    order = CallPaths.of(ast.parse(LOOP), "Stack.forward")
    runs = [ModeRun("default", graphs=4, baseline=4, sizes_run=[2, 3])]
    loop_break = Evidence(GRAPH_BREAK, "default", 15, [2], "Skipping the function and falling back to eager")
    report = FunctionReport("stack.py::Stack.forward", path="stack.py", first_line=13, last_line=17, sizes=[2, 3],
                            runs=runs, evidence=[loop_break])
    assert order.frame(6) == (5, 9) and order.frame(15) == (13, 17)
    assert status_for(report, [6], order)["reason"].startswith("skipped by an earlier graph break at line 15")
    # a break at line 8 of scale's frame: dynamo compiled that frame, past line 6, after line 15
    report.evidence.append(Evidence(GRAPH_BREAK, "default", 8, [2], "print"))
    assert status_for(report, [6], order)["status"] == NOT_OBSERVED
    # the break's own line is no sign of tracing after it; an effect at line 6 itself is
    only_break = FunctionReport("stack.py::scale", path="stack.py", first_line=5, last_line=9, sizes=[2, 3],
                                runs=runs, evidence=[Evidence(GRAPH_BREAK, "default", 8, [2], "print")])
    assert status_for(only_break, [9])["reason"].startswith("skipped by an earlier graph break at line 8")
    only_break.evidence.append(Evidence(GUARD, "default", 9, [3], "Ne(s0, s1)"))
    guarded = status_for(only_break, [9])
    assert (guarded["status"], guarded["modes"]) == (GUARDED, {"default": GUARDED})


def test_no_line_is_said_skipped_next_to_a_break_observed_after_it(tmp_path):
    pytest.importorskip("torch")
    (tmp_path / "pyproject.toml").write_text("[tool.zlint]\n")
    (tmp_path / "stack.py").write_text(LOOP)
    (tmp_path / "zlint_examples.py").write_text(LOOP_EXAMPLES)
    proc = run_zlint("--verify", "--backend", "eager", "--format", "json", "stack.py", cwd=tmp_path, timeout=600)
    found = {(d["location"]["row"], d["code"]): d["verify"] for d in json.loads(proc.stdout)}
    assert sorted(found) == [(6, "ZL103"), (8, "ZL802"), (15, "ZL802")]
    assert found[(8, "ZL802")]["status"] == CONFIRMED
    assert found[(15, "ZL802")]["evidence"][0]["detail"].startswith("Failed to handle graph break gracefully. "
                                                                      "Skipping the function")
    # scale ran compiled up to its own break at every size, after forward's break: its line 6 was
    # traced (x is y: no guard), not skipped
    verify = found[(6, "ZL103")]
    assert (verify["status"], verify["through"]) == (NOT_OBSERVED, "Stack.forward")
    assert verify["modes"] == {"default": NOT_OBSERVED, "backed_size_oblivious": NOT_OBSERVED,
                               "mark_unbacked": NOT_OBSERVED}
