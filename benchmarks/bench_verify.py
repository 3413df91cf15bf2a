"""Measure `zlint --verify`: seconds per verified function (median) and the wall time of a run.

Usage: python benchmarks/bench_verify.py [PATH ...] [--jobs N] [--backend NAME]
(default: examples/). Needs torch. Prints one line per function, then the summary.
"""

from __future__ import annotations

import argparse
import statistics
import time

from zlint.discovery import PathProblem, SettingsResolver, discover
from zlint.engine import lint_file
from zlint.verify.runner import VerifyOptions, verify


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("paths", nargs="*", default=["examples"])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--backend", default=None)
    parser.add_argument("--device", default="auto")
    args = parser.parse_args()

    started = time.perf_counter()
    diagnostics, linted = [], []
    for item in discover(args.paths, SettingsResolver({})):
        if isinstance(item, PathProblem):
            continue
        diagnostics += lint_file(item.path, item.settings).diagnostics
        linted.append((item.path, item.settings.enabled_codes(item.path)))
    options = VerifyOptions(jobs=args.jobs, backend=args.backend, device=args.device)
    _, reports = verify(diagnostics, linted, options, progress=lambda done, total: None)
    wall = time.perf_counter() - started
    for report in sorted(reports, key=lambda r: r.target):
        status = "UNVERIFIABLE" if report.unverifiable else "verified"
        print(f"{report.seconds:7.2f}s  {status:12}  {report.target}")
    seconds = [r.seconds for r in reports if not r.unverifiable]
    median = statistics.median(seconds) if seconds else 0.0
    print(f"{len(reports)} functions, median {median:.2f}s per verified function, wall {wall:.1f}s (jobs={args.jobs})")


if __name__ == "__main__":
    main()
