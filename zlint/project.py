"""The project index: one cheap ``ast`` pass over every file of a run, before linting.

It answers, per file, where its code runs under ``torch.compile`` and whether the run enables a
single-graph mode (:mod:`zlint.facts.project_scope`). Workers receive only the small per-file
answer (:class:`FileScope`), which is also part of the file's cache key. With a cache directory,
each file's summary is kept by the hash of its bytes, so a warm run parses only changed files,
and the answers for the last few runs' sets of files are kept in a small file of their own, so a
run over the same files as one of those reads neither the summaries (megabytes of JSON) nor any
``ast``.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from zlint.atomic import atomic_write
from zlint.facts.file_summary import FileSummary, _Class, _Function, _Guard, summarize
from zlint.facts.project_scope import FileScope, classify
from zlint.source import MAX_FILE_BYTES, SourceError, decode_source, read_source
from zlint.workers import MIN_FILES_PER_WORKER, default_jobs, worker_pool


class ProjectIndex:
    """The compiled scope of every file of one run."""

    def __init__(self, scopes: dict[str, FileScope]) -> None:
        self._scopes = scopes

    @classmethod
    def build(cls, paths: Iterable[str], cache_file: Path | None = None, jobs: int | None = None) -> ProjectIndex:
        """Summarize each readable, parseable file; files that fail are linted (and reported)
        on their own later, so here they are simply left out. ``cache_file`` keeps the summaries,
        and the answers for the last few sets of files, between runs. ``jobs``: worker processes
        for the files not in the cache (as many as cores when None)."""
        keys: dict[str, tuple[str, bytes]] = {}
        for path in paths:
            data = read_source(path)
            if isinstance(data, bytes) and len(data) <= MAX_FILE_BYTES:
                key = hashlib.sha256(path.encode("utf-8", "surrogatepass") + b"\0" + data).hexdigest()
                keys[key] = (path, data)
        run = hashlib.sha256("\0".join(keys).encode()).hexdigest()
        answer_file = _answer_file(cache_file) if cache_file is not None else None
        answers = _recent_answers(answer_file) if answer_file is not None else []
        for answer in answers:
            if answer.get("run") == run:  # the same files as a recent run
                scopes = _decode_scopes(answer.get("scopes"))
                if scopes is not None:
                    return cls(scopes)
        stored = _load(cache_file) if cache_file is not None else {}
        current: dict[str, object] = {}  # the stored form of this run's summaries
        found: dict[str, FileSummary | None] = {}
        missing: list[tuple[str, str, bytes]] = []
        for key, (path, data) in keys.items():
            entry = stored.get(key)
            found[key] = _decode(entry) if entry is not None else None
            if found[key] is None:
                missing.append((key, path, data))
            else:
                current[key] = entry
        found.update(_summarize_all(missing, jobs))
        summaries: list[FileSummary] = []
        fresh = False
        for key, summary in found.items():  # in the order of the paths, whoever summarized them
            if summary is not None:
                if key not in current:
                    current[key] = _encode(summary)
                    fresh = True
                summaries.append(summary)
        scopes = classify(summaries)
        if cache_file is not None and answer_file is not None:
            answer = {"run": run, "scopes": {p: dataclasses.astuple(s) for p, s in scopes.items()}}
            answers = [answer, *answers][:RECENT_ANSWERS]
            try:
                cache_file.parent.mkdir(parents=True, exist_ok=True)
                if fresh:  # the summaries of other runs' files stay (a one-file run between two
                    # runs over a tree must not make the second summarize every file again)
                    others = [(k, v) for k, v in stored.items() if k not in current][-MAX_OTHER_SUMMARIES:]
                    kept = {**dict(others), **current}
                    atomic_write(cache_file, json.dumps(kept, separators=(",", ":")).encode("utf-8"))
                atomic_write(answer_file, json.dumps({"answers": answers}, separators=(",", ":")).encode("utf-8"))
            except OSError:
                pass  # a read-only disk must not fail the lint
        return cls(scopes)

    def scope_of(self, path: str) -> FileScope | None:
        """The file's scope, or None when the file was not indexed (the engine then computes it
        from the file alone)."""
        return self._scopes.get(path)


#: summaries kept besides those of the current run's files (older contents, other runs' files)
MAX_OTHER_SUMMARIES = 5_000
#: the answers kept for the most recent sets of files (pre-commit's few files between runs over
#: the whole tree find theirs, and so does the next run over the tree)
RECENT_ANSWERS = 4


def _answer_file(cache_file: Path) -> Path:
    """Where the scopes of the recent runs' files are kept, next to the summaries."""
    return cache_file.with_name(f"last-run-{cache_file.name}")


def _recent_answers(answer_file: Path) -> list[dict]:
    answers = _load(answer_file).get("answers")
    return [a for a in answers if isinstance(a, dict)][:RECENT_ANSWERS] if isinstance(answers, list) else []


def _decode_scopes(data: object) -> dict[str, FileScope] | None:
    try:
        assert isinstance(data, dict)
        return {
            path: FileScope(tuple(tuple(r) for r in regions), *flags, tuple(tuple(s) for s in skipped))
            for path, (regions, *flags, skipped) in data.items()
        }
    except (AssertionError, TypeError, ValueError):
        return None


def _summarize_all(files: list[tuple[str, str, bytes]], jobs: int | None) -> dict[str, FileSummary | None]:
    """``{key: summary}`` of ``(key, path, data)`` files, None for a file that does not parse;
    across worker processes when there are enough files to pay for starting them."""
    jobs = default_jobs() if not jobs or jobs < 1 else jobs
    workers = min(jobs, len(files) // MIN_FILES_PER_WORKER)
    if workers <= 1:
        return {key: _summary(path, data) for key, path, data in files}
    out: dict[str, FileSummary | None] = {}
    order = sorted(files, key=lambda f: len(f[2]), reverse=True)  # big files first: no straggler
    with worker_pool(workers) as pool:
        for key, summary in pool.imap_unordered(_summary_task, order, chunksize=4):
            out[key] = summary
    return out


def _summary_task(file: tuple[str, str, bytes]) -> tuple[str, FileSummary | None]:
    key, path, data = file
    return key, _summary(path, data)


def _summary(path: str, data: bytes) -> FileSummary | None:
    tree = _tree(path, data)
    return summarize(path, tree) if tree is not None else None


def _tree(path: str, data: bytes) -> ast.Module | None:
    try:
        return ast.parse(decode_source(data), filename=path)
    except (SourceError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _encode(summary: FileSummary) -> dict:
    data = dataclasses.asdict(summary)
    for function in [*data["functions"].values(), *data["shadowed"]]:
        function["calls"] = sorted(function["calls"])
        function["branch_calls"] = sorted(function["branch_calls"])
        function["refs"] = sorted(function["refs"])
    return data


def _function(f: dict) -> _Function:
    return _Function(
        **{
            **f,
            "calls": set(f["calls"]),
            "branch_calls": set(f["branch_calls"]),
            "refs": set(f["refs"]),
            "params": tuple(f["params"]),
        }
    )


def _guard(g: dict) -> _Guard:
    orelse, parent = g["orelse"], g["parent"]
    return _Guard(
        g["function"], g["test"], tuple(g["body"]), tuple(orelse) if orelse else None,
        (list(g["calls"][0]), list(g["calls"][1])), tuple(parent) if parent else None,
    )


def _decode(data: object) -> FileSummary | None:
    """A stored summary, or None when it does not have the shape this version writes."""
    try:
        assert isinstance(data, dict)
        functions = {}
        for qual, f in data["functions"].items():
            function = _function(f)
            functions[qual] = function
        classes = {qual: _Class(**c) for qual, c in data["classes"].items()}
        shadowed = [_function(f) for f in data["shadowed"]]
        return FileSummary(
            **{
                **data,
                "functions": functions,
                "classes": classes,
                "shadowed": shadowed,
                "compiled_names": [tuple(pair) for pair in data["compiled_names"]],
                "guards": [_guard(g) for g in data["guards"]],
                "error_paths": [tuple(span) for span in data["error_paths"]],
            }
        )
    except (AssertionError, KeyError, TypeError, AttributeError):
        return None


def _load(cache_file: Path) -> dict[str, object]:
    try:
        loaded = json.loads(cache_file.read_bytes())
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}
