"""The recorder in this process: how parameter values become records, and that it leaves the trace
hook it found."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
import threading

import pytest

from zlint.workload.recording import MAX_KEYS, MAX_SIZES, Recorder

torch = pytest.importorskip("torch")

CALLS = textwrap.dedent(
    """\
    def take(x, **kw):
        return x


    def run(torch):
        take(3)
        take(torch.ones(2, 5))
        take([])
        for n in range(100):
            take(torch.ones(n + 1, 2))
        take([], **{f"k{i}": torch.ones(i + 1) for i in range(40)})


    def empty_lists(xs):
        return xs
    """
)


def recorded(tmp_path, body=CALLS) -> dict:
    path = tmp_path / "calls.py"
    path.write_text(body)
    spec = importlib.util.spec_from_file_location("calls_under_test", path)
    module = importlib.util.module_from_spec(spec)
    recorder = Recorder(sources=[str(tmp_path)])
    recorder.start()
    try:
        spec.loader.exec_module(module)
        module.run(torch)
        module.empty_lists([])
        module.empty_lists(())
    finally:
        recorder.stop()
    functions = recorder.workload(["x"], "/")["files"][str(path.resolve())]["functions"]
    return {f["name"]: f for f in functions}


def test_a_parameter_is_recorded_as_its_strongest_kind_and_capped_at_the_smallest_sizes(tmp_path):
    functions = recorded(tmp_path)
    x = functions["take"]["params"]["x"]
    # an int, a tensor and a list were passed: the tensor wins; 101 distinct sizes of dim 0 keep
    # the 64 smallest, so the 1 survives the cap
    assert x == {"kind": "tensor", "ranks": [2], "dims": [list(range(1, MAX_SIZES + 1)), [2, 5]], "capped": True}
    kw = functions["take"]["params"]["kw"]
    assert kw["kind"] == "mapping" and kw["capped"] is True
    assert sorted(kw["keys"], key=lambda k: int(k[1:])) == [f"k{i}" for i in range(MAX_KEYS)]
    assert kw["keys"]["k3"] == {"kind": "tensor", "ranks": [1], "dims": [[4]]}
    # only ever empty lists: nothing says it held tensors, so it is left out
    assert functions["empty_lists"]["params"] == {}
    assert functions["empty_lists"]["calls"] == 2


def test_stop_restores_the_trace_hooks_it_found(tmp_path):
    def other(frame, event, arg):
        return None

    before = sys.gettrace()
    sys.settrace(other)
    threading.settrace(other)
    try:
        recorder = Recorder(sources=[str(tmp_path)])
        recorder.start()
        assert sys.gettrace() is not other and threading.gettrace() is not other
        recorder.stop()
        assert sys.gettrace() is other and threading.gettrace() is other
    finally:
        sys.settrace(before)
        threading.settrace(None)


LOOPS = textwrap.dedent(
    """\
    total = 0
    for i in range(1000):
        total += i
    after_module_loop = total


    def hot(n):
        total = 0
        for i in range(n):
            total += i
        return total


    def run(torch):
        for _ in range(5):
            hot(2000)
    """
)


def test_lines_after_a_long_loop_are_still_recorded(tmp_path):
    path = tmp_path / "calls.py"
    path.write_text(LOOPS)
    spec = importlib.util.spec_from_file_location("loops_under_test", path)
    module = importlib.util.module_from_spec(spec)
    recorder = Recorder(sources=[str(tmp_path)])
    recorder.start()
    try:
        spec.loader.exec_module(module)
        module.run(torch)
    finally:
        recorder.stop()
    # the module's loop runs 2000 known lines, more than a function's call may before it is cut
    # short: module code runs once and is never cut; `hot`'s loop runs 4000 known lines a call, its
    # first three calls are cut inside the loop (after 500, 1000, 2000), its fourth reaches the return
    lines = recorder.workload(["x"], "/")["files"][str(path.resolve())]["lines"]
    assert lines == [1, 2, 3, 4, 7, 8, 9, 10, 11, 14, 15, 16]
