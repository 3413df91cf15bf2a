"""Lint many files: one read per file, cache look-ups in this process, one worker task per file
that misses a cache, and the findings placed here with the run's project index.

Each file is read and hashed once. A file whose findings or whose project-index summary is not
cached becomes one task: the worker parses its ``ast`` once and makes from it both the summary
(:func:`zlint.scope.index.summary_of`) and the findings before placement
(:func:`zlint.engine.lint.lint_parsed`). The result cache holds those unplaced findings, keyed by the
file's bytes, path and settings only; once every summary is in, the project index is classified
and every file's findings (cached or not) are placed with its scope
(:func:`zlint.scope.placement.place`). An edit that moves another file's code in or out of compiled
scope therefore re-places that file's findings without linting it again.

Results come back in the order of the targets whatever the number of workers, so the output is
byte-identical for any ``--jobs``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zlint.core.budget import BudgetExceeded, time_budget
from zlint.core.diagnostics import FileError
from zlint.core.settings import Settings
from zlint.core.source import FileResult, ParsedSource, SourceError, parse_source, read_source
from zlint.engine.cache import Cache, file_key, settings_fingerprint
from zlint.engine.workers import MIN_FILES_PER_WORKER, default_jobs, worker_pool
from zlint.scope.index import PendingIndex, ProjectIndex, summary_of

if TYPE_CHECKING:
    from zlint.scope.classify import FileScope
    from zlint.scope.file_summary import FileSummary


@dataclass
class FileTask:
    """One file's work in a worker: its summary for the project index, its findings, or both."""

    index: int
    path: str
    data: bytes
    #: the file's settings when its findings are not cached; None: lint nothing
    settings: Settings | None
    #: whether the project index needs the file's summary
    summarize: bool
    #: the file's time budget in seconds (``file-time-budget``)
    budget: float


def run_file_task(task: FileTask) -> tuple[int, FileSummary | None, FileResult | None]:
    """The file's summary (when asked for) and unplaced findings (when asked for), from one
    ``ast``, both within the file's time budget. Never raises: a file that fails is an error line
    of its own."""
    try:
        with time_budget(task.budget):
            try:
                parsed = parse_source(task.data, task.path)
            except SourceError as exc:  # reported by the lint as by `zlint FILE`; not in the index
                error = FileResult(task.path, error=FileError(task.path, str(exc)))
                return task.index, None, error if task.settings is not None else None
            summary = summary_of(task.path, parsed) if task.summarize else None
            result = lint_parsed(parsed, task.path, task.settings) if task.settings is not None else None
            return task.index, summary, result
    except BudgetExceeded as exc:  # past the budget between the steps: as past it inside one
        return task.index, None, FileResult(task.path, error=FileError(task.path, str(exc)))


def lint_parsed(parsed: ParsedSource, path: str, settings: Settings) -> FileResult:
    """The engine's :func:`~zlint.engine.lint.lint_parsed` (unplaced findings), imported on first
    use: a run whose files all hit the cache never loads LibCST or a rule."""
    from zlint.engine.lint import lint_parsed as lint

    return lint(parsed, path, settings)


def lint_source(data: bytes, path: str, settings: Settings) -> FileResult:
    """The engine's :func:`~zlint.engine.lint.lint_source`: placed by the file alone."""
    from zlint.engine.lint import lint_source as lint

    return lint(data, path, settings)


@dataclass
class LintedRun:
    """One run's placed results, in target order, and the project index that placed them (what
    the fix step re-places a fixed file with)."""

    results: list[FileResult]
    project: ProjectIndex


def lint_files(
    targets: Sequence[tuple[str, Settings]], jobs: int | None = None, cache: Cache | None = None
) -> list[FileResult]:
    """:func:`lint_run`'s results alone."""
    return lint_run(targets, jobs, cache).results


def lint_run(
    targets: Sequence[tuple[str, Settings]],
    jobs: int | None = None,
    cache: Cache | None = None,
    contents: Mapping[str, bytes] | None = None,
    whole: frozenset[str] = frozenset(),
) -> LintedRun:
    """Lint ``(path, settings)`` pairs as one run (one project index over all of them); one
    placed :class:`FileResult` per target, in target order. ``cache`` also keeps the index's
    summaries and its recent answers (``cache.project_file``). ``contents``: the bytes of the
    paths not to read from disk (``zlint -``: stdin's, under the name it is linted as). ``whole``:
    the paths whose whole package the run holds (:func:`zlint.engine.discovery.whole_packages`)."""
    results: list[FileResult | None] = [None] * len(targets)
    files: list[tuple[int, str, bytes, Settings]] = []
    for index, (path, settings) in enumerate(targets):
        data = contents[path] if contents and path in contents else read_source(path)
        if isinstance(data, FileResult):  # unreadable: reported, never cached
            results[index] = data
        else:
            files.append((index, path, data, settings))
    # the project step serves every file: the most generous of their budgets (0: none)
    budgets = [settings.file_time_budget for _, _, _, settings in files]
    budget = None if not budgets or 0 in budgets else max(budgets)
    pending = PendingIndex(
        ((path, data) for _, path, data, _ in files), cache.project_file if cache else None, whole, budget
    )

    unplaced: dict[int, FileResult] = {}
    keys: dict[int, str] = {}
    tasks: list[FileTask] = []
    summarizing: set[str] = set()
    # files share their settings (one object per directory): fingerprint each combination once
    fingerprints: dict[tuple[int, frozenset[str]], str] = {}
    for index, path, data, settings in files:
        lint = True
        if cache is not None:
            codes = frozenset(settings.enabled_codes(path))
            fingerprint = fingerprints.get((id(settings), codes))
            if fingerprint is None:
                fingerprint = fingerprints[id(settings), codes] = settings_fingerprint(settings, codes)
            key = file_key(path, data, fingerprint)
            found = cache.get(key, path)
            if found is not None:
                unplaced[index] = FileResult(path, *found)
                lint = False
            else:
                keys[index] = key
        summarize = pending.wants(path) and path not in summarizing
        if summarize:
            summarizing.add(path)
        if lint or summarize:
            tasks.append(FileTask(index, path, data, settings if lint else None, summarize, settings.file_time_budget))

    summaries: dict[str, FileSummary | None] = {}
    for index, summary, result in _run_all(tasks, jobs):
        path = targets[index][0]
        if path in summarizing:
            summaries[path] = summary
        if result is not None:
            unplaced[index] = result
    project = pending.finish(summaries)

    if cache is not None:
        for index, key in keys.items():
            cache.put(key, unplaced[index].diagnostics, unplaced[index].error)
        cache.save()
    for index, path, data, settings in files:
        results[index] = _placed(unplaced[index], project.scope_of(path), data, settings)
    return LintedRun([r for r in results if r is not None], project)


def _run_all(tasks: list[FileTask], jobs: int | None) -> list[tuple[int, FileSummary | None, FileResult | None]]:
    """Every task's outcome, across worker processes when there are enough tasks to pay for
    starting them (in any order: the caller files each by its index)."""
    jobs = default_jobs() if not jobs or jobs < 1 else jobs
    workers = min(jobs, len(tasks) // MIN_FILES_PER_WORKER)
    if workers <= 1:
        return [run_file_task(task) for task in tasks]
    codes = [task.settings.enabled_codes(task.path) for task in tasks if task.settings is not None]
    if codes:  # LibCST and the rules load only to lint; here once, so forked workers share them
        from zlint.engine.lint import preload

        preload(frozenset().union(*codes))
    # biggest files first, so no worker is left with a large file at the end
    order = sorted(tasks, key=lambda t: len(t.data), reverse=True)
    with worker_pool(workers) as pool:
        return list(pool.imap_unordered(run_file_task, order, chunksize=1))


def _placed(result: FileResult, scope: FileScope | None, data: bytes, settings: Settings) -> FileResult:
    """``result`` with its findings placed in ``scope`` (:func:`zlint.scope.placement.place`)."""
    if not result.diagnostics:
        return result
    if scope is None:  # left out of the index (its summary failed): lint it as `zlint FILE` would
        return lint_source(data, result.path, settings)
    from zlint.scope.placement import place_counted

    placed = place_counted(result.diagnostics, scope, settings)
    return FileResult(result.path, placed.diagnostics, result.error, placed.hidden, placed.hidden_findings)
