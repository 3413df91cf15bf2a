"""A verify worker process: imports torch once, then verifies one function per request.

Protocol: one JSON object per line. Requests arrive on the fd that was stdin and replies leave on
the fd that was stdout; both are moved aside first, so user code that prints, reads stdin or
closes fds 0/1 cannot corrupt them. ``sys.exit`` and exceptions in user code become an
UNVERIFIABLE report; ``os._exit``, segfaults and hangs kill only this process (the pool notices).
"""

from __future__ import annotations

import json
import os
import sys
import time
import warnings


def _channels():
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)  # user prints end up in the worker's log, never in zlint's output
    sys.stdin = open(os.devnull, encoding="utf-8")
    sys.stdout = sys.stderr
    return requests, replies


def _send(replies, message: dict) -> None:
    replies.write(json.dumps(message) + "\n")
    replies.flush()


def _unverifiable(job: dict, reason: str, started: float) -> dict:
    from zlint.verify.evidence import FunctionReport

    report = FunctionReport(f"{job['path']}::{job['qualname']}", path=job["path"], unverifiable=reason)
    report.seconds = time.perf_counter() - started
    return report.to_dict()


_OOM = ("can't allocate memory", "Cannot allocate memory", "MemoryError", "std::bad_alloc", "out of memory")


#: address space a job needs beyond what the worker holds once torch is imported (MiB)
_HEADROOM_MIB = 256


def _address_space_mib() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) >> 10
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _limit_memory() -> tuple[int, str]:
    """Apply the pool's per-worker limit (MiB of address space) once torch is imported.
    Returns the limit (0: none) and, when it cannot even hold torch plus a job, why."""
    import resource

    try:
        mib = int(os.environ.get("ZLINT_VERIFY_MEMORY_MIB", "0"))
    except ValueError:
        return 0, ""
    if mib <= 0:
        return 0, ""
    used = _address_space_mib()
    if used and mib < used + _HEADROOM_MIB:
        return mib, (f"--verify-memory {mib} MiB is too small: torch alone takes {used} MiB of address space "
                     f"here; use at least {used + _HEADROOM_MIB} (or 0 for no limit)")
    limit = mib << 20
    try:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):
        return 0, ""
    return mib, ""


def _out_of_memory(reply: dict, mib: int) -> dict:
    """A report whose reason is an allocation failure says so, with the limit."""
    reason = reply.get("unverifiable") or ""
    if mib and any(marker in reason for marker in _OOM):
        reply["unverifiable"] = f"out of memory (limit {mib} MiB, --verify-memory): {reason}"
    return reply


def _describe(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"user code called sys.exit({exc.code!r})"
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__


def run_job(job: dict, probers: dict, loaded: set) -> dict:
    import zlint.verify.sandbox.subjects as subjects
    from zlint.verify.evidence import FunctionReport
    from zlint.verify.sandbox.probe import Prober

    started = time.perf_counter()
    new = [f for f in job.get("examples", []) if f not in loaded]
    loaded.update(new)
    problems = subjects.load_examples(new)
    try:
        subject, source, detail, sizes = subjects.build(
            job["path"], job["qualname"], job.get("focus", []), list(job["sizes"]), job.get("choices") or {}
        )
    except subjects.Unverifiable as exc:
        return _unverifiable(job, str(exc), started)
    except BaseException as exc:  # the user's module failed to import
        if isinstance(exc, KeyboardInterrupt):
            raise
        return _unverifiable(job, f"importing {os.path.basename(job['path'])} failed: {_describe(exc)}", started)
    key = (job["backend"], job["device"])
    prober = probers.setdefault(key, Prober(*key))
    report = FunctionReport(f"{job['path']}::{job['qualname']}", inputs=source, input_detail=detail)
    if problems:
        report.input_detail += f" (examples files failed: {'; '.join(problems)})"
    sweep = list(sizes or job["sizes"])
    if source == "registered":
        report.registered_inputs = _described(subject, sweep)
    prober.run(subject, sweep, tuple(job["modes"]), job.get("focus") or None, report)
    report.seconds = time.perf_counter() - started
    return report.to_dict()


def _described(subject, sizes: list[int]) -> dict:
    """The registered example as text, for a stub; empty when making it fails (user code)."""
    from zlint.verify.sandbox.example_text import describe

    try:
        return describe(subject.call, subject.make_inputs, sizes)
    except Exception:
        return {}


def run_caller_job(job: dict, loaded: set) -> dict:
    """A call-site job: run the caller with tracking torch.compile/torch.export."""
    import zlint.verify.sandbox.caller_probe as callsite
    import zlint.verify.sandbox.subjects as subjects
    from zlint.verify.evidence import FunctionReport

    started = time.perf_counter()
    new = [f for f in job.get("examples", []) if f not in loaded]
    loaded.update(new)
    problems = subjects.load_examples(new)
    try:
        call, calls, module, compiled, first, last, source, detail, sizes = subjects.build_caller(
            job["path"], job["qualname"], list(job["sizes"])
        )
    except subjects.Unverifiable as exc:
        return _unverifiable(job, str(exc), started)
    except BaseException as exc:  # the user's module or make_inputs failed
        if isinstance(exc, KeyboardInterrupt):
            raise
        return _unverifiable(job, f"preparing the call of {job['qualname']} failed: {_describe(exc)}", started)
    report = FunctionReport(
        f"{job['path']}::{job['qualname']}", path=job["path"], first_line=first, last_line=last,
        inputs=source, input_detail=detail, sizes=sizes, backend=job["backend"], device=job["device"],
    )
    if problems:
        report.input_detail += f" (examples files failed: {'; '.join(problems)})"
    callsite.run_caller(call, calls, module, compiled, report, sizes, job["backend"])
    report.seconds = time.perf_counter() - started
    return report.to_dict()


def _registered(files: list[str], loaded: set) -> list:
    import zlint.verify.examples as examples
    import zlint.verify.sandbox.subjects as subjects
    from zlint.verify.stubs import callable_text

    new = [f for f in files if f not in loaded]
    loaded.update(new)
    problems = subjects.load_examples(new)
    return {
        "targets": [list(e.key) for e in examples.registered()],
        "sweep": [list(e.key) for e in examples.registered() if e.sweep],
        # the source of each factory, which a stub for another method of its class starts from
        "factories": [[*e.key, callable_text(e.factory)] for e in examples.registered() if e.factory is not None],
        "problems": problems,
    }


def main() -> None:
    requests, replies = _channels()
    home = os.getcwd()
    saved_path = list(sys.path)
    warnings.filterwarnings("ignore")
    import torch  # the one expensive import, paid once per worker
    import torch._dynamo  # noqa: F401

    import zlint.verify.sandbox.probe as probe

    try:  # the static rules' shipped per-version torch facts, checked against this live torch
        from zlint.core.torch_versions import cross_check

        mismatches = cross_check(torch)
    except Exception as exc:  # a check of our data must never stop verification
        mismatches = [f"could not cross-check the shipped torch data: {_describe(exc)}"]
    memory, too_small = _limit_memory()
    unsupported = ""
    try:  # every torch internal zlint relies on, on a function whose effects are known
        unsupported = "" if too_small else probe.self_test()
    except Exception as exc:
        unsupported = f"the self-test raised {_describe(exc)}"
    _send(replies, {
        "ready": True, "torch": torch.__version__, "cuda": torch.cuda.is_available(), "data_mismatches": mismatches,
        "unsupported": unsupported, "memory_too_small": too_small,
    })
    probers: dict = {}
    loaded: set = set()
    for line in requests:
        if not line.strip():
            continue
        job = json.loads(line)
        started = time.perf_counter()
        if job.get("op") == "examples":  # which functions have registered examples
            _send(replies, {"examples": _registered(job.get("examples", []), loaded)})
            continue
        try:
            reply = run_caller_job(job, loaded) if job.get("kind") == "caller" else run_job(job, probers, loaded)
        except BaseException as exc:  # sys.exit in user code, or anything else: report, keep serving
            if isinstance(exc, KeyboardInterrupt):
                break
            reply = _unverifiable(job, _describe(exc), started)
        finally:
            try:
                os.chdir(home)  # user code may have changed the cwd
            except OSError:
                pass
            sys.path[:] = list(dict.fromkeys([*sys.path, *saved_path]))
        _send(replies, {"report": _out_of_memory(reply, memory)})


if __name__ == "__main__":
    main()
