"""Where the hand-judged findings of ``corpus_sample.md`` land in zlint's compiled scope now.

Two measurements over the 100 judged findings (file, line, code, verdict):

* ``cli``: ``zlint --format json --scope all --target single-graph`` over exactly the sample's
  files, in one run; each judged finding is matched by (file, line, code) and gets the ``scope``
  zlint reports for it;
* ``packages``: zlint's project-wide classifier (``zlint.scope.classify``, ast only) over the
  whole packages the files belong to (``transformers/transformers``, ``timm/timm``, ...), so that
  imports between files resolve; the scope of a finding is that of its line.

A finding whose scope is ``never`` is hidden by default. The script prints, per measurement, how
many judged findings are hidden, split by verdict, and lists the true findings hidden (a
regression). ``--markdown`` prints tables for ``benchmarks/ACCURACY.md``.

Usage (from the repository root)::

    python benchmarks/accuracy/score_sample_scope.py [--corpus "$ZLINT_CORPUS"] [--markdown]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SAMPLE = HERE / "corpus_sample.md"
ROW = re.compile(r"^\| (\d+) \| `([^`]+):(\d+)` \| (ZL\d+) \| ([\w-]+) \| (\w+) \| (\w+) \| (.*) \|$")
sys.path.insert(0, str(HERE.parent))
from corpus_paths import CORPUS, require  # noqa: E402


def judged() -> list[dict]:
    """The sample's rows: number, file, line, code, scope when sampled, verdict, why."""
    rows = []
    for line in SAMPLE.read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m:
            n, file, lineno, code, _tier, scope, verdict, why = m.groups()
            rows.append(dict(n=int(n), file=file, line=int(lineno), code=code, was=scope, verdict=verdict, why=why))
    return rows


def cli_scopes(corpus: Path, rows: list[dict]) -> dict[tuple[str, int, str], str]:
    files = sorted({r["file"] for r in rows})
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    args = ["--format", "json", "--scope", "all", "--target", "single-graph", "--no-cache", "--exit-zero", *files]
    done = subprocess.run(
        [sys.executable, "-m", "zlint", *args], capture_output=True, text=True, env=env, cwd=corpus
    )
    out: dict[tuple[str, int, str], str] = {}
    for d in json.loads(done.stdout):
        path = d.get("filename") or d.get("path") or d.get("file")
        line = d.get("line") or d.get("location", {}).get("row")
        out[(os.path.relpath(path, corpus) if os.path.isabs(path) else path, line, d["code"])] = d["scope"]
    return out


def package_scopes(corpus: Path, rows: list[dict]) -> dict[tuple[str, int, str], tuple[str, str]]:
    sys.path.insert(0, str(ROOT))
    from zlint.scope.classify import classify
    from zlint.scope.file_summary import summarize

    packages = sorted({"/".join(r["file"].split("/")[:2]) for r in rows})
    summaries = []
    for package in packages:
        for path in sorted((corpus / package).rglob("*.py")):
            try:
                tree = ast.parse(path.read_bytes(), filename=str(path))
            except (SyntaxError, ValueError):
                continue
            summaries.append(summarize(str(path.relative_to(corpus)), tree))
    scopes = classify(summaries)
    return {(r["file"], r["line"], r["code"]): scopes[r["file"]].classify(r["line"]) for r in rows}


def report(name: str, rows: list[dict], scope_of, markdown: bool) -> None:
    counts: Counter = Counter()
    regressions = []
    for r in rows:
        scope = scope_of(r)
        counts[(r["verdict"], scope)] += 1
        if scope == "never" and r["verdict"] == "true":
            regressions.append(r)
    verdicts = sorted({r["verdict"] for r in rows})
    print(f"\n{name}: {len(rows)} judged findings")
    if markdown:
        print("\n| verdict | compiled | unknown | never (hidden) | not found |\n|---|---|---|---|---|")
    for v in verdicts:
        cells = [counts[(v, s)] for s in ("compiled", "unknown", "never", None)]
        print(f"| {v} | " + " | ".join(map(str, cells)) + " |" if markdown else f"  {v}: {cells}")
    for r in regressions:
        print(f"  TRUE FINDING HIDDEN #{r['n']} {r['file']}:{r['line']} {r['code']} ({r['why']})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the pinned corpus (default: $ZLINT_CORPUS)")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--skip-cli", action="store_true", help="only the classifier over whole packages")
    parser.add_argument("--list", action="store_true", help="list every judged finding with its new scope")
    opts = parser.parse_args()
    require(opts.corpus, "corpus")
    rows = judged()
    packages = package_scopes(opts.corpus, rows)
    report("packages (classifier over whole packages)", rows,
           lambda r: packages[(r["file"], r["line"], r["code"])][0], opts.markdown)
    if opts.list:
        for r in rows:
            scope, reason = packages[(r["file"], r["line"], r["code"])]
            where = f"{r['file']}:{r['line']}"
            print(f"  #{r['n']} {r['verdict']:5} {r['was']:8} -> {scope:8} {reason} | {where} | {r['why']}")
    if not opts.skip_cli:
        cli = cli_scopes(opts.corpus, rows)
        report("cli (zlint --scope all over the sample's files)", rows,
               lambda r: cli.get((r["file"], r["line"], r["code"])), opts.markdown)


if __name__ == "__main__":
    main()
