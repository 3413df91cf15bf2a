"""Compare zlint's compiled-scope verdicts with the hand-judged ``scope_truth.json``.

zlint reports a ``scope`` on each finding (``compiled``, ``never``, ``unknown``), so a function's
scope is read from its findings: the script lints the files named in the truth table with every
rule (``--select ALL``, and ``--scope all`` when this zlint has it, so that findings in
never-compiled code are not hidden), groups the findings by (file, function) and compares. A
function without any finding is classified directly with zlint's project-wide scope classifier
(``zlint.scope.classify.classify`` over the same files), so all functions are measured;
the table marks those rows ``(classifier)``. ``--markdown`` prints the full table for
``benchmarks/ACCURACY.md``.

Usage (from the repository root)::

    python benchmarks/accuracy/score_scope.py [--corpus "$ZLINT_CORPUS"]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TRUTH = HERE / "scope_truth.json"
sys.path.insert(0, str(HERE.parent))
from corpus_paths import CORPUS, require  # noqa: E402

# scope reasons of regions inside a function: they describe a line, not where the function runs
LINE_REGIONS = ("not evaluated under torch.compile", "branch not taken under torch.compile", "error path")


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


def classifier_scopes(paths: list[Path]) -> dict[tuple[str, str], tuple[str, str]] | None:
    """(path, qualname) -> (scope, reason) from zlint's classifier over ``paths``; None if absent."""
    sys.path.insert(0, str(ROOT))
    try:
        from zlint.scope import classify as project_scope
    except ImportError:
        return None
    trees = {str(p): ast.parse(p.read_text(encoding="utf-8")) for p in paths}
    scopes = project_scope.classify(project_scope.summarize(p, t) for p, t in trees.items())
    out: dict[tuple[str, str], tuple[str, str]] = {}
    for path, tree in trees.items():
        for qual, line in _definitions(tree.body, ""):
            scope, reason = scopes[path].classify(line)
            out[(path, qual)] = (normalise(scope), reason)
    return out


def _definitions(body: list[ast.stmt], prefix: str) -> list[tuple[str, int]]:
    """(qualified name, def line) of the functions and methods in ``body`` (classes nest)."""
    found: list[tuple[str, int]] = []
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append((prefix + node.name, node.lineno))
        elif isinstance(node, ast.ClassDef):
            found += _definitions(node.body, prefix + node.name + ".")
    return found


def main(argv: list[str] | None = None) -> int:
    """Print the agreement of zlint's scope with the truth table, and every disagreement."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the pinned corpus (default: $ZLINT_CORPUS)")
    parser.add_argument("--markdown", action="store_true", help="also print the full table as Markdown")
    args = parser.parse_args(argv)
    require(args.corpus, "corpus")
    truth = json.loads(TRUTH.read_text())["functions"]
    files = sorted({row["path"] for row in truth})
    extra = ["--scope", "all"] if "--scope" in zlint(["--help"]).stdout else []
    paths = [str(args.corpus / f) for f in files]
    proc = zlint(["--format", "json", "--no-cache", "--exit-zero", "--select", "ALL", *extra, *paths])
    if proc.returncode not in (0, 1):
        raise SystemExit(f"zlint failed ({proc.returncode}): {proc.stderr[-2000:]}")
    seen: dict[tuple[str, str], set[str]] = defaultdict(set)
    reasons: dict[tuple[str, str], str] = {}
    for item in json.loads(proc.stdout or "[]"):
        if item.get("scope_reason", "").startswith(LINE_REGIONS):
            continue  # where one line runs (a skipped operand, a dead branch), not the function
        rel = str(Path(item["filename"]).resolve().relative_to(args.corpus.resolve()))
        key = (rel, item.get("function") or "")
        seen[key].add(normalise(item.get("scope", "")))
        reasons.setdefault(key, item.get("scope_reason", ""))
    direct = classifier_scopes([args.corpus / f for f in files]) or {}
    agree, measured, rows, table = 0, 0, [], []
    confusion: dict[tuple[str, str], int] = defaultdict(int)
    for row in truth:
        key = (row["path"], row["function"])
        source = "findings"
        if key not in seen:
            hit = direct.get((str(args.corpus / row["path"]), row["function"]))
            if hit is None:
                rows.append(f"  unmeasured  {row['path']}::{row['function']} (truth {row['scope']}; no scope known)")
                table.append((row, "-", "", False))
                continue
            seen[key], reasons[key], source = {hit[0]}, hit[1], "classifier"
        measured += 1
        got = "/".join(sorted(seen[key]))
        confusion[(row["scope"], got)] += 1
        ok = seen[key] == {row["scope"]}
        agree += ok
        table.append((row, got, source, ok))
        if not ok:
            rows.append(f"  WRONG       {row['path']}::{row['function']}: truth {row['scope']}, zlint {got} "
                        f"({reasons[key]!r}, from {source}); why: {row['why']}")
    print(f"scope flag: {' '.join(extra) or '(none: this zlint has no --scope)'}")
    by_classifier = sum(1 for _, _, source, _ in table if source == "classifier")
    print(f"functions: {len(truth)}, measured: {measured} ({by_classifier} without findings, by the classifier), "
          f"agree: {agree}" + (f" ({agree / measured:.2f})" if measured else ""))
    print("truth -> zlint counts: " + ", ".join(f"{t}->{g}: {n}" for (t, g), n in sorted(confusion.items())))
    for line in rows:
        print(line)
    if args.markdown:
        print("\n| function | truth | zlint | agree |\n|---|---|---|---|")
        for row, got, source, ok in table:
            where = f"`{row['path'].split('/', 1)[1]}::{row['function']}`"
            note = " (no finding; classifier)" if source == "classifier" else ""
            print(f"| {where} | {row['scope']} | {got}{note} | {'yes' if ok else '**no**'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
