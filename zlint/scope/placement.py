"""Where each finding runs and what it costs, and which findings the settings show.

Applied by the engine to a file's findings once they are final (after ``# noqa``):

* ``scope``/``scope_reason`` from the file's :class:`~zlint.scope.classify.FileScope`, and
  ``never`` for a finding in a frame dynamo skips (:mod:`zlint.scope.frames`);
* ``tier``: a rule's single-graph finding becomes ``default`` where a single-graph mode is on
  (enabled in this file, or in the run and the finding sits in compiled code): there it bites;
* the ``scope`` setting hides never-compiled findings of rules about compiled code, those on a
  path only a non-default module option takes, and those in unknown code where the run holds
  the file's whole package (no compiled caller exists);
* the ``workload`` setting decides what a recorded run says of each finding
  (:mod:`zlint.workload.decide`);
* the ``target`` setting hides single-graph findings when targeting plain ``torch.compile``.

Every host calls this one step (:func:`place_counted`), so the same files, settings and workload
give the same findings on the command line, in flake8 and in the language server.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field

from zlint.core import registry
from zlint.core.diagnostics import Diagnostic, Hidden
from zlint.scope.classify import COMPILED, NEVER, OPTION, UNKNOWN, FileScope
from zlint.scope.frames import skipped_reason
from zlint.workload.decide import decide
from zlint.workload.model import Workload, load_workload

# default: compiled code, and unknown code unless the run holds its whole package
SCOPES = ("default", "all")
TARGETS = ("default", "single-graph")


def about_compiled_code(code: str) -> bool:
    """True for rules whose findings matter only where the code runs compiled (not the rules
    about compile calls and configuration, nor the meta rules about comments)."""
    rule = registry.RULES_BY_CODE.get(code)
    return bool(getattr(rule, "about_compiled_code", True)) if rule is not None else False


@dataclass
class Placed:
    """A file's findings as the settings show them, and what placement hid: how many, by why,
    and the findings themselves, each with why (``Diagnostic.hidden``; ``--show-hidden``)."""

    diagnostics: list[Diagnostic]
    hidden: Hidden = field(default_factory=Hidden)
    hidden_findings: list[Diagnostic] = field(default_factory=list)


def place(diagnostics: list[Diagnostic], scope: FileScope, settings) -> list[Diagnostic]:
    """The findings with scope and tier filled in, less those the settings hide."""
    return place_counted(diagnostics, scope, settings).diagnostics


def place_counted(diagnostics: list[Diagnostic], scope: FileScope, settings) -> Placed:
    """The one placement step every host runs (the command line, the flake8 plugin, the language
    server): scope and tier from the file's place in the project index, then the settings'
    ``workload`` decides (:mod:`zlint.workload.decide`), then ``target`` and ``scope`` hide what
    they hide. The target comes last: a workload moves a single-graph finding to the default
    tier where it saw the size at 0 or 1, and one it moved back is still shown under the default
    target only when it costs there. The workload is read once per file it names
    (:func:`workload_of`); a host checks it can be read before linting (:class:`WorkloadError`)."""
    hidden = Hidden()
    show_all = getattr(settings, "scope", "default") == "all"
    target = getattr(settings, "target", "default")
    compiled_only = getattr(settings, "compiled_only", False)
    workload = workload_of(settings)
    # a recorded workload says which options the deployment turns on (a path it ran is taken), so
    # it, not the guess from defaults, decides the optional paths (zlint.workload.decide). It
    # does not say what runs compiled: an eager run also takes `if not is_compiling():` paths and
    # code no compiled caller reaches, so that guess stays (measured: un-hiding it added four
    # unconfirmed findings of transformers' masking helpers on the shared workloads, 9/16)
    recorded = workload is not None
    out: list[Diagnostic] = []
    hid: list[Diagnostic] = []
    for d in diagnostics:
        if d.needs and d.needs not in scope.facts:
            continue  # it holds only under a fact of the run that is not so
        where, reason = scope.classify(d.line, d.column)
        if d.skipped_by and where != NEVER:  # the frame runs eagerly (zlint.scope.frames)
            where, reason = NEVER, skipped_reason(d.skipped_by)
        elif d.paid_by and where != NEVER:  # the frame pins the sizes (zlint.scope.pinned)
            where, reason = NEVER, d.paid_by
        tier = d.tier
        if tier == "single-graph" and (
            scope.single_graph_here or (where == COMPILED and scope.single_graph_at(d.line))
        ):
            tier = "default"
        placed = dataclasses.replace(d, scope=where, scope_reason=reason, tier=tier, compiled=where == COMPILED)
        if not _required_mode_on(placed, scope):
            continue
        why = _hidden_by_scope(placed, scope, show_all, compiled_only, recorded)
        if why is None:
            out.append(placed)
            continue
        kind, text = why
        hid.append(dataclasses.replace(placed, hidden=text))
        if not (tier == "single-graph" and target == "default"):  # counted once, by the target
            setattr(hidden, kind, getattr(hidden, kind) + 1)
    if workload is not None:
        decided = decide(out, workload, about_compiled_code)
        out = decided.diagnostics
        hid.extend(decided.hidden)
        hidden.not_loaded, hidden.not_run = decided.not_loaded, decided.not_run
        hidden.constant, hidden.never_crossed = decided.constant, decided.never_crossed
    if target == "default":
        shown = [d for d in out if d.tier != "single-graph"]
        why = "single-graph tier (target = default)"
        hid.extend(dataclasses.replace(d, hidden=why) for d in out if d.tier == "single-graph")
        hidden.single_graph = len(out) - len(shown)
        out = shown
    return Placed(out, hidden, sorted(hid))


def _hidden_by_scope(
    d: Diagnostic, scope: FileScope, show_all: bool, compiled_only: bool, recorded: bool
) -> tuple[str, str] | None:
    """Why the ``scope`` and ``compiled-only`` settings hide a placed finding (the :class:`Hidden`
    count it goes to, and the reason), or None when they show it."""
    if not about_compiled_code(d.code):
        return None
    where, reason = d.scope, d.scope_reason
    if not show_all:
        if where == NEVER and d.paid_by and reason == d.paid_by:  # its frame already pays for its sizes
            return "paid", reason
        if where == NEVER:
            return "never", f"never compiled: {reason}"
        if where == OPTION and not recorded:
            return "optional", f"only a non-default configuration runs it: {reason}"
        if where == UNKNOWN and scope.whole_package:  # the run holds the package: nothing compiled reaches it
            return "unreached", f"nothing compiled reaches it ({reason})"
    if compiled_only and where != COMPILED:
        return "never", f"not compiled (compiled-only): {reason}"
    return None


#: absolute path -> (the file's modification time and size, the workload read from it)
_WORKLOADS: dict[str, tuple[tuple[int, int], Workload]] = {}


def workload_of(settings) -> Workload | None:
    """The workload the settings name (``workload``), read once while its file is unchanged; None
    when they name none. Raises :class:`WorkloadError` for a file that cannot be used."""
    path = getattr(settings, "workload", None)
    if path is None:
        return None
    try:
        stat = os.stat(path)
        stamp = (stat.st_mtime_ns, stat.st_size)
    except OSError:
        stamp = (0, -1)  # load_workload says why, in one line
    found = _WORKLOADS.get(path)
    if found is not None and found[0] == stamp:
        return found[1]
    workload = load_workload(path)
    _WORKLOADS[path] = (stamp, workload)
    return workload


def _required_mode_on(d: Diagnostic, scope: FileScope) -> bool:
    """Rules that exist only under ``backed_size_oblivious`` (``needs_size_oblivious``) report
    where this file enables it, or in compiled code that a set-up of the run reaches
    (:meth:`FileScope.single_graph_at`)."""
    rule = registry.RULES_BY_CODE.get(d.code)
    if not getattr(rule, "needs_size_oblivious", False):
        return True
    return scope.size_oblivious_here or (d.scope == COMPILED and scope.single_graph_at(d.line, oblivious=True))
