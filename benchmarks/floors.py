"""Parse every ``.py`` file under a directory in one process: the floors zlint is measured against.

Usage: python benchmarks/floors.py {libcst,ast} DIR
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def main() -> int:
    kind, root = sys.argv[1], Path(sys.argv[2])
    files = sorted(root.rglob("*.py"))
    if kind == "libcst":
        import libcst

        parse = libcst.parse_module
    elif kind == "ast":
        parse = ast.parse
    else:
        raise SystemExit(f"unknown floor {kind!r}")
    failed = 0
    for path in files:
        try:
            parse(path.read_bytes())
        except Exception:  # a file the parser rejects still counts as parsed work
            failed += 1
    print(f"{kind}: {len(files)} files, {failed} rejected", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
