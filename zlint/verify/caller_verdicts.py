"""Call-site findings under ``--verify`` (torch-free): which functions are *callers* that a job
runs rather than compiles, and which of a caller run's evidence confirms which finding.

A call-site finding names one line of the caller, but its effect shows where the value it sets up
is used: ``mark_dynamic(scores, 0)`` fails at the later call that gets ``scores``; a ``Dim`` or an
example input shows at the ``torch.export`` call that reads it; a ``dynamic=False`` compile
recompiles where the object it made is called. Each code accepts only the kinds of evidence its
message claims, so one failing line cannot confirm its neighbours.
"""

from __future__ import annotations

import ast

from zlint.core.diagnostics import Diagnostic
from zlint.verify.evidence import (
    COMPILE_ERROR,
    CONFIRMED,
    CONSTRAINT,
    MISMATCH,
    NOT_OBSERVED,
    RECOMPILE,
    SPECIALIZATION,
    UNVERIFIABLE,
    Evidence,
    FunctionReport,
    evidence_dicts,
    graph_counts,
)

#: codes confirmed by running the function that holds them (see :func:`callsite_status`)
CALLSITE_CODES = frozenset({"ZL401", "ZL403", "ZL404", "ZL405", "ZL406"})

#: per code: the evidence kinds that confirm it, and whether they count at later uses of the
#: names the finding's statement mentions ("uses") or where the object it compiles is called
_ACCEPTS: dict[str, tuple[frozenset[str], str]] = {
    "ZL401": (frozenset({RECOMPILE}), "line"),  # the call recompiled for a new size
    "ZL403": (frozenset({CONSTRAINT}), "uses"),  # the marked tensor's compiled call failed
    "ZL404": (frozenset({RECOMPILE}), "origin"),  # the object compiled here recompiled per size
    "ZL405": (frozenset({MISMATCH, COMPILE_ERROR}), "uses"),  # the exported program is wrong at 0/1
    "ZL406": (frozenset({CONSTRAINT, SPECIALIZATION}), "uses"),  # export specialized the example
}
_NOTES = {
    "ZL401": "the call did not recompile for a new size: likely a false positive",
    "ZL403": "the compiled call that gets the marked tensor raised no constraint violation: likely a false positive",
    "ZL404": "the object compiled here did not recompile per size: likely a false positive",
    "ZL405": (
        "the exported program matched eager at sizes 0 and 1: likely a false positive "
        "(or the sweep has no 0/1 in the Dim's range)"
    ),
    "ZL406": "export raised no constraint error and specialized nothing: likely a false positive",
}


def _trailing_names(node: ast.AST) -> str:
    """Like :func:`zlint.core.ast_walk.dotted_path`, but a chain on an expression that is no name
    keeps its attributes: ``make().compile`` -> ``"compile"`` (``models[0].compile()`` compiles
    too), where ``dotted_path`` gives None; ``""`` for no attribute at all."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _trailing_names(node.value)
        return f"{inner}.{node.attr}" if inner else node.attr
    return ""


def is_caller(func: ast.AST) -> bool:
    """A function that compiles or exports something itself (``torch.compile(...)``,
    ``model.compile()``, ``torch.export.export(...)``): verified by running it."""
    for node in ast.walk(func):
        if node is func:
            continue
        if isinstance(node, ast.Call):
            name = _trailing_names(node.func)
            last = name.rsplit(".", 1)[-1]
            if last == "compile" and name != "re.compile" or name in ("export", "torch.export.export", "export.export"):
                return True
    return False


def _statement(func: ast.AST, line: int) -> tuple[int, int]:
    """The span of the innermost simple statement holding ``line``."""
    best = (line, line)
    size = None
    for node in ast.walk(func):
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            end = node.end_lineno or node.lineno
            if node.lineno <= line <= end and not hasattr(node, "body"):
                if size is None or end - node.lineno < size:
                    best, size = (node.lineno, end), end - node.lineno
    return best


def _locals(func: ast.AST) -> set[str]:
    names = set()
    if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        args = func.args
        names |= {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def uses(func: ast.AST, span: tuple[int, int]) -> set[int]:
    """Lines after ``span`` that read a local name the statement at ``span`` mentions."""
    local = _locals(func)
    names = {
        n.id for n in ast.walk(func)
        if isinstance(n, ast.Name) and span[0] <= n.lineno <= span[1] and n.id in local
    }
    return {
        n.lineno for n in ast.walk(func)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names and n.lineno > span[1]
    }


def matching(report: FunctionReport, d: Diagnostic, func: ast.AST | None) -> list[Evidence]:
    """The evidence of a caller run that confirms the call-site finding ``d``."""
    kinds, how = _ACCEPTS[d.code]
    span = _statement(func, d.line) if func is not None else (d.line, max(d.line, d.end_line))
    here = set(range(span[0], span[1] + 1))
    found = []
    for e in report.evidence:
        if e.kind not in kinds:
            continue
        if how == "line":
            ok = e.line in here
        elif how == "origin":
            ok = e.origin in here or e.line in here
        else:
            ok = e.line in here or (func is not None and e.line in uses(func, span))
        if ok and d.code == "ZL405":
            ok = bool({0, 1} & set(e.sizes))  # the claim is about sizes 0 and 1
        if ok:
            found.append(e)
    return found


def callsite_status(report: FunctionReport, d: Diagnostic, func: ast.AST | None) -> tuple[dict, set[int]]:
    """The ``verify`` field of a call-site finding, and the lines of the evidence it takes."""
    function = report.target.rsplit("::", 1)[-1]
    if report.unverifiable:
        return {"status": UNVERIFIABLE, "function": function, "reason": report.unverifiable}, set()
    found = matching(report, d, func)
    info: dict = {
        "status": CONFIRMED if found else NOT_OBSERVED,
        "function": function,
        "mode": "default" if found else None,
        "evidence": evidence_dicts(found),
        "graphs": graph_counts(report),
        "inputs": f"{report.inputs}: {report.input_detail}".strip(": "),
        "backend": report.backend,
        "device": report.device,
        "sizes": report.sizes,
        "call_site": True,
    }
    if not found:
        info["note"] = _NOTES[d.code]
    return info, {e.line for e in found if e.line is not None} | {d.line}
