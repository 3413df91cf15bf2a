"""Which findings of a judged corpus sample the current zlint still reports, and the precision of
those: after a change that only hides or drops findings, the sample restricted to them is a
uniform sample of the new population.

    python benchmarks/accuracy/still_reported.py benchmarks/accuracy/corpus_sample_round3.md
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

CORPUS = Path("/work/corpus")
ROW = re.compile(r"\| (\d+) \| `([^`]+):(\d+)` \| (\w+) \| [\w-]+ \| \w+ \| (\w+) \| (.*) \|\s*$")


def main(argv: list[str]) -> int:
    rows = {}
    for line in Path(argv[0]).read_text().splitlines():
        m = ROW.match(line)
        if m:
            rows[int(m[1])] = ((m[2], int(m[3]), m[4]), m[5], m[6])
    files = sorted({key[0] for key, _, _ in rows.values()})
    command = [sys.executable, "-m", "zlint", "--format", "json", "--no-cache", "--exit-zero", *files]
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
