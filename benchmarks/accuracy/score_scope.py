"""Compare zlint's compiled-scope verdicts with the hand-judged ``scope_truth.json``.

zlint reports a ``scope`` on each finding (``compiled``, ``never``, ``unknown``), so a function's
scope is read from its findings: the script lints the files named in the truth table with every
rule (``--select ALL``, and ``--scope all`` when this zlint has it, so that findings in
never-compiled code are not hidden), groups the findings by (file, function) and compares. A
function without any finding is listed as unmeasured.

Usage (from the repository root)::

    python benchmarks/accuracy/score_scope.py [--corpus /work/corpus]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TRUTH = HERE / "scope_truth.json"


def normalise(scope: str) -> str:
    """zlint's scope word -> compiled / never / unknown (tolerates spellings like never-compiled)."""
    scope = (scope or "").lower()
    if "never" in scope or scope in ("not-compiled", "eager"):
        return "never"
    if "compiled" in scope:
        return "compiled"
    return "unknown"


def zlint(args: list[str]) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "zlint", *args], capture_output=True, text=True, env=env, cwd=ROOT)


def main(argv: list[str] | None = None) -> int:
    """Print the agreement of zlint's scope with the truth table, and every disagreement."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("/work/corpus"))
    args = parser.parse_args(argv)
    truth = json.loads(TRUTH.read_text())["functions"]
    files = sorted({row["path"] for row in truth})
    extra = ["--scope", "all"] if "--scope" in zlint(["--help"]).stdout else []
    proc = zlint(["--format", "json", "--no-cache", "--exit-zero", "--select", "ALL", *extra, *(str(args.corpus / f) for f in files)])
    if proc.returncode not in (0, 1):
        raise SystemExit(f"zlint failed ({proc.returncode}): {proc.stderr[-2000:]}")
    seen: dict[tuple[str, str], set[str]] = defaultdict(set)
    reasons: dict[tuple[str, str], str] = {}
    for item in json.loads(proc.stdout or "[]"):
        rel = str(Path(item["filename"]).resolve().relative_to(args.corpus.resolve()))
        key = (rel, item.get("function") or "")
        seen[key].add(normalise(item.get("scope", "")))
        reasons.setdefault(key, item.get("scope_reason", ""))
    agree, measured, rows = 0, 0, []
    confusion: dict[tuple[str, str], int] = defaultdict(int)
    for row in truth:
        key = (row["path"], row["function"])
        if key not in seen:
            rows.append(f"  unmeasured  {row['path']}::{row['function']} (truth {row['scope']}; no finding carries a scope)")
            continue
        measured += 1
        got = "/".join(sorted(seen[key]))
        confusion[(row["scope"], got)] += 1
        if seen[key] == {row["scope"]}:
            agree += 1
        else:
            rows.append(f"  WRONG       {row['path']}::{row['function']}: truth {row['scope']}, zlint {got} ({reasons[key]!r}); why: {row['why']}")
    print(f"scope flag: {' '.join(extra) or '(none: this zlint has no --scope)'}")
    print(f"functions: {len(truth)}, measured (have findings): {measured}, agree: {agree}" + (f" ({agree / measured:.2f})" if measured else ""))
    print("truth -> zlint counts: " + ", ".join(f"{t}->{g}: {n}" for (t, g), n in sorted(confusion.items())))
    for line in rows:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
