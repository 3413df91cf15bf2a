"""Where the benchmarks and scripts find the two real-world corpora (built, never committed).

* ``ZLINT_CORPUS``: the pinned corpus (transformers, timm, torchvision, diffusers), built by
  ``sh ../shared/corpus/make_corpus.sh DEST``; default ``corpus/`` at the repository root.
* ``ZLINT_CORPUS2``: the second corpus (seven code bases zlint was never tuned on), built by
  ``sh ../shared/corpus/make_corpus2.sh DEST``; default ``corpus2/`` at the repository root.

Both defaults are git-ignored. A script imports this module with the ``benchmarks`` directory on
``sys.path`` and calls ``require`` before reading a corpus.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

#: the repository root
ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("ZLINT_CORPUS") or ROOT / "corpus")
CORPUS2 = Path(os.environ.get("ZLINT_CORPUS2") or ROOT / "corpus2")

# what: (the script that builds it, the variable that moves it)
_BUILD = {"corpus": ("make_corpus.sh", "ZLINT_CORPUS"), "corpus2": ("make_corpus2.sh", "ZLINT_CORPUS2")}


def require(path: Path, what: str) -> Path:
    """``path`` when it is a directory; else one line on stderr (where it looked, the command that
    builds it) and exit status 2. ``what``: ``"corpus"`` (the pinned corpus) or ``"corpus2"``."""
    if Path(path).is_dir():
        return Path(path)
    script, variable = _BUILD[what]
    print(f"zlint: {what} not found at {path}: build it with: "
          f"sh ../shared/corpus/{script} {shlex.quote(str(path))} (or set {variable})", file=sys.stderr)
    raise SystemExit(2)
