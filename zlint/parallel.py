"""Lint many files: cache look-ups in this process, the misses across worker processes.

Results come back in the order of the targets whatever the number of workers, so the output is
byte-identical for any ``--jobs``. Each file is read once here; the worker lints exactly the
bytes whose hash keys the cache entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zlint.cache import Cache, file_key, settings_fingerprint
from zlint.facts.project_scope import FileScope
from zlint.settings import Settings
from zlint.source import FileResult, read_source
from zlint.workers import MIN_FILES_PER_WORKER, default_jobs, worker_pool

if TYPE_CHECKING:
    from zlint.project import ProjectIndex


@dataclass
class _Task:
    index: int
    path: str
    data: bytes
    settings: Settings
    scope: FileScope | None = None


def lint_source(data: bytes, path: str, settings: Settings, scope: FileScope | None = None) -> FileResult:
    """The engine's :func:`~zlint.engine.lint_source`, imported on first use: a run whose files
    all hit the cache never loads LibCST or a rule."""
    from zlint.engine import lint_source as lint

    return lint(data, path, settings, scope=scope)


def _lint_task(task: _Task) -> tuple[int, FileResult]:
    return task.index, lint_source(task.data, task.path, task.settings, scope=task.scope)


def lint_files(
    targets: Sequence[tuple[str, Settings]],
    jobs: int | None = None,
    cache: Cache | None = None,
    project: ProjectIndex | None = None,
) -> list[FileResult]:
    """Lint ``(path, settings)`` pairs; one :class:`FileResult` per target, in target order.
    ``project``: the run's project index; what it says about a file is part of the file's key."""
    results: list[FileResult | None] = [None] * len(targets)
    keys: dict[int, str] = {}
    tasks: list[_Task] = []
    # files share their settings (one object per directory): fingerprint each combination once
    fingerprints: dict[tuple[int, frozenset[str]], str] = {}
    for index, (path, settings) in enumerate(targets):
        data = read_source(path)
        if isinstance(data, FileResult):  # unreadable: reported, never cached
            results[index] = data
            continue
        scope = project.scope_of(path) if project is not None else None
        if cache is not None:
            codes = frozenset(settings.enabled_codes(path))
            fingerprint = fingerprints.get((id(settings), codes))
            if fingerprint is None:
                fingerprint = fingerprints[id(settings), codes] = settings_fingerprint(settings, codes)
            if scope is not None:
                fingerprint += "\0" + scope.fingerprint()
            key = file_key(path, data, fingerprint)
            found = cache.get(key, path)
            if found is not None:
                results[index] = FileResult(path, found[0], found[1])
                continue
            keys[index] = key
        tasks.append(_Task(index, path, data, settings, scope))

    if tasks:  # LibCST and the rules load only when a file is linted, never for cache hits
        import zlint.engine  # noqa: F401 - imported once here, so forked workers inherit it

    jobs = default_jobs() if not jobs or jobs < 1 else jobs
    workers = min(jobs, len(tasks) // MIN_FILES_PER_WORKER)
    if workers > 1:
        # biggest files first, so no worker is left with a large file at the end
        tasks.sort(key=lambda t: len(t.data), reverse=True)
        with worker_pool(workers) as pool:
            for index, result in pool.imap_unordered(_lint_task, tasks, chunksize=1):
                results[index] = result
    else:
        for task in tasks:
            results[task.index] = _lint_task(task)[1]

    if cache is not None:
        for index, key in keys.items():
            result = results[index]
            assert result is not None
            cache.put(key, result.diagnostics, result.error)
        cache.save()
    return [r for r in results if r is not None]
