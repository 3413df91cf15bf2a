"""A recall audit: random ``forward`` methods of the pinned corpora, read by hand for hazards before
anyone looks at zlint's output, then scored against zlint's default output.

``draw`` picks ``--count`` forwards of one corpus, stratified by package (``forward`` methods of
classes, in files that are neither tests nor templates another file was generated from), with
``random.Random(seed)``, and writes an audit file: one section per forward, where the auditor lists
every hazard in the forward and in the functions of the package it calls, as lines of the form

    - hazard: `PATH:LINE` | default | what dynamo does there (repro or reading)

(tier ``default``: costs with plain ``torch.compile``; ``single-graph``: only under
``mark_unbacked`` / ``backed_size_oblivious``), or ``- none`` when the forward has none. ``PATH`` is
relative to the code base's directory in its corpus (``$ZLINT_CORPUS/timm``: ``timm/layers/drop.py``).

``score`` lints each package of the audit whole (``zlint --format json``, default settings, as
a user runs it) and counts a hazard as found when a finding of the default output sits on its
line: recall overall, per tier and per package, and every miss.

    python benchmarks/accuracy/recall_audit.py draw --corpus pinned --count 30 --seed 1 \\
        --out benchmarks/accuracy/recall_audit_pinned.md
    python benchmarks/accuracy/recall_audit.py score benchmarks/accuracy/recall_audit_pinned.md
"""

from __future__ import annotations

import argparse
import ast
import random
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from sample_corpus import lint  # noqa: E402
from sample_packages import PACKAGES  # noqa: E402

sys.path.insert(0, str(HERE.parent))
from corpus_paths import CORPUS, CORPUS2, require  # noqa: E402

CORPORA = {
    "pinned": ("transformers", "timm", "torchvision", "diffusers"),
    "second": (
        "x_transformers", "vector_quantize_pytorch", "segmentation_models_pytorch", "speechbrain",
        "sentence_transformers", "peft", "e3nn",
    ),
}
_HAZARD = re.compile(r"^- hazard: `(?P<path>[^`:]+):(?P<line>\d+)` \| (?P<tier>default|single-graph) \|")
_TEST_FILE = re.compile(r"(^test_|_test\.py$|^conftest\.py$)")


def base(name: str) -> Path:
    """The directory of code base ``name`` in its corpus (checked to exist): an audit's paths are
    relative to it, so ``timm/layers/drop.py`` is ``$ZLINT_CORPUS/timm/timm/layers/drop.py``."""
    corpus, what = (CORPUS, "corpus") if name in CORPORA["pinned"] else (CORPUS2, "corpus2")
    return require(corpus, what) / name


def forwards(root: Path) -> list[tuple[str, int, str]]:
    """(path, line, class) of every ``forward`` method under ``root``, sorted."""
    from zlint.scope.file_summary import generated_from  # the checkout's own zlint

    files = sorted(p for p in root.rglob("*.py") if not _TEST_FILE.search(p.name) and "tests" not in p.parts)
    templates = set()
    texts = {}
    for path in files:
        texts[path] = path.read_text(encoding="utf-8", errors="replace")
        named = generated_from(texts[path])
        if named:
            templates.add(path.parent / Path(named).name)
    out = []
    for path in files:
        if path in templates:
            continue
        try:
            tree = ast.parse(texts[path])
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "forward":
                        out.append((str(path), item.lineno, node.name))
    return out


def draw(corpus: str, count: int, seed: int, out: Path) -> None:
    names = CORPORA[corpus]
    share = {name: count // len(names) + (i < count % len(names)) for i, name in enumerate(names)}
    lines = [
        f"# Recall audit, {corpus} corpus: {count} random forwards (seed {seed})",
        "",
        f"Drawn with `python benchmarks/accuracy/recall_audit.py draw --corpus {corpus} --count {count} "
        f"--seed {seed}`, stratified by package ({', '.join(f'{n} {k}' for n, k in share.items())}).",
        "",
        "Read each forward and the functions of its package it calls (in the default configuration of",
        "its module) **before looking at any zlint output**, and list every line where `torch.compile`",
        "guards on a size that varies in normal use and so recompiles, specializes (a loop over a size,",
        "a size used as a Python value), graph-breaks or errors, as",
        "`- hazard: `PATH:LINE` | default | what dynamo does (repro or reading)`; tier `single-graph`",
        "for what costs only under `mark_unbacked` / `backed_size_oblivious` on a dim that varies",
        "(0/1 tests, raise-only validations). Write `- none` for a forward with no hazard. Compile a",
        "repro (torch 2.13, CompileCounter) for every doubtful line.",
        "",
    ]
    for name in names:
        where = base(name)
        found = forwards(PACKAGES[name])
        for index, (path, line, cls) in enumerate(random.Random(f"{seed}:{name}").sample(found, share[name]), 1):
            lines += [f"## {name} {index}: `{Path(path).relative_to(where)}:{line}` `{cls}.forward`", "", ""]
    out.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {out}", file=sys.stderr)


def hazards(audit: Path) -> list[tuple[str, str, int, str]]:
    """(package, path, line, tier) of every hazard the audit lists."""
    out = []
    package = None
    for text in audit.read_text(encoding="utf-8").splitlines():
        if text.startswith("## "):
            package = text.split()[1]
        found = _HAZARD.match(text.strip())
        if found and package:
            out.append((package, found["path"], int(found["line"]), found["tier"]))
    return out


def score(audit: Path, jobs: int) -> None:
    listed = hazards(audit)
    packages = sorted({p for p, *_ in listed})
    bases = {name: base(name) for name in packages}
    lines = set()
    for name in packages:
        for f in lint([PACKAGES[name]], jobs, []):
            lines.add((str(Path(f["filename"]).resolve()), f["location"]["row"]))
    found = Counter()
    total = Counter()
    misses = []
    for package, path, line, tier in listed:
        hit = (str((bases[package] / path).resolve()), line) in lines
        for key in ("all", tier, package):
            total[key] += 1
            found[key] += hit
        if not hit:
            misses.append(f"  {path}:{line} [{tier}]")
    for key in ("all", "default", "single-graph", *packages):
        if total[key]:
            print(f"{key}: {found[key]}/{total[key]} ({found[key] / total[key]:.2f})")
    print(f"misses ({len(misses)}):", *misses, sep="\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    drawing = sub.add_parser("draw")
    drawing.add_argument("--corpus", choices=sorted(CORPORA), required=True)
    drawing.add_argument("--count", type=int, default=30)
    drawing.add_argument("--seed", type=int, default=1)
    drawing.add_argument("--out", type=Path, required=True)
    scoring = sub.add_parser("score")
    scoring.add_argument("audit", type=Path)
    scoring.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    if args.command == "draw":
        draw(args.corpus, args.count, args.seed, args.out)
    else:
        score(args.audit, args.jobs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
