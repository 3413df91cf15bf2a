"""What the language server knows about a workspace, without any of the protocol: the settings,
the project index over every Python file of the workspace (open documents as the editor has
them, the others as on disk), and each open document's findings.

A document's findings are linted once per text (:func:`zlint.pipeline.lint_unplaced`: ``# noqa``
applied, not yet placed) and placed with the document's scope from the project index
(:func:`zlint.pipeline.placed`), as :mod:`zlint.engine.parallel` does for a run. An edit
that changes a file's summary re-classifies the index; every open document whose scope changed
is placed again, without being linted again. A text that does not parse keeps the document's
last findings and its summary in the index, and records the error.

Nothing here raises for bad input; every path is absolute.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from zlint import pipeline
from zlint.core.budget import BudgetExceeded, time_budget
from zlint.core.diagnostics import Diagnostic, FileError
from zlint.core.settings import ConfigError, Settings
from zlint.core.source import ParsedSource, SourceError, parse_source, read_source
from zlint.engine.discovery import PathProblem, SettingsResolver, discover
from zlint.engine.incremental import Memo
from zlint.scope.classify import FileScope, classify
from zlint.scope.file_summary import FileSummary
from zlint.scope.index import scope_alone, summary_of
from zlint.scope.placement import workload_of
from zlint.workload.model import WorkloadError


@dataclass
class Document:
    """An open document: its text, its last good findings (unplaced and placed), and the error
    of its current text when it has one."""

    path: str
    text: str
    version: int | None = None
    #: the last text that linted: the findings' positions are in it
    linted_text: str = ""
    #: whether a text of the document has linted since it was opened (else it has no findings)
    linted: bool = False
    #: the findings of the last text that linted, before placement
    unplaced: list[Diagnostic] = field(default_factory=list)
    #: ``unplaced`` placed with ``scope``: what the editor shows
    diagnostics: list[Diagnostic] = field(default_factory=list)
    scope: FileScope | None = None
    #: why the current text could not be linted (a syntax error), or None
    error: FileError | None = None
    #: 1-based (line, column) the error points at, when it says
    error_at: tuple[int, int] | None = None
    #: the findings of the last lint by function: a re-lint parses only what an edit changed
    memo: Memo = field(default_factory=Memo, repr=False)
    #: an edited text, parsed, whose summary :meth:`Workspace.settle` has yet to take
    unsummarized: ParsedSource | None = field(default=None, repr=False)


class Workspace:
    """The workspace's settings, project index and open documents."""

    def __init__(self, roots: Iterable[str | os.PathLike] = ()) -> None:
        self.roots = [os.path.abspath(root) for root in roots]
        self._resolver = SettingsResolver()
        self._summaries: dict[str, FileSummary | None] = {}
        self._scopes: dict[str, FileScope] = {}
        self.documents: dict[str, Document] = {}
        #: the last configuration error seen (a bad pyproject.toml), for the front end to show
        self.config_errors: list[str] = []
        #: each pyproject.toml the settings depend on, as it was when first looked up
        self._config_seen: dict[Path, bytes | None] = {}
        self._config_files: frozenset[Path] = frozenset()
        #: whether every workspace file has been summarized (:meth:`index_workspace`)
        self.indexed = False
        #: a summary changed since the index was last classified (:meth:`settle`)
        self.stale = False

    # -- settings ----------------------------------------------------------------------------

    def settings_for(self, path: str) -> Settings:
        """The file's settings, as ``zlint PATH`` finds them; the defaults when its
        pyproject.toml is broken (the error is kept in :attr:`config_errors`)."""
        try:
            settings = self._resolver.for_path(Path(path))
            workload_of(settings)  # read now (once while unchanged): placement reads it from memory
            return settings
        except ConfigError as exc:
            self._config_error(f"{exc.path}: {exc}")
            return Settings()
        except WorkloadError as exc:  # the findings as without one, and the error shown
            self._config_error(str(exc))
            return dataclasses.replace(settings, workload=None, _cache={})
        finally:
            self._note_config_files()

    def _config_error(self, message: str) -> None:
        if message not in self.config_errors:
            self.config_errors.append(message)

    def _project_budget(self) -> float:
        """The project step's budget: the first workspace folder's ``file-time-budget``."""
        return self.settings_for(os.path.join(self.roots[0] if self.roots else os.getcwd(), "-")).file_time_budget

    def reload_settings(self) -> set[str]:
        """Read the configuration again (a pyproject.toml changed): every open document is linted
        again. Returns the open documents' paths."""
        self._resolver = SettingsResolver()
        self.config_errors = []
        self._config_seen, self._config_files = {}, frozenset()
        if self.indexed:  # `exclude` may have changed which files the workspace has
            files = set(self.workspace_files())
            for path in [p for p in self._summaries if p not in files and p not in self.documents]:
                del self._summaries[path]
            for path in files - self._summaries.keys():
                self.summarize_file(path)
        for document in self.documents.values():
            self._lint(document)
        self._classify()
        for document in self.documents.values():
            self._place(document)
        return set(self.documents)

    def config_changed(self) -> bool:
        """Whether a pyproject.toml that the settings in use depend on (the resolver's
        :meth:`~zlint.engine.discovery.SettingsResolver.config_files`) was changed, created or
        deleted since this was first asked about it. The editor may never say: Neovim registers no
        file watchers for a server, and a pyproject.toml saved in a buffer the server is not
        attached to sends it nothing. The content is compared, not the modification time, whose
        tick can be coarser than two quick writes."""
        self._note_config_files()
        return any(_content(path) != self._config_seen[path] for path in self._config_files)

    def _note_config_files(self) -> None:
        """Keep the content of the configuration files looked up since the last call, right after
        the lookup read them (those the indexing's walk looks up, at the next call)."""
        files = self._resolver.config_files()
        if files is not self._config_files:
            for path in files - self._config_seen.keys():
                self._config_seen[path] = _content(path)
            self._config_files = files

    # -- the project index -------------------------------------------------------------------

    def workspace_files(self) -> Iterator[str]:
        """The Python files ``zlint ROOT`` would lint, for every root (absolute paths)."""
        for root in self.roots:
            try:
                for item in discover([root], self._resolver):
                    if not isinstance(item, PathProblem):
                        yield os.path.abspath(item.path)
            except ConfigError as exc:
                self.config_errors.append(f"{exc.path}: {exc}")

    def summarize_file(self, path: str) -> None:
        """Summarize ``path`` as on disk, unless it is open (then the editor's text counts)."""
        if path in self.documents:
            return
        data = read_source(path)
        if not isinstance(data, bytes):
            self._summaries.pop(path, None)
            return
        try:
            self._summaries[path] = summary_of(path, parse_source(data, path), self.settings_for(path).file_time_budget)
        except SourceError:
            self._summaries[path] = None

    def finish_indexing(self) -> set[str]:
        """Classify once every file is summarized; returns the open documents whose findings
        changed."""
        self.indexed = True
        return self._reclassified()

    def index_workspace(self) -> set[str]:
        """Summarize every workspace file and classify (the front end does it in steps)."""
        for path in self.workspace_files():
            self.summarize_file(path)
        return self.finish_indexing()

    def change_roots(self, added: Iterable[str], removed: Iterable[str]) -> set[str]:
        """Workspace folders added or removed: the index follows; returns the open documents
        whose findings changed."""
        gone = [os.path.abspath(r) for r in removed]
        self.roots = [r for r in self.roots if r not in gone]
        new = [os.path.abspath(r) for r in added if os.path.abspath(r) not in self.roots]
        self.roots.extend(new)
        kept = set(self.workspace_files())
        for path in [p for p in self._summaries if p not in kept and p not in self.documents]:
            del self._summaries[path]
        for path in kept - self._summaries.keys():
            self.summarize_file(path)
        return self._reclassified()

    def file_changed_on_disk(self, path: str, deleted: bool = False) -> set[str]:
        """A file changed (or was deleted) outside the editor: the index follows; returns the
        open documents whose findings changed."""
        path = os.path.abspath(path)
        if path in self.documents:
            return set()
        before = self._summaries.get(path)
        if deleted:
            self._summaries.pop(path, None)
        else:
            self.summarize_file(path)
        if self._summaries.get(path) == before and (path in self._summaries) != deleted:
            return set()
        return self._reclassified()

    def scope_of(self, path: str) -> FileScope | None:
        return self._scopes.get(path)

    def _classify(self) -> None:
        for document in self.documents.values():
            if document.unsummarized is not None:
                budget = self.settings_for(document.path).file_time_budget
                self._summaries[document.path] = summary_of(document.path, document.unsummarized, budget)
                document.unsummarized = None
        self.stale = False
        summaries = [s for s in self._summaries.values() if s is not None]
        try:
            # the project step gets a file's budget, as in a run of the command (zlint.scope.index)
            with time_budget(self._project_budget()):
                self._scopes = classify(summaries)
        except (Exception, BudgetExceeded):  # noqa: BLE001 - keep the last scopes rather than fail the edit
            pass

    def settle(self) -> set[str]:
        """Summarize the texts edits left unsummarized and classify the index, if an edit left it
        stale (:meth:`update` with ``exact=False``); returns the open documents whose findings
        changed."""
        return self._reclassified() if self.stale else set()

    def _reclassified(self, skip: str | None = None) -> set[str]:
        self._classify()
        changed = set()
        for path, document in self.documents.items():
            if path != skip and self._scopes.get(path) != document.scope and self._place(document):
                changed.add(path)
        return changed

    # -- documents ---------------------------------------------------------------------------

    def open(self, path: str, text: str, version: int | None = None) -> set[str]:
        """A document opened in the editor; returns the paths whose findings to publish."""
        path = os.path.abspath(path)
        self.documents[path] = Document(path, text, version)
        return self.update(path, text, version) | {path}

    def close(self, path: str) -> set[str]:
        """The document closed: the index reads the file from disk again."""
        path = os.path.abspath(path)
        if self.documents.pop(path, None) is None:
            return set()
        return self.file_changed_on_disk(path, deleted=not os.path.isfile(path))

    def update(self, path: str, text: str, version: int | None = None, exact: bool = True) -> set[str]:
        """The document's new text: lint it, and re-place the open documents whose scope it
        changes. Returns the paths whose findings to publish (this one always).

        ``exact=False``: do not summarize the text nor classify the index now: place the findings
        with the document's last scope, its lines moved as the edit moved them, and leave the
        index stale; :meth:`settle` summarizes, classifies and re-places what that changes."""
        path = os.path.abspath(path)
        document = self.documents.get(path)
        if document is None:
            return self.open(path, text, version)
        before = document.linted_text
        if text == before and document.error is None and document.scope is not None:
            document.version = version  # saved, or an edit undone: the findings stand
            return {path}
        document.text, document.version = text, version
        parsed = self._lint(document)
        if parsed is None:  # does not parse: keeps its summary and findings
            return {path}
        if not exact and self.indexed and document.scope is not None:
            document.unsummarized = parsed
            self.stale = True
            self._place(document, _moved(document.scope, _line_map(before, text)))
            return {path}
        document.unsummarized = None
        # None: too deep to summarize, or past the file's budget: left out of the index
        summary = summary_of(path, parsed, self.settings_for(path).file_time_budget)
        changed: set[str] = set()
        new = path not in self._summaries or self._summaries[path] != summary
        if new:
            self._summaries[path] = summary
        if not self.indexed:  # the index is still being built: the file alone, as `zlint FILE`
            if summary is not None and (new or path not in self._scopes):
                self._scopes[path] = _alone(summary, self._scopes.get(path), self.settings_for(path).file_time_budget)
        elif new or self.stale:
            changed = self._reclassified(skip=path)
        self._place(document)
        return changed | {path}

    def _lint(self, document: Document) -> ParsedSource | None:
        """Lint the document's text into ``document.unplaced``; the parsed text, or None when it
        does not parse (``document.error`` says why; the last findings stay). A text that parses
        but fails to lint keeps the last findings too, with the error besides them."""
        path = document.path
        document.error = document.error_at = None
        try:
            parsed = parse_source(document.text, path)
        except SourceError as exc:
            document.error = FileError(path, str(exc))
            document.error_at = _error_position(str(exc))
            return None
        result = pipeline.lint_unplaced(parsed, path, self.settings_for(path), document.memo)  # LibCST loads here
        if result.error is not None:  # the last findings stay; the error is shown besides them
            document.error = result.error
            document.error_at = _error_position(result.error.reason)
        else:
            document.unplaced, document.linted_text, document.linted = result.diagnostics, document.text, True
        return parsed

    def _place(self, document: Document, scope: FileScope | None = None) -> bool:
        """Place the document's findings with its scope in the index (or ``scope``); True when
        they changed."""
        scope = scope or self._scopes.get(document.path)
        if scope is None:  # not summarized (a tree too deep): the file alone, as `zlint FILE` does
            scope = FileScope()
        placed = pipeline.placed(document.unplaced, scope, self.settings_for(document.path))
        document.scope = scope
        changed = _shown(placed) != _shown(document.diagnostics)
        document.diagnostics = placed
        return changed


def _content(path: Path) -> bytes | None:
    """The file's bytes; None when there is none (or it cannot be read, as a lookup finds it)."""
    try:
        return path.read_bytes()
    except OSError:
        return None


def _alone(summary: FileSummary, last: FileScope | None, budget: float | None = None) -> FileScope | None:
    try:
        return scope_alone(summary, budget) or last  # past the budget: the last scope
    except Exception:  # noqa: BLE001 - keep the last scope rather than fail the edit
        return last


def _line_map(old: str, new: str) -> Callable[[int], int]:
    """Where each line of ``old`` is in ``new`` (1-based), for an edit of one stretch of lines:
    the lines before and after it keep their text, those inside go to the stretch's end."""
    a, b = old.splitlines(), new.splitlines()
    n = min(len(a), len(b))
    head = 0
    while head < n and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < n - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    delta = len(b) - len(a)

    def moved(line: int) -> int:
        if line <= head:
            return line
        if line > len(a) - tail:
            return line + delta
        return max(head + 1, min(line, len(b) - tail))

    return moved


def _moved(scope: FileScope, moved: Callable[[int], int]) -> FileScope:
    """``scope`` with its lines where the edit moved them."""
    return dataclasses.replace(
        scope,
        regions=tuple((moved(s), moved(e), where, why) for s, e, where, why in scope.regions),
        skipped=tuple((moved(s), c, moved(e), ec) for s, c, e, ec in scope.skipped),
        option_operands=tuple((moved(s), c, moved(e), ec, why) for s, c, e, ec, why in scope.option_operands),
    )


def _shown(diagnostics: list[Diagnostic]) -> list[tuple]:
    """What the editor shows of each finding (Diagnostic's equality is its position and code)."""
    return [(d, d.end_line, d.end_column, d.message, d.tier, d.scope, d.scope_reason) for d in diagnostics]


def _error_position(reason: str) -> tuple[int, int] | None:
    """(line, column) from "syntax error at 3:5: ...", 1-based."""
    marker = "syntax error at "
    if marker not in reason:
        return None
    where = reason.split(marker, 1)[1].split(":", 2)
    try:
        return int(where[0]), int(where[1])
    except (IndexError, ValueError):
        return None
