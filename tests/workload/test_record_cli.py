"""``zlint record``: a real program (real torch tensors) run through the command, its workload file
read back whole, and the ways a run ends (exit codes, tracebacks, usage errors)."""

from __future__ import annotations

import json
import os
import platform
import posixpath
import runpy
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT
from zlint.frontends.cli import main
from zlint.frontends.record import DEFAULT_OUT, parse
from zlint.workload.model import load_workload
from zlint.workload.recording import default_exclusions

torch = pytest.importorskip("torch")

PROGRAM = textwrap.dedent(
    """\
    import sys

    import torch


    def pool(x, n, feats):
        if n > 3:
            return x.sum(0) * n
        return x.mean(0)


    pool(torch.ones(3, 4), 2, [torch.ones(1, 8)])
    pool(torch.ones(5, 4), 7, [torch.ones(1, 8), torch.ones(2, 8, 3)])
    print(" ".join(sys.argv), __name__, sys.path[0], __file__)
    sys.exit(int(sys.argv[1]))
    """
)


def record(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    # no warnings: torch warns on stderr where numpy is missing
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "ignore"}
    return subprocess.run(
        [sys.executable, "-m", "zlint", "record", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_a_program_is_recorded_with_its_lines_and_parameter_sizes(tmp_path):
    program = tmp_path / "prog.py"
    program.write_text(PROGRAM)
    proc = record("--out", "w.json", "prog.py", "3", "a", cwd=tmp_path)
    # the program's exit code, argv, __main__ and sys.path[0] are those of `python prog.py 3 a`
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout == f"{program} 3 a __main__ {tmp_path} {program}\n"
    assert proc.stderr.splitlines()[-1] == "zlint: workload written to w.json"
    data = json.loads((tmp_path / "w.json").read_text())
    files = data.pop("files")
    assert data == {
        "zlint_workload": 1,
        "command": [str(program), "3", "a"],
        "cwd": str(tmp_path),
        "python": platform.python_version(),
        "torch": str(torch.__version__),
    }
    assert files[os.path.realpath(program)] == {
        "lines": [1, 3, 6, 7, 8, 9, 12, 13, 14, 15],
        "functions": [
            {
                "name": "pool",
                "line": 6,
                "calls": 2,
                "params": {
                    "x": {"kind": "tensor", "ranks": [2], "dims": [[3, 5], [4]]},
                    "n": {"kind": "int", "values": [2, 7]},
                    # items of ranks 2 and 3 merged per dim, following the highest rank
                    "feats": {
                        "kind": "sequence", "len": [1, 2],
                        "items": {"kind": "tensor", "ranks": [2, 3], "dims": [[1, 2], [8], [3]]},
                    },
                },
            }
        ],
    }
    # torch's own files, the standard library and zlint are not recorded, though all of them ran
    torch_dir = os.path.dirname(os.path.realpath(torch.__file__))
    zlint_dir = str(ROOT / "zlint")
    assert [p for p in files if p.startswith((torch_dir + os.sep, zlint_dir + os.sep))] == []
    assert os.path.realpath(posixpath.__file__) not in files and os.path.realpath(runpy.__file__) not in files
    assert torch_dir in default_exclusions()


BOOM = textwrap.dedent(
    """\
    import torch


    class Opaque(torch.Tensor):
        @property
        def shape(self):
            raise RuntimeError("no shape")


    def keep(x):
        return x


    def first(x):
        return x.shape[0]


    keep(torch.zeros(1).as_subclass(Opaque))
    first(torch.zeros(0, 2))
    raise ValueError("bad size")
    """
)


def test_an_exception_prints_the_programs_traceback_exits_1_and_still_records(tmp_path):
    (tmp_path / "boom.py").write_text(BOOM)
    proc = record("--source", str(tmp_path), "--out", "out/w.json", "boom.py", cwd=tmp_path)
    assert proc.returncode == 1
    # python's own layout: the program's frame first, no zlint or runpy frames
    assert proc.stderr.splitlines()[:4] == [
        "Traceback (most recent call last):",
        f'  File "{tmp_path / "boom.py"}", line 20, in <module>',
        '    raise ValueError("bad size")',
        "ValueError: bad size",
    ]
    data = json.loads((tmp_path / "out" / "w.json").read_text())
    # --source: only files under it
    assert list(data["files"]) == [os.path.realpath(tmp_path / "boom.py")]
    # a tensor whose shape cannot be read is left out, and the recording goes on after it
    assert data["files"][os.path.realpath(tmp_path / "boom.py")]["functions"] == [
        {"name": "keep", "line": 10, "calls": 1, "params": {}},
        {"name": "first", "line": 14, "calls": 1,
         "params": {"x": {"kind": "tensor", "ranks": [2], "dims": [[0], [2]]}}},
    ]


MODULE = textwrap.dedent(
    """\
    import sys
    import threading


    def tagged(function):
        return function


    @tagged
    def step(i, flag=True):
        if i >= 150:
            return -i
        return i


    def numbers(n):
        yield n
        yield n + 1


    def worker(size):
        return size * 2


    for i in range(200):
        step(i)
    list(numbers(4))
    thread = threading.Thread(target=worker, args=(11,))
    thread.start()
    thread.join()
    print(sys.argv[1:], __name__)
    """
)


def test_module_mode_with_a_python_word_threads_generators_and_late_branches(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("LOADED = True\n")
    (package / "job.py").write_text(MODULE)
    proc = record("--", "python3", "-m", "pkg.job", "x", "--flag", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "['x', '--flag'] __main__\n"
    workload = load_workload(tmp_path / DEFAULT_OUT)  # the default --out
    assert workload.command == ["-m", "pkg.job", "x", "--flag"]
    # the package's __init__ ran under the recording (it is found without importing it first)
    assert workload.ran(str(package / "__init__.py"), 1) is True
    job = str(package / "job.py")
    functions = {f.name: f for f in workload.recorded(job).functions}
    assert {name: f.calls for name, f in functions.items()} == {"tagged": 1, "step": 200, "numbers": 1, "worker": 1}
    # a generator resumed twice is one call; a thread's call is recorded; bools are not ints
    assert functions["numbers"].param("n").values == (4,)
    assert functions["worker"].param("size").values == (11,)
    assert functions["step"].param("flag") is None
    assert functions["step"].param("i").capped and functions["step"].param("i").values == tuple(range(64))
    # step(150..199) comes after 150 calls that found nothing new: the sampled calls still find it
    assert workload.ran(job, 12) is True
    # the decorated function is known by its decorator's line (9) and found from its def line (10)
    assert functions["step"].line == 9
    assert workload.function_at(job, 10) is functions["step"]
    assert workload.function_at(job, 9) is functions["step"]


def test_a_missing_program_is_one_line_and_exit_2(tmp_path):
    proc = record("--out", "w.json", "nope.py", "arg", cwd=tmp_path)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", "zlint: error: nope.py: no such file\n")
    assert not (tmp_path / "w.json").exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["-m", "no_such_module_here"], "zlint: error: -m no_such_module_here: no module named 'no_such_module_here'"),
        (["--bogus", "prog.py"], "zlint: error: unknown option '--bogus' "
         "(usage: zlint record [--out FILE] [--source PATH] (PROGRAM.py | -m MODULE) [ARGS...])"),
        (["--out"], "zlint: error: --out needs a value"),
        (["--out", ".", "prog.py"], "zlint: error: --out .: is a directory"),
        (["--source", "missing", "prog.py"], "zlint: error: --source missing: no such file or directory"),
        (["-m"], "zlint: error: -m needs a module name"),
        ([], "usage: zlint record [--out FILE] [--source PATH] (PROGRAM.py | -m MODULE) [ARGS...]"),
        (["sub"], "zlint: error: sub: is a directory, not a Python program"),
    ],
)
def test_bad_usage_is_one_line_exit_2_and_runs_nothing(tmp_path, monkeypatch, capsys, argv, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "prog.py").write_text("open('ran', 'w').close()\n")
    assert main(["record", *argv]) == 2
    assert capsys.readouterr().err == message + "\n"
    assert not (tmp_path / "ran").exists() and not (tmp_path / ".zlint").exists()


def test_a_submodule_runpy_cannot_find_is_one_line_exit_2(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    proc = record("-m", "pkg.missing", cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (2, "zlint: error: -m pkg.missing: No module named pkg.missing\n")


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["prog.py", "-m", "--out", "x"], (DEFAULT_OUT, [], "prog.py", None, ["-m", "--out", "x"])),
        (
            ["--out=o.json", "--source", "a,b", "--source=c", "--", "prog.py"],
            ("o.json", ["a", "b", "c"], "prog.py", None, []),
        ),
        (["--", "python", "prog.py", "a"], (DEFAULT_OUT, [], "prog.py", None, ["a"])),
        (["/usr/bin/python3.11", "-m", "pkg", "-v"], (DEFAULT_OUT, [], None, "pkg", ["-v"])),
        # a program that is itself called python (no further word): the program, not an interpreter
        (["python"], (DEFAULT_OUT, [], "python", None, [])),
    ],
)
def test_options_stop_at_the_program_and_a_python_word_is_skipped(argv, expected):
    plan = parse(argv)
    assert (plan.out, plan.sources, plan.program, plan.module, plan.args) == expected


def test_help_exits_0(capsys):
    assert main(["record", "--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: zlint record [--out FILE]")
