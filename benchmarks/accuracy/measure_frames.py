"""Compile every case of tests/scope/test_frames.py (CPU, ``backend="eager"``, ``dynamic=True``,
sizes 2, 3, 5) and print its graphs and breaks: the measurements the frame model
(zlint/scope/frames.py) rests on. 0 graphs: dynamo skipped the frame.

    python benchmarks/accuracy/measure_frames.py
"""

from __future__ import annotations

import sys
import textwrap
import types
from pathlib import Path

import torch
import torch._dynamo
from torch._dynamo.utils import counters

ROOT = Path(__file__).resolve().parents[2]


def cases(frames) -> dict:
    masks = lambda n: (torch.ones(n, 2), torch.ones(3) > 0)  # noqa: E731
    values = lambda n: (torch.ones(n, 2), torch.tensor([1.0, 1.0, 0.0]))  # noqa: E731
    found = {"break in loop": (frames.BREAK_IN_LOOP, "f", masks), "earlier break": (frames.EARLIER_BREAK, "f", masks)}
    marks = frames.test_near_misses_keep_every_finding.pytestmark
    for name, code, _ in next(m for m in marks if m.name == "parametrize").args[1]:
        found[name] = (textwrap.dedent(code), "f", values if "t:" in code else masks)
    for function in ("calls_plain_in_a_loop", "calls_looping_in_a_loop", "calls_looping_once"):
        found[function] = (frames.HELPERS, function, masks)
    return found


def main() -> None:
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "scope")]
    import test_frames

    for name, (code, function, inputs) in cases(test_frames).items():
        module = types.ModuleType("case")
        exec(compile(code.replace("@torch.compile(dynamic=True)", ""), f"<{name}>", "exec"), module.__dict__)
        torch._dynamo.reset()
        counters.clear()
        compiled = torch.compile(getattr(module, function), backend="eager", dynamic=True)
        for n in (2, 3, 5):
            compiled(*inputs(n))
        graphs = counters["stats"].get("unique_graphs", 0)
        print(f"{name:24s} graphs={graphs} breaks={sum(counters['graph_break'].values())}")


if __name__ == "__main__":
    main()
