"""How many static findings `zlint --verify` brings to a verdict on real model files, unregistered.

Usage: python benchmarks/verify_real.py [--before CHECKOUT] [--files N] [--timeout S] [--extra]
Run it with an interpreter that has torch 2.13, timm, transformers and diffusers installed (the
`.venv-real` of benchmarks/README.md). Each file below is taken from that interpreter's
site-packages and checked with `python -m zlint --verify --format json FILE`, with zlint from this
checkout and, with `--before`, from another checkout too (`git worktree add /tmp/before HEAD~3`),
the two runs of a file back to back so that both see the same load. Printed per checkout: static
findings, how many got a verdict (CONFIRMED, GUARDED, NOT OBSERVED), UNVERIFIABLE by cause,
runtime-only findings (ZL8xx), and wall seconds per static finding.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import sysconfig
import time
from collections import Counter
from pathlib import Path

#: files under site-packages: layers and models from timm, transformers and diffusers
FILES = [
    "timm/layers/drop.py",
    "timm/layers/pos_embed.py",
    "timm/layers/non_local_attn.py",
    "timm/models/crossvit.py",
    "timm/models/mobilevit.py",
    "transformers/models/wav2vec2/modeling_wav2vec2.py",
    "diffusers/models/embeddings.py",
    "diffusers/models/upsampling.py",
]

#: more files, measured with --extra (a sample with verdicts of each kind for the repros)
EXTRA_FILES = [
    "diffusers/models/downsampling.py",
    "transformers/models/vit/modeling_vit.py",
    "transformers/models/whisper/modeling_whisper.py",
    "timm/layers/pos_embed_sincos.py",
]

#: UNVERIFIABLE reasons, grouped by what a user would have to do about them (first match wins)
_CAUSES = [
    ("eager fails", r"eager failed|fails eagerly"),
    ("module not built", r"cannot build|register an example with a factory"),
    ("no tensor input", r"no tensor argument|takes \*|no inputs for the caller"),
    ("earlier graph break", r"earlier graph break"),
    ("masked", r"^masked"),
    ("threshold not swept", r"threshold|may never (flip|cross)"),
    ("mode not run / compile failed", r"mode not run|compiling failed"),
    ("not reached", r"not reached|outside the verified function|do not drive directly"),
    ("timeout / memory / crash", r"timed out|timeout|out of memory|crash|died|signal"),
    ("call site / setup", r"call-site|call site|module-level"),
    ("import", r"import|not defined after|not a class|nested functions"),
]


def cause_of(reason: str) -> str:
    for cause, pattern in _CAUSES:
        if re.search(pattern, reason, re.IGNORECASE):
            return cause
    return "other"


def run_one(checkout: Path, path: Path, timeout: float) -> tuple[list[dict], float, str]:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "zlint", "--verify", "--format", "json", "--no-cache",
         "--verify-timeout", str(timeout), str(path)],
        capture_output=True, text=True, env=env, cwd=checkout,
    )
    elapsed = time.perf_counter() - start
    error = "" if proc.returncode in (0, 1) else (proc.stderr.strip().splitlines() or ["no output"])[-1]
    try:
        return json.loads(proc.stdout or "[]"), elapsed, error
    except json.JSONDecodeError:
        return [], elapsed, error or "no JSON on stdout"


def summarize(results: list[tuple[str, list[dict], float, str]]) -> dict:
    static, verdicts, runtime, seconds = 0, Counter(), 0, 0.0
    causes: Counter = Counter()
    errors = []
    for name, found, elapsed, error in results:
        seconds += elapsed
        if error:
            errors.append(f"{name}: {error}")
        for d in found:
            if d["code"].startswith("ZL8"):
                runtime += 1
                continue
            static += 1
            verify = d.get("verify") or {}
            status = verify.get("status", "none")
            if status == "UNVERIFIABLE":
                causes[cause_of(verify.get("reason", ""))] += 1
            else:
                verdicts[status] += 1
    decided = sum(verdicts.values())
    return {
        "static": static, "verdicts": dict(verdicts), "decided": decided,
        "share": decided / static if static else 0.0, "unverifiable": dict(causes.most_common()),
        "runtime_only": runtime, "seconds": seconds, "per_finding": seconds / static if static else 0.0,
        "errors": errors,
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, help="another zlint checkout to measure side by side")
    parser.add_argument("--only-before", action="store_true", help="measure only the --before checkout")
    parser.add_argument("--files", type=int, default=len(FILES), help="only the first N files")
    parser.add_argument("--timeout", type=float, default=120.0, help="--verify-timeout per function")
    parser.add_argument("--json", type=Path, help="also write every file's findings here")
    parser.add_argument("--extra", action="store_true", help="measure EXTRA_FILES instead of FILES")
    args = parser.parse_args()
    site = Path(sysconfig.get_paths()["purelib"])
    checkouts = {"after": Path(__file__).resolve().parents[1]}
    if args.before:
        checkouts = {"before": args.before.resolve(), **({} if args.only_before else checkouts)}
    per_checkout: dict[str, list] = {label: [] for label in checkouts}
    for rel in (EXTRA_FILES if args.extra else FILES)[: args.files]:
        path = site / rel
        if not path.is_file():
            print(f"missing: {path}", file=sys.stderr)
            return 2
        for label, checkout in checkouts.items():
            found, elapsed, error = run_one(checkout, path, args.timeout)
            static = [d for d in found if not d["code"].startswith("ZL8")]
            decided = sum(1 for d in static if (d.get("verify") or {}).get("status") not in (None, "UNVERIFIABLE"))
            print(f"{label:6} {rel}: {len(static)} static, {decided} with a verdict, {elapsed:.0f} s {error}",
                  flush=True)
            per_checkout[label].append((rel, found, elapsed, error))
    print()
    summaries = {label: summarize(results) for label, results in per_checkout.items()}
    for label, s in summaries.items():
        verdicts = ", ".join(f"{k} {v}" for k, v in sorted(s["verdicts"].items())) or "none"
        causes = ", ".join(f"{k} {v}" for k, v in s["unverifiable"].items()) or "none"
        print(f"{label}: {s['static']} static findings, {s['decided']} with a verdict ({s['share']:.2f}: {verdicts})")
        print(f"{label}: UNVERIFIABLE by cause: {causes}")
        print(f"{label}: {s['runtime_only']} runtime-only findings; {s['seconds']:.0f} s, "
              f"{s['per_finding']:.1f} s per static finding")
        for error in s["errors"]:
            print(f"{label}: error: {error}")
    if args.json:
        args.json.write_text(json.dumps(
            {label: [[rel, found] for rel, found, _, _ in results] for label, results in per_checkout.items()},
            indent=1,
        ))
    return 0


if __name__ == "__main__":
    sys.exit(main())
