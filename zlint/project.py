"""The project index: one cheap ``ast`` pass over every file of a run, before linting.

It answers, per file, where its code runs under ``torch.compile`` and whether the run enables a
single-graph mode (:mod:`zlint.facts.project_scope`). Workers receive only the small per-file
answer (:class:`FileScope`), which is also part of the file's cache key.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from zlint.engine import decode_source, read_source, SourceError
from zlint.facts.project_scope import FileScope, FileSummary, classify, summarize
from zlint.source import MAX_FILE_BYTES


class ProjectIndex:
    """The compiled scope of every file of one run."""

    def __init__(self, scopes: dict[str, FileScope]) -> None:
        self._scopes = scopes

    @classmethod
    def build(cls, paths: Iterable[str]) -> ProjectIndex:
        """Summarize each readable, parseable file; files that fail are linted (and reported)
        on their own later, so here they are simply left out."""
        summaries: list[FileSummary] = []
        for path in paths:
            tree = _tree(path)
            if tree is not None:
                summaries.append(summarize(path, tree))
        return cls(classify(summaries))

    def scope_of(self, path: str) -> FileScope | None:
        """The file's scope, or None when the file was not indexed (the engine then computes it
        from the file alone)."""
        return self._scopes.get(path)


def _tree(path: str) -> ast.Module | None:
    data = read_source(path)
    if not isinstance(data, bytes) or len(data) > MAX_FILE_BYTES:
        return None
    try:
        return ast.parse(decode_source(data), filename=path)
    except (SourceError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
