"""Draw a sample of default findings stratified by package, from whole-package runs of both pinned
corpora, for judging by hand.

Each package is linted on its own, whole (``zlint --format json`` with the default rules and
scope, as a user runs it on their package): transformers, timm, torchvision and diffusers from
``$ZLINT_CORPUS`` (``../shared/corpus/make_corpus.sh``) and the seven code bases of
``$ZLINT_CORPUS2`` (``make_corpus2.sh``). From each package's findings, sorted, ``--per-package``
are drawn with ``random.Random(seed)`` (all of them when it has fewer), and the review file has a
verdict table and each finding with its context (``sample_corpus.write_review``).

    python benchmarks/accuracy/sample_packages.py --per-package 10 --seed 26 \
        --out benchmarks/accuracy/packages_sample.md
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from sample_corpus import ROOT, lint, write_review  # noqa: E402

sys.path.insert(0, str(HERE.parent))
from corpus_paths import CORPUS, CORPUS2, require  # noqa: E402

PACKAGES = {
    "transformers": CORPUS / "transformers/transformers",
    "timm": CORPUS / "timm/timm",
    "torchvision": CORPUS / "torchvision/torchvision",
    "diffusers": CORPUS / "diffusers/diffusers",
    "x_transformers": CORPUS2 / "x_transformers",
    "vector_quantize_pytorch": CORPUS2 / "vector_quantize_pytorch",
    "segmentation_models_pytorch": CORPUS2 / "segmentation_models_pytorch",
    "speechbrain": CORPUS2 / "speechbrain",
    "sentence_transformers": CORPUS2 / "sentence_transformers",
    "peft": CORPUS2 / "peft",
    "e3nn": CORPUS2 / "e3nn",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-package", type=int, default=10)
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=HERE / "packages_sample.md")
    args = parser.parse_args(argv)
    require(CORPUS, "corpus")
    require(CORPUS2, "corpus2")
    sample: list[dict] = []
    counts = []
    started = time.monotonic()
    for name, root in PACKAGES.items():
        findings = lint([root], args.jobs, [])
        findings.sort(key=lambda f: (f["filename"], f["location"]["row"], f["location"]["column"], f["code"]))
        drawn = random.Random(f"{args.seed}:{name}").sample(findings, min(args.per_package, len(findings)))
        counts.append(f"{name} {len(drawn)}/{len(findings)}")
        sample += drawn
        print(f"{name}: {len(findings)} findings, {len(drawn)} drawn", file=sys.stderr)
    seconds = time.monotonic() - started
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    header = (
        f"zlint commit `{commit.stdout.strip()}`; whole-package runs with the default rules and scope; "
        f"drawn per package with `random.Random('{args.seed}:<package>')` from its sorted findings "
        f"(drawn/found): {'; '.join(counts)}; {seconds:.0f}s. Command: `python "
        f"benchmarks/accuracy/sample_packages.py --per-package {args.per_package} --seed {args.seed}`."
    )
    # files named from the corpora's common parent (``corpus/timm/timm/...``, ``corpus2/peft/peft/...``)
    write_review(sample, args.out, Path(os.path.commonpath([CORPUS.absolute(), CORPUS2.absolute()])), header)
    print(f"{len(sample)} sampled -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
