"""Lint the whole real-world corpus with every rule and count internal errors (target: zero).

    python scripts/lint_corpus.py                      # build ./corpus (pinned wheels) if needed, lint it
    python scripts/lint_corpus.py --corpus "$ZLINT_CORPUS" --jobs 2
    python scripts/lint_corpus.py --every 20           # a 1-in-20 slice, for development

The corpus is the Python sources of four pinned model libraries (transformers 5.24.0, timm 1.0.31,
torchvision 0.29.1, diffusers 0.42.1), downloaded with pip, checked against their sha256 and
unpacked under ``corpus/`` (git-ignored), exactly like ``make_corpus.sh`` in the project brief.
``ZLINT_CORPUS`` (or ``--corpus``) points elsewhere (``benchmarks/corpus_paths.py``); a corpus
elsewhere is not built here: build it with ``sh ../shared/corpus/make_corpus.sh DIR``.
Every file is linted with ``--select ALL``; a file zlint cannot lint must be one Python itself
rejects, and an internal error (a rule or the engine failing) is a bug. Exit status 1 on any
internal error or unexpected file error, else 0.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import subprocess
import sys
import time
import zipfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from corpus_paths import CORPUS, require  # noqa: E402

from zlint.core.settings import Settings  # noqa: E402
from zlint.engine.parallel import lint_files  # noqa: E402

WHEELS = {
    "transformers-5.24.0-py3-none-any.whl": "ff5ebedf9359f94bb63772b6380eba6e7104d010cbbb2cb82c788817ea7486f6",
    "timm-1.0.31-py3-none-any.whl": "5bd50f7d0fe6d09bf9285ac2523234a1b7e6bf075c0be3e7aed09139fcb617c7",
    "torchvision-0.29.1-cp311-cp311-manylinux_2_28_x86_64.whl": (
        "2cb678029a5dd45afbbfa662fce49736827d52be33242b5a8a731e0db02ccdf5"
    ),
    "diffusers-0.42.1-py3-none-any.whl": "9154faa704ce00e0b77f568e0d64786064368528aab5fc14eeea92f87d788014",
}
PACKAGES = ("transformers", "timm", "torchvision", "diffusers")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def build_corpus(dest: Path) -> None:
    """Download the pinned wheels (no dependencies), check them, unpack their .py files."""
    wheels = dest / "_wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    for name, digest in WHEELS.items():
        path = wheels / name
        if not path.exists():
            package, version = name.split("-")[:2]
            # torchvision ships binary wheels only: pin the platform so the result is the same anywhere
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                 "--python-version", "3.11", "--platform", "manylinux_2_28_x86_64",
                 "--implementation", "cp", "--abi", "cp311", "-d", str(wheels), f"{package}=={version}"],
                check=True,
            )
        if _sha256(path) != digest:
            raise SystemExit(f"lint_corpus: {path}: sha256 mismatch")
        package = name.split("-")[0]
        with zipfile.ZipFile(path) as archive:
            for member in archive.namelist():
                if member.endswith(".py") and member.split("/")[0] == package:
                    archive.extract(member, dest / package)


def corpus_files(corpus: Path, every: int) -> list[Path]:
    files = sorted(p for package in PACKAGES for p in (corpus / package).rglob("*.py"))
    return files[::every]


def python_rejects(path: Path) -> bool:
    """True when CPython itself cannot compile the file (then a zlint error is expected)."""
    try:
        ast.parse(path.read_bytes())
    except (SyntaxError, ValueError):
        return True
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS,
                        help="corpus directory (default: $ZLINT_CORPUS, else corpus/, built there if missing)")
    parser.add_argument("--every", type=int, default=1, help="lint every Nth file only")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (default: all cores)")
    args = parser.parse_args(argv)

    if args.corpus.absolute() != ROOT / "corpus":
        require(args.corpus, "corpus")  # built by make_corpus.sh, not here
    elif not all((args.corpus / package).is_dir() for package in PACKAGES):
        build_corpus(args.corpus)
    files = corpus_files(args.corpus, args.every)
    settings = Settings(select=("ALL",))
    start = time.perf_counter()
    results = lint_files([(str(path), settings) for path in files], args.jobs)
    seconds = time.perf_counter() - start

    findings = Counter(d.code for r in results for d in r.diagnostics)
    internal, unexpected, expected = [], [], []
    for result in results:
        if result.error is None:
            continue
        if "internal error" in result.error.reason:
            internal.append(result.error)
        elif python_rejects(Path(result.path)):
            expected.append(result.error)
        else:
            unexpected.append(result.error)

    print(f"files linted: {len(results)} in {seconds:.0f} s")
    print(f"findings: {sum(findings.values())} ({', '.join(f'{c} {n}' for c, n in sorted(findings.items()))})")
    print(f"files Python itself rejects (reported as errors, as they should be): {len(expected)}")
    print(f"unexpected file errors: {len(unexpected)}")
    print(f"internal errors: {len(internal)}")
    for error in [*internal, *unexpected]:
        print(f"  {error}")
    return 1 if internal or unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
