"""``zlint --fix`` and a plain run agree: on a copy of a code base, what ``--fix`` reports is what a
plain run reports on the fixed files (placed with the same project index). Also prints how many
findings of the run before the fix are gone (fixed, or moved by an inserted line).

    python benchmarks/fix_agreement.py "$ZLINT_CORPUS"/timm [--select ALL] [--unsafe-fixes]

Prints the counts and exits 1 on any disagreement (listing up to 20 differing lines).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def findings(cwd: Path, *args: str) -> tuple[list[str], str]:
    proc = subprocess.run(
        [sys.executable, "-m", "zlint", "--no-cache", "--format", "concise", "--exit-zero", *args, "."],
        cwd=cwd, capture_output=True, text=True,
    )
    return sorted(line for line in proc.stdout.splitlines() if line), proc.stderr


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("tree", type=Path)
    parser.add_argument("--select", default=None)
    parser.add_argument("--unsafe-fixes", action="store_true")
    args = parser.parse_args()
    select = ("--select", args.select) if args.select else ()
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / args.tree.name
        shutil.copytree(args.tree, copy)
        before, _ = findings(copy, *select)
        fix = ("--fix", "--unsafe-fixes") if args.unsafe_fixes else ("--fix",)
        fixed, fix_log = findings(copy, *select, *fix)
        after, _ = findings(copy, *select)
    summary = next((line for line in fix_log.splitlines() if line.startswith("Fixed")), "")
    print(f"before --fix: {len(before)} findings; --fix reports {len(fixed)} ({summary}); plain after: {len(after)}")
    gone = sorted(set(before) - set(fixed))
    print(f"findings the fix removed: {len(gone)}")
    bad = sorted(set(fixed) ^ set(after))
    for line in bad[:20]:
        print("  differs:", line)
    print("AGREE" if not bad else "DISAGREE")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
