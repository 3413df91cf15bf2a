"""Checks of the language server's re-lint (:mod:`zlint.engine.incremental`) on a real tree.

    python benchmarks/incremental.py contexts TREE [--every N]
    python benchmarks/incremental.py edits TREE [--every N] [--edits K] [--select ALL]

``contexts``: for every candidate function of every N-th file, the text reduced to that
candidate and its context alone finds exactly the candidate's findings of the whole plan (and
the text reduced to the module-level code alone, the module-level findings): what makes a
candidate's findings a function of its key. ``edits``: after each of K seeded random edits per
file, a lint with the memo of the edits before equals a lint without one. Both print what they
checked and exit 1 on a difference, which they print.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from lsprotocol import types  # noqa: E402

from lsp_support import apply_edits, random_edit  # noqa: E402
from zlint.candidates import stage  # noqa: E402
from zlint.candidates.gates import gate_of  # noqa: E402
from zlint.core import registry  # noqa: E402
from zlint.core.settings import Settings  # noqa: E402
from zlint.core.source import SourceError, parse_source  # noqa: E402
from zlint.engine import prepass  # noqa: E402
from zlint.engine.incremental import Memo  # noqa: E402
from zlint.engine.lint import _parse_and_run, lint_parsed  # noqa: E402
from zlint.rules import visitors  # noqa: E402


def _shown(diagnostics) -> list[tuple]:
    return sorted((d.line, d.column, d.code, d.message, d.end_line, d.end_column) for d in diagnostics)


def contexts(files: list[Path], settings: Settings) -> int:
    checked = bad = 0
    for path in files:
        try:
            parsed = parse_source(path.read_bytes(), str(path))
        except SourceError:
            continue
        codes = settings.enabled_codes(str(path))
        gates = [gate_of(r.code) for r in registry.static_records(codes)]
        gates = list(prepass.relevant_rules(parsed.text, parsed.tree, gates, settings))
        found = stage.split(parsed.text, parsed.tree, gates, settings) if gates else None
        if not isinstance(found, stage.Split):
            continue
        rules = visitors([g.code for g in gates])
        whole = _parse_and_run(found.reduced(found.context(found.candidates)), str(path), rules, settings)
        if not isinstance(whole, list):
            continue
        spans = [(u.first_line, u.last_line) for u in found.units]
        pieces = [(u.node.name, [u], lambda d, u=u: u.first_line <= d.line <= u.last_line) for u in found.candidates]
        pieces.append(("<module>", [], lambda d, spans=spans: not any(a <= d.line <= b for a, b in spans)))
        for name, group, holds in pieces:
            alone = _parse_and_run(found.reduced(found.context(group)), str(path), rules, settings)
            checked += 1
            if not isinstance(alone, list) or _shown(filter(holds, alone)) != _shown(filter(holds, whole)):
                bad += 1
                print(f"DIFFERENT {path} {name}")
    print(f"{checked} pieces checked, {bad} different")
    return 1 if bad else 0


def edits(files: list[Path], settings: Settings, count: int) -> int:
    rng = random.Random(7)
    compared = bad = linted = reused = 0
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        memo = Memo()
        for k in range(count + 1):
            if k:
                where, new = random_edit(rng, text)
                text = apply_edits(text, [types.TextEdit(range=where, new_text=new)])
            try:
                parsed = parse_source(text, str(path))
            except SourceError:
                continue
            with_memo = lint_parsed(parsed, str(path), settings, memo=memo)
            plain = lint_parsed(parsed, str(path), settings)
            compared, linted, reused = compared + 1, linted + memo.linted, reused + memo.reused
            if (with_memo.error, _shown(with_memo.diagnostics)) != (plain.error, _shown(plain.diagnostics)):
                bad += 1
                print(f"DIFFERENT {path} after edit {k}")
    print(f"{compared} states compared, {bad} different; pieces linted {linted}, reused {reused}")
    return 1 if bad else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("check", choices=("contexts", "edits"))
    parser.add_argument("tree", type=Path)
    parser.add_argument("--every", type=int, default=10, help="every N-th .py file, sorted")
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--select", default=None, help="comma-separated selectors (default: the default rules)")
    args = parser.parse_args()
    settings = Settings(select=tuple(args.select.split(","))) if args.select else Settings()
    files = sorted(args.tree.rglob("*.py"))[:: args.every]
    return contexts(files, settings) if args.check == "contexts" else edits(files, settings, args.edits)


if __name__ == "__main__":
    sys.exit(main())
