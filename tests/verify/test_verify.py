"""``zlint.verify.check``: real torch.compile (eager backend) on small functions, in this process.

Line numbers below are lines of SUBJECTS, the module every test compiles from.
"""

from __future__ import annotations

import textwrap

import pytest

torch = pytest.importorskip("torch")

from zlint.verify import check, example  # noqa: E402
from zlint.verify import examples as registry  # noqa: E402
from zlint.verify.evidence import (  # noqa: E402
    CONFIRMED,
    GRAPH_BREAK,
    GUARD,
    MISMATCH,
    NOT_OBSERVED,
    RECOMPILE,
    SPECIALIZATION,
    UNVERIFIABLE,
)
from zlint.verify.sandbox.probe import compare  # noqa: E402
from zlint.verify.sandbox.subjects import build, import_file  # noqa: E402

SUBJECTS = textwrap.dedent(
    '''\
    from __future__ import annotations

    import torch


    def loop_sum(x):
        out = x.new_zeros(x.shape[1:])
        for i in range(x.size(0)):  # line 8
            out = out + x[i]
        return out


    def head(x):
        if x.size(0) == 1:  # line 14
            return x * 2
        return x + 1


    def rank_check(x):
        if x.dim() == 2:  # line 20
            return x * 2
        return x + 1


    def annotated(x: Float[Tensor, "batch seq dim"]) -> Tensor:
        if x.size(1) == 1:  # line 26
            return x.sum(1)
        return x.mean(1)


    def unpacked(x):
        b, s, d = x.shape
        return x.reshape(b * s, d).sum(0)


    def always_fails(x):
        raise ValueError("no")


    class Pool(torch.nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.proj = torch.nn.Linear(dim, dim)

        def forward(self, likes):
            if likes.size(0) == 0:  # line 46
                return likes.new_zeros(likes.shape[1])
            return self.proj(likes).mean(0)
    '''
)

FAST = {"backend": "eager"}


@pytest.fixture(scope="module")
def subjects(tmp_path_factory):
    path = tmp_path_factory.mktemp("verify_subjects") / "verify_subjects_mod.py"
    path.write_text(SUBJECTS, encoding="utf-8")
    return import_file(path)


def test_range_loop_is_confirmed_with_an_eq_guard_at_its_line(subjects):
    report = check(subjects.loop_sum, lambda n: (torch.randn(n, 3),), modes=["default"], **FAST)
    at_loop = report.at(8)
    assert report.status_at(8) == CONFIRMED
    pins = [e for e in at_loop if e.kind == SPECIALIZATION]
    assert all(e.detail.startswith("Eq(") and e.mode == "default" for e in pins)
    assert sorted(n for e in pins for n in e.sizes) == [3, 5, 8]  # 2, 1, 0 are static graphs
    # the recompiles the pins cause, heard without TORCH_LOGS=recompiles: 5 fails the graph
    # pinned to 3, 8 the one pinned to 5 (3 is the automatic-dynamic recompile any function pays;
    # 1 and 0 get graphs of their own by default)
    [recompile] = [e for e in at_loop if e.kind == RECOMPILE]
    assert (recompile.mode, recompile.sizes) == ("default", [5, 8])
    assert recompile.detail == "x.size(0) is pinned to one value here: each new size compiles again"
    assert {e.kind for e in report.evidence} == {SPECIALIZATION, RECOMPILE} and report.at(8) == report.evidence
    assert report.graphs("default") > report.runs[0].baseline  # a graph per size beyond the trivial cost
    assert not report.mismatches


def test_size_one_branch_shows_only_in_single_graph_modes(subjects):
    report = check(subjects.head, lambda n: (torch.randn(n, 3),), **FAST)
    assert not [e for e in report.at(14) if e.mode == "default"]  # 0/1 already have their own graphs
    assert report.weakest_mode(14) == "backed_size_oblivious"
    oblivious = {(e.kind, e.detail) for e in report.at(14) if e.mode == "backed_size_oblivious"}
    # the sympy guard with its plain reading in the user's names
    assert any(kind == GUARD and detail.startswith("Ne(s") and detail.endswith(", 1), i.e. x.size(0) != 1")
               for kind, detail in oblivious)
    # size 1 fails that guard: dynamo's own guard-failure text, at the line that added the guard
    assert [(e.sizes, e.detail) for e in report.at(14) if e.kind == RECOMPILE] == [([1], "guard x.size(0) != 1 failed")]
    assert any(e.kind == GRAPH_BREAK and e.mode == "mark_unbacked" for e in report.at(14))
    assert report.graphs("mark_unbacked") > 1
    assert report.status_at(14) == CONFIRMED


def test_without_the_recompile_hook_verify_degrades_to_guards(subjects, monkeypatch):
    from zlint.verify.sandbox import torch_hooks

    # a torch release without the private function (torch itself still calls it here, so it
    # stays; zlint is made to look for a name that does not exist)
    monkeypatch.setattr(torch_hooks, "_RECOMPILE_HOOK", "get_recompilation_reasons_renamed")
    report = check(subjects.loop_sum, lambda n: (torch.randn(n, 3),), sizes=[2, 3, 5], modes=["default"], **FAST)
    assert report.status_at(8) == CONFIRMED  # the guards still say it
    assert [(e.kind, e.sizes) for e in report.evidence] == [(SPECIALIZATION, [3]), (SPECIALIZATION, [5])]


def test_rank_check_near_miss_is_not_observed(subjects):
    report = check(subjects.rank_check, **FAST)  # synthesized inputs
    assert report.status_at(20) == NOT_OBSERVED
    assert report.evidence == []
    assert all(run.graphs == run.baseline for run in report.runs)
    assert report.inputs == "synthesized" and report.input_detail == "x[n,4]"


def test_annotations_name_the_swept_axis(subjects):
    report = check(subjects.annotated, lines=[26], **FAST)
    assert report.inputs == "annotations"
    assert report.input_detail == "x[4,n,4]"  # the flagged line reads x.size(1): "seq" is swept
    assert report.status_at(26) == CONFIRMED
    assert report.weakest_mode(26) == "backed_size_oblivious"


def test_unpacking_gives_the_rank(subjects):
    report = check(subjects.unpacked, modes=["default"], **FAST)
    assert report.input_detail == "x[n,4,4]"
    assert report.eager_errors == {} and report.verified


def test_failing_eagerly_everywhere_is_unverifiable(subjects):
    report = check(subjects.always_fails, **FAST)
    assert report.status_at(38) == UNVERIFIABLE
    assert report.unverifiable.startswith(
        "fails eagerly at every size: eager failed at sizes 0,1,2,3,5,8 (ValueError: no)"
    )


def test_registered_example_with_factory_drives_a_method(subjects):
    registry.clear()
    example(subjects.Pool.forward, lambda n: (torch.randn(n, 8),), factory=lambda: subjects.Pool(8))
    subject, source, detail, sizes = build(subjects.__file__, "Pool.forward", [46])
    assert source == "registered" and sizes is None
    assert subject.call.__self__.proj.in_features == 8
    registry.clear()
    # without an example, Pool(dim) is built with the width every unswept dim has, and says so
    subject, source, detail, _ = build(subjects.__file__, "Pool.forward", [46])
    assert source == "synthesized" and detail.endswith(" on Pool(dim=4)")
    assert subject.call.__self__.proj.in_features == 4


def test_example_registration_forms(subjects):
    registry.clear()
    try:
        example(subjects.head, lambda n: (torch.randn(n, 2),))
        example(f"{subjects.__file__}:loop_sum", lambda n: torch.randn(n, 2), sizes=(2, 3))

        @example(make_inputs=lambda n: {"x": torch.randn(n)})
        def local(x):
            return x

        assert registry.lookup(subjects.__file__, "head") is not None
        assert registry.lookup(subjects.__file__, "loop_sum").sizes == (2, 3)
        assert registry.lookup(__file__, local.__qualname__) is not None
        with pytest.raises(TypeError):
            example(subjects.head)
        with pytest.raises(ValueError):
            example("no_colon_here", lambda n: ())
    finally:
        registry.clear()


def test_method_report_with_given_inputs(subjects):
    model = subjects.Pool(8).eval()
    report = check(model.forward, lambda n: (torch.randn(n, 8),), modes=["mark_unbacked"], **FAST)
    assert report.inputs == "given"
    assert report.status_at(46) == CONFIRMED
    assert {e.kind for e in report.at(46)} <= {GRAPH_BREAK, "data-dependent-error"}


def test_compare_finds_shape_and_value_differences():
    a = torch.zeros(3)
    assert compare((a, 1), (a.clone(), 1)) == ""
    assert compare(a, torch.zeros(4)) == "output 0: shape (3,) eagerly, (4,) compiled"
    assert compare([a], [a + 1]).startswith("output 0: values differ")
    assert compare({"k": a}, {"k": a}) == ""
    # a NaN where eager gives a number is said as such, not as "max abs diff nan"
    zero, nan = torch.zeros(3), torch.tensor([0.0, float("nan"), 0.0])
    assert compare(zero, nan) == "output 0: NaN in the compiled output where eager has numbers (1 values)"
    assert compare(nan, nan.clone()) == ""
    assert compare(torch.tensor(float("nan")), torch.tensor(float("nan"))) == ""


def test_backed_size_oblivious_unsoundness_is_caught_by_comparing_with_eager(subjects):
    # torch 2.13: the graph compiled at n=0 under backed_size_oblivious is reused at n=8
    report = check(subjects.loop_sum, lambda n: (torch.randn(n, 3),), modes=["backed_size_oblivious"], **FAST)
    assert any(e.kind == MISMATCH and e.mode == "backed_size_oblivious" for e in report.evidence)


def test_unknown_mode_is_an_error(subjects):
    with pytest.raises(ValueError, match="unknown verify mode"):
        check(subjects.head, modes=["fast"])


#: a script fed to ``python -``: ``f`` has no source file, so inspect.getsource cannot read it
STDIN_SCRIPT = textwrap.dedent(
    '''\
    import torch
    from zlint.verify import SourceUnavailableError, check


    def f(x):
        if x.size(0) == 1:  # line 6
            return x + 1
        return x * 2


    report = check(f, lambda n: (torch.randn(n, 2),), sizes=[2, 3, 1], modes=["backed_size_oblivious"],
                   backend="eager")
    print(sorted({(e.kind, e.line) for e in report.evidence}))
    try:
        check(f)
    except SourceUnavailableError as exc:
        print(f"{type(exc).__name__}: {exc}")
    '''
)


def test_a_function_typed_into_stdin_verifies_with_given_inputs_and_says_why_it_cannot_synthesize():
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONWARNINGS": "ignore"}
    done = subprocess.run(
        [sys.executable, "-"], input=STDIN_SCRIPT, capture_output=True, text=True, env=env, timeout=300,
        cwd=root,
    )
    assert done.returncode == 0, done.stderr
    # given inputs, the code object's own lines are enough to place the guard on the `if`
    assert done.stdout.splitlines() == [
        "[('guard', 6), ('recompile', 6), ('specialization', 6)]",
        "SourceUnavailableError: cannot read the source of f (defined in <stdin>), which check() needs to "
        "synthesize inputs: define it in a file, or pass make_inputs",
    ]
