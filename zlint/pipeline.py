"""The run every front end uses: discover -> index and lint -> fix -> adopt -> verify.

A run is one project: every file it lints is placed with the same project index (the compiled
scope of the whole run), whether it was linted in a worker, read from the cache or fixed. So
``zlint FILES`` and ``zlint --fix FILES`` report the same findings on the files no fix changes,
and a fixed file's remaining findings are placed as they would be without ``--fix``.

The files come from discovery (or ``--config FILE``'s one table for all of them), or from stdin:
``zlint - --stdin-filename PATH`` lints the text it was given as PATH, and under ``--fix`` the
outcome carries the fixed text to print instead of writing it.

Front ends only turn their options into a :class:`Request` and print the :class:`Outcome`: the
command line (:mod:`zlint.frontends.cli`) runs every step; the flake8 plugin, which gets one file
at a time from flake8, runs :func:`lint_one`. Each step loads what it needs when it runs: the
engine's LibCST half when a file misses the cache, the fix loop under ``--fix``, the adoption
steps when asked for, and ``zlint.verify`` (torch, in workers) only under ``--verify``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zlint.core.diagnostics import Diagnostic, FileError, Hidden
from zlint.core.settings import Settings
from zlint.core.source import FileResult, ParsedSource, SourceError, parse_source
from zlint.engine.cache import Cache, file_key, settings_fingerprint
from zlint.engine.discovery import PathProblem, SettingsResolver, discover, display_path, whole_packages
from zlint.engine.parallel import LintedRun, lint_run
from zlint.engine.workers import fewer_collections

if TYPE_CHECKING:
    from zlint.engine.fixes import FixSession
    from zlint.engine.incremental import Memo
    from zlint.scope.classify import FileScope


class RunError(Exception):
    """A problem that stops the whole run (bad config, an unusable baseline, ``--verify`` unable to
    start): one line, exit 2."""


@dataclass(frozen=True)
class Request:
    """What to run: the paths, the command-line overrides of the settings, and the optional steps."""

    paths: Sequence[str]
    overrides: dict[str, Any] = field(default_factory=dict)
    jobs: int | None = None
    cache: Cache | None = None
    #: ``--fix`` / ``--diff``: apply (or show) the safe fixes, and the unsafe ones too when asked
    fix: bool = False
    diff: bool = False
    unsafe_fixes: bool = False
    baseline: str | None = None
    write_baseline: str | None = None
    add_noqa: bool = False
    #: ``--verify``: the runner's options, made from the linted ``(path, settings)`` pairs
    verify: Callable[[list[tuple[str, Settings]]], Any] | None = None
    #: ``--config PATH``: one ``[tool.zlint]`` for every file instead of the nearest pyproject.toml
    config: str | None = None
    #: ``zlint -``: the source read from stdin, linted instead of ``paths`` as the file
    #: ``stdin_path`` (``--stdin-filename``: its settings, its exclusion and its name), else as ``-``
    stdin: bytes | None = None
    stdin_path: str | None = None


@dataclass
class Outcome:
    """What a run found: the files it linted, its findings (sorted), the files it could not lint,
    and what the fix and adoption steps have to say."""

    files: list[str] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)
    linted: list[tuple[str, Settings]] = field(default_factory=list)
    fixer: FixSession | None = None
    notes: list[str] = field(default_factory=list)
    #: the docs site the reports link rules to (``ZLINT_DOCS_URL``, else ``docs-url``), or None
    docs_url: str | None = None
    #: ``zlint - --fix``: the source to print, fixed (or as read when nothing changed)
    fixed_source: bytes | None = None
    #: what placement hid in the run's files, by why (the summary line counts it), and the
    #: findings themselves, each with why (``--show-hidden`` lists them)
    hidden: Hidden = field(default_factory=Hidden)
    hidden_findings: list[Diagnostic] = field(default_factory=list)


def run(request: Request) -> Outcome:
    """Every step of one run, in order. Raises :class:`RunError` for what stops the run."""
    from zlint.core.rule_docs import docs_base
    from zlint.core.settings import ConfigError, load_config

    outcome = Outcome()
    ordered: list[FileError | int] = []  # errors keep their place among the files' own
    contents: dict[str, bytes] = {}
    try:
        fixed = load_config(request.config) if request.config is not None else None
        resolver = SettingsResolver(request.overrides, fixed=fixed)
        if request.stdin is not None:
            found = _stdin_target(request, resolver)
            if found is not None:
                outcome.files.append(found[0])
                outcome.linted.append(found)
                ordered.append(0)
                contents[found[0]] = request.stdin
        else:
            for item in discover(request.paths or ["."], resolver):
                if isinstance(item, PathProblem):
                    ordered.append(FileError(item.path, item.reason))
                    continue
                outcome.files.append(item.path)
                outcome.linted.append((item.path, item.settings))
                ordered.append(len(outcome.linted) - 1)
        # a run is one project: the first file's settings say where its docs are
        first = outcome.linted[0][1] if outcome.linted else resolver.for_path(Path.cwd())
    except ConfigError as exc:
        raise RunError(f"{exc.path}: {exc}") from None
    outcome.docs_url = docs_base(first.docs_url)
    _check_workloads(outcome.linted)

    with fewer_collections():  # one pass per file: its project-index summary and its findings
        # a method no code of the run calls has no caller only where the run holds its package
        whole = frozenset() if request.stdin is not None else whole_packages(
            request.paths or ["."], [path for path, _ in outcome.linted]
        )
        linted = lint_run(outcome.linted, request.jobs, request.cache, contents, whole)
    results = linted.results
    outcome.notes.extend(linted.project.notes)
    if request.fix or request.diff:
        results = _fixed(linted, outcome, request)
    for entry in ordered:
        if isinstance(entry, FileError):
            outcome.errors.append(entry)
            continue
        outcome.diagnostics.extend(results[entry].diagnostics)
        if results[entry].error is not None:
            outcome.errors.append(results[entry].error)
    outcome.diagnostics.sort()
    files = [results[entry] for entry in ordered if not isinstance(entry, FileError)]
    for result in files:
        outcome.hidden += result.hidden
        outcome.hidden_findings.extend(result.hidden_findings)
    outcome.hidden_findings.sort()
    for count, where in (
        (outcome.hidden.unreached, "in code nothing compiled reaches (the run holds its whole package)"),
        (outcome.hidden.optional, "on paths only a non-default configuration of their module takes"),
    ):
        if count:
            outcome.notes.append(f"{_findings(count)} hidden {where}; --scope all shows them")
    _workload_notes(outcome, files)
    if outcome.hidden.single_graph:
        outcome.notes.append(
            f"{_findings(outcome.hidden.single_graph)} of the single-graph tier hidden by target = default; "
            "--target single-graph shows them"
        )
    if request.stdin is not None and request.fix:
        outcome.fixed_source = request.stdin
        if outcome.fixer is not None and outcome.fixer.sources:
            outcome.fixed_source = outcome.fixer.sources[-1]

    if request.diff:  # the diff is the output: nothing is adopted, verified or written
        return outcome
    if request.baseline is not None or request.write_baseline is not None or request.add_noqa:
        _adopt(outcome, request)
    if request.verify is not None:  # zlint.verify (and through it torch, in workers) only here
        from zlint.verify.runner import run_from_cli

        verified = run_from_cli(request.verify(outcome.linted), outcome.diagnostics, outcome.linted)
        if isinstance(verified, str):
            raise RunError(verified)
        outcome.diagnostics = verified
    return outcome


def _findings(count: int) -> str:
    return f"{count} finding{'' if count == 1 else 's'}"


def _check_workloads(linted: list[tuple[str, Settings]]) -> None:
    """Every workload the run's settings name can be read: one line and exit 2 before anything is
    linted (the placement step reads each again from memory)."""
    from zlint.scope.placement import workload_of
    from zlint.workload.model import WorkloadError

    for path in {settings.workload for _, settings in linted if settings.workload is not None}:
        try:
            workload_of(next(s for _, s in linted if s.workload == path))
        except WorkloadError as exc:
            raise RunError(str(exc)) from None


def _workload_notes(outcome: Outcome, files: list[FileResult]) -> None:
    """What each workload of the run decided, and which of the linted files it recorded: a
    workload that recorded none of them is an error (a stale ``workload =`` would hide every
    finding and pass), one that recorded some says how many."""
    from zlint.scope.placement import workload_of

    by_workload: dict[str, list[tuple[str, Settings]]] = {}
    for path, settings in outcome.linted:
        if settings.workload is not None:
            by_workload.setdefault(settings.workload, []).append((path, settings))
    for source, linted in by_workload.items():
        workload = workload_of(linted[0][1])
        assert workload is not None
        shown = f"workload {display_path(Path(source))}"
        covered = [path for path, _ in linted if path == "-" or workload.recorded(path) is not None]
        if not covered:
            # the recorded files under the working directory first: those are the ones to lint
            here = Path.cwd()
            recorded = sorted(workload.files, key=lambda p: (not Path(p).is_relative_to(here), p))
            names = ", ".join(display_path(Path(p)) for p in recorded[:3]) + (
                f" and {len(recorded) - 3} more" if len(recorded) > 3 else ""
            )
            what = f"the file linted ({linted[0][0]})" if len(linted) == 1 else f"any of the {len(linted)} files linted"
            raise RunError(
                f"{shown} did not record {what}; it recorded {names or 'no file'}: record the program that "
                "runs them (zlint record), or lint the files it ran"
            )
        hidden = Hidden()
        for result in files:
            if any(result.path == path for path, _ in linted):
                hidden += result.hidden
        for count, why in (
            (hidden.not_run, "on lines the workload never ran"),
            (hidden.not_loaded, "in files the workload never loaded"),
            (hidden.constant, "on sizes the workload held constant"),
        ):
            if count:
                outcome.notes.append(f"{_findings(count)} hidden {why} ({shown})")
        if hidden.never_crossed:
            outcome.notes.append(
                f"{_findings(hidden.never_crossed)} on thresholds the workload's sizes never crossed moved to the "
                f"single-graph tier ({shown})"
            )
        if len(covered) < len(linted):
            outcome.notes.append(
                f"{shown} recorded {len(covered)} of the {len(linted)} files linted; findings in the "
                f"{len(linted) - len(covered)} it did not record are hidden"
            )


def _stdin_target(request: Request, resolver: SettingsResolver) -> tuple[str, Settings] | None:
    """The file stdin stands for, with its settings; None when its path is excluded (an editor
    pipes every file it opens, so a file the project excludes gets no findings)."""
    if request.stdin_path is None:
        return "-", resolver.for_path(Path.cwd() / "-")
    path = Path(request.stdin_path)
    settings = resolver.for_path(path)
    if settings.is_excluded(path):
        return None
    return display_path(path), settings


def _fixed(linted: LintedRun, outcome: Outcome, request: Request) -> list[FileResult]:
    """The fix step: each file with a fix to apply goes through the fix loop, re-linted and placed
    with the run's project index; the other files keep the results the run already has."""
    from zlint.engine.fixes import FixSession, hidden_fixes, selected_fixes

    fixer = outcome.fixer = FixSession(request.unsafe_fixes, request.diff, write=request.stdin is None)
    results = list(linted.results)
    for index, (path, settings) in enumerate(outcome.linted):
        result = results[index]
        if result.error is not None or not selected_fixes(result.diagnostics, request.unsafe_fixes):
            continue
        fixed = fixer.lint(path, settings, scope=linted.project.scope_of(path), data=request.stdin)
        results[index] = FileResult(path, fixed.diagnostics, fixed.error, result.hidden, result.hidden_findings)
    if not request.unsafe_fixes:
        fixer.hidden = sum(hidden_fixes(result.diagnostics) for result in results)
    return results


def _adopt(outcome: Outcome, request: Request) -> None:
    from zlint.adoption.actions import adopt
    from zlint.adoption.baseline import BaselineError

    try:
        adoption = adopt(
            outcome.diagnostics,
            baseline=request.baseline,
            write_baseline_to=request.write_baseline,
            add_noqa_comments=request.add_noqa,
        )
    except BaselineError as exc:
        raise RunError(str(exc)) from None
    outcome.diagnostics = adoption.diagnostics
    outcome.errors.extend(adoption.errors)
    outcome.notes.extend(adoption.notes)


def lint_unplaced(parsed: ParsedSource, path: str, settings: Settings, memo: Memo | None = None) -> FileResult:
    """The index-and-lint step for one parsed file: its findings before placement (``# noqa``
    applied, no scope yet), what the cache stores. LibCST and the rules load on first use.
    ``memo``: kept by a front end that lints the file again after each edit (the language
    server): only what an edit changes is parsed again (:mod:`zlint.engine.incremental`)."""
    from zlint.engine.lint import lint_parsed

    return lint_parsed(parsed, path, settings, memo=memo)


def placed(diagnostics: list[Diagnostic], scope: FileScope, settings: Settings) -> list[Diagnostic]:
    """The placement step: ``diagnostics`` with scope and tier from ``scope`` (the file's place in
    the run's project index), less those the settings hide. A front end that keeps findings
    across edits (the language server) places them again when only the scope changed."""
    if not diagnostics:
        return diagnostics
    from zlint.scope.placement import place

    return place(diagnostics, scope, settings)


def lint_one(
    path: str,
    data: str | bytes,
    settings: Settings,
    cache: Cache | None = None,
    scope: Callable[[], FileScope] | None = None,
    parsed: ParsedSource | None = None,
) -> tuple[list[Diagnostic], FileError | None]:
    """One file as its own project (the flake8 plugin gets one file at a time): the findings
    before placement from the cache when it holds these bytes under this path and these settings
    (``cache`` needs ``data`` as bytes), else from the engine (``parsed``: the file's text and
    ``ast``, when the host has them), then placed with ``scope()``, asked for only when there is a
    finding to place (None: the file's own scope, as ``zlint FILE``)."""
    key = None
    found = None
    if cache is not None and isinstance(data, bytes):
        key = file_key(path, data, settings_fingerprint(settings, settings.enabled_codes(path)))
        found = cache.get(key, path)
    if found is None:
        if parsed is None:
            try:
                parsed = parse_source(data, path)
            except SourceError as exc:
                return [], FileError(path, str(exc))
        result = lint_unplaced(parsed, path, settings)
        found = result.diagnostics, result.error
        if key is not None:
            cache.put(key, *found)
    diagnostics, error = found
    if diagnostics:  # the cache holds findings before placement, as a run over many files does
        if scope is None:
            from zlint.scope.classify import scope_for_file

            tree = (parsed or parse_source(data, path)).tree
            diagnostics = placed(diagnostics, scope_for_file(path, tree), settings)
        else:
            diagnostics = placed(diagnostics, scope(), settings)
    return diagnostics, error
