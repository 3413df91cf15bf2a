"""What the language-server tests and ``benchmarks/server.py`` share: waiting for diagnostics,
applying a client's text edits, the random edits the server must agree with ``zlint`` on, and
the CLI's findings in the server's shape."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types

ROOT = Path(__file__).resolve().parent.parent
SERVER = [sys.executable, "-m", "zlint", "server"]
PUBLISH = types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS


def server_env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("ZLINT_CACHE_DIR", None)
    return env


async def wait_diagnostics(
    client, uri: str, predicate: Callable[[list[types.Diagnostic]], bool] = lambda _: True, timeout: float = 20.0
) -> list[types.Diagnostic]:
    """The client's latest diagnostics for ``uri`` once ``predicate`` holds for them."""
    deadline = time.monotonic() + timeout
    while True:
        found = client.diagnostics.get(uri)
        if found is not None and predicate(found):
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"no diagnostics for {uri} matched in {timeout}s; last: {shape(found or [])}")
        await asyncio.sleep(0.01)


def shape(diagnostics: list[types.Diagnostic]) -> list[tuple]:
    """(code, line, character, end line, end character), 0-based as LSP has them, sorted."""
    return sorted(
        (d.code, d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character)
        for d in diagnostics
    )


def cli_shape(path: Path, cwd: Path) -> list[tuple]:
    """``zlint --no-cache --format json PATH``'s findings in :func:`shape`'s form (ASCII files:
    code points and UTF-16 units agree)."""
    proc = subprocess.run(
        [sys.executable, "-m", "zlint", "--no-cache", "--format", "json", str(path)],
        cwd=cwd, env=server_env(), capture_output=True, text=True,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return sorted(
        (d["code"], d["location"]["row"] - 1, d["location"]["column"] - 1,
         d["end_location"]["row"] - 1, d["end_location"]["column"] - 1)
        for d in json.loads(proc.stdout)
    )


def offset(text: str, position: types.Position) -> int:
    """The offset of an LSP position (UTF-16 units; the tests' texts are ASCII)."""
    lines = text.splitlines(keepends=True)
    return sum(len(line) for line in lines[: position.line]) + position.character


def apply_edits(text: str, edits: list[types.TextEdit]) -> str:
    """``text`` with the client applying ``edits`` (non-overlapping), last first."""
    spans = sorted(((offset(text, e.range.start), offset(text, e.range.end), e.new_text) for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


#: lines a random edit inserts: sizes compared, looped over, branched on, items taken, compiles
SNIPPETS = [
    "    if x.size(0) == 1:\n        x = x + 1\n",
    "    if x.shape[1] > 3:\n        x = x * 2\n",
    "    for i in range(x.size(0)):\n        x = x + i\n",
    "    n = x.sum().item()\n",
    "    y = x.tolist()\n",
    "    if x.numel():\n        x = x - 1\n",
    "    x = x.squeeze()\n",
    "    z = x[x > 0]\n",
    "    x = helper(x)\n",
    "    # a comment\n",
    "\n",
    "    if x.size(0) == 1:  # noqa: ZL101\n        x = x + 1\n",
]
TOP_SNIPPETS = [
    "\n\ndef helper(x):\n    if x.size(0) == 0:\n        return x\n    return x.nonzero()\n",
    "\n\ncompiled = torch.compile(helper)\n",
    "\n\n@torch.compile\ndef step(x):\n    return helper(x)\n",
    "\n\ndef run(x):\n    torch._dynamo.mark_dynamic(x, 0)\n    return step(x)\n",
]
BROKEN = "def broken(:\n"
START = """\
import torch


@torch.compile
def forward(x):
    if x.size(0) == 1:
        return x
    for i in range(x.shape[0]):
        x = x + i
    return x


def helper(x):
    return x.sum().item()
"""


def random_edit(rng: random.Random, text: str) -> tuple[types.Range, str]:
    """One edit a person might make: insert a snippet inside a function body or at the end,
    delete a line, break a line's syntax, or undo a break. Returns (range, new text)."""
    lines = text.splitlines(keepends=True)
    broken = [i for i, line in enumerate(lines) if line == BROKEN]
    if broken and rng.random() < 0.6:  # the person fixes what they broke
        return _line(rng.choice(broken)), ""
    kind = rng.random()
    body = [i for i, line in enumerate(lines) if line.startswith("    ") and not line.startswith("     ")]
    # a simple statement with another statement in its block: deleting it keeps the block
    simple = [
        i for i in body
        if not lines[i].rstrip().endswith(":") and any(
            j in body for j in (i - 1, i + 1) if 0 <= j < len(lines) and not lines[j].rstrip().endswith(":")
        )
    ]
    if kind < 0.5 and body:
        return _point(rng.choice(body)), rng.choice(SNIPPETS)
    if kind < 0.65:
        return _point(len(lines)), rng.choice(TOP_SNIPPETS)
    if kind < 0.85 and simple:
        return _line(rng.choice(simple)), ""
    if kind < 0.95 and lines:
        return _point(rng.randrange(len(lines))), BROKEN
    return _point(len(lines)), "\n"


def _line(line: int) -> types.Range:
    return types.Range(start=types.Position(line=line, character=0), end=types.Position(line=line + 1, character=0))


def _point(line: int) -> types.Range:
    return types.Range(start=types.Position(line=line, character=0), end=types.Position(line=line, character=0))
