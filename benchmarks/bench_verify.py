"""Measure `zlint --verify`: median seconds per verified function, per set, and each run's wall time.

Usage: python benchmarks/bench_verify.py [PATH ...] [--jobs N] [--backend NAME]
(default: the shipped examples/, the hard negatives in tests/data/verify_negatives/ and the larger
set in benchmarks/verify_negatives/).
Needs torch. Prints one line per function, then one summary line per set (target: <= 1.0 s).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from zlint.engine.discovery import PathProblem, SettingsResolver, discover
from zlint.engine.lint import lint_file
from zlint.verify.runner import VerifyOptions, verify

ROOT = Path(__file__).resolve().parent.parent
SETS = {
    "examples": ROOT / "examples",
    "hard negatives": ROOT / "tests" / "data" / "verify_negatives",
    "more hard negatives": ROOT / "benchmarks" / "verify_negatives",
}


def bench(name: str, paths: list[str], options: VerifyOptions) -> tuple[float, float, int]:
    """Verify ``paths``; returns (median s per verified function, wall s, functions verified)."""
    started = time.perf_counter()
    diagnostics, linted = [], []
    for item in discover(paths, SettingsResolver({})):
        if isinstance(item, PathProblem):
            continue
        diagnostics += lint_file(item.path, item.settings).diagnostics
        linted.append((item.path, item.settings.enabled_codes(item.path)))
    _, reports = verify(diagnostics, linted, options, progress=lambda done, total: None)
    wall = time.perf_counter() - started
    for report in sorted(reports, key=lambda r: r.target):
        status = "UNVERIFIABLE" if report.unverifiable else "verified"
        print(f"{report.seconds:7.2f}s  {status:12}  {report.target}")
    seconds = [r.seconds for r in reports if not r.unverifiable]
    median = statistics.median(seconds) if seconds else 0.0
    print(f"{name}: {len(reports)} functions, median {median:.2f}s per verified function, "
          f"wall {wall:.1f}s (jobs={options.jobs})")
    return median, wall, len(seconds)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--backend", default=None)
    parser.add_argument("--device", default="auto")
    args = parser.parse_args()
    options = VerifyOptions(jobs=args.jobs, backend=args.backend, device=args.device)
    sets = {"given": args.paths} if args.paths else {name: [str(path)] for name, path in SETS.items()}
    for name, paths in sets.items():
        bench(name, paths, options)


if __name__ == "__main__":
    main()
