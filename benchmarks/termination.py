"""Whole-package runs end, and how long the slowest file takes: the evidence behind the default
``file-time-budget`` (zlint/core/settings.py) and the walks that end by construction
(zlint/core/walks.py).

For each code base given, every ``.py`` file is linted as one run (one project index, the whole
package held), in this process and one file at a time, timing what the time budget covers per
file (decode, parse, project-index summary, lint) and, apart, the project-wide step (classifying
the index). Prints a Markdown table: files, the run's seconds, the project step's seconds, the
slowest file and its seconds, and the files past the budget.

    python benchmarks/termination.py CORPUS_DIR/transformers CORPUS_DIR/timm ...
    python benchmarks/termination.py --transformers 4.48.0 --transformers 4.53.0   # older releases

``--transformers VERSION`` downloads that release's wheel (no dependencies) into
``benchmarks/corpus/`` (git-ignored) and unpacks its sources there; older releases carry more of
the generated "modular" files whose self-named subclasses once made zlint loop.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

from zlint.core.settings import Settings
from zlint.core.source import FileResult, read_source
from zlint.engine.discovery import whole_packages
from zlint.engine.lint import preload
from zlint.engine.parallel import FileTask, run_file_task
from zlint.scope.index import PendingIndex

HERE = Path(__file__).resolve().parent


def unpacked_transformers(version: str) -> Path:
    """The sources of ``transformers==version``, downloaded and unpacked once."""
    dest = HERE / "corpus" / f"transformers-{version}"
    if (dest / "transformers").is_dir():
        return dest / "transformers"
    wheels = HERE / "corpus" / "_wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", str(wheels),
         f"transformers=={version}"],
        check=True, stdout=subprocess.DEVNULL,
    )
    (wheel,) = wheels.glob(f"transformers-{version}-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if name.endswith(".py") and name.split("/")[0] == "transformers":
                archive.extract(name, dest)
    return dest / "transformers"


def measure(root: Path, settings: Settings) -> dict:
    """One run over every file below ``root``, timed per file and for the project step."""
    paths = sorted(str(p) for p in root.rglob("*.py"))
    preload(settings.base_codes())  # LibCST and the rules: loaded once, not charged to the first file
    start = time.perf_counter()
    files = [(path, data) for path in paths if not isinstance(data := read_source(path), FileResult)]
    pending = PendingIndex(files, None, whole_packages([str(root)], paths))
    per_file: list[tuple[float, str]] = []
    summaries = {}
    errors = []
    for index, (path, data) in enumerate(files):
        began = time.perf_counter()
        _, summary, result = run_file_task(FileTask(index, path, data, settings, True, settings.file_time_budget))
        per_file.append((time.perf_counter() - began, path))
        summaries[path] = summary
        if result is not None and result.error is not None:
            errors.append(result.error)
    began = time.perf_counter()
    pending.finish(summaries)
    project = time.perf_counter() - began
    per_file.sort(reverse=True)
    return {
        "root": root, "files": len(files), "seconds": time.perf_counter() - start, "project": project,
        "slowest": per_file[:3], "over_budget": [e for e in errors if "time budget" in e.reason],
        "errors": errors,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="*", type=Path, help="code bases to lint whole, one run each")
    parser.add_argument("--transformers", action="append", default=[], metavar="VERSION",
                        help="also an older transformers release, downloaded (repeatable)")
    parser.add_argument("--budget", type=float, default=Settings().file_time_budget,
                        help="file-time-budget for the runs (default: zlint's)")
    args = parser.parse_args(argv)
    roots = [*args.roots, *(unpacked_transformers(v) for v in args.transformers)]
    settings = Settings(file_time_budget=args.budget)
    print(f"zlint {_version()}, file-time-budget {args.budget:g} s, one process, {os.cpu_count()} cores\n")
    print("| code base | files | run (s) | project step (s) | slowest file | its seconds | past the budget |")
    print("|---|---:|---:|---:|---|---:|---:|")
    for root in roots:
        found = measure(root, settings)
        seconds, path = found["slowest"][0] if found["slowest"] else (0.0, "-")
        shown = os.path.relpath(path, root.parent) if path != "-" else path
        print(
            f"| {root.parent.name}/{root.name} | {found['files']} | {found['seconds']:.1f} | {found['project']:.1f} "
            f"| `{shown}` | {seconds:.2f} | {len(found['over_budget'])} |",
            flush=True,
        )
    return 0


def _version() -> str:
    from zlint import __version__

    return __version__


if __name__ == "__main__":
    sys.exit(main())
