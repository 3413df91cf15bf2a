"""``zlint --verify``: from static findings to verify jobs, and from reports back to diagnostics.

Torch-free: jobs run in worker processes (:mod:`zlint.verify.pool`). Each static finding inside a
function gets a status; effects at lines with no static finding become ZL8xx diagnostics.
"""

from __future__ import annotations

import ast
import os
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from zlint.core import noqa
from zlint.core.diagnostics import Diagnostic
from zlint.verify.call_graph import CallGraph, CallPaths
from zlint.verify.caller_verdicts import CALLSITE_CODES, callsite_status, is_caller
from zlint.verify.evidence import (
    COMPILE_ERROR,
    CONFIRMED,
    CONSTRAINT,
    DATA_DEPENDENT,
    GRAPH_BREAK,
    GUARD,
    GUARDED,
    MISMATCH,
    MODES,
    NOT_OBSERVED,
    RECOMPILE,
    SPECIALIZATION,
    UNVERIFIABLE,
    Evidence,
    FunctionReport,
    eager_failures,
    evidence_dicts,
    graph_counts,
    is_mode_caveat,
)
from zlint.verify.evidence import costly as _costly
from zlint.verify.examples import CONVENTIONAL_FILE
from zlint.verify.flow import branch_groups, choices
from zlint.verify.progress import Progress
from zlint.verify.stubs import Registered, class_node, passed_on
from zlint.verify.thresholds import known_ints, module_constants, threshold_sizes
from zlint.workload.decide import recorded_sweep
from zlint.workload.model import load_workload

#: runtime-only codes: which evidence kinds each one reports
RUNTIME_CODES = {
    "ZL801": ("runtime-size-specialization", (SPECIALIZATION, RECOMPILE)),
    "ZL802": ("runtime-graph-break", (GRAPH_BREAK,)),
    "ZL803": ("runtime-compile-error", (DATA_DEPENDENT, CONSTRAINT, COMPILE_ERROR)),
    "ZL804": ("compiled-eager-mismatch", (MISMATCH,)),
}
_CODE_OF_KIND = {kind: code for code, (_, kinds) in RUNTIME_CODES.items() for kind in kinds}
_MESSAGES = {
    "ZL801": "torch.compile guards or specializes on a size here ({detail}); no static rule flagged this line",
    "ZL802": "torch.compile breaks the graph here ({detail})",
    "ZL803": "torch.compile fails here where eager runs ({detail})",
    "ZL804": "compiled output differs from eager ({detail})",
}


@dataclass
class VerifyOptions:
    sizes: tuple[int, ...] = (2, 3, 5, 1, 0, 8)
    device: str = "auto"  # auto, cpu, cuda
    backend: str | None = None
    timeout: float = 120.0
    jobs: int = 1
    modes: tuple[str, ...] = MODES
    memory: int = 4096  # MiB of address space per worker (0: no limit)
    verbose: bool = False  # print what was set aside (pins inside torch ops, mode caveats) on stderr
    configured_examples: tuple[str, ...] = ()  # [tool.zlint.verify] examples, absolute paths
    #: a workload file (``zlint record``): a function it recorded is swept over the sizes it saw
    #: (:func:`zlint.workload.decide.recorded_sweep`) in place of ``sizes``; None when ``--sizes``
    #: was given or no workload is set
    workload: str | None = None


class VerifyError(Exception):
    """``--verify`` cannot run at all (no torch, no GPU for --device cuda); one line."""


def examples_files(paths: Iterable[str], configured: Iterable[str] = ()) -> list[str]:
    """Registered-examples files: ``[tool.zlint.verify] examples`` plus every ``zlint_examples.py``
    in a linted file's directory or its parents up to the project root."""
    found: list[str] = [os.path.abspath(p) for p in configured]
    seen_dirs: set[Path] = set()
    for path in paths:
        directory = Path(path).resolve().parent
        while directory not in seen_dirs:
            seen_dirs.add(directory)
            candidate = directory / CONVENTIONAL_FILE
            if candidate.is_file():
                found.append(str(candidate))
            at_root = (directory / "pyproject.toml").exists() or (directory / ".git").exists()
            if at_root or directory.parent == directory:
                break
            directory = directory.parent
    return list(dict.fromkeys(found))


def caveats(report: FunctionReport) -> list[str]:
    """One line per effect that :func:`is_mode_caveat` sets aside."""
    out = []
    for e in report.evidence:
        if is_mode_caveat(e):
            line = f" at line {e.line}" if e.line else ""
            if e.kind in (GUARD, SPECIALIZATION, RECOMPILE):
                out.append(f"under {e.mode}, a torch op{line} guards on a size itself at size "
                           f"{','.join(map(str, e.sizes))} ({e.kind}: {e.detail}); not a cost of the code")
                continue
            out.append(
                f"under {e.mode}, torch's own ops{line} do not compile to one graph at size "
                f"{','.join(map(str, e.sizes))} ({e.kind}: {e.detail})"
            )
    return out


def _function_node(tree: ast.Module, qualname: str):
    from zlint.verify.synth import find_function

    return find_function(tree, qualname)


def related_lines(func: ast.AST, line: int) -> set[int]:
    """Lines where a finding at ``line`` can show at run time: the line itself, and where a
    name it assigns is read later (``single = n == 1`` ... ``if single:`` guards at the ``if``).
    A parameter it rebinds (``x = x.view(...)``) is not followed: later uses of a tensor argument
    are the function's, not this line's."""
    out = {line}
    names = set()
    args = getattr(func, "args", None)
    params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]} if args is not None else set()
    for node in ast.walk(func):
        assigns = isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
        if assigns and node.lineno <= line <= (node.end_lineno or node.lineno):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name) and n.id not in params}
    if names:
        for node in ast.walk(func):
            read = isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
            if read and node.id in names and node.lineno > line:
                out.add(node.lineno)
    return out


#: what each kind of evidence costs the user, in words
_COSTS = {
    MISMATCH: "wrong result", DATA_DEPENDENT: "compile error", CONSTRAINT: "compile error",
    COMPILE_ERROR: "compile error", GRAPH_BREAK: "graph break", RECOMPILE: "recompile",
    SPECIALIZATION: "size pinned (a graph per value)", GUARD: "extra graphs",
}


def cost_of(found: list[Evidence], report: FunctionReport) -> str:
    """``recompile, graph break; default: 6 graphs where a trivial function needs 4 (graphs at
    sizes 2,3,5,1,0,8)``."""
    kinds = ", ".join(dict.fromkeys(_COSTS[e.kind] for e in found if e.kind in _COSTS))
    first = next((m for m in MODES if any(e.mode == m for e in found)), None)
    extra = []
    for run in report.runs:
        if not run.skipped and run.extra_graphs and run.mode == first:
            extra.append(f"{run.mode}: {run.graphs} graphs where a trivial function needs {run.baseline} "
                         f"(graphs compiled at sizes {','.join(map(str, run.graph_sizes))})")
    return "; ".join([kinds, *extra])


def not_compiled_everywhere(
    report: FunctionReport, lines: list[int], order: CallPaths | None = None, tier: str = "single-graph",
) -> str:
    """Why silence at ``lines`` proves nothing (empty: the lines ran compiled at every swept size
    in every mode that decides a finding of that ``tier``): eager failures, sizes that did not
    compile, an earlier graph break. ``order`` places lines of helpers the verified function calls
    (without it, only its own lines count, in line order)."""
    span = (report.first_line, report.last_line)
    inside = any(span[0] <= line <= span[1] for line in lines)
    if span[0] and not inside and not (order is not None and any(order.reaches(line) for line in lines)):
        # effects are placed on the innermost frame in the file, but this line is in no function
        # the verified one calls: silence here proves nothing
        return (f"outside the verified function (lines {span[0]}-{span[1]}): what this line costs "
                "shows at its call there")
    if report.eager_errors and not degenerate_only(report, tier):
        return f"{eager_failures(report.eager_errors)}: not compiled there"
    gaps = mode_gaps(report, lines, order)
    deciding = deciding_modes(report, tier)
    for mode in deciding:
        if mode in gaps:
            return gaps[mode]
    return ""


def degenerate_only(report: FunctionReport, tier: str) -> bool:
    """Whether the function failed eagerly only at size 0 or 1 (a conv over an empty image), so
    that silence at the other sizes still decides: for a finding about sizes 0/1 (``single-graph``
    tier), one of them must have run."""
    failed = set(report.eager_errors)
    if not failed <= {0, 1}:
        return False
    return tier != "single-graph" or bool({0, 1} & (set(report.sizes) - failed))


#: the modes whose silence decides a finding of each tier: a size recompile shows in the mode users
#: get; a finding that blocks single-graph mode needs those modes
_TIER_MODES = {"default": ("default",), "single-graph": MODES}


def deciding_modes(report: FunctionReport, tier: str) -> list[str]:
    """The modes of ``report`` whose silence decides a finding of ``tier`` (every mode run when
    none of the tier's modes was)."""
    ran = [r.mode for r in report.runs]
    wanted = [m for m in _TIER_MODES.get(tier, MODES) if m in ran]
    return wanted or ran


def mode_gaps(report: FunctionReport, lines: list[int], order: CallPaths | None = None) -> dict[str, str]:
    """Per mode, why ``lines`` did not run compiled at every swept size there: the mode did not
    run, some sizes failed to compile, or a graph break before the lines in that mode."""
    first = order.first(lines) if order is not None else min(lines)
    gaps: dict[str, str] = {}
    for run in report.runs:
        if run.skipped:
            gaps[run.mode] = f"{run.mode} mode not run ({run.skipped})"
            continue
        missing = [n for n in report.sizes if n not in run.sizes_run and n not in report.eager_errors]
        if missing:
            gaps[run.mode] = f"compiling failed in {run.mode} mode at sizes {','.join(map(str, missing))}"
            continue
        for e in report.evidence:
            if (e.mode == run.mode and e.kind == GRAPH_BREAK and _precedes(e.line, first, order)
                    and not _traced_after(report, e, first, order)):
                where = f"line {e.line}" if e.line else "a line outside the function"
                gaps[run.mode] = (f"skipped by an earlier graph break at {where} ({e.mode} mode): the rest may "
                                  "have run eagerly")
                break
    return gaps


def _frame(line: int | None, report: FunctionReport, order: CallPaths | None) -> tuple[int, int] | None:
    """The span of the function whose frame runs ``line`` (without ``order``: the verified
    function's, for its own lines)."""
    if order is not None:
        return order.frame(line)
    inside = line is not None and report.first_line <= line <= report.last_line
    return (report.first_line, report.last_line) if inside else None


def _traced_after(report: FunctionReport, brk: Evidence, line: int, order: CallPaths | None) -> bool:
    """Whether dynamo went on tracing the frame that runs ``line`` after the graph break ``brk``:
    some effect in that mode at another line of that frame, after the break. Then the break did
    not leave the frame to run eagerly (a break in a loop makes dynamo run its own frame eagerly,
    but a helper that frame calls is compiled as a frame of its own; a plain break resumes), and
    saying ``line`` was skipped would contradict the evidence shown next to it (a ZL802 after it)."""
    frame = _frame(line, report, order)
    if frame is None or brk.line is None:
        return False
    return any(
        e.mode == brk.mode and e.line is not None and e.line != brk.line and _frame(e.line, report, order) == frame
        and _precedes(brk.line, e.line, order)
        for e in report.evidence
    )


def _precedes(earlier: int | None, line: int, order: CallPaths | None) -> bool:
    """Whether an effect at ``earlier`` may run before ``line`` (unknown: it may)."""
    if order is not None:
        return order.precedes(earlier, line)
    return earlier is None or earlier < line


#: evidence a related line (one that reads a name the flagged line assigns) lends the finding: a
#: size decision made from that name; a graph break there is that line's own finding
_RELATED_KINDS = (GUARD, SPECIALIZATION, RECOMPILE)


def status_for(
    report: FunctionReport, lines: list[int], order: CallPaths | None = None, tier: str = "single-graph",
    own: list[int] | None = None,
) -> dict:
    """The ``verify`` field of a static finding whose effects may show at ``lines``: ``own`` (the
    finding's own lines, default all of ``lines``) and lines reading a name it assigns, where only
    size guards count. ``order`` places lines of helpers the verified function calls
    (:class:`CallPaths`); ``tier`` says which modes' silence decides it."""
    info: dict = {"status": UNVERIFIABLE, "function": report.target.rsplit("::", 1)[-1]}
    if report.unverifiable:
        info["reason"] = report.unverifiable
        return info
    own_lines = set(own if own is not None else lines)
    relevant = [
        e for e in report.evidence
        if e.line in set(lines) and not is_mode_caveat(e) and (e.line in own_lines or e.kind in _RELATED_KINDS)
    ]
    costly = [e for e in relevant if _costly(e, report)]
    first = order.first(lines) if order is not None else min(lines)
    masking = sorted({
        e.line for e in report.evidence
        if e.kind == SPECIALIZATION and e.mode == "default" and e.line is not None and e.line not in lines
        and _precedes(e.line, first, order)
    })
    if not costly and masking:
        # the size is a constant after that line: nothing later can guard on it, so silence here
        # says nothing about this line
        info["reason"] = (
            f"masked: line {', '.join(map(str, masking))} already specializes the size, so nothing after it "
            "can guard on it; verify this line in a function of its own"
        )
        return info
    unreached = "" if costly else not_compiled_everywhere(report, lines, order, tier)
    if unreached:
        info["reason"] = unreached
        return info
    if not costly and any(n in report.unreached for n in own_lines):
        # the line never ran with these inputs: nothing was compiled there
        inside = any(report.first_line <= n <= report.last_line for n in own_lines)
        info["reason"] = (
            f"not reached: line {min(own_lines)} did not run at any swept size (a branch these inputs never take)"
            if inside else
            f"not reached: {info['function']} did not call the function holding this line at any swept size"
        )
        return info
    unswept = next((report.open_thresholds[n] for n in sorted(lines) if n in report.open_thresholds), "")
    if not costly and unswept:
        # synthesized inputs that may never flip the comparison: silence proves nothing
        info["reason"] = unswept
        return info
    shown = costly or relevant
    info.update(
        status=CONFIRMED if costly else GUARDED if relevant else NOT_OBSERVED,
        mode=next((m for m in MODES if any(e.mode == m for e in shown)), None),
        evidence=evidence_dicts(shown),
        graphs=graph_counts(report),
        inputs=f"{report.inputs}: {report.input_detail}".strip(": "),
        backend=report.backend,
        device=report.device,
        sizes=report.sizes,
    )
    info["modes"] = per_mode(report, relevant, costly, mode_gaps(report, lines, order))
    if costly:
        info["cost"] = cost_of(costly, report)
    if caveats(report):
        info["caveats"] = caveats(report)
    undecided = {m: v for m, v in info["modes"].items() if v.startswith("not decided")}
    if info["status"] == GUARDED:
        info["note"] = "a guard is installed here, but it added no graph, break or error at any swept size"
    elif info["status"] == NOT_OBSERVED and undecided:
        ran = ", ".join(m for m in info["modes"] if m not in undecided)
        info["note"] = (f"ran compiled at every swept size in {ran} mode with no effect here; "
                        + "; ".join(f"{m}: {v}" for m, v in undecided.items()))
    elif info["status"] == NOT_OBSERVED:
        info["note"] = "ran compiled at every swept size in every mode with no effect here: likely a false positive"
    if info["status"] == NOT_OBSERVED and report.eager_errors:
        info["note"] += f"; {eager_failures(report.eager_errors)}: not inputs it takes"
    return info


def per_mode(report: FunctionReport, relevant: list[Evidence], costly: list[Evidence], gaps: dict[str, str]) -> dict:
    """Each mode's own verdict on a line: CONFIRMED, GUARDED, NOT OBSERVED, or ``not decided: ...``
    (the mode did not run the line compiled at every size)."""
    out = {}
    for run in report.runs:
        mode = run.mode
        if any(e.mode == mode for e in costly):
            out[mode] = CONFIRMED
        elif run.skipped:
            out[mode] = f"not run ({run.skipped})"
        elif mode in gaps:
            out[mode] = f"not decided: {gaps[mode]}"
        elif any(e.mode == mode for e in relevant):
            out[mode] = GUARDED
        else:
            out[mode] = NOT_OBSERVED
    return out


def share_evidence(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Two findings on one line backed by the same observations: the second points at the first
    instead of repeating them."""
    out, first_at = [], {}
    for d in sorted(diagnostics):
        verify = d.verify or {}
        if verify.get("status") in (CONFIRMED, GUARDED) and verify.get("evidence"):
            key = (d.path, d.line, repr(verify["evidence"]))
            if key in first_at:
                shared = dict(verify, same_as=first_at[key])
                d = replace(d, verify=shared)
            else:
                first_at[key] = f"{d.code} at column {d.column + 1}"
        out.append(d)
    return out


def runtime_diagnostics(
    report: FunctionReport, static_lines: set[int], path: str, def_line: int, enabled: frozenset[str],
    every_mismatch: bool = True,
) -> list[Diagnostic]:
    """ZL8xx findings: effects at lines no static finding covers, and every mismatch (unless
    ``every_mismatch`` is False: a call site's mismatch that a static finding explains)."""
    if report.unverifiable:
        return []
    grouped: dict[tuple[str, int], list[Evidence]] = defaultdict(list)
    for e in report.evidence:
        code = _CODE_OF_KIND.get(e.kind)
        if code is None or code not in enabled:
            continue
        if (e.kind != MISMATCH or not every_mismatch) and e.line is not None and e.line in static_lines:
            continue
        if is_mode_caveat(e):
            continue  # the mode's own unsoundness, not the code's: a caveat (see caveats())
        if e.kind == RECOMPILE and e.line is None and not any(r.extra_graphs for r in report.runs if r.mode == e.mode):
            continue  # no graph beyond a baseline that compiled at every size: no cost
        grouped[(code, e.line or def_line)].append(e)
    out = []
    function = report.target.rsplit("::", 1)[-1]
    for (code, line), found in sorted(grouped.items(), key=lambda item: (item[0][1], item[0][0])):
        name = RUNTIME_CODES[code][0]
        first = sorted(found, key=lambda e: MODES.index(e.mode))[0]
        verify = {
            "status": CONFIRMED, "function": function, "mode": first.mode, "evidence": evidence_dicts(found),
            "cost": cost_of(found, report),
            "graphs": graph_counts(report), "inputs": f"{report.inputs}: {report.input_detail}".strip(": "),
            "backend": report.backend, "device": report.device, "sizes": report.sizes,
            # synthesized inputs follow every annotation (a tensor never goes to an int parameter);
            # registered ones are the user's
            "inputs_fit_annotations": report.inputs in ("synthesized", "annotations") or None,
        }
        detail = f"{first.detail}; {first.mode} mode, size {','.join(map(str, first.sizes))}"
        out.append(Diagnostic(
            path=path, line=line, column=0, code=code, name=name, message=_MESSAGES[code].format(detail=detail),
            end_line=line, end_column=0, function=function, verify=verify,
        ))
    return out


def verify(
    diagnostics: list[Diagnostic],
    linted: list[tuple[str, frozenset[str]]],
    options: VerifyOptions,
    configured: Iterable[str] = (),
    progress: Callable[[int, int, str], None] | None = None,
) -> tuple[list[Diagnostic], list[FunctionReport]]:
    """Verify the functions behind ``diagnostics`` (and functions with registered examples in the
    ``linted`` files); return the diagnostics with ``verify`` filled in plus ZL8xx findings."""
    from zlint.verify.pool import Pool, Worker, WorkerDied

    paths = [p for p, _ in linted]
    enabled_for = {os.path.realpath(p): codes for p, codes in linted}
    example_files = examples_files(paths, configured)
    # examples files are not verified themselves; a linted module may also register its own
    skip = {os.path.realpath(f) for f in example_files}
    example_files += [p for p in paths if _registers_examples(p) and os.path.realpath(p) not in skip]

    if progress is None:
        progress = Progress.for_terminal()
    compilable = any(d.function and (_verifiable_code(d.code) or d.code in CALLSITE_CODES) for d in diagnostics)
    if not example_files and not compilable:
        # nothing to compile: no worker (and no torch import) at all
        return sorted(_unverified(d) for d in diagnostics), []
    pool = Pool(options.jobs, options.timeout, options.memory)
    if isinstance(progress, Progress):
        progress.starting()
    trees: dict[str, ast.Module | None] = {}
    related: dict[tuple[str, str, int], set[int]] = {}
    try:
        first: Worker = pool.workers[0]
        try:
            reply = first.request(
                {"op": "examples", "examples": example_files, "qualname": "examples"}, options.timeout
            )
        except (WorkerDied, TimeoutError) as exc:
            raise VerifyError(f"cannot start a verify worker: {exc}") from None
        if first.info.get("memory_too_small"):
            raise VerifyError(first.info["memory_too_small"])
        if first.info.get("unsupported"):
            version = ".".join(str(first.info.get("torch", "?")).split("+")[0].split(".")[:2])
            raise VerifyError(f"--verify does not support torch {version}: {first.info['unsupported']}")
        for mismatch in first.info.get("data_mismatches", []):
            print(f"zlint: verify: torch data mismatch: {mismatch}", file=sys.stderr)
        device = options.device
        if device == "auto":
            device = "cuda" if first.info.get("cuda") else "cpu"
        elif device == "cuda" and not first.info.get("cuda"):
            raise VerifyError("--device cuda: torch sees no CUDA device here")
        backend = options.backend or ("inductor" if device == "cuda" else "aot_eager")

        # functions to verify: those with findings, and those with registered examples
        targets: dict[tuple[str, str], list[int]] = {}
        for d in diagnostics:
            if d.function and _verifiable_code(d.code):
                targets.setdefault((os.path.realpath(d.path), d.function), []).append(d.line)
        # callers: functions holding call-site findings, and registered callers (sweep examples
        # or functions that call torch.compile/torch.export themselves): run, not compiled
        callers: dict[tuple[str, str], list[int]] = {}
        for d in diagnostics:
            if d.function and d.code in CALLSITE_CODES:
                callers.setdefault((os.path.realpath(d.path), d.function), []).append(d.line)
        registered = reply.get("examples", {}).get("targets", [])
        factories = {(p, q): text for p, q, text in reply.get("examples", {}).get("factories", []) if text}
        sweep = {tuple(k) for k in reply.get("examples", {}).get("sweep", [])}
        for path, qualname in registered:
            if path in enabled_for:
                func = _parsed_function(path, qualname, trees)
                if (path, qualname) in sweep or (func is not None and is_caller(func)):
                    callers.setdefault((path, qualname), [])
                else:
                    targets.setdefault((path, qualname), [])
        own = {key: list(lines) for key, lines in targets.items()}
        for (path, qualname), lines in own.items():
            func = _parsed_function(path, qualname, trees)
            for line in lines:
                related[(path, qualname, line)] = related_lines(func, line) if func is not None else {line}
        # a helper's findings are verified through a function of the same file that calls it
        registered_keys = {tuple(k) for k in registered if tuple(k) not in sweep}
        routes = route_helpers(own, registered_keys, set(callers), trees)
        through: dict[tuple[str, str], set[int]] = defaultdict(set)  # entry -> helper lines it covers
        for helper, entry in routes.items():
            targets.setdefault(entry, [])
            for line in own[helper]:
                through[entry] |= related[(helper[0], helper[1], line)]
            if entry in registered_keys:
                del targets[helper]  # the entry's real inputs decide; invented ones would not add to them
        keys = [k for k in targets if k[0] not in skip]
        caller_keys = [k for k in callers if k[0] not in skip]
        # placement read the workload already (a bad one stopped the run there)
        workload = load_workload(options.workload) if options.workload else None
        swept: list[bool] = []  # per job of job_keys: swept over the workload's recorded sizes
        jobs = []
        job_keys: list[tuple[tuple[str, str], list[int] | None]] = []  # (function, lines of its group)
        for path, qualname in keys:
            func = _parsed_function(path, qualname, trees)
            tree = trees.get(path)
            groups: list[tuple[dict, list[int] | None]] = [({}, None)]
            if func is not None and tree is not None and (path, qualname) not in registered_keys:
                # lines behind different branches (``if stagewise:`` / ``else``) get runs of their own
                groups = branch_groups(func, targets[(path, qualname)], class_node(tree, qualname))
            if tree is not None and (path, qualname) not in registered_keys:
                groups[0] = (helper_flags(groups[0][0], (path, qualname), routes, own, trees), groups[0][1])
            recorded = None
            if workload is not None and (path, qualname) not in registered_keys:
                recorded = recorded_sweep(workload, path, qualname)
            for choice, group_lines in groups:
                mine = targets[(path, qualname)] if group_lines is None else group_lines
                focus = set(through.get((path, qualname), set())) if group_lines is None else set()
                sizes = list(recorded or options.sizes)
                for line in mine:
                    focus |= related.get((path, qualname, line), {line})
                if func is not None:
                    sizes += threshold_sizes(func, mine, options.sizes, known_ints(tree, func))
                    if group_lines is None and through.get((path, qualname)) and tree is not None:
                        # literals and constants only
                        sizes += threshold_sizes(tree, through[(path, qualname)], sizes, module_constants(tree))
                swept.append(bool(recorded))
                jobs.append({
                    "path": path, "qualname": qualname, "focus": sorted(focus), "sizes": list(dict.fromkeys(sizes)),
                    "modes": list(options.modes), "backend": backend, "device": device, "examples": example_files,
                    "choices": choice,
                })
                job_keys.append(((path, qualname), group_lines))
        for path, qualname in caller_keys:
            # a caller builds its own tensors (on the CPU): its call sites are checked there, with
            # a CPU backend unless --backend names one; recompiles and export errors do not
            # depend on the device
            jobs.append({
                "kind": "caller", "path": path, "qualname": qualname, "sizes": list(options.sizes),
                "backend": options.backend or "aot_eager", "device": "cpu", "examples": example_files,
            })
        results = pool.run(jobs, progress)
    finally:
        pool.close()

    reports: dict[tuple[str, str], FunctionReport] = {}  # each function's own run
    line_reports: dict[tuple[tuple[str, str], int], FunctionReport] = {}  # lines behind other branches
    every_report: list[tuple[tuple[str, str], FunctionReport]] = []
    for (key, group_lines), by_workload, r in zip(job_keys, swept, results):
        if not r:
            continue
        report = FunctionReport.from_dict(r)
        if by_workload:
            report.input_detail = f"{report.input_detail}; sizes recorded by the workload".lstrip("; ")
        every_report.append((key, report))
        if group_lines is None:
            reports[key] = report
        else:
            line_reports.update({(key, line): report for line in group_lines})
    caller_reports = {
        key: FunctionReport.from_dict(r) for key, r in zip(caller_keys, results[len(job_keys):]) if r
    }
    caller_covered: dict[tuple[str, str], set[int]] = defaultdict(set)
    out: list[Diagnostic] = []
    static_by_file: dict[str, set[int]] = defaultdict(set)  # effects may land on any line of the file
    display_path: dict[str, str] = {}
    orders: dict[tuple[str, str], CallPaths | None] = {}
    graphs: dict[str, CallGraph | None] = {}
    for d in diagnostics:
        key = (os.path.realpath(d.path), d.function or "")
        display_path.setdefault(key[0], d.path)
        if d.code in CALLSITE_CODES and key in caller_reports:
            func = _parsed_function(key[0], key[1], trees)
            verify_info, matched = callsite_status(caller_reports[key], d, func)
            caller_covered[key] |= matched
            out.append(replace(d, verify=verify_info))
            continue
        report = line_reports.get((key, d.line)) or reports.get(key)
        lines = set(range(d.line, max(d.line, d.end_line) + 1)) | related.get((key[0], key[1], d.line), set())
        if report is not None and not _verifiable_code(d.code) and not report.unverifiable:
            # a call-site finding inside a function verified anyway: confirmed only by evidence
            if not any(e.line in lines for e in report.evidence):
                report = None
        entry = routes.get(key) if _verifiable_code(d.code) else None
        candidates = [(k, r) for k, r in ((entry, reports.get(entry)), (key, report)) if r is not None]
        if not candidates:
            out.append(_unverified(d))
            continue
        static_by_file[key[0]] |= lines
        infos = []
        for verified_key, verified in candidates:
            if verified_key not in orders:
                _parsed_function(*verified_key, trees)
                tree = trees.get(verified_key[0])
                if verified_key[0] not in graphs:
                    graphs[verified_key[0]] = CallGraph(tree) if tree is not None else None
                orders[verified_key] = CallPaths.of(graphs[verified_key[0]], verified_key[1])
            own_lines = list(range(d.line, max(d.line, d.end_line) + 1))
            infos.append(status_for(verified, sorted(lines), orders[verified_key], d.tier, own_lines))
        info = pick(infos)
        if info.get("function") != d.function:
            info["through"] = info["function"]  # verified with that function's inputs: it calls this one
        if info["status"] == UNVERIFIABLE:
            start = registered_start(key, report, entry, reports.get(entry), factories, trees)
            info = actionable(info, report or reports.get(entry), key, sorted(lines), trees, start)
        out.append(replace(d, verify=info))
    runtime: dict[tuple[str, int, str], Diagnostic] = {}
    for key, report in every_report:
        path = display_path.get(key[0]) or _display(key[0], paths)
        found = runtime_diagnostics(
            report, static_by_file.get(key[0], set()), path, _def_line(report), enabled_for.get(key[0], frozenset())
        )
        if found:
            try:
                lines = Path(key[0]).read_text(encoding="utf-8").splitlines()
                found = list(noqa.filter_suppressed(found, lines))
            except (OSError, UnicodeDecodeError):
                pass
        for finding in found:  # a helper's line seen from two jobs: report it once
            runtime.setdefault((finding.path, finding.line, finding.code), finding)
    out.extend(runtime.values())
    for key, report in caller_reports.items():
        path = display_path.get(key[0]) or _display(key[0], paths)
        found = runtime_diagnostics(
            report, caller_covered.get(key, set()), path, _def_line(report), enabled_for.get(key[0], frozenset()),
            every_mismatch=False,
        )
        if found:
            try:
                lines = Path(key[0]).read_text(encoding="utf-8").splitlines()
                found = list(noqa.filter_suppressed(found, lines))
            except (OSError, UnicodeDecodeError):
                pass
        out.extend(found)
    return share_evidence(sorted(out)), [*(r for _, r in every_report), *caller_reports.values()]


def actionable(
    info: dict, report: FunctionReport | None, key: tuple[str, str], lines: list[int], trees: dict,
    start: Registered | None = None,
) -> dict:
    """An UNVERIFIABLE verdict with what to do about it: the inputs tried (none when none could be
    built) and a ready ``example(...)`` registration with the synthesized shapes, starting from
    what the user registered (``start``)."""
    tried = f"{report.inputs}: {report.input_detail}".strip(": ") if report is not None else ""
    func = _parsed_function(key[0], key[1], trees)
    if func is None:
        return dict(info, inputs=tried or "none built")
    from zlint.verify.stubs import example_stub
    from zlint.verify.synth import plan_inputs

    tree = trees[key[0]]
    cls = class_node(tree, key[1])
    # what the branches around the line need (``if mask is not None:``): a registered value that
    # does not meet it is why the line was not reached, so the plan's value replaces it
    needs = choices(func, min(lines), cls).get("params", {})
    plan = plan_inputs(func, lines, cls is not None, known_ints(tree, func), needs)
    if start is not None and needs:
        start = replace(start, params={k: v for k, v in start.params.items() if k not in needs})
    return dict(info, inputs=tried or "none built", example=example_stub(key[0], tree, key[1], plan, start))


def registered_start(
    key: tuple[str, str], report: FunctionReport | None, entry: tuple[str, str] | None,
    entry_report: FunctionReport | None, factories: dict[tuple[str, str], str], trees: dict,
) -> Registered:
    """What the user registered that a stub for ``key`` starts from: its own example's values
    (``report``: its own run); else, for a helper verified through a registered caller
    (``entry``), the caller's values of the arguments it passes on unchanged; and for a method,
    the factory registered for it or for another method of its class."""
    own = report.registered_inputs if report is not None else {}
    call, params = own.get("call", ""), dict(own.get("params", {}))
    if not own and entry is not None and entry_report is not None and entry_report.registered_inputs:
        caller, helper = _parsed_function(*entry, trees), _parsed_function(*key, trees)
        tree = trees.get(key[0])
        if caller is not None and helper is not None and tree is not None:
            is_method = class_node(tree, key[1]) is not None
            params = passed_on(caller, helper, is_method, entry_report.registered_inputs.get("params", {}))
    owner = key[1].rsplit(".", 1)[0] if "." in key[1] else None
    factory = factories.get(key) or next(
        (text for (path, qualname), text in sorted(factories.items())
         if owner and path == key[0] and qualname.rsplit(".", 1)[0] == owner), "",
    )
    return Registered(call, params, factory)


def helper_flags(
    choice: dict, entry: tuple[str, str], routes: dict, own: dict[tuple[str, str], list[int]], trees: dict,
) -> dict:
    """``choice`` for an entry's own run with the ``__init__`` flags that its class's helpers'
    lines need (``if self.use_conv:`` around a line of ``_upsample_2d``, verified through
    ``forward``): the entry builds the module so that it calls them. A flag whose lines disagree
    is left out."""
    wanted: dict = {}
    dropped: set = set()
    owner = entry[1].rsplit(".", 1)[0] if "." in entry[1] else None
    for helper, routed in routes.items():
        if routed != entry or owner is None or not helper[1].startswith(owner + "."):
            continue
        func, tree = _parsed_function(*helper, trees), trees.get(helper[0])
        if func is None or tree is None:
            continue
        for line in own.get(helper, []):
            for name, value in choices(func, line, class_node(tree, helper[1])).get("init", {}).items():
                if wanted.setdefault(name, value) != value:
                    dropped.add(name)
    flags = {k: v for k, v in wanted.items() if k not in dropped}
    if not flags:
        return choice
    return {**choice, "init": {**flags, **choice.get("init", {})}}


def route_helpers(
    targets: dict[tuple[str, str], list[int]], registered: set[tuple[str, str]], callers: set[tuple[str, str]],
    trees: dict,
) -> dict[tuple[str, str], tuple[str, str]]:
    """For each function with findings and no example of its own, the function of the same file
    whose run verifies it: one that calls it (directly or through other helpers) and is compiled
    anyway: registered first, then one with findings of its own or a module's ``forward``, the
    nearest first. Functions that compile or export things themselves are run, not compiled."""
    routes = {}
    graphs: dict[str, CallGraph] = {}
    for path, qualname in targets:
        if (path, qualname) in registered or _parsed_function(path, qualname, trees) is None:
            continue
        if path not in graphs:
            graphs[path] = CallGraph(trees[path])
        best = None
        for name, depth in graphs[path].callers(qualname):
            key = (path, name)
            node = _parsed_function(path, name, trees)
            if key in callers or node is None or is_caller(node):
                continue
            if key in registered or key in targets or name.rsplit(".", 1)[-1] == "forward" and "." in name:
                rank = (key not in registered, depth, node.lineno)
                if best is None or rank < best[0]:
                    best = (rank, key)
        if best is not None:
            routes[(path, qualname)] = best[1]
    return routes


def pick(infos: list[dict]) -> dict:
    """One verdict from the runs that verified a finding (its caller's first, then its own): a
    cost any of them observed, else the first run's verdict unless it could not decide."""
    confirmed = next((i for i in infos if i["status"] == CONFIRMED), None)
    if confirmed is not None:
        return confirmed
    decided = next((i for i in infos if i["status"] != UNVERIFIABLE), None)
    if decided is not None or len(infos) == 1:
        return decided or infos[0]
    # no run could decide: say why for each
    reasons = [f"through {i['function']}: {i.get('reason', '')}" for i in infos[:-1]]
    return dict(infos[-1], reason="; ".join([*reasons, f"on its own: {infos[-1].get('reason', '')}"]))


def _registers_examples(path: str) -> bool:
    """A linted module that imports ``zlint.verify`` registers examples for itself when imported."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "zlint.verify" in text and "example(" in text


def _verifiable_code(code: str) -> bool:
    """ZL1xx-ZL3xx describe what dynamo does inside a compiled function: those are verified.
    ZL4xx are about compile call sites and settings, ZL8xx/ZL9xx are --verify's and meta codes."""
    return code[:3] in ("ZL1", "ZL2", "ZL3")


def _unverified(d: Diagnostic) -> Diagnostic:
    if d.code in CALLSITE_CODES:
        reason = (
            "not verified (an examples file is not run)" if d.function
            else "module-level code: --verify runs the function that holds a call site"
        )
    elif not _verifiable_code(d.code):
        reason = "a compile call-site/setup finding: --verify compiles functions, not their call sites"
    elif not d.function:
        reason = "module-level code: nothing is compiled here"
    else:
        reason = "not verified"
    return replace(d, verify={"status": UNVERIFIABLE, "reason": reason})


def _parsed_function(path: str, qualname: str, trees: dict):
    if path not in trees:
        try:
            trees[path] = ast.parse(Path(path).read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            trees[path] = None
    tree = trees[path]
    return _function_node(tree, qualname) if tree is not None else None


def _def_line(report: FunctionReport) -> int:
    return report.first_line or 1


def _display(real: str, paths: list[str]) -> str:
    for p in paths:
        if os.path.realpath(p) == real:
            return p
    return real


def fails(d: Diagnostic, fail_on: str = "findings", strict: bool = False) -> bool:
    """Whether a finding fails a ``--verify`` run. ``findings``: every one, whatever its status
    (inputs that cannot be built must not let a finding through CI); ``confirmed``: CONFIRMED
    ones, and UNVERIFIABLE ones too when ``strict``."""
    if fail_on == "findings":
        return True
    status = (d.verify or {}).get("status")
    return status == CONFIRMED or (strict and status == UNVERIFIABLE)


def run_from_cli(options: VerifyOptions, diagnostics: list[Diagnostic], linted: list) -> list[Diagnostic] | str:
    """The CLI's ``--verify`` step; returns the verified diagnostics or a one-line error."""
    from zlint import verify as verify_package
    if not verify_package.torch_available():
        return "--verify needs torch; install it: pip install torch"
    configured = list(options.configured_examples)  # [tool.zlint.verify] examples, from the settings
    # the settings checked them when read; one deleted since would fail the import, unexplained
    missing = [f for f in configured if not os.path.isfile(f)]
    if missing:
        return f"[tool.zlint.verify] examples: no such file: {missing[0]}"
    pairs = [(path, settings.enabled_codes(path)) for path, settings in linted]
    try:
        verified, reports = verify(diagnostics, pairs, options, configured)
    except VerifyError as exc:
        return str(exc)
    if options.verbose:  # what an UNVERIFIABLE finding was tried with, and what to register
        for d in verified:
            info = d.verify or {}
            if info.get("status") == UNVERIFIABLE and info.get("example"):
                where = f"zlint: verify: {d.path}:{d.line}: {d.code}"
                print(f"{where}: inputs tried: {info['inputs']}", file=sys.stderr)
                print(f"{where}: register an example:\n    " + info["example"].replace("\n", "\n    "),
                      file=sys.stderr)
    if options.verbose:  # what was set aside as torch's own behaviour, not the code's
        for report in reports:
            where = f"{_display(report.path, [p for p, _ in linted])}:{report.first_line}"
            name = report.target.rsplit("::", 1)[-1]
            for caveat in caveats(report):
                print(f"zlint: verify: {where}: {name}: {caveat}", file=sys.stderr)
    return verified
