"""Worker processes for ``--verify``, reused across functions, each job under a timeout.

A worker that hangs is killed (with its process group: anything it spawned) when the timeout
passes; one that dies (segfault, ``os._exit``) is noticed at once. Either way that job gets an
UNVERIFIABLE report with the reason and the next job gets a fresh worker.
"""

from __future__ import annotations

import json
import os
import queue
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable

from zlint.verify.evidence import FunctionReport

STARTUP_TIMEOUT = 300.0  # importing torch on a busy machine
MEMORY_ENV = "ZLINT_VERIFY_MEMORY_MIB"  # the worker limits its own address space to this


class WorkerDied(Exception):
    """The worker is gone; ``str()`` says how."""


def _signal_name(number: int) -> str:
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
    explained = {"SIGSEGV": "SIGSEGV (segmentation fault)", "SIGKILL": "SIGKILL (killed, e.g. out of memory)"}
    return explained.get(name, name)


class Worker:
    def __init__(self, env: dict[str, str] | None = None) -> None:
        self.env = env
        self.proc: subprocess.Popen | None = None
        self.log = None
        self.info: dict = {}
        self._buffer = b""

    def _start(self) -> None:
        self.log = tempfile.TemporaryFile()
        env = {**os.environ, **(self.env or {}), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "zlint.verify.sandbox.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            start_new_session=True,  # its own process group: a timeout kills what it spawned too
            env=env,
        )
        self._buffer = b""
        try:
            self.info = self._read(time.monotonic() + STARTUP_TIMEOUT, "starting the worker (importing torch)")
        except TimeoutError:
            raise WorkerDied(f"the worker did not start within {STARTUP_TIMEOUT:g}s (importing torch)") from None
        if not self.info.get("ready"):
            raise WorkerDied(f"worker did not start: {self.info}")

    def _stderr_tail(self) -> str:
        if self.log is None:
            return ""
        self.log.seek(0, os.SEEK_END)
        size = self.log.tell()
        self.log.seek(max(0, size - 2000))
        lines = [s for s in self.log.read().decode("utf-8", "replace").splitlines() if s.strip()]
        return lines[-1].strip()[:200] if lines else ""

    def _read(self, deadline: float, doing: str) -> dict:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise TimeoutError(doing)
            ready, _, _ = select.select([fd], [], [], min(left, 1.0))
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                code = self.proc.wait()
                tail = self._stderr_tail()
                self.close()
                how = (
                    f"killed by {_signal_name(-code)}" if code < 0
                    else f"exited with status {code} (os._exit or a crash in user code)"
                )
                raise WorkerDied(f"worker {how} while {doing}" + (f"; last output: {tail}" if tail else ""))
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def request(self, job: dict, timeout: float) -> dict:
        if self.proc is None:
            self._start()
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps(job) + "\n").encode("utf-8"))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.close()
            raise WorkerDied("worker exited before the job was sent") from None
        return self._read(time.monotonic() + timeout, f"verifying {job['qualname']}")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
            self.proc.wait()
        self.close()

    def close(self) -> None:
        if self.proc is not None:
            for stream in (self.proc.stdin, self.proc.stdout):
                try:
                    if stream:
                        stream.close()
                except OSError:
                    pass
            if self.proc.poll() is None:
                self.kill()
        self.proc = None
        if self.log is not None:
            self.log.close()
            self.log = None


def _failed(job: dict, reason: str, seconds: float) -> dict:
    return FunctionReport(
        f"{job['path']}::{job['qualname']}", path=job["path"], unverifiable=reason, seconds=seconds
    ).to_dict()


#: default per-worker memory limit (MiB of address space; torch itself takes about 0.7 GiB)
DEFAULT_MEMORY_MIB = 4096


class Pool:
    """``jobs`` workers; :meth:`run` verifies a list of jobs and returns one report dict per job.
    Each worker's address space is limited to ``memory_mib`` (0: no limit)."""

    def __init__(self, jobs: int = 1, timeout: float = 120.0, memory_mib: int = DEFAULT_MEMORY_MIB) -> None:
        env = {MEMORY_ENV: str(int(memory_mib))}
        self.workers = [Worker(env) for _ in range(max(1, jobs))]
        self.timeout = timeout

    def run(self, jobs: list[dict], progress: Callable[[int, int, str], None] | None = None) -> list[dict]:
        results: list[dict | None] = [None] * len(jobs)
        todo: queue.Queue = queue.Queue()
        for index, _job in enumerate(jobs):
            todo.put(index)
        done = [0]
        lock = threading.Lock()

        def serve(worker: Worker) -> None:
            while True:
                try:
                    index = todo.get_nowait()
                except queue.Empty:
                    return
                job = jobs[index]
                started = time.monotonic()
                if progress:
                    with lock:
                        progress(done[0], len(jobs), job.get("qualname", ""))
                try:
                    reply = worker.request(job, self.timeout)
                    result = reply.get("report") or _failed(job, f"bad worker reply: {reply}", 0.0)
                except TimeoutError:
                    result = _failed(job, f"timed out after {self.timeout:g}s (hang?)", time.monotonic() - started)
                except WorkerDied as exc:
                    result = _failed(job, str(exc), time.monotonic() - started)
                except Exception as exc:  # never let one job take the run down
                    worker.kill()
                    result = _failed(job, f"worker failure: {type(exc).__name__}: {exc}", time.monotonic() - started)
                results[index] = result
                with lock:
                    done[0] += 1
                    if progress:
                        progress(done[0], len(jobs), "")

        threads = [threading.Thread(target=serve, args=(w,), daemon=True) for w in self.workers[: max(1, len(jobs))]]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return [r if r is not None else {} for r in results]

    def close(self) -> None:
        for worker in self.workers:
            worker.close()

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
