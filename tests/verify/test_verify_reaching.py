"""``--verify`` on patterns of real model code with no registration (tests/data/verify_reaching):
inputs that reach each flagged line (branch flags, union members, constructor flags), sweeps of
what the line reads (through a helper's caller, in the unit the code counts, around a value the
plan passes), and verdicts per mode. One real ``torch.compile`` run (eager backend) for all."""

from __future__ import annotations

import json

import pytest

from conftest import ROOT, run_zlint

torch = pytest.importorskip("torch")

DATA = ROOT / "tests" / "data" / "verify_reaching"


@pytest.fixture(scope="module")
def found():
    proc = run_zlint("--verify", "--backend", "eager", "--format", "json", "patterns.py", cwd=DATA, timeout=600)
    assert proc.returncode == 1, proc.stderr
    out: dict = {}
    for d in json.loads(proc.stdout):
        out.setdefault((d["location"]["row"], d["code"]), d["verify"])
    return out


def test_each_branch_gets_the_inputs_that_enter_it(found):
    # calculate_drop_path_rates: no tensor argument; the int it reads is swept, and each branch
    # (isinstance int, else with stagewise True/False) runs with the value that enters it
    assert found[(15, "ZL301")]["inputs"] == "synthesized: rate=1.0 depths=n"
    assert found[(18, "ZL302")]["inputs"] == "synthesized: rate=1.0 depths=[n, n] stagewise=True"
    assert found[(19, "ZL301")]["inputs"] == "synthesized: rate=1.0 depths=[n, n] stagewise=False"
    assert {found[k]["status"] for k in [(15, "ZL301"), (15, "ZL202"), (18, "ZL302"), (19, "ZL301")]} == {"CONFIRMED"}
    # the first graph holding a swept int constant is what any int argument costs: no ZL801 there
    assert not [k for k in found if k[1].startswith("ZL8") and 13 <= k[0] <= 19]


def test_a_constructor_flag_the_line_sits_behind_is_set(found):
    verify = found[(31, "ZL103")]
    assert verify["status"] == "CONFIRMED"
    assert verify["inputs"] == "synthesized: x[4,4,n,4,4] on Up(compress=True)"  # only the dim the line reads


def test_a_helper_is_swept_through_its_callers_argument(found):
    verify = found[(43, "ZL103")]
    assert (verify["status"], verify["through"]) == ("CONFIRMED", "Dropper.forward")
    assert verify["inputs"] == "synthesized: x[4,4,n,n]"  # kh = min(7, H): H and W swept in the caller


def test_a_helper_whose_sizes_its_caller_does_not_drive_is_verified_on_its_own(found):
    verify = found[(133, "ZL103")]
    assert verify["status"] == "CONFIRMED" and "through" not in verify
    assert verify["inputs"] == "synthesized: x[4,n]"


def test_an_annotated_tuple_is_a_threshold_the_sweep_hits(found):
    verify = found[(56, "ZL103")]
    assert verify["status"] == "CONFIRMED"
    assert verify["inputs"].startswith("synthesized: x[4,4,n,n] ss=(4, 4) (tried first: x[n,n] ss=(4, 4)")
    assert 4 in verify["sizes"]  # H != ss[0] flips only at 4
    # the comparison after `crop and` runs only with crop set
    assert found[(57, "ZL103")]["inputs"].startswith("synthesized: x[4,4,n,n] ss=(4, 4) crop=True")


def test_asserted_equal_dims_and_a_split_count_read_through_a_view(found):
    verify = found[(69, "ZL204")]
    assert verify["status"] == "CONFIRMED"
    assert verify["inputs"] == "synthesized: x[4,4,n,n] t=4"


def test_a_patch_grid_is_swept_in_patches_around_the_modules_own(found):
    verify = found[(85, "ZL103")]
    assert verify["status"] == "CONFIRMED" and verify["mode"] == "default"
    assert verify["inputs"] == "synthesized: latent[4,3,8n,8n]"
    assert {7, 8, 9} <= set(verify["sizes"])  # self.height = 64 // 8 and its neighbours


def test_a_break_in_one_mode_leaves_the_line_to_the_modes_that_ran_it(found):
    assert found[(92, "ZL101")]["status"] == "CONFIRMED"
    verify = found[(94, "ZL204")]  # unbind over a dim the annotation fixes: no cost by default
    assert verify["status"] == "NOT OBSERVED"
    assert verify["modes"]["default"] == "NOT OBSERVED"
    assert verify["modes"]["mark_unbacked"].startswith("not decided: skipped by an earlier graph break at line 92")
    assert verify["note"].startswith("ran compiled at every swept size in default, backed_size_oblivious mode")


def test_optional_arguments_that_do_not_reach_the_line_keep_their_default(found):
    assert found[(100, "ZL103")]["inputs"] == "synthesized: x[n,4]"


def test_fixed_dims_grow_when_a_layer_needs_more(found):
    verify = found[(114, "ZL103")]
    assert verify["status"] == "CONFIRMED"
    assert verify["inputs"].startswith("synthesized: input_values[n,64] (tried first: input_values[n,4] (RuntimeError")


def test_a_line_no_input_reaches_is_unverifiable_with_what_to_register(found):
    verify = found[(125, "ZL103")]
    assert verify["status"] == "UNVERIFIABLE"
    assert verify["reason"] == "not reached: line 125 did not run at any swept size (a branch these inputs never take)"
    assert verify["inputs"] == "synthesized: x[n,4]"
    assert verify["example"].endswith("example(debug_only, lambda n: (torch.randn(n, 4),))")
