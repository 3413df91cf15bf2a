"""Label the held-out accuracy cases by compiling them with real torch.

Each case file in ``cases/`` ends with a ``CASE = dict(...)`` that says how to build what is
compiled and its inputs:

- ``entry``: a zero-argument callable returning the module or function to compile;
- ``make_inputs``: ``n -> tuple`` of positional arguments for size ``n``;
- ``dims``: ``[(arg_index, dim), ...]``, the dims that vary with ``n`` (marked in the
  single-graph modes);
- optional ``sizes`` (default 2,3,5,1,0,8), ``kwargs`` (``n -> dict``).

For every case the labeller sweeps the sizes in four modes, each on a fresh dynamo:

- ``default``: plain ``torch.compile`` (automatic dynamic shapes);
- ``oblivious``: ``backed_size_oblivious=True`` and ``maybe_mark_dynamic`` on the varying dims;
- ``unbacked``: ``mark_unbacked`` on the varying dims;
- ``capture``: ``capture_scalar_outputs`` and ``capture_dynamic_output_shape_ops`` on (the
  single-graph setting for data-dependent values and sizes: ``.item()``, ``nonzero()``, masks).

It records, at the innermost frame that lies in the case file, every shape guard dynamo adds
(``ShapeEnv._log_guard``, read with the traced user stack), every graph break (dynamo's
graph-break log) and every compile error. A line with a counted event (see :func:`counts`) in ``default`` mode is tier
``default``; a line with events only in the single-graph modes is tier ``single-graph``.
Graph counts per mode and compiled-vs-eager mismatches are reported per case.

The run's lines are candidates: ``review.json`` holds the hand review (``drop`` a line torch
blames that the user's code did not cause, ``add`` a line the run cannot see, ``tier`` a tier
corrected, each with its reason), applied by ``--write`` when it writes ``labels.json``.
``label_events.json`` keeps the raw events of the run behind ``labels.json``.

Usage::

    python benchmarks/accuracy/label.py                 # print candidates, all cases
    python benchmarks/accuracy/label.py cases/x.py      # one case, with every event
    python benchmarks/accuracy/label.py --write         # recompile everything, write labels.json
    python benchmarks/accuracy/label.py --save-raw events.json --modes capture   # some modes only
    python benchmarks/accuracy/label.py --from-raw benchmarks/accuracy/label_events.json --write
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib.util
import json
import logging
import os
import re
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
LABELS = HERE / "labels.json"
REVIEW = HERE / "review.json"
DEFAULT_SIZES = (2, 3, 5, 1, 0, 8)
MODES = ("default", "oblivious", "unbacked", "capture")
_FRAME = re.compile(r'File "([^"]+)", line (\d+)')
_AT = re.compile(r"in user code at (\S+):(\d+)")
#: a guard whose Python stack passes through these files was added inside a torch op (its meta,
#: decomposition or reference), not by a comparison the user wrote
_SYMBOL = re.compile(r"\b[su]\d+\b")
_COEFFICIENT = re.compile(r"\b\d+\*")
_OP_FILES = ("/torch/_subclasses/fake_tensor.py", "/torch/_refs/", "/torch/_prims", "/torch/_decomp/",
             "/torch/_meta_registrations.py", "/torch/_ops.py")


# -- one case, in a child process ---------------------------------------------------------------


def _load(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"case_{path.stem}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Recorder(logging.Handler):
    """Collects the events of one mode: guards (from the ShapeEnv hook) and graph breaks (log)."""

    def __init__(self, case_file: str) -> None:
        super().__init__(logging.DEBUG)
        self.case_file = case_file
        self.mode = ""
        self.events: list[dict] = []
        self.graphs = 0

    def add(self, kind: str, line: int | None, detail: str, size: int, in_op: bool = False) -> None:
        self.events.append(
            {"mode": self.mode, "kind": kind, "line": line, "detail": detail, "size": size, "in_op": in_op}
        )

    def innermost(self, frames: list[tuple[str, int]]) -> int | None:
        lines = [line for name, line in frames if os.path.realpath(name) == self.case_file]
        return lines[-1] if lines else None

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
        except Exception:
            return
        if "Graph break" not in text and "graph break" not in text:
            return
        frames = [(f, int(n)) for f, n in _FRAME.findall(text)]
        frames += [(f, int(n)) for f, n in _AT.findall(text)]
        line = self.innermost(frames)
        reason = ""
        for row in text.splitlines():
            row = row.strip()
            if row and not row.startswith(("Graph break", "Encountered graph break", "File")):
                reason = row
                break
        self.add("graph-break", line, reason[:160], self.size)

    size = -1


def _user_line(recorder: _Recorder) -> int | None:
    from torch._guards import TracingContext

    stack = TracingContext.extract_stack()
    return recorder.innermost([(f.filename, f.lineno) for f in stack])


def _install_guard_hook(recorder: _Recorder) -> None:
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    real = ShapeEnv._log_guard

    def log_guard(self, prefix, g, forcing_spec):  # type: ignore[no-untyped-def]
        try:
            in_op = any(part in frame.filename for frame in traceback.extract_stack() for part in _OP_FILES)
            recorder.add("guard", _user_line(recorder), f"{prefix} {g}", recorder.size, in_op)
        except Exception:
            pass
        return real(self, prefix, g, forcing_spec)

    ShapeEnv._log_guard = log_guard


def _same(a: Any, b: Any) -> bool:
    import torch

    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and bool(torch.allclose(a.float(), b.float(), atol=1e-4, rtol=1e-4, equal_nan=True))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def label_one(path: Path, modes: tuple[str, ...] = MODES) -> dict:
    """Sweep one case in every mode; return its events, graph counts and notes."""
    import torch
    import torch._dynamo
    import torch._logging
    from torch.fx.experimental import _config as fx_config

    torch._logging.set_logs(graph_breaks=True)
    case_file = os.path.realpath(path)
    recorder = _Recorder(case_file)
    for name, log in list(logging.root.manager.loggerDict.items()):
        if name.startswith("torch") and isinstance(log, logging.Logger):
            for handler in log.handlers:  # keep dynamo's own log output off the child's stderr
                handler.setLevel(logging.CRITICAL + 1)
            if "graph_breaks" in name:
                log.addHandler(recorder)
    _install_guard_hook(recorder)
    module = _load(path)
    case = module.CASE
    sizes = case.get("sizes", DEFAULT_SIZES)
    dims = case.get("dims", [(0, 0)])
    make_kwargs = case.get("kwargs", lambda n: {})
    notes: list[str] = []
    graphs: dict[str, int] = {}

    def inputs(n: int) -> tuple[tuple, dict]:
        torch.manual_seed(n)
        return tuple(case["make_inputs"](n)), dict(make_kwargs(n))

    def backend(gm, example_inputs):  # type: ignore[no-untyped-def]
        recorder.graphs += 1
        return gm.forward

    eager_out: dict[int, Any] = {}
    torch.manual_seed(0)
    target = case["entry"]()
    for n in sizes:
        args, kwargs = inputs(n)
        try:
            with torch.no_grad():
                eager_out[n] = target(*args, **kwargs)
        except Exception as exc:  # the model itself cannot take this size: not a compile cost
            notes.append(f"eager fails at n={n}: {type(exc).__name__}")
    for mode in modes:
        torch._dynamo.reset()
        recorder.mode, recorder.graphs = mode, 0
        torch.manual_seed(0)
        target = case["entry"]()
        compiled = torch.compile(target, backend=backend)
        for n in sizes:
            if n not in eager_out:
                continue
            recorder.size = n
            args, kwargs = inputs(n)
            for index, dim in dims:
                if mode == "oblivious":
                    torch._dynamo.maybe_mark_dynamic(args[index], dim)
                elif mode == "unbacked":
                    torch._dynamo.decorators.mark_unbacked(args[index], dim)
            try:
                capture = mode == "capture"
                with (
                    torch.no_grad(),
                    fx_config.patch(backed_size_oblivious=(mode == "oblivious")),
                    torch._dynamo.config.patch(
                        capture_scalar_outputs=capture, capture_dynamic_output_shape_ops=capture
                    ),
                ):
                    out = compiled(*args, **kwargs)
            except Exception as exc:
                text = str(exc) + "".join(traceback.format_tb(exc.__traceback__))
                frames = [(f, int(k)) for f, k in _FRAME.findall(text)]
                line = recorder.innermost(frames)
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                recorder.add("error", line, f"{type(exc).__name__}: {first}"[:160], n)
                continue
            if not _same(out, eager_out[n]):
                notes.append(f"{mode}: compiled differs from eager at n={n}")
        graphs[mode] = recorder.graphs
    return {"events": recorder.events, "graphs": graphs, "notes": notes}


# -- all cases --------------------------------------------------------------------------------


def run_case(path: Path, timeout: int, modes: tuple[str, ...] = MODES) -> dict:
    """Label one case in a fresh interpreter (dynamo state and hooks stay per case)."""
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, __file__, "--child", str(path), "--modes", ",".join(modes)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if proc.returncode != 0:
        return {"events": [], "graphs": {}, "notes": [f"labeller failed: {proc.stderr[-800:]}"], "seconds": 0}
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["seconds"] = round(time.monotonic() - started, 1)
    return result


def counts(event: dict) -> bool:
    """Whether an event is a cost. Guards count when installed (``eval``, not suppressed) in the
    default or oblivious mode; in the oblivious mode only guards the user's own code adds (bso
    makes torch ops add 0/1 guards that no user line can avoid). Under ``mark_unbacked`` a
    guard on an unbacked size cannot be installed (it errors or breaks, recorded as such); its
    backed guards come from frames resumed after a break, so they are not counted."""
    if event["kind"] != "guard":
        return True
    detail = event["detail"]
    if not detail.startswith("eval ") or "[guard suppressed]" in detail:
        return False
    if is_relation(detail[len("eval ") :]):
        return False
    if event["mode"] == "default":
        return True
    return event["mode"] == "oblivious" and not event["in_op"]


def is_relation(expr: str) -> bool:
    """Whether a guard only relates two or more input sizes (``Eq(s1, s2)``, ``s1 <= 2*s2``,
    ``Eq(Mod(16*s1, 8*s2), 0)``): the cases feed consistent sizes, so such a guard holds at every
    size of the sweep and never adds a graph. A constant other than a coefficient or a zero
    (``Ne(s1, 6)``, ``s1 <= 4``) makes it a threshold, which does."""
    if len(set(_SYMBOL.findall(expr))) < 2:
        return False
    rest = _SYMBOL.sub("", _COEFFICIENT.sub("", expr))
    return set(re.findall(r"\d+", rest)) <= {"0"}


def candidates(result: dict) -> dict[int, dict]:
    """Line -> {tier, what}: ``default`` when any default-mode event sits on the line."""
    by_line: dict[int, dict[str, list[str]]] = {}
    for event in result["events"]:
        if event["line"] is None or not counts(event):
            continue
        modes = by_line.setdefault(event["line"], {})
        what = f"{event['kind']}{' (in op)' if event.get('in_op') else ''} {event['detail']}".strip()
        if what not in modes.setdefault(event["mode"], []):
            modes[event["mode"]].append(what)
    out = {}
    for line, modes in sorted(by_line.items()):
        tier = "default" if "default" in modes else "single-graph"
        summary = "; ".join(f"{mode}: {', '.join(whats[:2])}" for mode, whats in modes.items())
        out[line] = {"tier": tier, "what": summary[:300]}
    return out


def apply_review(name: str, found: dict[int, dict], review: dict) -> list[dict]:
    """The reviewed labels of one case: run candidates minus ``drop`` plus ``add``."""
    entry = review.get(name, {})
    labels = dict(found)
    for line in entry.get("drop", {}):
        labels.pop(int(line), None)
    for line, item in entry.get("add", {}).items():
        labels[int(line)] = {"tier": item["tier"], "what": f"hand: {item['why']}"}
    for line, tier in entry.get("tier", {}).items():
        if int(line) in labels:
            labels[int(line)]["tier"] = tier
    return [{"line": line, **labels[line]} for line in sorted(labels)]


def main(argv: list[str] | None = None) -> int:
    """Label the cases (all, or those named); ``--write`` stores the reviewed labels."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", type=Path)
    parser.add_argument("--write", action="store_true", help="write labels.json (review applied)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=300)
    parser.add_argument("--save-raw", type=Path, help="also store the raw events of this run")
    parser.add_argument("--from-raw", type=Path, help="re-apply counting and review to stored raw events")
    parser.add_argument("--modes", default=",".join(MODES), help="modes to run (comma-separated)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(label_one(args.child, tuple(args.modes.split(",")))))
        return 0
    paths = [p.resolve() for p in args.cases] or sorted(CASES.glob("*.py"))
    review = json.loads(REVIEW.read_text()) if REVIEW.exists() else {}
    started = time.monotonic()
    if args.from_raw:
        raw = json.loads(args.from_raw.read_text())
        results = {p: raw[p.name] for p in paths if p.name in raw}
        paths = list(results)
    else:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            modes = tuple(args.modes.split(","))
            results = dict(zip(paths, pool.map(lambda p: run_case(p, args.timeout, modes), paths)))
    if args.save_raw:
        old = json.loads(args.save_raw.read_text()) if args.save_raw.exists() else {}
        for path, result in results.items():
            # a run of some modes replaces those modes' events and keeps the others'
            kept = old.get(path.name, {"events": [], "graphs": {}, "notes": []})
            ran = set(result["graphs"]) | {e["mode"] for e in result["events"]}
            result["events"] = [e for e in kept["events"] if e["mode"] not in ran] + result["events"]
            result["graphs"] = {**kept["graphs"], **result["graphs"]}
            result["notes"] = sorted(set(kept["notes"]) | set(result["notes"]))
            results[path] = result
        old.update({p.name: r for p, r in results.items()})
        args.save_raw.write_text(json.dumps(old) + "\n")
    labels: dict[str, list[dict]] = {}
    for path, result in results.items():
        found = candidates(result)
        labels[path.name] = apply_review(path.name, found, review)
        print(f"== {path.name}  graphs={result['graphs']}  {result.get('seconds', 0)}s")
        for note in sorted(set(result["notes"])):
            print(f"   note: {note}")
        if len(paths) == 1:
            for event in result["events"]:
                print(f"   event {event}")
        for line, item in found.items():
            kept = any(label["line"] == line for label in labels[path.name])
            print(f"   {line:4d} {item['tier']:12s} {'' if kept else '[dropped] '}{item['what']}")
        for label in labels[path.name]:
            if label["line"] not in found:
                print(f"   {label['line']:4d} {label['tier']:12s} [added] {label['what']}")
    print(f"labelled {len(paths)} cases in {time.monotonic() - started:.0f}s")
    if args.write:
        if args.cases:
            old = json.loads(LABELS.read_text()) if LABELS.exists() else {}
            old.update(labels)
            labels = old
        LABELS.write_text(json.dumps(dict(sorted(labels.items())), indent=1) + "\n")
        print(f"wrote {LABELS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
