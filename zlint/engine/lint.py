"""The one linting engine: source text in, diagnostics out. Front ends are thin adapters.

Per file: decode, check syntax, parse once with LibCST, collect its imports, compute the shared
facts the enabled rules declare (``METADATA_DEPENDENCIES``) once, and run every enabled rule in one
batched traversal; then apply ``# noqa`` (:func:`lint_parsed`, from
a text and ``ast`` parsed once for every pass over the file) and place the findings in the file's
compiled scope (:func:`lint_source`; a run over many files places them with its project index).

The fast path (:mod:`zlint.engine.prepass`) first decides from the ``ast`` and the text which enabled
rules can report anything, and runs only those (parsing nothing when none can); then the
candidate stage (:mod:`zlint.candidates.stage`) reduces the text LibCST parses to the functions that
can hold a finding and what their facts read. Both read the rules' gates
(:mod:`zlint.candidates.gates`), not the rule classes. Positions are resolved only for files with
findings. ``ZLINT_FULL_PATH=1`` (or ``full_path=True``) parses every file whole and runs every
enabled rule, the plain reference the fast path must equal (``benchmarks/run.py --check``).

LibCST, the rule modules and the shared facts are imported when a file needs a rule run, not
with this module: a file that fails to decode or parse, whose settings enable no static rule, or
in which the gates leave nothing to parse, is linted without loading them
(``tests/engine/test_startup_imports.py``).
"""

from __future__ import annotations

import ast
import functools
import traceback
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from zlint.core import noqa, registry
from zlint.core.budget import BudgetExceeded, time_budget
from zlint.core.diagnostics import Diagnostic, FileError
from zlint.core.settings import Settings
from zlint.core.source import (  # the reading half lives in source (no LibCST)
    MAX_NESTING,
    FileResult,
    ParsedSource,
    SourceError,
    caused_by_recursion,
    exception_summary,
    full_path_default,
    nesting_depth,
    parse_source,
    read_source,
)
from zlint.scope.classify import FileScope, scope_for_file
from zlint.scope.frames import mark_skipped
from zlint.scope.pinned import mark_pinned
from zlint.scope.placement import place_counted

if TYPE_CHECKING:
    import libcst as cst

    from zlint.candidates import stage as candidates
    from zlint.engine.incremental import Memo
    from zlint.rules.base import Rule


def _failing_rule(exc: BaseException) -> str:
    """What failed, from the innermost frame that tells: a rule's code when one of its own
    methods raised; "shared facts" (naming the provider) when the failure is in the facts that
    rules share, even when a rule's request for them started the computation; else "engine"."""
    from libcst.metadata import BaseMetadataProvider

    from zlint.rules.base import Rule

    part = "engine"
    for frame, _ in traceback.walk_tb(exc.__traceback__):
        owner = frame.f_locals.get("self")
        module = frame.f_globals.get("__name__", "")
        if isinstance(owner, BaseMetadataProvider):
            part = f"shared facts ({type(owner).__name__})"
        elif isinstance(owner, Rule):
            if not module.startswith("libcst"):
                part = owner.code
            elif frame.f_code.co_name == "resolve":  # LibCST resolving the metadata a rule declared
                part = "shared facts"
        elif module.startswith("zlint.facts."):
            part = "shared facts"
    return part


def _never_raises(lint):
    """Whatever fails inside, linting a file ends in a FileResult, never an exception
    that would take the other files down; the error names what failed, on one line. The file's
    time budget (``file-time-budget``) holds for the whole lint: past it, the file is not linted."""

    @functools.wraps(lint)
    def guarded(source, path="<string>", *args, **kwargs) -> FileResult:
        settings = kwargs.get("settings", args[0] if args else None) or Settings()
        try:
            with time_budget(settings.file_time_budget):
                return lint(source, path, *args, **kwargs)
        except BudgetExceeded as exc:
            return FileResult(path, error=FileError(path, str(exc)))
        except MemoryError:
            return FileResult(path, error=FileError(path, "out of memory"))
        except Exception as exc:
            reason = "too deeply nested to analyse" if caused_by_recursion(exc) else (
                f"internal error in {_failing_rule(exc)}: {exception_summary(exc)} (please report)"
            )
            return FileResult(path, error=FileError(path, reason))

    return guarded


def run_rules(
    module: cst.Module,
    path: str,
    rules: list[type[Rule]],
    settings: Settings | None = None,
    source: str | None = None,
    tree: ast.Module | None = None,
) -> list[Diagnostic]:
    """Run ``rules`` over a parsed module in one batched traversal. ``source`` (the parsed text)
    and its ``tree`` let positions be computed per statement (:mod:`zlint.cst.positions`)."""
    from zlint.cst.batched import FastWrapper, visit_batched
    from zlint.facts.dynamic_dims import DimSettings, StaticDimsProvider
    from zlint.facts.imports import file_imports
    from zlint.rules.base import FileContext, ScopeTracker

    # every rule reads the imports, whatever metadata it declares: filled here, once per file
    imports = file_imports(module)
    dims = DimSettings(imports, settings.dynamic_dims, settings.static_dims) if settings else DimSettings(imports)
    wrapper = FastWrapper(module, unsafe_skip_copy=True, cache={StaticDimsProvider: dims})
    context = FileContext(
        path=path, module=module, imports=imports, settings=settings, wrapper=wrapper, source=source, tree=tree
    )
    visitors: list = [ScopeTracker(context)]
    visitors.extend(rule(context) for rule in rules)
    visit_batched(wrapper, visitors)
    return context.diagnostics


def _parse_and_run(
    text: str, path: str, rules: list[type[Rule]], settings: Settings, tree: ast.Module | None = None,
    reduced: candidates.Plan | None = None,
) -> list[Diagnostic] | FileError:
    """Parse ``text``, or the text the candidate stage ``reduced`` it to, and run ``rules``."""
    if reduced is not None and reduced.text is not None:
        outcome = _parse_and_run(reduced.text, path, rules, settings, tree=reduced.tree)
        if isinstance(outcome, FileError):
            return outcome
        return [d for d in outcome if not reduced.drops(d.line)]
    import libcst as cst

    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        return FileError(path, f"syntax error at {exc.raw_line}:{exc.raw_column + 1}: {exc.message}")
    except (RecursionError, MemoryError):
        return FileError(path, "too deeply nested to parse")
    try:
        return run_rules(module, path, rules, settings, source=text, tree=tree)
    except RecursionError:
        return FileError(path, "too deeply nested to analyse")
    except Exception as exc:  # a bug in a rule must not take the other files down
        if caused_by_recursion(exc):  # LibCST can turn a RecursionError into a KeyError
            return FileError(path, "too deeply nested to analyse")
        # exception_summary: one short line, even when str(exc) itself fails
        return FileError(path, f"internal error in {_failing_rule(exc)}: {exception_summary(exc)} (please report)")


@_never_raises
def lint_source(
    source: str | bytes,
    path: str = "<string>",
    settings: Settings | None = None,
    full_path: bool | None = None,
    scope: FileScope | None = None,
) -> FileResult:
    """Lint one file's contents. Never raises for bad input: problems come back as ``error``.

    ``scope``: where the file's code runs, from the run's project index (:mod:`zlint.scope.index`);
    None: computed from this file alone.

    ``full_path``: run every enabled rule, skipping the fast path's pre-pass (default:
    the ``ZLINT_FULL_PATH`` environment variable); the findings are the same either way.
    """
    settings = settings or Settings()
    try:
        parsed = parse_source(source, path)
    except SourceError as exc:
        return FileResult(path, error=FileError(path, str(exc)))
    result = lint_parsed(parsed, path, settings, full_path)
    if result.diagnostics:
        placed = place_counted(result.diagnostics, scope or scope_for_file(path, parsed.tree), settings)
        result.diagnostics, result.hidden = placed.diagnostics, placed.hidden
        result.hidden_findings = placed.hidden_findings
    return result


@_never_raises
def lint_parsed(
    parsed: ParsedSource, path: str = "<string>", settings: Settings | None = None, full_path: bool | None = None,
    memo: Memo | None = None,
) -> FileResult:
    """Lint a file already decoded and parsed (:func:`~zlint.core.source.parse_source`), up to the
    findings before placement: ``# noqa`` applied, no scope or tier yet, sorted. What the result
    cache stores: the findings depend on the file and its settings alone, and
    :func:`zlint.scope.placement.place` adds what the run's project index says (:mod:`zlint.engine.parallel`).

    ``memo``: the findings of this file's last lint, kept by a front end that lints one file again
    and again (the language server); only the functions an edit can change are parsed again
    (:mod:`zlint.engine.incremental`), and the findings are the same."""
    settings = settings or Settings()
    result = FileResult(path)
    text, tree = parsed.text, parsed.tree
    # LibCST's native parser segfaults on very deep nesting that ``ast`` accepts
    if nesting_depth(tree, text) > MAX_NESTING:
        result.error = FileError(path, f"too deeply nested to lint (more than {MAX_NESTING} levels)")
        return result

    codes = settings.enabled_codes(path)
    file_noqa = noqa.file_suppression(text) if "noqa" in text else None
    if file_noqa is not None:
        codes = frozenset(c for c in codes if not file_noqa.covers(c))
    rules: list[type[Rule]] = []
    reduced = None
    if registry.static_records(codes):
        selected: Iterable[str] = codes
        if not (full_path if full_path is not None else full_path_default()):
            selected, reduced = _gated(text, tree, codes, settings, memo is not None)
        if selected and (reduced is None or reduced.text is not None):  # something to parse
            from zlint import rules as rule_modules  # the rule modules (and LibCST) load now

            rules = rule_modules.visitors(selected)
    diagnostics: list[Diagnostic] = []
    if rules:
        from zlint.candidates.stage import Split  # loaded with the rules' gates already

        if isinstance(reduced, Split):  # a lint with a memo
            from zlint.engine.incremental import relint

            outcome = relint(reduced, path, rules, settings, memo, _parse_and_run)
        else:
            outcome = _parse_and_run(text, path, rules, settings, tree=tree, reduced=reduced)
        if isinstance(outcome, FileError):
            result.error = outcome
            return result
        diagnostics = mark_pinned(tree, mark_skipped(tree, outcome))  # what dynamo traces of each frame
    elif noqa.UNUSED_NOQA_CODE not in codes:
        return result

    lines = noqa.physical_lines(text)
    kept = noqa.filter_suppressed(diagnostics, lines)
    if noqa.UNUSED_NOQA_CODE in codes:  # opt-in: needs the findings from before suppression
        unused = noqa.unused_noqa(text, path, diagnostics, codes, registry.RULES_BY_CODE)
        kept.extend(noqa.filter_suppressed(unused, lines))
    result.diagnostics = sorted(kept)
    return result


def _gated(
    text: str, tree: ast.Module, codes: frozenset[str], settings: Settings, split: bool = False
) -> tuple[list[str], candidates.Plan | candidates.Split | None]:
    """The fast path, from the gates of the enabled static rules alone (no rule module, no
    LibCST): the codes that can report in this file, and the candidate stage's plan for them
    (None: parse the file whole); with ``split``, the stage's :class:`~zlint.candidates.stage.Split`
    where it has one, for a lint with a memo."""
    from zlint.candidates import stage as candidates
    from zlint.candidates.gates import gate_of
    from zlint.engine import prepass

    gates = [gate_of(record.code) for record in registry.static_records(codes)]
    try:
        gates = list(prepass.relevant_rules(text, tree, gates, settings))
    except RecursionError:  # a pathological nesting depth: let the full path report it
        pass
    reduced = None
    if gates:
        try:
            reduced = (candidates.split if split else candidates.plan)(text, tree, gates, settings)
        except RecursionError:
            pass
    return [gate.code for gate in gates], reduced


def preload(codes: Iterable[str]) -> None:
    """Import now what linting with ``codes`` loads on first use (LibCST, the rule modules, the
    shared facts): worker processes forked afterwards share it instead of each importing its own
    (about 0.4 s of CPU per worker)."""
    codes = frozenset(codes)
    if registry.static_records(codes):
        from zlint import rules
        from zlint.facts import imports, size_facts  # noqa: F401

        rules.visitors(codes)


def lint_file(path: str | Path, settings: Settings | None = None) -> FileResult:
    """Read and lint one file."""
    data = read_source(path)
    if isinstance(data, FileResult):
        return data
    return lint_source(data, str(path), settings)
