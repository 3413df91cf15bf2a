"""A fresh clone on another machine works: no tracked file names a path of the machine it was
written on (a symbolic link to an absolute path dangles elsewhere; a script that looks in a home or
work directory finds nothing). Corpora and other local data come from variables with defaults
inside the checkout (``benchmarks/corpus_paths.py``)."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from conftest import ROOT

# an absolute path under a machine's work, root or home directory; not one inside a word, a
# relative path (``.venv/work/x``), a variable (``$HOME/work``) or a home shorthand (``~/work``).
# The directory names are joined here so that this file does not name such a path itself.
MACHINE_PATH = re.compile(r"(?<![\w.$~])/(" + "|".join(("wo" + "rk", "ro" + "ot", "ho" + "me")) + r")/\w")


def _tracked(*args: str) -> list[str]:
    try:
        proc = subprocess.run(["git", "ls-files", "-z", *args], cwd=ROOT, capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [name for name in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if name]


def test_no_tracked_symlink_points_at_an_absolute_path():
    links = [line.split("\t", 1)[1] for line in _tracked("-s") if line.startswith("120000 ")]
    absolute = []
    for name in links:
        path = ROOT / name
        if not path.is_symlink():  # deleted in the working tree, not yet committed
            continue
        target = os.readlink(path)
        if os.path.isabs(target):
            absolute.append(f"{name} -> {target}")
    assert absolute == [], "tracked symbolic links to absolute paths (dangling in another clone):\n" + "\n".join(
        absolute
    )


def test_no_tracked_text_file_names_a_machine_path():
    hits = []
    for name in _tracked():
        path = ROOT / name
        if name.startswith("tests/data/") or path.is_symlink() or not path.is_file():
            continue  # test data; links (the test above); deleted in the working tree
        data = path.read_bytes()
        if b"\0" in data:
            continue  # binary
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if MACHINE_PATH.search(line):
                hits.append(f"{name}:{number}: {line.strip()[:160]}")
    assert hits == [], "tracked files name paths of one machine (use a variable or a relative path):\n" + "\n".join(
        hits
    )


def test_the_pattern_finds_machine_paths_and_nothing_else():
    work, home = "/" + "work/", "/" + "home/"
    for line in (f"cd {work}corpus", f"`{work}main/.venv-real/lib`", f'"{home}me/proj"', f"({home}u/x)"):
        assert MACHINE_PATH.search(line), line
    for line in ("/tmp/bench", f".venv{work}x", f"$HOME{work}x", f"~{work}x", f"some{work}x", "/srv/app"):
        assert not MACHINE_PATH.search(line), line


def _scripts_the_docs_run() -> list[str]:
    """The project's scripts that README.md, docs/ and the benchmarks' pages tell a reader to run."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "benchmarks").glob("*.md"))]
    named = re.compile(r"python3? ((?:benchmarks|scripts)/[\w/]+\.py)")
    return sorted({m for page in pages for m in named.findall(page.read_text(encoding="utf-8"))})


def test_every_script_the_docs_run_exists_and_starts_in_a_fresh_clone():
    """Each script a page names exists and answers ``--help`` with no corpus, venv or variable
    set up: what it needs first it says when it runs, in one line (benchmarks/corpus_paths.py)."""
    import sys

    scripts = _scripts_the_docs_run()
    assert "benchmarks/run.py" in scripts and "scripts/lint_corpus.py" in scripts
    env = {k: v for k, v in os.environ.items() if k not in ("ZLINT_CORPUS", "ZLINT_CORPUS2")}
    for script in scripts:
        assert (ROOT / script).is_file(), f"{script} is named in the docs but does not exist"
        done = subprocess.run(
            [sys.executable, script, "--help"], cwd=ROOT, capture_output=True, text=True, env=env, timeout=120
        )
        assert (done.returncode, "Traceback" in done.stderr) == (0, False), f"{script}: {done.stderr[-300:]}"
        assert "usage:" in done.stdout, script
