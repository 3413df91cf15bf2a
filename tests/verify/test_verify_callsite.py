"""``zlint --verify`` on call-site findings (ZL401, ZL403-ZL406): the caller runs in a worker with
tracking torch.compile/torch.export, and each finding is confirmed by evidence at its own line
(real torch 2.13 on CPU, eager backend)."""

from __future__ import annotations

import json
import textwrap

import pytest

from conftest import ROOT, run_zlint

pytest.importorskip("torch")

HAZARD = "examples/serving_loop.py"
FIXED = "examples/serving_loop_fixed.py"


def _findings(proc) -> list[dict]:
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def serving():
    proc = run_zlint("--verify", "--backend", "eager", "--format", "json", HAZARD, FIXED, cwd=ROOT)
    return proc, _findings(proc)


def _verify(findings, line, code):
    found = [d for d in findings if d["filename"] == HAZARD and d["location"]["row"] == line and d["code"] == code]
    assert len(found) == 1, [(d["filename"], d["location"]["row"], d["code"]) for d in findings]
    verify = found[0]["verify"]
    assert verify["status"] == "CONFIRMED", verify
    assert verify["function"] in ("serve", "export_ranker", "export_one_box") and verify["call_site"] is True
    return verify["evidence"]


def test_missing_mark_dynamic_is_confirmed_by_the_recompile_at_its_call(serving):
    proc, findings = serving
    evidence = _verify(findings, 47, "ZL401")
    assert [(e["kind"], e["line"], e["sizes"]) for e in evidence] == [("recompile", 47, [3])]
    assert evidence[0]["detail"].startswith("torch.compile at line 44: graphs specialized to one size of boxes dim 0")
    assert proc.returncode == 1


def test_mark_dynamic_on_a_specialized_dim_is_confirmed_by_the_constraint_violation(serving):
    _, findings = serving
    evidence = _verify(findings, 48, "ZL403")
    assert {(e["kind"], e["line"]) for e in evidence} == {("constraint-violation", 49)}
    assert (
        "top_boxes (torch.compile at line 37): ConstraintViolationError: You marked scores.size(0) as dynamic"
        in evidence[0]["detail"]
    )
    assert "(specialized at line 39)" in evidence[0]["detail"]
    assert 2 in evidence[0]["sizes"] and 8 in evidence[0]["sizes"]


def test_static_compile_is_confirmed_by_a_graph_per_size_and_the_recompile_limit(serving):
    _, findings = serving
    evidence = _verify(findings, 45, "ZL404")
    details = {e["detail"]: e for e in evidence}
    per_size = details[
        "torch.compile at line 45: graphs specialized to one size of boxes dim 0 recompile for every new size"
    ]
    assert per_size["line"] == 49 and {3, 5, 1} <= set(per_size["sizes"])
    limit = details["torch.compile at line 45: hit the recompile limit (8): from here on this call runs eagerly"]
    assert limit["line"] == 49 and limit["kind"] == "recompile"


def test_export_dim_min_one_is_confirmed_by_a_wrong_exported_result_at_size_one(serving):
    _, findings = serving
    evidence = _verify(findings, 53, "ZL405")
    assert [(e["kind"], e["line"], e["sizes"]) for e in evidence] == [("mismatch", 55, [1])]
    assert evidence[0]["detail"].startswith("torch.export at line 55: the exported program differs from eager")


def test_export_example_of_size_one_is_confirmed_by_the_constraint_error(serving):
    _, findings = serving
    evidence = _verify(findings, 59, "ZL406")
    assert [(e["kind"], e["line"], e["sizes"]) for e in evidence] == [("constraint-violation", 60, [1])]
    assert "You marked boxes as dynamic but your code specialized it to be a constant (1)" in evidence[0]["detail"]


def test_each_line_gets_only_its_own_evidence(serving):
    # line 49 fails (top_boxes) and recompiles (warm): neither confirms the other's finding
    _, findings = serving
    kinds = {d["code"]: {e["kind"] for e in d["verify"]["evidence"]} for d in findings if d["filename"] == HAZARD}
    assert kinds["ZL403"] == {"constraint-violation"} and kinds["ZL404"] == {"recompile"}


def test_fixed_twin_runs_clean_under_call_site_verification(serving):
    _, findings = serving
    assert [d for d in findings if d["filename"] == FIXED] == []


CALLERS = textwrap.dedent(
    """\
    import torch


    def serve(model, requests):
        compiled = torch.compile(model)
        for batch in requests:
            out = compiled(batch)


    def main():
        model = torch.compile(torch.nn.Linear(4, 2))
        for batch in [torch.randn(5, 4) for _ in range(3)]:  # one size: nothing to recompile
            out = model(batch)
    """
)


def test_caller_without_inputs_is_unverifiable_and_a_steady_loop_is_not_observed(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.zlint]\n", encoding="utf-8")
    (tmp_path / "callers.py").write_text(CALLERS, encoding="utf-8")
    proc = run_zlint(
        "--verify", "--backend", "eager", "--format", "json", "--select", "ZL401", "callers.py", cwd=tmp_path
    )
    findings = _findings(proc)
    assert proc.returncode == 1  # the findings remain, verified or not
    assert [(d["location"]["row"], d["code"], d["verify"]["status"]) for d in findings] == [
        (7, "ZL401", "UNVERIFIABLE"), (13, "ZL401", "NOT OBSERVED"),
    ]
    reason = findings[0]["verify"]["reason"]
    assert reason.startswith("no inputs for the caller serve(model, requests)")
    assert "zlint.verify.example(serve, lambda sizes: (...), sweep=True)" in reason
    steady = findings[1]["verify"]
    assert steady["inputs"].startswith("synthesized: no arguments needed")
    assert "did not recompile for a new size" in steady["note"]
