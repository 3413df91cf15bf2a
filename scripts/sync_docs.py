"""Keep the generated parts of README.md and docs/ in step with the code.

Two kinds of generated text:

* the rule table between ``<!-- rule-table -->`` and ``<!-- /rule-table -->`` in README.md,
  built from the rule registry (code, name, doc file, summary, opt-in);
* every block marked ``<!-- zlint-output -->``: a ```text fence whose first line is
  ``$ zlint ARGS`` (or ``$ flake8 ARGS``: the plugin), followed by what that command prints
  (stdout, then stderr) when run from the repository root; ``< FILE`` at the end of the command
  pipes FILE to stdin (``zlint - --stdin-filename PATH < FILE``); ``$ python FILE`` shows what
  a script of the docs prints on stdout (its libraries' warnings on stderr vary by machine);
* every block marked ``<!-- zlint-output: zlint ARGS -->``: a fence of any language that frames
  a command's output (pre-commit's hook lines, say), kept up to its first blank line, followed
  by what ``zlint ARGS`` prints.

``--verify`` outputs compile real functions (slow): set ``ZLINT_SYNC_VERIFY=0`` to leave their
blocks unchecked (tests/test_docs.py does unless ``ZLINT_DOCS_VERIFY=1``; the script alone
checks and updates them).

``python scripts/sync_docs.py`` checks (exit 1 and a diff when something is stale);
``python scripts/sync_docs.py --update`` rewrites the stale parts. A sample that cannot be made
(flake8, its zlint plugin or torch missing, a command that fails) stops the script with one line
and exit 2 before anything is written: a doc must never show an error in place of an output. tests/test_readme.py and
tests/test_docs.py run the check, so a changed rule message shows up as a failing test whose
fix is ``--update``.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.metadata
import importlib.util
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = re.compile(r"(<!-- rule-table -->\n)(.*?)(<!-- /rule-table -->)", re.S)
OUTPUT = re.compile(r"(<!-- zlint-output -->\n```text\n)(\$ (?:zlint|flake8|python) [^\n]*)\n(.*?)(```)", re.S)
FRAMED = re.compile(
    r"(<!-- zlint-output: ((?:zlint|flake8) [^\n]*?) -->\n```[\w-]*\n(?:[^\n]+\n)*\n)(.*?)(```)", re.S
)


def skipped(command: str) -> bool:
    """Whether ``command``'s output is left unchecked under ``ZLINT_SYNC_VERIFY=0``: a ``--verify``
    run, or a docs script (they compile with torch: seconds each)."""
    words = shlex.split(command.removeprefix("$ "))
    slow = "--verify" in words or words[:1] == ["python"]
    return slow and os.environ.get("ZLINT_SYNC_VERIFY", "1") == "0"


#: zlint subcommands that take no lint options
_SUBCOMMANDS = {"rules", "rule", "clean"}
#: the exit statuses of a sample that ran: zlint and flake8 exit 1 on findings; 2 is an error
_RAN = {"zlint": (0, 1), "flake8": (0, 1), "python": (0,)}


class SampleError(Exception):
    """A sample's output cannot be made on this machine; the message is one line."""


def missing_tool(tool: str, args: list[str]) -> str | None:
    """What the sample ``tool ARGS`` needs that is not installed, or None. Checked before the run:
    ``python -m flake8`` without flake8 prints an error and exits 1, as flake8 does on findings."""
    if tool == "flake8":
        if importlib.util.find_spec("flake8") is None:
            return "flake8 is not installed"
        # flake8 finds the plugin through the entry point of an installed zlint, not PYTHONPATH
        plugins = importlib.metadata.entry_points(group="flake8.extension")
        if not any(plugin.name == "ZL" for plugin in plugins):
            return "zlint's flake8 plugin is not installed (pip install -e .)"
    if (tool == "python" or "--verify" in args) and importlib.util.find_spec("torch") is None:
        return "torch is not installed"
    return None


@dataclass(frozen=True)
class Stale:
    """One generated part of one file that differs from what the code produces now."""

    path: Path
    what: str
    current: str
    wanted: str

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                self.current.splitlines(keepends=True),
                self.wanted.splitlines(keepends=True),
                f"{self.path.relative_to(ROOT)} ({self.what})",
                "generated",
            )
        )


def doc_files() -> list[Path]:
    """The Markdown files that may hold generated parts."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def rule_table() -> str:
    """The README's rule table rows, from the registry."""
    sys.path.insert(0, str(ROOT))
    from zlint.core.registry import records

    lines = ["| Code | Name | What it finds |", "|---|---|---|"]
    for rule in records():
        summary = rule.summary
        if not rule.default_enabled and not summary.endswith("(opt-in)"):
            summary += " (opt-in)"
        lines.append(f"| {rule.code} | [{rule.name}](rules/{rule.code}-{rule.name}.md) | {summary} |")
    return "\n".join(lines) + "\n"


def zlint_output(command: str) -> str:
    """What ``$ zlint ARGS`` (or ``$ flake8 ARGS``) prints from the repository root: stdout, then
    stderr."""
    words = shlex.split(command)
    words = words[1:] if words[:1] == ["$"] else words
    stdin = None
    if len(words) > 2 and words[-2] == "<":
        stdin, words = (ROOT / words[-1]).read_bytes(), words[:-2]
    tool, *args = words
    missing = missing_tool(tool, args)
    if missing:
        raise SampleError(f"cannot regenerate `{command}`: {missing}")
    if tool == "zlint" and args[:1] == ["explain"]:
        args = [*args[:2], "--no-cache", *args[2:]]  # its options follow FILE:LINE
    elif tool == "zlint" and (not args or args[0] not in _SUBCOMMANDS):
        args = ["--no-cache", *args]  # leave no cache behind; the output is the same
    # this checkout's zlint, whatever is installed
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "PYTHONPATH": path}
    run = [sys.executable, *args] if tool == "python" else [sys.executable, "-m", tool, *args]
    done = subprocess.run(run, cwd=ROOT, capture_output=True, env=env, timeout=900, input=stdin or b"")
    if done.returncode not in _RAN[tool]:
        last = (done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines()
        raise SampleError(f"cannot regenerate `{command}`: exit {done.returncode}: {last[-1] if last else 'no output'}")
    if tool == "python":
        return done.stdout.decode("utf-8")
    return (done.stdout + done.stderr).decode("utf-8")


def output_blocks(text: str) -> list[tuple[str, str]]:
    """(command line, shown output) of every ``<!-- zlint-output -->`` block in ``text``."""
    return [(m.group(2), m.group(3)) for m in OUTPUT.finditer(text)]


def check(path: Path, update: bool = False) -> list[Stale]:
    """The stale generated parts of one file; with ``update``, rewrite them in place. Raises
    :class:`SampleError` (nothing written) when a sample cannot be made."""
    stale, new = regenerate(path)
    if update and stale:
        path.write_text(new, encoding="utf-8")
    return stale


def regenerate(path: Path) -> tuple[list[Stale], str]:
    """The stale generated parts of one file and its text with them regenerated."""
    text = path.read_text(encoding="utf-8")
    stale: list[Stale] = []

    def fix_table(match: re.Match[str]) -> str:
        wanted = rule_table()
        if match.group(2) != wanted:
            stale.append(Stale(path, "rule table", match.group(2), wanted))
        return match.group(1) + wanted + match.group(3)

    def fix_output(match: re.Match[str]) -> str:
        if skipped(match.group(2)):
            return match.group(0)
        wanted = zlint_output(match.group(2))
        if match.group(3) != wanted:
            stale.append(Stale(path, match.group(2), match.group(3), wanted))
        return f"{match.group(1)}{match.group(2)}\n{wanted}{match.group(4)}"

    def fix_framed(match: re.Match[str]) -> str:
        if skipped(match.group(2)):
            return match.group(0)
        wanted = zlint_output(match.group(2))
        if match.group(3) != wanted:
            stale.append(Stale(path, match.group(2), match.group(3), wanted))
        return f"{match.group(1)}{wanted}{match.group(4)}"

    new = OUTPUT.sub(fix_output, TABLE.sub(fix_table, text) if path.name == "README.md" else text)
    new = FRAMED.sub(fix_framed, new)
    return stale, new


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--update", action="store_true", help="rewrite the stale parts")
    args = parser.parse_args(argv)
    try:  # every sample first: a failure leaves every file as it was
        regenerated = {path: regenerate(path) for path in doc_files()}
    except SampleError as exc:
        print(f"sync_docs: error: {exc}", file=sys.stderr)
        return 2
    stale = [part for parts, _ in regenerated.values() for part in parts]
    if args.update:
        for path, (parts, new) in regenerated.items():
            if parts:
                path.write_text(new, encoding="utf-8")
    for part in stale:
        print(f"{'updated' if args.update else 'stale'}: {part.path.relative_to(ROOT)}: {part.what}")
        if not args.update:
            print(part.diff())
    return 1 if stale and not args.update else 0


if __name__ == "__main__":
    sys.exit(main())
