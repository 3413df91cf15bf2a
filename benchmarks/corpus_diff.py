"""Which findings appear, disappear or move between two whole-package runs of the corpora.

Each run is a directory of ``zlint --format json`` outputs, one ``<package>.json`` per package
(linted from the package's parent directory, so that paths start with the package's name):

    for p in timm/timm torchvision/torchvision; do
        n=$(basename $p)
        (cd "$ZLINT_CORPUS/$(dirname $p)" && zlint --no-cache --format json $n > /tmp/after/$n.json)
    done
    python benchmarks/corpus_diff.py /tmp/before /tmp/after            # a table, then every change
    python benchmarks/corpus_diff.py /tmp/before /tmp/after --json     # the same, as data

A finding is its file, rule, line, column and message. One that disappears from a line and
reappears in the same file and function with the same rule (a report moved to where Python
takes a bool's truth) counts as *moved*, listed with both lines; the rest are *gone* or *new*.
Every change is listed, so that each can be given its reason.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

Key = tuple[str, str, int, int, str]


def findings(run: Path) -> dict[str, dict[Key, dict]]:
    """Per package (the JSON file's stem): each finding by its key."""
    out: dict[str, dict[Key, dict]] = {}
    for path in sorted(run.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8") or "[]")
        except ValueError:
            sys.exit(f"corpus_diff: {path} is not zlint's JSON output")
        out[path.stem] = {
            (f["filename"], f["code"], f["location"]["row"], f["location"]["column"], f["message"]): f for f in data
        }
    return out


def compare(before: dict[Key, dict], after: dict[Key, dict]) -> dict[str, list]:
    gone = [before[k] for k in sorted(before.keys() - after.keys())]
    new = [after[k] for k in sorted(after.keys() - before.keys())]
    moved = []
    for old in list(gone):
        match = next(
            (
                f for f in new
                if f["filename"] == old["filename"] and f["code"] == old["code"]
                and f.get("function") == old.get("function")
            ),
            None,
        )
        if match is not None:
            gone.remove(old)
            new.remove(match)
            moved.append((old, match))
    return {"gone": gone, "new": new, "moved": moved}


def _line(f: dict) -> str:
    return f"{f['filename']}:{f['location']['row']} {f['code']} [{f.get('tier')}] {f['message'][:110]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="directory of <package>.json from the earlier run")
    parser.add_argument("after", type=Path, help="directory of <package>.json from the later run")
    parser.add_argument("--json", action="store_true", help="print the changes as JSON")
    args = parser.parse_args(argv)
    for run in (args.before, args.after):
        if not run.is_dir():
            print(f"corpus_diff: {run} is not a directory of zlint JSON outputs", file=sys.stderr)
            return 2
    before, after = findings(args.before), findings(args.after)
    report = {}
    for package in sorted(before.keys() & after.keys()):
        report[package] = compare(before[package], after[package])
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print("| package | before | after | gone | new | moved |")
    print("|---|---|---|---|---|---|")
    for package, changes in report.items():
        print(
            f"| {package} | {len(before[package])} | {len(after[package])} | {len(changes['gone'])} "
            f"| {len(changes['new'])} | {len(changes['moved'])} |"
        )
    for package, changes in report.items():
        if not any(changes.values()):
            continue
        print(f"\n## {package}")
        by_code = Counter(f["code"] for f in changes["gone"] + changes["new"])
        print("codes: " + ", ".join(f"{code} {n}" for code, n in sorted(by_code.items())))
        for f in changes["gone"]:
            print(f"- gone: {_line(f)}")
        for f in changes["new"]:
            print(f"+ new:  {_line(f)}")
        for old, f in changes["moved"]:
            print(f"~ moved {old['location']['row']} -> {_line(f)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
