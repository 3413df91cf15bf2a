"""The workload's defects found by using it as a new user would, each fixed and held here:

- the hosts agree: the command line, flake8 and the language server run the one placement step
  with the workload (it decided findings only on the command line);
- ``--target default`` hides single-graph findings after the workload moved them (it hid them
  before the workload could move a size it recorded at 0 or 1 to the default tier);
- a size read off a parameter the function rebinds is not the recorded parameter's;
- ``zlint record``: threads the program leaves running are recorded, a forked child writes
  nothing, a run that ends in ``os._exit`` leaves no older workload behind, ``--out`` is checked
  before anything runs, and ``torch.compile``'d code is recorded (it ran where the trace hook
  could not see it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import ROOT, run_zlint
from zlint.frontends.server.workspace import Workspace
from zlint.workload.model import load_workload

DRIVER = textwrap.dedent(
    """\
    import torch
    from likes_pooler import LikesPooler, score

    pool = LikesPooler()
    for n in (0, 1, 2, 40):
        pool(torch.randn(n, 16))
        score(torch.randn(3, 16), torch.randn(n, 16))
    """
)


def record(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONWARNINGS": "ignore"}
    return subprocess.run(
        [sys.executable, "-m", "zlint", "record", *args], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def likes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped likes example and a real recording of a driver that feeds it 0, 1, 2 and 40 likes."""
    pytest.importorskip("torch")
    root = tmp_path_factory.mktemp("likes")
    (root / "likes_pooler.py").write_bytes((ROOT / "examples" / "likes_pooler.py").read_bytes())
    (root / "drive.py").write_text(DRIVER)
    done = record("--out", "w.json", "drive.py", cwd=root)
    assert done.returncode == 0, done.stderr
    (root / "pyproject.toml").write_text('[tool.zlint]\nworkload = "w.json"\n')
    return root


def _cli(root: Path, *args: str) -> list[tuple[int, str, str, str]]:
    done = run_zlint("--no-cache", "--format", "json", *args, "likes_pooler.py", cwd=root)
    assert done.returncode in (0, 1), done.stderr
    return [(f["location"]["row"], f["code"], f["tier"], f["message"]) for f in json.loads(done.stdout)]


def _flake8(root: Path, *args: str) -> list[tuple[int, str, str]]:
    env = {**os.environ, "ZLINT_CACHE_DIR": str(root / ".flake8-cache")}
    done = subprocess.run(
        [sys.executable, "-m", "flake8", "--select=ZL", "--format=%(row)d|%(code)s|%(text)s", *args,
         "likes_pooler.py"],
        cwd=root, capture_output=True, text=True, env=env,
    )
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
    rows = [line.split("|", 2) for line in done.stdout.splitlines()]
    return [(int(row), code, text) for row, code, text in rows]


def test_the_recording_decides_the_example_s_findings(likes: Path):
    found = _cli(likes)
    assert [(line, code, tier) for line, code, tier, _ in found] == [
        (19, "ZL101", "default"), (21, "ZL101", "default"), (24, "ZL103", "default"), (31, "ZL102", "default"),
    ]
    assert found[0][3].endswith(
        "[workload: `likes.size(0)` recorded 0, 1, 2, 40 in LikesPooler.forward (line 17, 4 calls)]"
    )


def test_the_command_line_flake8_and_the_language_server_agree(likes: Path):
    cli = [(line, code, message) for line, code, _, message in _cli(likes)]
    assert _flake8(likes, "--zlint-workload=w.json") == cli
    workspace = Workspace([likes])
    workspace.index_workspace()
    path = str(likes / "likes_pooler.py")
    workspace.open(path, (likes / "likes_pooler.py").read_text())
    served = [(d.line, d.code, d.message) for d in workspace.documents[path].diagnostics]
    assert served == cli and workspace.config_errors == []


def test_target_default_keeps_what_the_workload_moved_to_the_default_tier(likes: Path, tmp_path: Path):
    """0 and 1 were recorded: those 0/1 branches cost with plain torch.compile, in this deployment."""
    assert [(line, code) for line, code, _, _ in _cli(likes, "--target", "default")] == [
        (19, "ZL101"), (21, "ZL101"), (24, "ZL103"), (31, "ZL102"),
    ]
    (tmp_path / "likes_pooler.py").write_bytes((likes / "likes_pooler.py").read_bytes())  # no workload
    alone = run_zlint("--no-cache", "--format", "json", "--target", "default", "likes_pooler.py", cwd=tmp_path)
    assert [(f["location"]["row"], f["code"]) for f in json.loads(alone.stdout)] == [(24, "ZL103")]
    assert _flake8(likes, "--zlint-workload=w.json", "--zlint-target=default") == [
        (line, code, message) for line, code, _, message in _cli(likes, "--target", "default")
    ]


def test_verify_sweeps_a_recorded_function_over_the_sizes_the_workload_saw(likes: Path):
    """The recording fed the pooler 0, 1, 2 and 40 likes: ``--verify`` compiles it at those
    sizes (and the threshold's 32/33), not at the default sweep."""
    done = run_zlint("--no-cache", "--format", "json", "--verify", "--select", "ZL103", "likes_pooler.py", cwd=likes)
    [found] = json.loads(done.stdout)
    assert (found["location"]["row"], found["verify"]["status"]) == (24, "CONFIRMED")
    assert found["verify"]["sizes"] == [2, 40, 1, 0, 32, 33]
    assert found["verify"]["inputs"].endswith("; sizes recorded by the workload")


def test_sizes_given_on_the_command_line_win_over_the_workload(likes: Path):
    from zlint.core.settings import Settings
    from zlint.frontends.cli import _verify_options, build_parser

    linted = [(str(likes / "likes_pooler.py"), Settings(workload=str(likes / "w.json")))]
    given = _verify_options(build_parser().parse_args(["--verify", "--sizes", "2,3", "."]), linted)
    assert (given.sizes, given.workload) == ((2, 3), None)
    default = _verify_options(build_parser().parse_args(["--verify", "."]), linted)
    assert (default.sizes, default.workload) == ((2, 3, 5, 1, 0, 8), str(likes / "w.json"))


def test_flake8_refuses_a_bad_workload_in_one_line(likes: Path):
    done = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select=ZL", "--zlint-workload=likes_pooler.py",
         "likes_pooler.py"],
        cwd=likes, capture_output=True, text=True,
    )
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert done.stderr.startswith("flake8: error: zlint: ") and "likes_pooler.py" in done.stderr


# -- a rebound parameter's sizes are not the recorded ones -----------------------------------------

REBOUND = textwrap.dedent(
    """\
    import torch


    class Enc(torch.nn.Module):
        def forward(self, hidden: torch.Tensor):
            hidden = hidden.transpose(0, 1)
            if hidden.size(0) > 512:
                return hidden[:512]
            return hidden


    def scaled(x: torch.Tensor):
        x = x * 2
        if x.size(0) > 512:
            return x
        y = x.float()
        if y.size(1) > 512:
            return y
        return x


    def looped(x: torch.Tensor):
        for _ in range(2):
            if x.size(0) > 512:
                return x
            x = x.transpose(0, 1)
        return x


    def optional(x: torch.Tensor, flat: bool):
        if flat:
            x = x.reshape(-1)
        if x.size(0) > 512:
            return x
        return x
    """
)


def _workload(root: Path, functions: list[tuple[str, int]], not_run: tuple[int, ...] = ()) -> Path:
    """One file's workload: every line but ``not_run`` ran; each function saw a (4, 100..700) tensor."""
    sizes = {"kind": "tensor", "ranks": [2], "dims": [[4], [100, 600, 700]]}
    data = {
        "zlint_workload": 1, "command": ["run.py"], "cwd": str(root), "python": "3.11", "torch": "2.13.0",
        "files": {
            str((root / "model.py").resolve()): {
                "lines": [line for line in range(1, 40) if line not in not_run],
                "functions": [
                    {"name": name, "line": line, "calls": 3, "params": {param: sizes}}
                    for name, line in functions for param in ("hidden", "x")
                ],
            }
        },
    }
    path = root / "w.json"
    path.write_text(json.dumps(data))
    return path


def test_a_size_of_a_rebound_parameter_is_not_the_recorded_one(tmp_path: Path):
    (tmp_path / "model.py").write_text(REBOUND)
    functions = [("Enc.forward", 5), ("scaled", 12), ("looped", 22), ("optional", 30)]
    _workload(tmp_path, functions)
    done = run_zlint("--no-cache", "--format", "json", "--workload", "w.json", "model.py", cwd=tmp_path)
    found = {(f["location"]["row"], f["message"].partition(" [workload: ")[2]) for f in json.loads(done.stdout)}
    assert found == {
        # after a transpose the read is of the parameter's dim 1, which varied (checked with
        # TORCH_LOGS=recompiles: torch recompiles on this line)
        (7, "`hidden.size(1)` recorded 100, 600, 700 in Enc.forward (line 5, 3 calls)]"),
        # x * 2 and x.float() keep x's dims: dim 0 held 4 (hidden), dim 1 held 100..700 (kept)
        (17, "`x.size(1)` recorded 100, 600, 700 in scaled (line 12, 3 calls)]"),
        # a later turn of the loop reads the transposed x
        (24, ""),
        # x.reshape(-1) ran: the read is of a flattened x, which the recording did not see
        (33, ""),
    }
    assert "1 finding hidden on sizes the workload held constant (workload w.json)" in done.stderr
    # the same with the reshape never run: x is the parameter there, whose dim 0 held 4
    _workload(tmp_path, functions, not_run=(32,))
    again = run_zlint("--no-cache", "--format", "json", "--workload", "w.json", "model.py", cwd=tmp_path)
    assert 33 not in {f["location"]["row"] for f in json.loads(again.stdout)}
    assert "2 findings hidden on sizes the workload held constant (workload w.json)" in again.stderr


# -- zlint record ----------------------------------------------------------------------------------


def _run(program: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "prog.py").write_text(textwrap.dedent(program))
    return record(*args, "prog.py", cwd=tmp_path, timeout=120)


def _functions_of(path: Path) -> set[str]:
    """The functions of ``prog.py`` the workload at ``path`` recorded calls of."""
    workload = load_workload(path)
    record = workload.recorded(str(path.parent / "prog.py"))
    return {f.name for f in record.functions} if record is not None else set()


def test_a_thread_still_running_when_the_program_ends_is_recorded(tmp_path: Path):
    done = _run(
        """\
        import threading, time

        def late(n):
            return n + 1

        def worker():
            time.sleep(0.3)
            late(7)

        threading.Thread(target=worker).start()
        """,
        tmp_path, "--out", "w.json",
    )
    assert done.returncode == 0, done.stderr
    assert "late" in _functions_of(tmp_path / "w.json")


def test_a_forked_child_writes_no_workload(tmp_path: Path):
    done = _run(
        """\
        import os, time

        def parent_only():
            return 1

        def child_only():
            return 2

        if os.fork() == 0:
            time.sleep(0.5)  # outlives the parent, then runs on to the end of the program
            child_only()
        else:
            parent_only()
        """,
        tmp_path, "--out", "w.json",
    )
    assert done.returncode == 0, done.stderr
    time.sleep(1.5)  # the child has ended
    assert _functions_of(tmp_path / "w.json") == {"parent_only"}
    assert done.stderr.count("workload written") == 1


def test_a_run_that_ends_in_os_exit_leaves_no_older_workload(tmp_path: Path):
    assert _run("print('first')\n", tmp_path, "--out", "w.json").returncode == 0
    assert (tmp_path / "w.json").exists()
    done = _run("import os\nos._exit(0)\n", tmp_path, "--out", "w.json")
    assert done.returncode == 0 and not (tmp_path / "w.json").exists()
    assert done.stderr == (
        "zlint: removed the previous workload w.json; a new one is written when the program ends\n"
    )


@pytest.mark.parametrize(
    ("out", "message"),
    [
        ("prog.py", "--out prog.py: exists and is not a workload file; name another file"),
        ("notes.txt/w.json", "--out notes.txt/w.json: cannot be written: {root}/notes.txt is not a directory"),
    ],
)
def test_an_out_that_cannot_take_the_workload_is_refused_before_the_program_runs(
    tmp_path: Path, out: str, message: str
):
    (tmp_path / "notes.txt").write_text("mine\n")
    source = "open('ran', 'w').close()\n"
    done = _run(source, tmp_path, "--out", out)
    assert (done.returncode, done.stderr) == (2, f"zlint: error: {message.format(root=tmp_path)}\n")
    assert not (tmp_path / "ran").exists()
    assert (tmp_path / "prog.py").read_text() == source and (tmp_path / "notes.txt").read_text() == "mine\n"


def test_compiled_code_is_recorded_as_it_runs_eagerly(tmp_path: Path):
    pytest.importorskip("torch")
    done = _run(
        """\
        import torch

        def body(x):
            if x.size(0) > 2:
                return x * 2
            return x

        step = torch.compile(body)
        for n in (1, 3):
            step(torch.ones(n))
        """,
        tmp_path, "--out", "w.json",
    )
    assert done.returncode == 0, done.stderr
    workload = load_workload(tmp_path / "w.json")
    assert all(workload.ran(str(tmp_path / "prog.py"), line) for line in (4, 5, 6))
    (function,) = [f for f in workload.recorded(str(tmp_path / "prog.py")).functions if f.name == "body"]
    assert function.calls == 2 and function.param("x").sizes(0) == (1, 3)
    # torch's own requirements (jinja2, networkx, sympy, typing_extensions...) are torch's internals
    parts = {part for path in workload.files for part in Path(path).parts}
    assert not parts & {"jinja2", "networkx", "sympy", "typing_extensions.py", "filelock"}, sorted(workload.files)


# -- what was hidden, and why one finding is kept ------------------------------------------------


def test_show_hidden_lists_what_the_settings_hid_with_why(likes: Path, tmp_path: Path):
    (tmp_path / "likes_pooler.py").write_bytes((likes / "likes_pooler.py").read_bytes())
    done = run_zlint("--no-cache", "--target", "default", "--show-hidden", "likes_pooler.py", cwd=tmp_path)
    assert done.returncode == 1  # the one shown finding; hidden ones do not fail the run
    rows = [(line.split(":")[1], line.rpartition(" [hidden: ")[2]) for line in done.stdout.splitlines()]
    assert rows == [
        ("19", "single-graph tier (target = default)]"),
        ("21", "single-graph tier (target = default)]"),
        ("24", done.stdout.splitlines()[2]),  # shown: no mark
        ("31", "single-graph tier (target = default)]"),
    ]
    only_single_graph = "import torch\n\n\ndef f(x):\n    if x.size(0) == 1:\n        return x\n    return x\n"
    (tmp_path / "clean.py").write_text(only_single_graph)
    only_hidden = run_zlint("--no-cache", "--target", "default", "--show-hidden", "clean.py", cwd=tmp_path)
    assert only_hidden.returncode == 0 and "[hidden: single-graph tier (target = default)]" in only_hidden.stdout


@pytest.fixture(scope="module")
def small(likes: Path) -> str:
    """A second recording beside the example: every page has 3 likes."""
    (likes / "drive_small.py").write_text(DRIVER.replace("(0, 1, 2, 40)", "(3, 3)"))
    done = record("--out", "small.json", "drive_small.py", cwd=likes)
    assert done.returncode == 0, done.stderr
    return "small.json"


def test_show_hidden_names_the_workload_s_reason(likes: Path, small: str):
    shown = run_zlint("--no-cache", "--workload", small, "--show-hidden", "likes_pooler.py", cwd=likes)
    assert shown.returncode == 0, shown.stderr  # every page had 3 likes: nothing varies
    hidden = [(line.split(":")[1], line.rpartition(" [hidden: ")[2]) for line in shown.stdout.splitlines()]
    held = "the workload held the sizes constant: `likes.size(0)` recorded 3 in LikesPooler.forward (line 17, 2 calls)]"
    assert hidden[:3] == [("19", held), ("21", held), ("24", held)]
    assert hidden[3][0] == "31" and hidden[3][1].startswith("the workload held the sizes constant: the dims of `likes`")


def test_explain_says_why_a_finding_is_kept_and_what_sizes_it_rests_on(likes: Path, small: str):
    done = run_zlint("explain", "likes_pooler.py:19", "--no-cache", cwd=likes)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == [
        "  reported: yes",
        "  tier: default (costs with plain torch.compile)",
        "  runs: compiled: forward of LikesPooler",
        "  size: `likes.size(0)` recorded 0, 1, 2, 40 in LikesPooler.forward (line 17, 4 calls)",
    ]
    hidden = run_zlint("explain", "likes_pooler.py:19", "--no-cache", "--workload", small, cwd=likes)
    assert hidden.stdout.splitlines()[1] == (
        "  reported: no, hidden: the workload held the sizes constant: `likes.size(0)` recorded 3 in "
        "LikesPooler.forward (line 17, 2 calls)"
    )
    nothing = run_zlint("explain", "likes_pooler.py:2", "--no-cache", cwd=likes)
    assert (nothing.returncode, nothing.stdout) == (0, "likes_pooler.py:2: no finding on this line\n")
    usage = run_zlint("explain", "likes_pooler.py", cwd=likes)
    assert (usage.returncode, usage.stderr) == (
        2, "zlint: error: usage: zlint explain FILE:LINE [PATH ...] [OPTIONS]\n"
    )
