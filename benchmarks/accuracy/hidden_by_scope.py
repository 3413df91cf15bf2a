"""Findings that one zlint checkout shows and another classifies ``never`` (hidden by default), on
every N-th corpus file: what a change to the compiled scope hides, to be judged by hand.

    git worktree add /tmp/zlint-old f926673
    python benchmarks/accuracy/hidden_by_scope.py /tmp/zlint-old . --every 2 --n 30 --seed 7 \\
        --out benchmarks/accuracy/hidden_sample.md
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from sample_corpus import corpus_files  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from corpus_paths import CORPUS, require  # noqa: E402


def findings(checkout: Path, files: list[str], jobs: int) -> dict[tuple, dict]:
    command = [sys.executable, "-m", "zlint", "--format", "json", "--no-cache", "--exit-zero", "--scope", "all",
               "--jobs", str(jobs), *files]
    env = {**os.environ, "PYTHONPATH": str(checkout.resolve())}
    proc = subprocess.run(command, cwd=CORPUS, capture_output=True, text=True, env=env, check=False)
    found = json.loads(proc.stdout)
    return {(d["filename"], d["location"]["row"], d["location"]["column"], d["code"]): d for d in found}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--every", type=int, default=2)
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    files = [str(p) for p in corpus_files(require(CORPUS, "corpus"), args.every)]
    old, new = findings(args.old, files, args.jobs), findings(args.new, files, args.jobs)
    hidden = sorted(k for k in new.keys() & old.keys() if old[k]["scope"] != "never" and new[k]["scope"] == "never")
    shown = sum(1 for k in new.keys() & old.keys() if old[k]["scope"] == "never" and new[k]["scope"] != "never")
    print(f"{len(hidden)} hidden, {shown} shown again; by reason:")
    for reason, count in Counter(new[k]["scope_reason"] for k in hidden).most_common():
        print(f"  {count:4} {reason}")
    sample = random.Random(args.seed).sample(hidden, min(args.n, len(hidden)))
    lines = [
        "# Findings the new compiled-scope principles hide (a sample to judge)", "",
        f"{len(sample)} of the {len(hidden)} findings that `{args.old}` shows and `{args.new}` classifies `never` "
        f"(every {args.every}th corpus file); drawn with `random.Random({args.seed}).sample` from them sorted by "
        "file, line, column, code. Verdict: `right` (never runs compiled) or `wrong`.", "",
        "| # | finding | code | scope_reason | verdict | why |", "|---|---|---|---|---|---|",
    ]
    lines += [f"| {i} | `{k[0]}:{k[1]}` | {k[3]} | {new[k]['scope_reason']} | | |" for i, k in enumerate(sample, 1)]
    for i, k in enumerate(sample, 1):
        lines += ["", f"## {i}. `{k[0]}:{k[1]}` {k[3]} in `{new[k].get('function')}`", "", f"> {new[k]['message']}"]
    args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
