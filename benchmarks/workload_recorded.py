#!/usr/bin/env python
"""zlint with a recorded workload, scored against dynamo on the same models (issue: know the
workload). For each workload of a workloads folder (``../shared/workloads`` by default):

1. time the plain eager run (``run_eager.py WL.py``: the workload's ordinary sizes, 0 and 1
   excluded) and the same run under ``zlint record`` (side by side, interleaved, ``--repeat`` times);
2. lint the packages with that recording (``zlint --workload REC``) and score the findings against
   the oracle's events for that workload only (the workloads folder's ``score.py``, which runs the
   sizes 0/1/2 too), and again without a recording, for the same workload.

    python benchmarks/workload_recorded.py [--workloads DIR] [--out DIR] [--only NAME ...]

Needs the workloads folder's venv (``setup.sh``; ``WORKLOAD_VENV``) and its oracle results
(``run.sh`` once: ``workload-results/results.json``). zlint runs through a shim that keeps a
cache across the runs (the cache holds findings before placement; a workload is read after it, so
the findings are those of ``--no-cache``) and lints with every core. Writes ``OUT/summary.json``
and prints a table: precision per tier and recall, with and without the recording.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = Path(os.environ.get("WORKLOAD_VENV") or Path.home() / ".cache/zlint-workloads/venv")
PYTHON = VENV / "bin" / "python"


def shim(argv: list[str]) -> int:
    """``--zlint-shim REC CACHE -- ARGS``: zlint with ARGS, less ``--no-cache`` and ``--jobs 1``,
    with the shared cache and (unless REC is ``-``) the recording."""
    rec, cache, args = argv[0], argv[1], argv[3:]
    kept: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg == "--no-cache":
            continue
        if arg == "--jobs":
            skip = True
            continue
        kept.append(arg)
    extra = ["--cache-dir", cache] + (["--workload", rec] if rec != "-" else [])
    done = subprocess.run([str(PYTHON), "-m", "zlint", *extra, *kept], capture_output=True, text=True)
    if done.returncode == 2 and " did not record " in done.stderr and "--format" in kept:
        # a package this workload never ran (score.py lints every package with each workload): zlint
        # refuses a recording of none of the files linted; here that package simply has no findings
        print("[]")
        return 0
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    return done.returncode


def timed(cmd: list[str], cwd: str) -> tuple[float, int]:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - start, done.returncode


def score(workloads: Path, out: Path, name: str, results: dict, rec: str, cache: Path) -> dict:
    """score.py on one workload's oracle results, zlint run through the shim."""
    folder = out / name / ("recorded" if rec != "-" else "plain")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(json.dumps({"results": [results]}))
    zbin = f"{sys.executable} {Path(__file__).resolve()} --zlint-shim {rec} {cache} --"
    env = {**os.environ, "WORKLOAD_OUT": str(folder), "WORKLOAD_VENV": str(VENV)}
    done = subprocess.run(
        [sys.executable, str(workloads / "score.py"), zbin, "--results", str(folder / "results.json"),
         "--json", str(folder / "score.json"), "--show", "40"],
        env=env, capture_output=True, text=True,
    )
    (folder / "score.txt").write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        raise SystemExit(f"score.py failed for {name}: {done.stderr[-1500:]}")
    return json.loads((folder / "score.json").read_text())


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--zlint-shim"]:
        return shim(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workloads", default=str(ROOT.parent / "shared" / "workloads"))
    parser.add_argument("--results", default="workload-results/results.json", help="the oracle's results")
    parser.add_argument("--out", default="workload-results/recorded")
    parser.add_argument("--only", nargs="*", help="workload names to run (default: all)")
    parser.add_argument("--repeat", type=int, default=1, help="timing pairs per workload")
    parser.add_argument("--cache", help="zlint's cache folder for the runs (default: OUT/cache)")
    args = parser.parse_args(argv)
    workloads, out = Path(args.workloads).resolve(), Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    cache = Path(args.cache).resolve() if args.cache else out / "cache"
    oracle = {r["name"]: r for r in json.loads(Path(args.results).read_text())["results"]}
    summary = {}
    for wl in sorted(workloads.glob("wl_*.py")):
        name = re.search(r'^NAME = "([^"]+)"', wl.read_text(), re.M).group(1)
        if args.only and name not in args.only or name not in oracle:
            continue
        rec = out / f"{name}.workload.json"
        plain_cmd = [str(PYTHON), str(workloads / "run_eager.py"), str(wl)]
        record_cmd = [str(PYTHON), "-m", "zlint", "record", "--out", str(rec), *plain_cmd[1:]]
        pairs = []
        for _ in range(args.repeat):
            plain, rc_plain = timed(plain_cmd, str(out))
            recorded, rc_record = timed(record_cmd, str(out))
            if rc_plain or rc_record:
                raise SystemExit(f"{name}: eager run exit {rc_plain}, record exit {rc_record}")
            pairs.append((plain, recorded))
        with_rec = score(workloads, out, name, oracle[name], str(rec), cache)
        without = score(workloads, out, name, oracle[name], "-", cache)
        summary[name] = {
            "seconds": pairs,
            "ratio": sorted(r / p for p, r in pairs)[len(pairs) // 2],
            "recorded": with_rec["overall"],
            "plain": without["overall"],
        }
        print(f"{name}: record/plain {summary[name]['ratio']:.2f}", file=sys.stderr)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    print(table(summary))
    return 0


def table(summary: dict) -> str:
    """Per workload and over all (statements united across workloads, as score.py does): default
    and single-graph precision, recall of flagged and of costly statements, with and without the
    recording; the recording's cost."""

    def pct(hit: set, total: set) -> str:
        return f"{len(hit)}/{len(total)}={len(hit) / len(total):.2f}" if total else "n/a"

    rows = [f"{'workload':24s} {'rec/plain':>9s}  {'mode':8s} {'prec default':>14s} {'prec single':>14s} "
            f"{'recall':>14s} {'recall costly':>14s}"]
    union: dict[str, dict[str, set]] = {"plain": {}, "recorded": {}}
    for name, entry in [*summary.items(), ("OVERALL", None)]:
        for mode in ("plain", "recorded"):
            sets = union[mode] if entry is None else {k: set(v) for k, v in entry[mode].items() if isinstance(v, list)}
            if entry is not None:
                for key, found in sets.items():
                    union[mode].setdefault(key, set()).update(found)
            ratio = f"{entry['ratio']:.2f}" if entry is not None and mode == "plain" else ""
            rows.append(
                f"{name if mode == 'plain' else '':24s} {ratio:>9s}  {mode:8s} "
                f"{pct(sets.get('C_def', set()), sets.get('P_def', set())):>14s} "
                f"{pct(sets.get('C_sg', set()), sets.get('P_sg', set())):>14s} "
                f"{pct(sets.get('R_any', set()), sets.get('E', set())):>14s} "
                f"{pct(sets.get('R_cost', set()), sets.get('E_cost', set())):>14s}"
            )
    return "\n".join(rows)


if __name__ == "__main__":
    sys.exit(main())
