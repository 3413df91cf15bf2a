"""What the language-server tests and ``benchmarks/server.py`` share: waiting for diagnostics,
applying a client's text edits, the random edits the server must agree with ``zlint`` on, and
the CLI's findings in the server's shape; and the tests' client (:class:`EditorClient`,
:func:`with_server`).

The client is pygls's own, run by :func:`asyncio.run` inside a plain test: no pytest plugin for
asyncio. pytest-lsp would bring pytest-asyncio, whose plugin loads in every pytest session of
every environment that has it, users' own included, and warns there."""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

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


#: What an editor tells the server it can do, as far as the server reads it: file watchers it
#: may register (VS Code does), workspace folders. Positions default to UTF-16, as in VS Code.
EDITOR_CAPABILITIES = types.ClientCapabilities(
    workspace=types.WorkspaceClientCapabilities(
        workspace_folders=True,
        did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True),
    ),
    text_document=types.TextDocumentClientCapabilities(
        hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText]),
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(related_information=True),
    ),
)
#: Neovim 0.7's capabilities (as it sends them, recorded), as far as the server reads them: no
#: ``didChangeWatchedFiles`` at all, so no file watchers to register; saves are sent; positions
#: default to UTF-16.
NEOVIM_07_CAPABILITIES = types.ClientCapabilities(
    workspace=types.WorkspaceClientCapabilities(workspace_folders=True, apply_edit=True),
    text_document=types.TextDocumentClientCapabilities(
        synchronization=types.TextDocumentSyncClientCapabilities(did_save=True, dynamic_registration=False),
        hover=types.HoverClientCapabilities(
            content_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText], dynamic_registration=False
        ),
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(related_information=True),
    ),
)
#: seconds a server may take to shut down before the test kills it
SHUTDOWN_TIMEOUT = 20.0


class EditorClient(LanguageClient):
    """pygls's client with what an editor keeps: the latest diagnostics per document, the
    messages shown, the capabilities the server registered, and the server's stderr."""

    def __init__(self, *options: str) -> None:
        super().__init__("zlint-tests", "1")
        #: the command line options ``zlint server`` is started with
        self.options = options
        self.diagnostics: dict[str, list[types.Diagnostic]] = {}
        self.messages: list[types.ShowMessageParams] = []
        self.registrations: list[types.Registration] = []
        #: the capabilities sent by :meth:`initialize_session`; None once the session is over
        self.capabilities: types.ClientCapabilities | None = None
        self.stderr = bytearray()

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)

        @self.feature(types.WINDOW_SHOW_MESSAGE)
        def show(params: types.ShowMessageParams) -> None:
            self.messages.append(params)

        @self.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register(params: types.RegistrationParams) -> None:  # the file watchers the server asks for
            self.registrations.extend(params.registrations)

    async def start(self) -> None:
        """Spawn ``zlint server`` (this checkout's) and read its stderr as it comes: an unread
        pipe would fill with the server's log and block it."""
        await self.start_io(*SERVER, *self.options, env=server_env())
        self._async_tasks.append(asyncio.create_task(self._drain()))

    async def _drain(self) -> None:
        while chunk := await self._server.stderr.read(65536):
            self.stderr += chunk

    async def initialize_session(self, params: types.InitializeParams) -> types.InitializeResult:
        """``initialize``, then ``initialized``, as an editor opens a workspace."""
        self.capabilities = params.capabilities
        result = await self.initialize_async(params)
        self.initialized(types.InitializedParams())
        return result

    async def shutdown_session(self) -> None:
        """``shutdown`` and ``exit``, then wait for the server process to end."""
        if self.capabilities is None:
            return
        self.capabilities = None
        await asyncio.wait_for(self.shutdown_async(None), SHUTDOWN_TIMEOUT)
        self.exit(None)
        await asyncio.wait_for(self._server.wait(), SHUTDOWN_TIMEOUT)

    async def close(self) -> None:
        """End the session whatever state the test left it in; kill a server that hangs."""
        try:
            await self.shutdown_session()
        finally:
            if self._server.returncode is None:
                self._server.kill()
            await self.stop()


def with_server(test: Callable[..., Awaitable[None]] | None = None, *, options: tuple[str, ...] = ()):
    """Run ``async def test(client, ...)`` as a plain test function: a fresh server and
    :class:`EditorClient` for ``client``, the other arguments left to pytest's fixtures, the
    session closed (the server killed if it hangs) whatever the test did.

    ``@with_server`` starts ``zlint server``; ``@with_server(options=(...))`` adds the options
    to its command line."""
    if test is None:
        return functools.partial(with_server, options=options)

    async def session(args: tuple, kwargs: dict) -> None:
        client = EditorClient(*options)
        await client.start()
        try:
            await test(client, *args, **kwargs)
        except BaseException:
            sys.stderr.write(client.stderr.decode("utf-8", "replace"))  # the server's side of it
            raise
        finally:
            await client.close()

    @functools.wraps(test)
    def run(*args, **kwargs) -> None:
        asyncio.run(session(args, kwargs))

    signature = inspect.signature(test)
    run.__signature__ = signature.replace(parameters=list(signature.parameters.values())[1:])  # type: ignore[attr-defined]
    return run


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
#: a compiled function with a ZL101 (line 6) and a ZL201 (line 8)
MODEL = """\
import torch


@torch.compile
def forward(x):
    if x.size(0) == 1:
        return x
    for i in range(x.shape[0]):
        x = x + i
    return x
"""
START = MODEL + "\n\ndef helper(x):\n    return x.sum().item()\n"


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
