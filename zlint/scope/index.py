"""The project index: one cheap ``ast`` pass over every file of a run, besides linting.

It answers, per file, where its code runs under ``torch.compile`` and whether the run enables a
single-graph mode (:mod:`zlint.scope.classify`); the run places each file's findings with
that answer (:class:`FileScope`) once every file is summarized. The summaries are made in the
same worker task that lints the file, from the same ``ast`` (:mod:`zlint.engine.parallel`):
:class:`PendingIndex` says which files need one, and classifies once they are in. With a cache
directory, each file's summary is kept by the hash of its bytes, so a warm run summarizes only
changed files, and the answers for the last few runs' sets of files are kept in a small file of
their own, so a run over the same files as one of those reads neither the summaries (megabytes
of JSON) nor any ``ast``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from zlint.core.atomic import atomic_write
from zlint.core.budget import BudgetExceeded, time_budget
from zlint.core.source import MAX_FILE_BYTES, ParsedSource, SourceError, parse_source, read_source
from zlint.scope.classify import FileScope, classify
from zlint.scope.file_summary import ClassInfo, FileSummary, FunctionInfo, GuardInfo, summarize


class ProjectIndex:
    """The compiled scope of every file of one run; ``notes``: what the run should say about how
    it was made (the project step ran past its budget)."""

    def __init__(self, scopes: dict[str, FileScope], notes: tuple[str, ...] = ()) -> None:
        self._scopes = scopes
        self.notes = notes

    @classmethod
    def build(cls, paths: Iterable[str], cache_file: Path | None = None) -> ProjectIndex:
        """Read and summarize ``paths`` in this process (``zlint`` itself summarizes in its
        linting workers: :func:`zlint.engine.parallel.lint_files`). Files that cannot be read or parsed
        are left out; ``cache_file`` keeps the summaries, and the answers for the last few sets
        of files, between runs."""
        files = [(path, data) for path in paths if isinstance(data := read_source(path), bytes)]
        pending = PendingIndex(files, cache_file)
        summaries = {}
        for path, data in files:
            if pending.wants(path):
                try:
                    summaries[path] = summary_of(path, parse_source(data, path))
                except SourceError:
                    summaries[path] = None
        return pending.finish(summaries)

    def scope_of(self, path: str) -> FileScope | None:
        """The file's scope, or None when the file was not indexed (it could not be read,
        parsed or summarized; its findings are then placed by the file alone)."""
        return self._scopes.get(path)


class PendingIndex:
    """The index of one run's files before their summaries are in: what the stores already
    answer, and which files still need a summary (:meth:`wants`)."""

    def __init__(
        self, files: Iterable[tuple[str, bytes]], cache_file: Path | None = None, whole: frozenset[str] = frozenset(),
        budget: float | None = None,
    ) -> None:
        """``files``: each file's path and the bytes read once for the whole run; ``whole``: the
        paths whose whole package the run holds (:func:`zlint.scope.classify.classify`);
        ``budget``: the seconds the project-wide step may take (the run's ``file-time-budget``)."""
        self._whole = whole
        self._budget = budget
        self._keys: dict[str, str] = {}  # key (path and bytes) -> path, in the order of the files
        for path, data in files:
            if len(data) <= MAX_FILE_BYTES:
                key = hashlib.sha256(path.encode("utf-8", "surrogatepass") + b"\0" + data).hexdigest()
                self._keys[key] = path
        self._cache_file = cache_file
        self._run = hashlib.sha256("\0".join([*self._keys, "\1", *sorted(whole)]).encode()).hexdigest()
        self._answer_file = _answer_file(cache_file) if cache_file is not None else None
        self._answers = _recent_answers(self._answer_file) if self._answer_file is not None else []
        #: the scopes of a recent run over the same files: no summary needed
        self._answered: dict[str, FileScope] | None = None
        for answer in self._answers:
            if answer.get("run") == self._run:
                self._answered = _decode_scopes(answer.get("scopes"))
                if self._answered is not None:
                    break
        self._stored: dict[str, object] = {}
        self._current: dict[str, object] = {}  # the stored form of this run's summaries
        self._found: dict[str, FileSummary | None] = {}
        self._missing: set[str] = set()  # paths
        if self._answered is not None:
            return
        self._stored = _load(cache_file) if cache_file is not None else {}
        for key, path in self._keys.items():
            entry = self._stored.get(key)
            self._found[key] = _decode(entry) if entry is not None else None
            if self._found[key] is None:
                self._missing.add(path)
            else:
                self._current[key] = entry

    def wants(self, path: str) -> bool:
        """Whether :meth:`finish` needs the summary of ``path`` (neither store has it)."""
        return path in self._missing

    def finish(self, summaries: Mapping[str, FileSummary | None]) -> ProjectIndex:
        """The index, given ``{path: summary}`` for the files :meth:`wants` (None for a file
        that does not parse); stores what is new."""
        if self._answered is not None:
            return ProjectIndex(self._answered)
        found: list[FileSummary] = []
        fresh = False
        for key, path in self._keys.items():  # in the order of the files, whoever summarized them
            summary = self._found[key]
            if summary is None and path in self._missing:
                summary = summaries.get(path)
                if summary is not None and self._cache_file is not None:  # encoded only to store
                    self._current[key] = _encode(summary)
                    fresh = True
            if summary is not None:
                found.append(summary)
        try:
            with time_budget(self._budget):
                scopes = classify(found, self._whole)
        except BudgetExceeded as exc:  # each file by itself (cheap), and the run says so; not stored
            scopes = {s.path: scope for s in found if (scope := scope_alone(s, self._budget)) is not None}
            return ProjectIndex(scopes, (
                f"the project index took longer than its time budget ({exc.seconds:g} s; the file-time-budget "
                "setting): each file's findings are placed by the file alone",
            ))
        if self._cache_file is not None and self._answer_file is not None:
            self._save(scopes, fresh)
        return ProjectIndex(scopes)

    def _save(self, scopes: dict[str, FileScope], fresh: bool) -> None:
        assert self._cache_file is not None and self._answer_file is not None
        answer = {"run": self._run, "scopes": {p: encode_scope(s) for p, s in scopes.items()}}
        answers = [answer, *self._answers][:RECENT_ANSWERS]
        try:
            self._cache_file.parent.mkdir(parents=True, exist_ok=True)
            if fresh:  # the summaries of other runs' files stay (a one-file run between two
                # runs over a tree must not make the second summarize every file again)
                stored, current = self._stored, self._current
                others = [(k, v) for k, v in stored.items() if k not in current][-MAX_OTHER_SUMMARIES:]
                kept = {**dict(others), **current}
                atomic_write(self._cache_file, json.dumps(kept, separators=(",", ":")).encode("utf-8"))
            atomic_write(self._answer_file, json.dumps({"answers": answers}, separators=(",", ":")).encode("utf-8"))
        except OSError:
            pass  # a read-only disk must not fail the lint


def scope_alone(summary: FileSummary, budget: float | None) -> FileScope | None:
    """The file's scope as a project of its own (as ``zlint FILE``), or None past ``budget``."""
    try:
        with time_budget(budget):
            return classify([summary])[summary.path]
    except BudgetExceeded:
        return None


def summary_of(path: str, parsed: ParsedSource, budget: float | None = None) -> FileSummary | None:
    """The file's summary, or None when summarizing fails (a tree too deep to walk) or runs past
    ``budget`` seconds (within any budget already running): the file is left out of the index, as
    one that does not parse, and never takes the run down."""
    try:
        with time_budget(budget):
            return summarize(path, parsed.tree, parsed.text)
    except BudgetExceeded:  # the linting of the file, under the same budget, reports it
        return None
    except Exception:  # noqa: BLE001 - the linting of the file reports what is wrong with it
        return None


def encode_scope(scope: FileScope) -> list:
    """A scope as plain JSON data (:func:`decode_scope` reads it back)."""
    return list(dataclasses.astuple(scope))


def decode_scope(data: object) -> FileScope | None:
    """A scope stored by :func:`encode_scope`, or None when it does not have that shape."""
    try:
        regions, *flags, skipped, whole, options, facts, modes = data  # type: ignore[misc]
        assert len(flags) == 4 and all(isinstance(flag, bool) for flag in (*flags, whole))
        assert all(isinstance(fact, str) for fact in facts)
        return FileScope(
            tuple(tuple(r) for r in regions), *flags, tuple(tuple(s) for s in skipped), whole,
            tuple(tuple(o) for o in options), tuple(facts), tuple(tuple(m) for m in modes),
        )
    except (AssertionError, TypeError, ValueError):
        return None


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
    if not isinstance(data, dict):
        return None
    scopes = {path: decode_scope(scope) for path, scope in data.items()}
    return scopes if None not in scopes.values() else None  # type: ignore[return-value]


def _encode(summary: FileSummary) -> dict:
    data = dataclasses.asdict(summary)
    data["attribute_names"] = sorted(data["attribute_names"])
    data["forward_replacers"] = sorted(data["forward_replacers"])
    for function in [*data["functions"].values(), *data["shadowed"]]:
        function["calls"] = sorted(function["calls"])
        function["branch_calls"] = sorted(function["branch_calls"])
        function["refs"] = sorted(function["refs"])
        function["stored_refs"] = sorted(function["stored_refs"])
        function["attribute_names"] = sorted(function["attribute_names"])
        function["table_reads"] = sorted(function["table_reads"])
    return data


def _function(f: dict) -> FunctionInfo:
    return FunctionInfo(
        **{
            **f,
            "calls": set(f["calls"]),
            "branch_calls": set(f["branch_calls"]),
            "refs": set(f["refs"]),
            "stored_refs": set(f["stored_refs"]),
            "attribute_names": set(f["attribute_names"]),
            "table_reads": set(f["table_reads"]),
            "params": tuple(f["params"]),
            "option_calls": {name: list(sites) for name, sites in f["option_calls"].items()},
            "tensor_checks": [tuple(pair) for pair in f["tensor_checks"]],
        }
    )


def _guard(g: dict) -> GuardInfo:
    orelse, parent = g["orelse"], g["parent"]
    return GuardInfo(
        g["function"], g["test"], tuple(g["body"]), tuple(orelse) if orelse else None,
        (list(g["calls"][0]), list(g["calls"][1])), tuple(parent) if parent else None,
        [list(pair) for pair in g["after"]],
    )


def _decode(data: object) -> FileSummary | None:
    """A stored summary, or None when it does not have the shape this version writes."""
    try:
        assert isinstance(data, dict)
        functions = {}
        for qual, f in data["functions"].items():
            function = _function(f)
            functions[qual] = function
        classes = {qual: ClassInfo(**c) for qual, c in data["classes"].items()}
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
                "once_paths": [tuple(span) for span in data["once_paths"]],
                "option_paths": list(data["option_paths"]),
                "attribute_names": set(data["attribute_names"]),
                "forward_replacers": set(data["forward_replacers"]),
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
