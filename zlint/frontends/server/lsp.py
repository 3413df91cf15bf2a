"""The language server's protocol half: pygls handlers over :class:`~.workspace.Workspace`.

Diagnostics are published on open, on change (debounced) and on save; code actions offer each
finding's fix (an unsafe fix as an action of its own, labelled so) and a ``# noqa`` comment;
hover shows the rule's summary and its "Use instead" section. A pyproject.toml that changes
re-reads the configuration and re-publishes: when the editor says so (saved in the editor, or
reported by its file watcher), and when the server sees it itself (on each open, change and save
of a document, and by polling when the editor watches no files); a Python file that changes on
disk updates the project index. Every handler logs and swallows what it raises: a bug in zlint
must not take the editor's server down.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import re
import time
import traceback
from collections.abc import Callable, Iterable
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from zlint import __version__
from zlint.core import registry
from zlint.core.diagnostics import Applicability, Diagnostic, Edit
from zlint.core.rule_docs import doc_path, doc_text
from zlint.engine.workers import COLLECTOR_THRESHOLDS
from zlint.frontends.server.workspace import Document, Workspace

log = logging.getLogger("zlint.server")

#: seconds of quiet after a change before the document is linted again
DEBOUNCE = 0.25
#: seconds after a re-lint before the project index is classified again (once edits pause)
SETTLE = 0.1
#: seconds after ``initialized`` before the workspace indexing starts
INDEX_DELAY = 0.2
#: the longest the workspace indexing runs before it lets the editor's requests through
INDEX_SLICE = 0.05
#: seconds between two looks at the configuration files, for an editor that watches no files
#: for the server: a look reads the few pyproject.toml there are and fails to open the absent
#: ones, about 2 ms for a workspace of 340 directories (2,285 files of torch, measured)
CONFIG_POLL = 2.0
SEVERITIES = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}
ERROR_CODE = "ZL000"
#: the code action that applies every safe fix of a document (``editor.codeActionsOnSave``)
FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.zlint"

F = TypeVar("F", bound=Callable[..., Any])


def site_url() -> str | None:
    """The docs site's ``site_url`` from mkdocs.yml, in a source checkout that sets one."""
    mkdocs = Path(__file__).resolve().parents[3] / "mkdocs.yml"
    try:
        found = re.search(r"^site_url:\s*['\"]?([^'\"\s#]+)", mkdocs.read_text(encoding="utf-8"), re.M)
    except OSError:
        return None
    return found.group(1) if found else None


def doc_url(code: str, base: str | None) -> str | None:
    """Where a rule's doc is: the docs site's page under ``base``, else the Markdown file."""
    record = registry.record(code)
    if record is None:
        return None
    if base:
        return f"{base.rstrip('/')}/rules/{record.code}-{record.name}/"
    path = doc_path(code)
    return path.as_uri() if path is not None else None


def use_instead(code: str) -> str | None:
    """The "Use instead" section of the rule's doc, without its heading."""
    text = doc_text(code)
    if text is None:
        return None
    found = re.search(r"^## Use instead[ \t]*\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    return found.group(1).strip() if found else None


def units(line: str, column: int, encoding: str) -> int:
    """A column in code points (zlint's) as the client counts it."""
    if encoding == types.PositionEncodingKind.Utf32:
        return column
    head = line[:column]
    if encoding == types.PositionEncodingKind.Utf8:
        return len(head.encode("utf-8", "surrogatepass"))
    return len(head.encode("utf-16-le", "surrogatepass")) // 2


def code_points(line: str, column: int, encoding: str) -> int:
    """A client's column as code points (the inverse of :func:`units`)."""
    if encoding == types.PositionEncodingKind.Utf32:
        return column
    count = 0
    for index, char in enumerate(line):
        if count >= column:
            return index
        count += len(char.encode("utf-8", "surrogatepass")) if encoding == types.PositionEncodingKind.Utf8 else (
            2 if ord(char) > 0xFFFF else 1
        )
    return len(line)


def keep_out_of_collections() -> None:
    """Keep what is alive now (the modules, the project index: about a million objects) out of
    every later scan of the garbage collector, and collect the young less often, as a lint run
    does (:func:`zlint.engine.workers.fewer_collections`). With the default thresholds a re-lint
    paid up to 0.15 s of collections rescanning the index (measured on the slice's largest file).
    Garbage with cycles is collected first, and again each time edits pause
    (:meth:`ZlintServer.settle`); what the index drops later is freed by its counts."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


def _guarded(handler: F) -> F:
    """Log what the handler raises instead of failing the request or the server."""

    @wraps(handler)
    def run(server: ZlintServer, *args: Any) -> Any:
        try:
            return handler(server, *args)
        except Exception:  # noqa: BLE001 - logged; the editor keeps its server
            server.report(f"zlint: internal error in {handler.__name__}:\n{traceback.format_exc()}")
            return None

    return run  # type: ignore[return-value]


class ZlintServer(LanguageServer):
    def __init__(self, docs_url: str | None = None, config_poll: float | None = None) -> None:
        super().__init__("zlint", __version__)
        self.docs_url = docs_url if docs_url is not None else site_url()
        #: seconds between looks at the configuration files when the editor watches none (0: never)
        self.config_poll = CONFIG_POLL if config_poll is None else config_poll
        self.polling: asyncio.Task | None = None
        self.state = Workspace()
        self.pending: dict[str, asyncio.TimerHandle] = {}
        self.settling: asyncio.TimerHandle | None = None
        #: the URI the editor opened each document with (published back as it was written)
        self.uris: dict[str, str] = {}
        self.indexing: asyncio.Task | None = None
        self._shown_errors: set[str] = set()

    # -- plumbing ----------------------------------------------------------------------------

    def report(self, message: str, kind: types.MessageType = types.MessageType.Error) -> None:
        log.error(message) if kind == types.MessageType.Error else log.info(message)
        try:
            self.window_log_message(types.LogMessageParams(type=kind, message=message))
        except Exception:  # noqa: BLE001 - not connected (shutting down): the log above has it
            pass

    @property
    def encoding(self) -> str:
        capabilities = self.protocol.server_capabilities
        encoding = capabilities.position_encoding if capabilities is not None else None
        return encoding or types.PositionEncodingKind.Utf16

    def publish(self, paths: Iterable[str]) -> None:
        self.show_config_errors()  # why the findings are the defaults', before them
        for path in sorted(paths):
            document = self.state.documents.get(path)
            if document is None:
                continue
            uri = self.uris.get(path) or from_fs_path(path) or path
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=uri, diagnostics=self.lsp_diagnostics(document), version=document.version
                )
            )

    def reload_settings(self) -> set[str]:
        """Read the configuration again; its errors are shown again if still there."""
        self._shown_errors.clear()
        return self.state.reload_settings()

    def check_config(self) -> None:
        """Read the configuration again and re-publish every open document if a pyproject.toml
        the settings depend on changed on disk: called on each open, change and save of a
        document, so that no editor has to report the change (Neovim cannot)."""
        if self.state.config_changed():
            log.info("a pyproject.toml changed: reading the configuration again")
            self.publish(self.reload_settings())

    async def poll_config(self) -> None:
        """:meth:`check_config` every :attr:`config_poll` seconds: a pyproject.toml saved where
        the server is not told (another editor, or a buffer it is not attached to) applies
        without waiting for an edit of a Python file."""
        while True:
            await asyncio.sleep(self.config_poll)
            try:
                self.check_config()
            except Exception:  # noqa: BLE001 - logged; the next look may succeed
                self.report(f"zlint: internal error checking the configuration:\n{traceback.format_exc()}")

    def show_config_errors(self) -> None:
        for message in self.state.config_errors:
            if message not in self._shown_errors:
                self._shown_errors.add(message)
                self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=message))

    # -- conversions -------------------------------------------------------------------------

    def lsp_range(self, lines: list[str], line: int, column: int, end_line: int, end_column: int) -> types.Range:
        """A range from 1-based lines and code-point columns (an end of 0: the line's end)."""

        def position(row: int, col: int | None) -> types.Position:
            row = min(max(row, 1), max(len(lines), 1))
            text = lines[row - 1] if lines else ""
            col = len(text) if col is None else min(max(col, 0), len(text))
            return types.Position(line=row - 1, character=units(text, col, self.encoding))

        start = position(line, column)
        end = position(end_line, end_column) if end_line >= line and end_line > 0 else position(line, None)
        if (end.line, end.character) < (start.line, start.character):
            end = start
        return types.Range(start=start, end=end)

    def lsp_diagnostic(self, d: Diagnostic, lines: list[str]) -> types.Diagnostic:
        record = registry.record(d.code)
        severity = SEVERITIES.get(record.severity if record else "warning", types.DiagnosticSeverity.Warning)
        href = doc_url(d.code, self.docs_url)
        message = f"{d.message} ({d.name}" + (", single-graph tier)" if d.tier == "single-graph" else ")")
        return types.Diagnostic(
            range=self.lsp_range(lines, d.line, d.column, d.end_line, d.end_column),
            severity=severity,
            code=d.code,
            code_description=types.CodeDescription(href=href) if href else None,
            source="zlint",
            message=message,
            data={
                "name": d.name, "tier": d.tier, "scope": d.scope, "scope_reason": d.scope_reason,
                "function": d.function, "fix": d.fix.applicability.value if d.fix else None,
            },
        )

    def lsp_diagnostics(self, document: Document) -> list[types.Diagnostic]:
        lines = document.linted_text.splitlines()
        out = [self.lsp_diagnostic(d, lines) for d in document.diagnostics]
        if document.error is not None:
            kept = ("the other findings are from the last text that parsed" if document.linted
                    else "no findings: no text of this file has parsed since it was opened")
            current = document.text.splitlines()
            line, column = document.error_at or (1, 1)
            href = doc_url(ERROR_CODE, self.docs_url)
            out.append(
                types.Diagnostic(
                    range=self.lsp_range(current, line, column - 1, 0, 0),
                    severity=types.DiagnosticSeverity.Error,
                    code=ERROR_CODE,
                    code_description=types.CodeDescription(href=href) if href else None,
                    source="zlint",
                    message=f"zlint: {document.error.reason} ({kept})",
                )
            )
        return out

    # -- documents ---------------------------------------------------------------------------

    def text_of(self, uri: str) -> str:
        return self.workspace.get_text_document(uri).source

    def flush(self, uri: str) -> None:
        """Lint the document now if a change is waiting for its debounce."""
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
            self.relint(uri)

    def relint(self, uri: str) -> None:
        self.pending.pop(uri, None)
        try:
            path = to_fs_path(uri)
            if path is None or path not in self.state.documents:
                return
            self.check_config()
            document = self.workspace.get_text_document(uri)
            # published with the scope the edit moved; the index is classified once edits pause
            started, cpu = time.perf_counter(), time.process_time()
            self.publish(self.state.update(path, document.source, document.version, exact=False))
            log.info(
                "changed %s: published in %.3fs (%.3fs of CPU)", path, time.perf_counter() - started,
                time.process_time() - cpu,
            )
            if self.state.stale and self.settling is None:
                self.settling = asyncio.get_running_loop().call_later(SETTLE, self.settle)
        except Exception:  # noqa: BLE001
            self.report(f"zlint: internal error linting {uri}:\n{traceback.format_exc()}")

    def settle(self) -> None:
        """Classify the project index after edits, and re-publish the open documents whose
        findings it changes (another file's scope, or the edited file's own exact scope)."""
        loop = asyncio.get_running_loop()
        if self.pending:  # still typing: after the next re-lint
            self.settling = loop.call_later(SETTLE, self.settle)
            return
        self.settling = None
        try:
            self.publish(self.state.settle())
        except Exception:  # noqa: BLE001
            self.report(f"zlint: internal error classifying the project index:\n{traceback.format_exc()}")
        # the lints' cyclic garbage (LibCST trees: ~40,000 objects an edit), while edits pause:
        # with the index out of the scans it takes ~20 ms, and the memory stays flat
        gc.collect()

    def schedule(self, uri: str) -> None:
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        self.pending[uri] = asyncio.get_running_loop().call_later(DEBOUNCE, self.relint, uri)

    async def index_workspace(self) -> None:
        """Summarize every workspace file, yielding to the editor's requests between slices, then
        re-place the open documents whose scope the whole index changes."""
        try:
            started = time.perf_counter()
            paths = list(self.state.workspace_files())
            deadline = time.perf_counter() + INDEX_SLICE
            for path in paths:
                self.state.summarize_file(path)
                if time.perf_counter() > deadline:
                    await asyncio.sleep(0)
                    deadline = time.perf_counter() + INDEX_SLICE
            self.publish(self.state.finish_indexing())
            keep_out_of_collections()
            self.report(
                f"zlint: indexed {len(paths)} files in {time.perf_counter() - started:.2f}s", types.MessageType.Info
            )
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001
            self.report(f"zlint: internal error indexing the workspace:\n{traceback.format_exc()}")

    # -- code actions and hover --------------------------------------------------------------

    def findings_in(self, uri: str, where: types.Range) -> tuple[Document | None, list[tuple[Diagnostic, types.Range]]]:
        path = to_fs_path(uri)
        document = self.state.documents.get(path) if path else None
        if document is None:
            return None, []
        lines = document.linted_text.splitlines()
        found = []
        for d in document.diagnostics:
            lsp = self.lsp_range(lines, d.line, d.column, d.end_line, d.end_column)
            start, end = (lsp.start.line, lsp.start.character), (lsp.end.line, lsp.end.character)
            if start <= (where.end.line, where.end.character) and (where.start.line, where.start.character) <= end:
                found.append((d, lsp))
        return document, found

    def text_edits(self, edits: Iterable[Edit], lines: list[str]) -> list[types.TextEdit]:
        return [
            types.TextEdit(range=self.lsp_range(lines, e.line, e.column, e.end_line, e.end_column), new_text=e.content)
            for e in edits
        ]

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        """The quick fixes of the findings in the range (a fix, ``# noqa``), and "fix all" for
        the document, as far as the client's ``only`` asks for them."""
        uri = params.text_document.uri
        self.flush(uri)
        only = params.context.only
        actions = self.quick_fixes(uri, params.range) if wanted(types.CodeActionKind.QuickFix, only) else []
        if wanted(FIX_ALL, only):
            fix_all = self.fix_all(uri)
            if fix_all is not None:
                actions.append(fix_all)
        return actions

    def fix_all(self, uri: str) -> types.CodeAction | None:
        """Every safe fix of the document applied, in passes as ``zlint --fix`` applies them, as
        one edit of the whole text; None when there is none (or the text changed since its lint)."""
        from zlint.engine.fixes import fix_text

        path = to_fs_path(uri)
        document = self.state.documents.get(path) if path else None
        if document is None or document.text != document.linted_text or document.error is not None:
            return None
        if not any(d.fix is not None and d.fix.applicability == Applicability.SAFE for d in document.diagnostics):
            return None
        settings = self.state.settings_for(document.path)
        fixed = fix_text(document.text, document.diagnostics, document.path, settings, scope=document.scope)
        if fixed.error is not None or fixed.text == document.text:
            return None
        whole = types.Range(start=types.Position(line=0, character=0), end=self.end_of(document.text))
        return types.CodeAction(
            title=f"zlint: fix all ({fixed.fixed} safe fix{'es' if fixed.fixed != 1 else ''})",
            kind=FIX_ALL,
            edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(range=whole, new_text=fixed.text)]}),
        )

    def end_of(self, text: str) -> types.Position:
        """The position after the last character of ``text`` (lines end at \\n, \\r\\n or \\r, as
        for LSP)."""
        from zlint.engine.fixes import lines_of

        lines = lines_of(text)
        if not lines or lines[-1].endswith(("\n", "\r")):
            return types.Position(line=len(lines), character=0)
        return types.Position(line=len(lines) - 1, character=units(lines[-1], len(lines[-1]), self.encoding))

    def quick_fixes(self, uri: str, where: types.Range) -> list[types.CodeAction]:
        document, found = self.findings_in(uri, where)
        if document is None or not found:
            return []
        lines = document.linted_text.splitlines()
        current = document.text == document.linted_text  # fixes apply to the text they were made for
        actions: list[types.CodeAction] = []
        noqa: list[types.CodeAction] = []
        from zlint.adoption.add_noqa import with_noqa

        for d, _ in found:
            diagnostic = self.lsp_diagnostic(d, lines)
            if d.fix is not None and current:
                unsafe = d.fix.applicability == Applicability.UNSAFE
                actions.append(
                    types.CodeAction(
                        title=f"{'Unsafe fix' if unsafe else 'Fix'} {d.code}: {d.fix.message}"
                        + (" (may change behaviour)" if unsafe else ""),
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[diagnostic],
                        is_preferred=not unsafe,
                        edit=types.WorkspaceEdit(changes={uri: self.text_edits(d.fix.edits, lines)}),
                    )
                )
            if not current:
                continue
            new_line = with_noqa(document.text, d.line, [d.code])
            if new_line is not None:
                old = lines[d.line - 1]
                edit = types.TextEdit(
                    range=types.Range(
                        start=types.Position(line=d.line - 1, character=0),
                        end=types.Position(line=d.line - 1, character=units(old, len(old), self.encoding)),
                    ),
                    new_text=new_line,
                )
                noqa.append(
                    types.CodeAction(
                        title=f"Add `# noqa: {d.code}`",
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[diagnostic],
                        edit=types.WorkspaceEdit(changes={uri: [edit]}),
                    )
                )
        return actions + noqa

    def hover(self, params: types.HoverParams) -> types.Hover | None:
        where = types.Range(start=params.position, end=params.position)
        _, found = self.findings_in(params.text_document.uri, where)
        if not found:
            return None
        parts = []
        for d, _ in found:
            record = registry.record(d.code)
            summary = record.summary if record is not None else ""
            href = doc_url(d.code, self.docs_url)
            title = f"**{d.code}** [`{d.name}`]({href})" if href else f"**{d.code}** `{d.name}`"
            text = f"{title}: {summary}\n\n{d.message}\n\n_tier: {d.tier}; scope: {d.scope}"
            text += f" ({d.scope_reason})_" if d.scope_reason else "_"
            instead = use_instead(d.code)
            if instead:
                text += f"\n\n**Use instead**\n\n{instead}"
            parts.append(text)
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(parts)),
            range=found[0][1],
        )


def wanted(kind: str, only: list[str] | None) -> bool:
    """Whether a client that asks for the code action kinds ``only`` (None: all) wants ``kind``:
    a kind asked for covers the kinds below it (``source`` covers ``source.fixAll.zlint``)."""
    return only is None or any(kind == k or kind.startswith(f"{k}.") for k in only)


def is_config(path: str | None) -> bool:
    return path is not None and os.path.basename(path) == "pyproject.toml"


def build(docs_url: str | None = None, config_poll: float | None = None) -> ZlintServer:
    server = ZlintServer(docs_url, config_poll)

    @server.feature(types.INITIALIZE)
    @_guarded
    def initialize(ls: ZlintServer, params: types.InitializeParams) -> None:
        options = params.initialization_options
        if isinstance(options, dict) and isinstance(options.get("docsUrl"), str):
            ls.docs_url = options["docsUrl"] or None
        roots = [to_fs_path(f.uri) for f in params.workspace_folders or []]
        if not roots and (params.root_uri or params.root_path):
            roots = [to_fs_path(params.root_uri) if params.root_uri else params.root_path]
        ls.state = Workspace([r for r in roots if r])

    @server.feature(types.INITIALIZED)
    @_guarded
    def initialized(ls: ZlintServer, params: types.InitializedParams) -> None:
        from zlint.engine.lint import preload  # LibCST and the rules, before the first document

        started = time.perf_counter()
        preload(registry.default_codes())
        log.info("rules loaded in %.3fs", time.perf_counter() - started)
        watch = ls.client_capabilities.workspace
        dynamic = watch and watch.did_change_watched_files and watch.did_change_watched_files.dynamic_registration
        if dynamic:
            watchers = [types.FileSystemWatcher(glob_pattern=g) for g in ("**/pyproject.toml", "**/*.py")]
            ls.client_register_capability(
                types.RegistrationParams(
                    registrations=[
                        types.Registration(
                            id="zlint-watched-files",
                            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
                        )
                    ]
                )
            )
        elif ls.config_poll > 0:
            ls.polling = asyncio.ensure_future(ls.poll_config())
        # the documents an editor opens with its first request are linted before indexing starts
        asyncio.get_running_loop().call_later(
            INDEX_DELAY, lambda: setattr(ls, "indexing", asyncio.ensure_future(ls.index_workspace()))
        )

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    @_guarded
    def did_open(ls: ZlintServer, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        path = to_fs_path(item.uri)
        if path is None or not path.endswith((".py", ".pyi")):
            return
        started = time.perf_counter()
        ls.check_config()
        ls.uris[os.path.abspath(path)] = item.uri
        ls.publish(ls.state.open(path, ls.text_of(item.uri), item.version))
        log.info("opened %s: published in %.3fs", path, time.perf_counter() - started)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    @_guarded
    def did_change(ls: ZlintServer, params: types.DidChangeTextDocumentParams) -> None:
        path = to_fs_path(params.text_document.uri)
        if path is not None and path in ls.state.documents:
            ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    @_guarded
    def did_save(ls: ZlintServer, params: types.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        path = to_fs_path(uri)
        if is_config(path):
            ls.publish(ls.reload_settings())
        elif path is not None and path in ls.state.documents:
            handle = ls.pending.pop(uri, None)
            if handle is not None:
                handle.cancel()
            ls.relint(uri)  # reads the configuration again first if it changed

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    @_guarded
    def did_close(ls: ZlintServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        handle = ls.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        path = to_fs_path(uri)
        if path is not None and path in ls.state.documents:
            changed = ls.state.close(path)
            ls.uris.pop(os.path.abspath(path), None)
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
            ls.publish(changed)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @_guarded
    def did_change_watched_files(ls: ZlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        changed: set[str] = set()
        reload = False
        for event in params.changes:
            path = to_fs_path(event.uri)
            if is_config(path):
                reload = True
            elif path is not None and path.endswith((".py", ".pyi")):
                changed |= ls.state.file_changed_on_disk(path, deleted=event.type == types.FileChangeType.Deleted)
        if reload:
            changed |= ls.reload_settings()
        ls.publish(changed)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    @_guarded
    def did_change_workspace_folders(ls: ZlintServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        added = [to_fs_path(f.uri) for f in params.event.added]
        removed = [to_fs_path(f.uri) for f in params.event.removed]
        ls.publish(ls.state.change_roots([p for p in added if p], [p for p in removed if p]))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=False),
    )
    @_guarded
    def code_action(ls: ZlintServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        return ls.code_actions(params)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @_guarded
    def hover(ls: ZlintServer, params: types.HoverParams) -> types.Hover | None:
        ls.flush(params.text_document.uri)
        return ls.hover(params)

    return server
