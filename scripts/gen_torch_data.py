#!/usr/bin/env python
"""Write zlint's per-version torch facts (``zlint/data/torch/<version>.json``) from a live torch.

    python scripts/gen_torch_data.py                      # the torch of this interpreter
    python scripts/gen_torch_data.py --python /venv/bin/python ...   # the torch of other venvs
    python scripts/gen_torch_data.py --stdout             # print instead of writing

Each interpreter only needs torch: ``zlint/core/torch_versions.py`` is loaded from its file, not through
the zlint package (which needs libcst). Files are written atomically.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULE = ROOT / "zlint" / "core" / "torch_versions.py"


def _load_torch_versions():
    spec = importlib.util.spec_from_file_location("_zlint_torch_versions", MODULE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the module up while building classes
    spec.loader.exec_module(module)
    return module


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def generate(out_dir: Path, to_stdout: bool) -> str:
    warnings.filterwarnings("ignore")
    import torch

    tv = _load_torch_versions()
    text = tv.dumps(tv.extract(torch))
    version = tv.format_version(tv.parse_version(torch.__version__))
    if to_stdout:
        sys.stdout.write(text)
    else:
        _write(out_dir / f"{version}.json", text)
        print(f"wrote {out_dir / (version + '.json')}", file=sys.stderr)
    return version


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", action="append", default=[], help="another interpreter with torch")
    parser.add_argument("--out", type=Path, default=ROOT / "zlint" / "data" / "torch")
    parser.add_argument("--stdout", action="store_true", help="print the data instead of writing it")
    args = parser.parse_args(argv)
    if not args.python:
        generate(args.out, args.stdout)
        return 0
    status = 0
    for python in args.python:
        cmd = [python, str(Path(__file__).resolve()), "--out", str(args.out)]
        if args.stdout:
            cmd.append("--stdout")
        status |= subprocess.run(cmd).returncode
    return status


if __name__ == "__main__":
    sys.exit(main())
