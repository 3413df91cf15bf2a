"""How fast ``zlint server`` answers, against a cold ``zlint --no-cache FILE`` process.

    python benchmarks/server.py                  # timings and memory on the transformers slice
    python benchmarks/server.py --edits 100      # also: 100 seeded random edits agree with the CLI

The slice is every 10th ``.py`` file (sorted) of the transformers ``models`` tree of
``$ZLINT_CORPUS`` (or ``--source DIR``), copied to a temporary workspace; the file timed is the
slice's largest. Measured, each as the median of ``--runs``:

* cold: ``zlint --no-cache FILE`` as a process, from spawn to exit;
* first diagnostics, two ways: an editor started on the file (the server spawned, initialized and
  the file opened at once: spawn to ``publishDiagnostics``), and a server already running whose
  workspace index is built (``didOpen`` to ``publishDiagnostics``);
* re-lint: an edit (a line inserted in a function, so the file's summary and the index change)
  to the diagnostics, less the server's debounce;
* memory: the server's RSS once 50 slice files are open and published;
* for reference, ``lint_source`` on the file in this process with the rules loaded: the engine's
  own time, which a re-lint of the whole file cannot go below.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests"))
from corpus_paths import CORPUS, require  # noqa: E402

from lsp_support import START, apply_edits, cli_shape, random_edit, server_env, shape  # noqa: E402
from zlint.frontends.server.lsp import DEBOUNCE  # noqa: E402

#: extra arguments of the server (``--server-log PATH``: its log, with each re-lint's wall and CPU time)
LOG: list[str] = []
MODELS = CORPUS / "transformers/transformers/models"


def slice_files(source: Path, every: int) -> list[Path]:
    return [p for i, p in enumerate(sorted(source.rglob("*.py"))) if i % every == 0]


def copy_slice(files: list[Path], source: Path, target: Path) -> list[Path]:
    out = []
    for path in files:
        dest = target / path.relative_to(source)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, dest)
        out.append(dest)
    return out


def cold(path: Path, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "zlint", "--no-cache", str(path)], cwd=path.parent, env=server_env(),
            capture_output=True, check=False,
        )
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def in_process(path: Path, runs: int) -> float:
    """The engine's own time on the file, rules loaded: what a re-lint cannot go below."""
    from zlint.core import registry
    from zlint.engine.lint import lint_source, preload

    preload(registry.default_codes())
    data = path.read_bytes()
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        lint_source(data, str(path))
        times.append(time.perf_counter() - started)
    return statistics.median(times)


class Client:
    """A pygls client that records when each document's diagnostics arrive."""

    def __init__(self) -> None:
        self.lsp = LanguageClient("zlint-bench", "1")
        self.diagnostics: dict[str, list[types.Diagnostic]] = {}
        self.arrived: dict[str, float] = {}
        self.messages: list[str] = []

        @self.lsp.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)
            self.arrived[params.uri] = time.perf_counter()

        @self.lsp.feature(types.WINDOW_LOG_MESSAGE)
        def log(params: types.LogMessageParams) -> None:
            self.messages.append(params.message)

        @self.lsp.feature(types.WINDOW_SHOW_MESSAGE)
        def show(params: types.ShowMessageParams) -> None:
            self.messages.append(params.message)

    async def start(self, root: Path) -> None:
        await self.lsp.start_io(sys.executable, "-m", "zlint", "server", *LOG, env=server_env())
        await self.lsp.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="bench")],
            )
        )
        self.lsp.initialized(types.InitializedParams())

    async def wait(self, uri: str, after: float, timeout: float = 120.0, predicate=None) -> float:
        deadline = time.perf_counter() + timeout
        while True:
            at = self.arrived.get(uri)
            if at is not None and at >= after and (predicate is None or predicate(self.diagnostics[uri])):
                return at
            if time.perf_counter() > deadline:
                raise SystemExit(f"no diagnostics for {uri} in {timeout}s")
            await asyncio.sleep(0.002)

    def open(self, path: Path, text: str) -> float:
        sent = time.perf_counter()
        self.lsp.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(uri=path.as_uri(), language_id="python", version=1, text=text)
            )
        )
        return sent

    def change(self, uri: str, version: int, where: types.Range, text: str) -> float:
        sent = time.perf_counter()
        self.lsp.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangePartial(range=where, text=text)],
            )
        )
        return sent

    def rss_mib(self) -> float:
        pid = self.lsp._server.pid
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    async def stop(self) -> None:
        await self.lsp.shutdown_async(None)
        self.lsp.exit(None)
        await self.lsp.stop()


def body_line(text: str) -> int:
    """A line inside the first function with a body of its own, 0-based."""
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and len(node.body) > 1:
            return node.body[-1].lineno - 1
    return len(text.splitlines())


async def indexed(client: Client) -> str:
    while not any("indexed" in m for m in client.messages):
        await asyncio.sleep(0.05)
    return next(m for m in client.messages if "indexed" in m)


async def timings(root: Path, files: list[Path], biggest: Path, runs: int) -> dict:
    text = biggest.read_text()
    uri = biggest.as_uri()
    # an editor started on the file: spawn, initialize, open at once
    client = Client()
    spawned = time.perf_counter()
    await client.start(root)
    opened = client.open(biggest, text)
    arrived = await client.wait(uri, opened)
    from_spawn, first_cold = arrived - spawned, arrived - opened
    index_note = await indexed(client)
    relints = []
    line = body_line(text)
    for version in range(2, 2 + runs):
        where = types.Range(start=types.Position(line=line, character=0), end=types.Position(line=line, character=0))
        insert = " " * (len(text.splitlines()[line]) - len(text.splitlines()[line].lstrip())) + "x = 1\n"
        sent = client.change(uri, version, where, insert)
        text = apply_edits(text, [types.TextEdit(range=where, new_text=insert)])
        relints.append(await client.wait(uri, sent) - sent - DEBOUNCE)
        await asyncio.sleep(1.0)  # the index classified again meanwhile: one edit's latency
    others = [p for p in files if p != biggest][:49]
    sent = time.perf_counter()
    for path in others:
        client.open(path, path.read_text())
    for path in others:
        await client.wait(path.as_uri(), sent)
    open49 = time.perf_counter() - sent
    rss = client.rss_mib()
    await client.stop()
    # a server already running (its index built) when the file is opened
    warm = []
    for _ in range(max(1, runs // 2)):
        client = Client()
        await client.start(root)
        await indexed(client)
        opened = client.open(biggest, biggest.read_text())
        warm.append(await client.wait(uri, opened) - opened)
        await client.stop()
    return {"from_spawn": from_spawn, "first_cold": first_cold, "first_warm": statistics.median(warm),
            "relint": statistics.median(relints), "relints": relints, "rss": rss, "open49": open49,
            "indexed": index_note}


async def agreement(root: Path, edits: int, seed: int) -> tuple[int, int]:
    """``edits`` seeded random edits; after each that leaves the file parsing, the server's
    diagnostics must be ``zlint FILE --format json``'s. (compared, disagreements)."""
    client = Client()
    await client.start(root)
    path = root / "edited.py"
    text = START
    path.write_text(text)
    uri = path.as_uri()
    await client.wait(uri, client.open(path, text))
    rng = random.Random(seed)
    compared = disagreements = 0
    for version in range(2, 2 + edits):
        where, new = random_edit(rng, text)
        client.change(uri, version, where, new)
        text = apply_edits(text, [types.TextEdit(range=where, new_text=new)])
        try:
            ast.parse(text)
        except SyntaxError:
            continue
        path.write_text(text)
        expected = cli_shape(path, root)
        try:
            await client.wait(uri, 0, timeout=10, predicate=lambda ds, e=expected: shape(ds) == e)
        except SystemExit:
            disagreements += 1
            print(f"edit {version - 1}: server {shape(client.diagnostics[uri])} != cli {expected}")
        compared += 1
    await client.stop()
    return compared, disagreements


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=MODELS)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--edits", type=int, default=0, help="random edits checked against the CLI (0: none)")
    parser.add_argument("--server-log", metavar="PATH", help="the server's log (each re-lint's wall and CPU time)")
    parser.add_argument("--seed", type=int, default=25)
    args = parser.parse_args()
    if args.source == MODELS:
        require(CORPUS, "corpus")
    if args.server_log:
        LOG.extend(["--log-file", args.server_log])
    files = slice_files(args.source, args.every)
    biggest = max(files, key=lambda p: p.stat().st_size)
    with tempfile.TemporaryDirectory(prefix="zlint-server-bench-") as tmp:
        root = Path(tmp) / "models"
        copied = copy_slice(files, args.source, root)
        target = root / biggest.relative_to(args.source)
        print(f"slice: {len(files)} files; timed: {biggest.relative_to(args.source)} "
              f"({biggest.stat().st_size} bytes, {len(biggest.read_text().splitlines())} lines)")
        cold_s = cold(target, args.runs)
        print(f"cold `zlint --no-cache FILE`: {cold_s:.3f}s (median of {args.runs})")
        floor = in_process(target, args.runs)
        print(f"in this process, lint_source of the file (rules loaded): {floor:.3f}s = {floor / cold_s:.2f}x cold")
        found = asyncio.run(timings(root, copied, target, args.runs))
        print(f"server: {found['indexed']}")
        print(f"first diagnostics, server started for the file: {found['from_spawn']:.3f}s from spawn = "
              f"{found['from_spawn'] / cold_s:.2f}x cold ({found['first_cold']:.3f}s after didOpen)")
        print(f"first diagnostics, server running (index built): {found['first_warm']:.3f}s after didOpen = "
              f"{found['first_warm'] / cold_s:.2f}x cold")
        print(f"re-lint after an edit (less the {DEBOUNCE}s debounce): {found['relint']:.3f}s = "
              f"{found['relint'] / cold_s:.2f}x cold (runs: {', '.join(f'{t:.3f}' for t in found['relints'])})")
        print(f"49 more files opened and published in {found['open49']:.2f}s; RSS with 50 open: {found['rss']:.0f} MiB")
        if args.edits:
            (Path(tmp) / "edits").mkdir()  # a workspace of its own: `zlint FILE` sees the file alone
            compared, bad = asyncio.run(agreement(Path(tmp) / "edits", args.edits, args.seed))
            print(f"{args.edits} random edits (seed {args.seed}): {compared} parsing states compared with "
                  f"`zlint FILE --format json`, {bad} disagreements")
            return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
