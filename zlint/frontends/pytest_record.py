"""pytest plugin (entry point ``pytest11``): ``pytest --zlint-record[=FILE]`` records the test session
as ``zlint record`` records a program (docs/workload.md), into FILE (default
``.zlint/workload.json`` under the directory pytest was started in).

Without the option the plugin does nothing but add it: pytest imports every installed plugin in
every run, so this module imports only pytest and os, and the recorder only when asked for.
Recording starts before the first conftest is imported, so that module-level code counts, and
stops when the session ends.
"""

from __future__ import annotations

import os

import pytest

DEFAULT_OUT = os.path.join(".zlint", "workload.json")
#: test runner packages: their calls are not the workload (still paid for, but not written down)
RUNNER_PACKAGES = ("_pytest", "pytest", "pluggy", "xdist", "execnet", "iniconfig")


class _Recording:
    def __init__(self, recorder, path: str, shown: str) -> None:
        self.recorder, self.path, self.shown = recorder, path, shown
        self.message = ""  # what the terminal summary says once the file is written


_RECORDING = pytest.StashKey[_Recording]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("zlint").addoption(
        "--zlint-record", nargs="?", const=DEFAULT_OUT, default=None, metavar="FILE",
        help=f"record the lines that ran and the sizes functions received into FILE (default: {DEFAULT_OUT})",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    out = early_config.known_args_namespace.zlint_record
    if out is None:
        return
    # `pytest --zlint-record tests/` takes tests/ as FILE: refuse rather than lose the tests or
    # overwrite a test module with JSON
    if out.endswith(".py") or os.path.isdir(out):
        raise pytest.UsageError(
            f"--zlint-record: {out!r} is not a workload file name; write --zlint-record=FILE, or put the option "
            "after the test paths"
        )
    if getattr(early_config.known_args_namespace, "numprocesses", None):
        raise pytest.UsageError("--zlint-record records one process: run it without -n (pytest-xdist)")
    from zlint.workload.recording import Recorder, compile_off, default_exclusions, package_dirs

    runner = [directory for package in RUNNER_PACKAGES for directory in package_dirs(package)]
    recorder = Recorder(exclude=default_exclusions() + runner)
    where = early_config.invocation_params.dir
    early_config.stash[_RECORDING] = _Recording(recorder, os.path.join(where, out), out)
    compile_off()
    recorder.start()


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    recording = session.config.stash.get(_RECORDING, None)
    if recording is None:
        return
    recording.recorder.stop()
    from zlint.workload.recording import write_workload

    params = session.config.invocation_params
    try:
        write_workload(recording.path, recording.recorder.workload(["pytest", *map(str, params.args)], str(params.dir)))
        recording.message = f"zlint: workload written to {recording.shown}"
    except OSError as exc:
        recording.message = f"zlint: error: {recording.shown}: cannot write the workload: {exc.strerror or exc}"
        session.exitstatus = pytest.ExitCode.INTERNAL_ERROR


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    recording = config.stash.get(_RECORDING, None)
    if recording is not None and recording.message:
        terminalreporter.write_line(recording.message)


def pytest_unconfigure(config: pytest.Config) -> None:
    recording = config.stash.get(_RECORDING, None)
    if recording is not None:  # a session that ended early (a usage error) leaves no hook behind
        recording.recorder.stop()
