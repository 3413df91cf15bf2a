"""``zlint record``: run a Python program as ``python`` would, in this interpreter, and write the
workload file of what it ran (:mod:`zlint.workload.recording`).

    zlint record [--out FILE] [--source PATH[,PATH...]] PROGRAM.py [ARGS...]
    zlint record [--out FILE] [--source ...] -m MODULE [ARGS...]

A leading ``--`` and a leading python word (``zlint record -- python prog.py``) are accepted, since
that is how a command is usually written. The program's exit code is zlint's: ``sys.exit(3)``
exits 3, an uncaught exception prints its traceback (without zlint's frames) and exits 1; the
workload is written in every case but ``os._exit`` (then none is left: an older one at ``--out``
is removed when recording starts), and only by the process that started recording, after the
program's threads have ended. ``torch.compile`` runs eagerly while recording (the trace hook cannot
see the lines of a compiled frame). Bad usage, an ``--out`` that cannot be written or that holds
anything but a workload, is one line and exit 2, before anything runs.
"""

from __future__ import annotations

import json
import os
import re
import runpy
import sys
import tempfile
import threading
import traceback
from collections.abc import Sequence
from importlib.util import find_spec
from types import TracebackType

from zlint.workload.recording import Recorder, compile_off, write_workload

DEFAULT_OUT = os.path.join(".zlint", "workload.json")
USAGE = "usage: zlint record [--out FILE] [--source PATH] (PROGRAM.py | -m MODULE) [ARGS...]"
HELP = """Run a Python program as `python` would and record which lines ran and which sizes each
function's parameters held (docs/workload.md).

  --out FILE       where to write the workload (default: .zlint/workload.json)
  --source PATH    record only files under PATH (repeatable or comma-separated; default: every
                   file but the standard library, zlint, and torch's own packages)
  -m MODULE        run a module, as `python -m MODULE`"""
EXIT_ERROR = 2
#: `python`, `python3`, `python3.11`, `/usr/bin/python3`: a word users put before the program
_PYTHON = re.compile(r"python(\d+(\.\d+)?)?(\.exe)?")


class RecordUsageError(Exception):
    """Bad usage of ``zlint record``: one line, exit 2."""


class Plan:
    """What to run: a program file or a module, its arguments, and where to write."""

    def __init__(self, out: str, sources: list[str], program: str | None, module: str | None, args: list[str]):
        self.out, self.sources, self.program, self.module, self.args = out, sources, program, module, args


def parse(argv: Sequence[str]) -> Plan:
    """Options up to the program; everything after it is the program's. Hand-parsed: argparse
    cannot stop at the first positional and leave the rest alone."""
    argv = list(argv)
    out, sources = DEFAULT_OUT, []
    while argv and argv[0].startswith("-") and argv[0] not in ("-", "--", "-m"):
        option = argv.pop(0)
        name, has_value, value = option.partition("=")
        if name not in ("--out", "--source"):
            raise RecordUsageError(f"unknown option {option!r} ({USAGE})")
        if not has_value:
            if not argv:
                raise RecordUsageError(f"{name} needs a value")
            value = argv.pop(0)
        if name == "--out":
            out = value
        else:
            sources += [part for part in value.split(",") if part]
    if argv[:1] == ["--"]:
        argv.pop(0)
    if argv and _PYTHON.fullmatch(os.path.basename(argv[0])) and (len(argv) > 1 or argv[0] == sys.executable):
        argv.pop(0)
    if not argv:
        raise RecordUsageError(USAGE)
    if argv[0] == "-m":
        if len(argv) < 2:
            raise RecordUsageError("-m needs a module name")
        return Plan(out, sources, None, argv[1], argv[2:])
    if argv[0].startswith("-"):
        raise RecordUsageError(f"unknown option {argv[0]!r} ({USAGE})")
    return Plan(out, sources, argv[0], None, argv[1:])


def _check(plan: Plan) -> None:
    """Refuse, before anything runs, what would fail only after the program ran (an --out that is a
    directory, that cannot be written, or that holds something other than a workload: the program's
    own source, say) or before it could start (no such program)."""
    if os.path.isdir(plan.out):
        raise RecordUsageError(f"--out {plan.out}: is a directory")
    for source in plan.sources:
        if not os.path.exists(source):
            raise RecordUsageError(f"--source {source}: no such file or directory")
    if plan.program is not None:
        if os.path.isdir(plan.program):
            raise RecordUsageError(f"{plan.program}: is a directory, not a Python program")
        if not os.path.isfile(plan.program):
            raise RecordUsageError(f"{plan.program}: no such file")
    elif not _top_level_found(plan.module.partition(".")[0]):
        raise RecordUsageError(f"-m {plan.module}: no module named {plan.module!r}")
    if os.path.lexists(plan.out) and not _is_workload(plan.out):
        raise RecordUsageError(f"--out {plan.out}: exists and is not a workload file; name another file")
    problem = _unwritable(plan.out)
    if problem is not None:
        raise RecordUsageError(f"--out {plan.out}: cannot be written: {problem}")


def _is_workload(path: str) -> bool:
    """Whether ``path`` holds a workload file (``zlint record``'s JSON), which recording may replace."""
    try:
        with open(path, "rb") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and "zlint_workload" in data


def _unwritable(path: str) -> str | None:
    """Why the workload could not be written at ``path``, found by writing a scratch file where
    it will go (what a permission check alone misses: a read-only mount, root's view of modes)."""
    directory = os.path.dirname(os.path.abspath(path))
    while not os.path.isdir(directory):  # made when the workload is written: its nearest existing parent
        if os.path.lexists(directory):
            return f"{directory} is not a directory"
        directory = os.path.dirname(directory)
    try:
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".zlint-record-check-"):
            pass
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def _join_threads() -> None:
    """Wait for the threads the program left running, as the interpreter would before it exits,
    so that what they run is recorded (daemon threads are not waited for, as Python does not)."""
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()


def _top_level_found(name: str) -> bool:
    """Whether ``python -m`` would find the top-level package ``name``; looked up without importing
    it, so that its ``__init__`` runs (and is recorded) under the recording."""
    sys.path.insert(0, os.getcwd())  # where `python -m` looks first
    try:
        return bool(name) and find_spec(name) is not None
    except (ImportError, ValueError):
        return False
    finally:
        sys.path.pop(0)


def _program_frames(tb: TracebackType | None) -> TracebackType | None:
    """The traceback from the program's first frame on, as ``python PROGRAM`` would print it: the
    frames of this module, runpy and the import machinery before it are dropped."""
    here = {os.path.realpath(__file__), os.path.realpath(runpy.__file__)}
    while tb is not None and (
        tb.tb_frame.f_code.co_filename.startswith(("<frozen runpy>", "<frozen importlib"))  # frozen since 3.11
        or os.path.realpath(tb.tb_frame.f_code.co_filename) in here
    ):
        tb = tb.tb_next
    return tb


def _exit_code(exc: SystemExit) -> int:
    """The status ``python`` exits with for ``sys.exit(code)``."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)  # sys.exit("message"): printed, exit 1
    return 1


def run(argv: Sequence[str]) -> int:
    """``zlint record ARGV``: the program's exit code, or 2 for bad usage or an unwritable file."""
    if list(argv[:1]) in (["-h"], ["--help"]):
        print(f"{USAGE}\n\n{HELP}")
        return 0
    try:
        plan = parse(argv)
        _check(plan)
    except RecordUsageError as exc:
        return _error(str(exc))
    cwd = os.getcwd()
    out = os.path.abspath(plan.out)
    if plan.program is not None:
        program = os.path.abspath(plan.program)
        command = [program, *plan.args]
        sys.argv = [program, *plan.args]  # absolute, as __file__ is (run_path sets both)
        first = os.path.dirname(program)
    else:
        command = ["-m", plan.module, *plan.args]
        sys.argv = [plan.module, *plan.args]  # run_module puts the module's file in argv[0]
        first = cwd
    # sys.path[0] is the program's directory (the module's: the working directory), not zlint's
    if sys.path:
        sys.path[0] = first
    else:
        sys.path.append(first)
    if os.path.lexists(out):  # a run that ends in os._exit leaves no older workload behind
        os.unlink(out)
        print(f"zlint: removed the previous workload {plan.out}; a new one is written when the program ends",
              file=sys.stderr)
    compile_off()
    recorder = Recorder(plan.sources)
    status, failure = 0, None
    parent = os.getpid()
    recorder.start()
    try:
        if plan.program is not None:
            runpy.run_path(program, run_name="__main__")
        else:
            runpy.run_module(plan.module, run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        status = _exit_code(exc)
    except BaseException as exc:  # noqa: BLE001 - the program's failure is reported as python would
        failure = exc
    finally:
        if not isinstance(failure, KeyboardInterrupt):
            _join_threads()
        recorder.stop()
    if os.getpid() != parent:  # a child the program forked that ran on to the end: its parent writes
        if failure is not None:
            traceback.print_exception(type(failure), failure, _program_frames(failure.__traceback__))
            return 1
        return status
    if failure is not None:
        tb = _program_frames(failure.__traceback__)
        if tb is None and plan.module is not None and isinstance(failure, ImportError):
            return _error(f"-m {plan.module}: {failure}")  # runpy found no such module: nothing ran
        traceback.print_exception(type(failure), failure, tb)
        status = 130 if isinstance(failure, KeyboardInterrupt) else 1
    try:
        write_workload(out, recorder.workload(command, cwd))
    except OSError as exc:
        return _error(f"{plan.out}: cannot write the workload: {exc.strerror or exc}")
    print(f"zlint: workload written to {plan.out}", file=sys.stderr)
    return status


def _error(message: str) -> int:
    print(message if message.startswith("usage:") else f"zlint: error: {message}", file=sys.stderr)
    return EXIT_ERROR
