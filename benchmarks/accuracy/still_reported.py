"""Which findings of a judged corpus sample the current zlint still reports, and the precision of
those: after a change that only hides or drops findings, the sample restricted to them is a
uniform sample of the new population. It lints the same files as the draw (the ``every N-th``
of its header), so that what other files of the run say (callers, compiled scope) counts as it did.

    python benchmarks/accuracy/still_reported.py benchmarks/accuracy/corpus_sample_round3.md
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

from sample_corpus import corpus_files

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from corpus_paths import CORPUS, require  # noqa: E402

EVERY = re.compile(r"(\d+) files \(every (\d+)-th")
ROW = re.compile(r"\| (\d+) \| `([^`]+):(\d+)` \| (\w+) \| [\w-]+ \| \w+ \| (\w+) \| (.*) \|\s*$")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sample", type=Path, help="a judged corpus sample (benchmarks/accuracy/corpus_sample*.md)")
    args = parser.parse_args(argv)
    rows = {}
    text = args.sample.read_text()
    every = EVERY.search(text)
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            rows[int(m[1])] = ((m[2], int(m[3]), m[4]), m[5], m[6])
    require(CORPUS, "corpus")
    if every:
        files = [str(p.relative_to(CORPUS)) for p in corpus_files(CORPUS, int(every[2]))]
        if len(files) != int(every[1]):
            print(f"the corpus has changed: {len(files)} files, the draw had {every[1]}", file=sys.stderr)
            return 2
    else:  # an older sample without the header: its own files only
        files = sorted({key[0] for key, _, _ in rows.values()})
    command = [sys.executable, "-m", "zlint", "--format", "json", "--no-cache", "--exit-zero", "--jobs", "2", *files]
    proc = subprocess.run(command, cwd=CORPUS, capture_output=True, text=True, check=False)
    found = {(d["filename"], d["location"]["row"], d["code"]) for d in json.loads(proc.stdout)}
    kept = [n for n, (key, _, _) in rows.items() if key in found]
    true = sum(rows[n][1] == "true" for n in kept)
    print(f"judged {len(rows)}, still reported {len(kept)}, true {true}: precision {true / max(len(kept), 1):.3f}")
    for n in sorted(set(rows) - set(kept)):
        key, verdict, why = rows[n]
        print(f"  gone #{n} {key[0]}:{key[1]} {key[2]} ({verdict}: {why[:80]})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
