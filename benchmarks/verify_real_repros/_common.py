"""Independent repro helper (no zlint): compile a callable with a counting backend over a size
sweep, per mode, and print graphs, recompile reasons (the guard that failed, with its user line),
graph breaks (reason and user line) and specializations."""
import logging
import re
import sys

import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter
from torch._dynamo.utils import counters

torch._logging.set_logs(recompiles=True, graph_breaks=True, guards=True)


class Tap(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        if "recompiles" in record.name or "graph_breaks" in record.name or record.name.endswith("__guards"):
            self.records.append((record.name, record.getMessage()))


_TAPPED = []


def _tap():
    import torch._dynamo.guards  # noqa: F401  (its recompile logger must exist)
    import torch._dynamo.symbolic_convert  # noqa: F401
    tap = Tap()
    for name in ("torch", "torch._dynamo"):
        log = logging.getLogger(name)
        for h in list(log.handlers):
            if isinstance(h, logging.StreamHandler) and not isinstance(h, Tap):
                log.removeHandler(h)
        log.addHandler(tap)
        _TAPPED.append(log)
    return tap


def _lines(text, path):
    base = path.rsplit("/", 1)[-1]
    return sorted({int(n) for n in re.findall(re.escape(base) + r"[\"']?,? line (\d+)", text)}
                  | {int(n) for n in re.findall(re.escape(base) + r":(\d+)", text)})


def sweep(fn, make, sizes, path, mode="default", dims=None, label=""):
    """``make(n) -> (args, kwargs)``; ``dims``: per tensor arg index -> dims to mark in the
    single-graph modes. Prints one summary line and the recompile/break lines naming ``path``."""
    torch._dynamo.reset()
    counters.clear()
    cnt = CompileCounter()
    tap = _tap()
    compiled = torch.compile(fn, backend=cnt)
    failures = []
    old = torch.fx.experimental._config.backed_size_oblivious
    try:
        if mode == "backed_size_oblivious":
            torch.fx.experimental._config.backed_size_oblivious = True
        for n in sizes:
            args, kwargs = make(n)
            if mode != "default" and dims:
                for i, ds in dims.items():
                    for d in ds:
                        if mode == "mark_unbacked":
                            torch._dynamo.decorators.mark_unbacked(args[i], d)
                        else:
                            torch._dynamo.maybe_mark_dynamic(args[i], d)
            try:
                with torch.no_grad():
                    compiled(*args, **kwargs)
            except Exception as exc:
                failures.append((n, f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"))
    finally:
        torch.fx.experimental._config.backed_size_oblivious = old
        for log in _TAPPED:
            log.removeHandler(tap)
        _TAPPED.clear()
    breaks = sum(counters["graph_break"].values())
    print(f"[{label or mode}] sizes={list(sizes)} graphs={cnt.frame_count} graph_breaks={breaks} failures={failures}")
    shape_guards = {}
    for name, msg in tap.records:
        if name.endswith("__guards"):
            base = path.rsplit("/", 1)[-1]
            for row in msg.splitlines():
                found = re.search(re.escape(base) + r":(\d+)", row)
                if found and "LAMBDA_GUARD" in row and "2 <= L" not in row:
                    shape_guards.setdefault(int(found.group(1)), set()).add(row.strip().replace("+- LAMBDA_GUARD: ", "").lstrip("| ")[:150])
            continue
        lines = _lines(msg, path)
        kind = "recompile" if "recompil" in name or "Recompiling" in msg else "break" if "graph_break" in name else name
        first = msg.strip().splitlines()
        detail = " | ".join(l.strip() for l in first[:4])[:300]
        print(f"   {kind} lines={lines}: {detail}")
    for line in sorted(shape_guards):
        for row in sorted(shape_guards[line])[:3]:
            print(f"   guard line {line}: {row}")
    return cnt.frame_count, breaks, tap.records
