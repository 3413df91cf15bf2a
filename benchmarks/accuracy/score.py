"""Score zlint against the held-out accuracy cases (``labels.json``).

Runs ``zlint --format json`` with the default rules on ``cases/`` (and once more with
``--target default`` when this zlint has that flag), then prints precision and recall per tier
and overall, every missed expected line and every false finding.

Counting is by line: an expected line is found when at least one finding sits on it (several
findings on one line count once); a finding line is true when an expected line has that number.
Per-tier recall uses the label's tier; per-tier precision uses the tier zlint reports.

Usage::

    python benchmarks/accuracy/score.py            # from the repository root
    python benchmarks/accuracy/score.py --json-out /tmp/score.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CASES = HERE / "cases"
LABELS = HERE / "labels.json"
TIERS = ("default", "single-graph")

Finding = dict  # code, message, line, tier


def run_zlint(extra: list[str]) -> tuple[dict[str, list[Finding]], float]:
    """Findings per case file name, and the seconds the run took."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-m", "zlint", "--format", "json", "--no-cache", "--exit-zero", *extra, str(CASES)]
    started = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    seconds = time.monotonic() - started
    if proc.returncode not in (0, 1):
        raise SystemExit(f"zlint failed ({proc.returncode}): {proc.stderr[-2000:]}")
    found: dict[str, list[Finding]] = defaultdict(list)
    for item in json.loads(proc.stdout or "[]"):
        found[Path(item["filename"]).name].append(
            {
                "line": item["location"]["row"],
                "code": item["code"],
                "message": item["message"],
                "tier": item.get("tier", ""),
            }
        )
    return found, seconds


def has_flag(flag: str) -> bool:
    """Whether this zlint's ``--help`` lists ``flag``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-m", "zlint", "--help"], capture_output=True, text=True, env=env, cwd=ROOT)
    return flag in out.stdout


def ratio(num: int, den: int) -> str:
    return f"{num / den:.2f} ({num}/{den})" if den else "n/a (0/0)"


def score(labels: dict[str, list[dict]], found: dict[str, list[Finding]], expected_tiers: tuple[str, ...]) -> dict:
    """Line-level counts: expected lines (of ``expected_tiers``) vs finding lines."""
    expected = {(f, e["line"]): e for f, items in labels.items() for e in items if e["tier"] in expected_tiers}
    finding_lines: dict[tuple[str, int], list[Finding]] = defaultdict(list)
    for name, items in found.items():
        if name not in labels:
            continue  # a file without labels is not a case
        for item in items:
            finding_lines[(name, item["line"])].append(item)
    hits = {key for key in expected if key in finding_lines}
    out = {
        "expected": len(expected),
        "found_expected": len(hits),
        "finding_lines": len(finding_lines),
        "true_lines": sum(1 for key in finding_lines if key in expected),
        "findings": sum(len(v) for v in finding_lines.values()),
        "misses": sorted((f, line, e["tier"], e["what"]) for (f, line), e in expected.items() if (f, line) not in hits),
        "false": sorted(
            (f, line, item["code"], item["message"], item["tier"])
            for (f, line), items in finding_lines.items()
            if (f, line) not in expected
            for item in items
        ),
    }
    for tier in TIERS:
        tier_expected = [key for key, e in expected.items() if e["tier"] == tier]
        out[f"recall_{tier}"] = (sum(1 for key in tier_expected if key in hits), len(tier_expected))
        tier_lines = [key for key, items in finding_lines.items() if any(i["tier"] == tier for i in items)]
        out[f"precision_{tier}"] = (sum(1 for key in tier_lines if key in expected), len(tier_lines))
    return out


def describe(labels: dict[str, list[dict]]) -> None:
    """Cases per source (from each case's ``Source:`` header), hazard vs negative cases, lines per tier."""
    sources: dict[str, int] = defaultdict(int)
    for path in sorted(CASES.glob("*.py")):
        head = path.read_text().split("\n", 1)[0]
        sources[head.split("Source:", 1)[-1].split(",", 1)[0].strip() or "?"] += 1
    hazards = sum(1 for items in labels.values() if items)
    tiers = defaultdict(int)
    for items in labels.values():
        for item in items:
            tiers[item["tier"]] += 1
    negatives = len(labels) - hazards
    print(f"## cases: {len(labels)} ({hazards} with expected lines, {negatives} hard negatives without)")
    print("expected lines per tier: " + ", ".join(f"{t} {n}" for t, n in sorted(tiers.items())))
    by_count = sorted(sources.items(), key=lambda kv: (-kv[1], kv[0]))
    print("cases per source: " + ", ".join(f"{s} {n}" for s, n in by_count))
    print()


def report(title: str, result: dict, seconds: float) -> None:
    print(f"## {title}  (zlint ran {seconds:.1f}s)")
    print(f"precision (lines): {ratio(result['true_lines'], result['finding_lines'])}  [{result['findings']} findings]")
    print(f"recall    (lines): {ratio(result['found_expected'], result['expected'])}")
    for tier in TIERS:
        if result[f"recall_{tier}"][1] or result[f"precision_{tier}"][1]:
            print(
                f"  tier {tier:12s} recall {ratio(*result[f'recall_{tier}'])}"
                f"   precision of findings zlint tiers {tier}: {ratio(*result[f'precision_{tier}'])}"
            )
    print(f"misses ({len(result['misses'])}):")
    for f, line, tier, what in result["misses"]:
        print(f"  {f}:{line} [{tier}] {what[:110]}")
    false_lines = len({(f, line) for f, line, *_ in result["false"]})
    print(f"false findings ({len(result['false'])} findings on {false_lines} lines):")
    for f, line, code, message, tier in result["false"]:
        print(f"  {f}:{line} {code} [{tier}] {message[:110]}")
    print()


def main(argv: list[str] | None = None) -> int:
    """Score the current zlint; print the figures, misses and false findings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json-out", type=Path, help="also write the figures as JSON")
    args = parser.parse_args(argv)
    labels = json.loads(LABELS.read_text())
    summary = {}
    describe(labels)
    found, seconds = run_zlint([])
    result = score(labels, found, TIERS)
    report("all default rules vs all expected lines", result, seconds)
    summary["all"] = result
    if has_flag("--target"):
        found, seconds = run_zlint(["--target", "default"])
        result = score(labels, found, ("default",))
        report("--target default vs default-tier lines", result, seconds)
        summary["target_default"] = result
    else:
        print("(this zlint has no --target flag: the default-target run is skipped)")
    if args.json_out:
        args.json_out.write_text(json.dumps(summary, indent=1, default=list) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
