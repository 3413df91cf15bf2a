"""Draw a fixed-seed random sample of zlint's default-rule findings on the pinned corpus for
hand judging.

Lints ``$ZLINT_CORPUS/{transformers,timm,torchvision,diffusers}`` (or every N-th ``.py`` file of
them, sorted, with ``--every N``) with ``zlint --format json`` and the default rules, sorts the
findings, draws ``--n`` of them with ``random.Random(seed)``, and writes a Markdown review file:
a table with an empty verdict column (true/false + why, filled in by hand) and, per finding, the
message and ~8 lines of context.

Usage (from the repository root)::

    python benchmarks/accuracy/sample_corpus.py                 # full corpus, N=100, seed 12
    python benchmarks/accuracy/sample_corpus.py --every 20      # a slice, for a quick test
    python benchmarks/accuracy/sample_corpus.py --scope all     # also findings in never-compiled code
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))
from corpus_paths import CORPUS, require  # noqa: E402

PACKAGES = ("transformers", "timm", "torchvision", "diffusers")


def corpus_files(corpus: Path, every: int) -> list[Path]:
    """Every ``every``-th ``.py`` file of the four packages, in sorted order."""
    files = sorted(p for pkg in PACKAGES for p in (corpus / pkg).rglob("*.py"))
    return files[::every]


def lint(paths: list[Path], jobs: int, extra: list[str]) -> list[dict]:
    """zlint's JSON findings for ``paths`` (default rules)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmd = [sys.executable, "-m", "zlint", "--format", "json", "--no-cache", "--exit-zero", "--jobs", str(jobs), *extra]
    proc = subprocess.run(cmd + [str(p) for p in paths], capture_output=True, text=True, env=env, cwd=ROOT)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"zlint failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(proc.stdout or "[]")


def context(path: str, line: int, radius: int = 4) -> str:
    """The lines around ``line`` (1-based), the finding's line marked with ``>``."""
    try:
        rows = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return "(file not readable)"
    lo, hi = max(1, line - radius), min(len(rows), line + radius)
    return "\n".join(f"{'>' if n == line else ' '}{n:5d}  {rows[n - 1]}" for n in range(lo, hi + 1))


def short(path: str, corpus: Path) -> str:
    try:
        return str(Path(path).relative_to(corpus))
    except ValueError:
        return path


def write_review(sample: list[dict], out: Path, corpus: Path, header: str) -> None:
    """The review file: a verdict table to fill in, then each finding with its context."""
    lines = [
        "# Corpus sample of default-rule findings (to be judged by hand)",
        "",
        header,
        "",
        "Verdict: `true` (dynamo really guards, recompiles, breaks or errors here in code that",
        "runs compiled, at the cost the message states) or `false`; say why in a few words.",
        "",
        "| # | finding | code | tier | scope | verdict | why |",
        "|---|---|---|---|---|---|---|",
    ]
    for k, item in enumerate(sample, 1):
        where = f"{short(item['filename'], corpus)}:{item['location']['row']}"
        lines.append(f"| {k} | `{where}` | {item['code']} | {item.get('tier', '')} | {item.get('scope', '')} |  |  |")
    lines.append("")
    for k, item in enumerate(sample, 1):
        row = item["location"]["row"]
        lines += [
            f"## {k}. `{short(item['filename'], corpus)}:{row}` {item['code']} "
            f"in `{item.get('function') or '<module>'}`",
            "",
            f"> {item['message']}",
            "",
            "```python",
            context(item["filename"], row),
            "```",
            "",
        ]
    out.write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    """Lint the corpus (or a slice), draw the sample, write the review file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the pinned corpus (default: $ZLINT_CORPUS)")
    parser.add_argument("--every", type=int, default=1, help="lint every N-th file only")
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--jobs", type=int, default=2)
    default_out = HERE / "corpus_sample.md"
    parser.add_argument("--out", type=Path, default=default_out)
    parser.add_argument("--scope", choices=("default", "all"), help="pass --scope to zlint (default: zlint's own)")
    args = parser.parse_args(argv)
    files = corpus_files(require(args.corpus, "corpus"), args.every)
    started = time.monotonic()
    findings = lint(files, args.jobs, ["--scope", args.scope] if args.scope else [])
    seconds = time.monotonic() - started
    findings.sort(key=lambda f: (f["filename"], f["location"]["row"], f["location"]["column"], f["code"]))
    sample = random.Random(args.seed).sample(findings, min(args.n, len(findings)))
    git = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    commit = git.stdout.strip()
    out_name = short(str(args.out.resolve()), ROOT)
    where = "$ZLINT_CORPUS" if args.corpus == CORPUS else args.corpus
    header = (
        f"zlint commit `{commit}`; {len(files)} files (every {args.every}-th of {', '.join(PACKAGES)} under "
        f"`{where}`); {len(findings)} findings of the default rules in {seconds:.0f}s; sample of "
        f"{len(sample)} drawn with `random.Random({args.seed}).sample` from the findings sorted by file, "
        f"line, column, code. Command: `python benchmarks/accuracy/sample_corpus.py --every {args.every} "
        f"--n {args.n} --seed {args.seed} --jobs {args.jobs}{' --scope ' + args.scope if args.scope else ''}"
        f"{'' if args.out.resolve() == default_out else ' --out ' + out_name}`."
    )
    write_review(sample, args.out, args.corpus, header)
    print(f"{len(files)} files, {len(findings)} findings, {len(sample)} sampled -> {args.out} ({seconds:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
