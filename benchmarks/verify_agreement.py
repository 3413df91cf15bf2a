"""How often `zlint --verify` agrees with the torch-made labels of the held-out accuracy cases.

Usage: python benchmarks/verify_agreement.py [CASE_FILE_NAME ...] [--jobs N] [--keep DIR]

Copies `benchmarks/accuracy/cases/` (unchanged) into a temporary project whose
`zlint_examples.py` registers each case's `CASE` dict (`entry` builds the module whose `forward`
is verified, `make_inputs(n)` its arguments, `sizes` the sweep), runs
`zlint --verify --format json` once over it, and compares every static finding's verdict with
`labels.json`: CONFIRMED on a labelled line agrees, NOT OBSERVED or GUARDED on an unlabelled line
agrees, the opposite disagrees; UNVERIFIABLE and unverified findings are counted apart. A finding in
a helper of the case is verified as `--verify` does it, through the registered `forward` that calls
it. Needs torch.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "benchmarks" / "accuracy" / "cases"
LABELS = ROOT / "benchmarks" / "accuracy" / "labels.json"

#: registers every copied case; a case whose module fails to import or build is left unregistered
EXAMPLES_FILE = '''"""Registers each accuracy case's CASE dict for `zlint --verify` (written by verify_agreement.py)."""
import importlib
import sys

from zlint.verify import example

for name in {names!r}:
    try:
        case = importlib.import_module(name).CASE
        example(type(case["entry"]()).forward, case["make_inputs"], factory=case["entry"], sizes=case.get("sizes"))
    except Exception as error:  # reported, and that case's findings show as unregistered
        print(f"verify_agreement: cannot register {{name}}: {{error!r}}", file=sys.stderr)
'''

AGREE_CONFIRMED, AGREE_CLEAN = "agree (CONFIRMED, labelled)", "agree (not confirmed, unlabelled)"
MISSED, FALSE = "disagree (not confirmed, labelled)", "disagree (CONFIRMED, unlabelled)"


def verdict_of(finding: dict) -> str | None:
    """The verify status of a finding, or None when --verify left it alone."""
    verify = finding.get("verify")
    return verify.get("status") if isinstance(verify, dict) else None


def classify(status: str | None, labelled: bool) -> str:
    """Agreement class of one static finding."""
    if status is None:
        return "not verified"
    if status == "UNVERIFIABLE":
        return "UNVERIFIABLE"
    confirmed = status == "CONFIRMED"
    if confirmed:
        return AGREE_CONFIRMED if labelled else FALSE
    return MISSED if labelled else AGREE_CLEAN


def run(names: list[str], jobs: int, keep: str | None) -> list[dict]:
    """Run zlint --verify over copies of the named cases; returns the JSON findings."""
    workdir = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="zlint-agreement-"))
    workdir.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(CASES / name, workdir / name)
    (workdir / "pyproject.toml").write_text("[tool.zlint]\n", encoding="utf-8")  # the project root
    modules = [Path(n).stem for n in names]
    (workdir / "zlint_examples.py").write_text(EXAMPLES_FILE.format(names=modules), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{workdir}"}
    command = [sys.executable, "-m", "zlint", "--verify", "--format", "json", "--jobs", str(jobs), *names]
    done = subprocess.run(command, cwd=workdir, env=env, capture_output=True, text=True)
    if done.stderr.strip():
        print(done.stderr.strip(), file=sys.stderr)
    try:
        return json.loads(done.stdout)
    finally:
        if not keep:
            shutil.rmtree(workdir, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("cases", nargs="*", help="case file names (default: all)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--keep", help="work in this directory and keep it")
    args = parser.parse_args()
    labels = json.loads(LABELS.read_text(encoding="utf-8"))
    names = args.cases or sorted(labels)
    findings = run(names, args.jobs, args.keep)
    counts: Counter[str] = Counter()
    runtime: Counter[str] = Counter()
    notes = []
    for finding in sorted(findings, key=lambda f: (f["filename"], f["location"]["row"], f["code"])):
        name, line = Path(finding["filename"]).name, finding["location"]["row"]
        labelled = any(entry["line"] == line for entry in labels.get(name, []))
        where = f"{name}:{line} {finding['code']}"
        if finding["code"].startswith("ZL8"):  # runtime-only: not a static finding
            runtime["on a labelled line" if labelled else "on an unlabelled line"] += 1
            print(f"  runtime-only {where} ({'labelled' if labelled else 'unlabelled'})")
            continue
        status = verdict_of(finding)
        kind = classify(status, labelled)
        counts[kind] += 1
        if kind.startswith("disagree") or kind in ("UNVERIFIABLE", "not verified"):
            reason = (finding.get("verify") or {}).get("reason") or (finding.get("verify") or {}).get("cost") or ""
            notes.append(f"  {kind}: {where} {status or '-'} {reason}".rstrip())
    print("\n".join(notes))
    agree = counts[AGREE_CONFIRMED] + counts[AGREE_CLEAN]
    decided = agree + counts[MISSED] + counts[FALSE]
    for kind in (AGREE_CONFIRMED, AGREE_CLEAN, MISSED, FALSE, "UNVERIFIABLE", "not verified"):
        print(f"{kind}: {counts[kind]}")
    print(f"runtime-only findings: {dict(runtime)}")
    print(f"agreement: {agree}/{decided} = {agree / decided if decided else 0:.3f} "
          f"(static findings {sum(counts.values())}, cases {len(names)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
