"""What dynamo traces of one frame: a graph break inside a loop makes it skip the whole frame.

Dynamo cannot resume a frame in the middle of a ``for``/``while`` body, so a graph break there
makes it give up on the frame: the function runs eagerly, with no graph at all (measured on
torch 2.13: 0 graphs over sizes 2, 3, 5, where the same break outside the loop gives one graph per
side of the break). Then nothing else in that frame costs a guard, a recompile or a break of its
own; the break is the one cost, and fixing it brings the others back. Measured near misses, which
do *not* skip the frame: a break in a ``for`` loop's iterable (``for v in t.tolist():``, evaluated
once before the loop), in a ``while`` loop's test, in a nested ``def``/``lambda``/comprehension
(frames of their own), and a break in a helper called outside a loop. A call inside the loop to a
function of the same file whose own frame is skipped skips this frame too (dynamo breaks at the
call); a call in a loop to a function with a plain break does not (dynamo resumes inside it).

:func:`mark_skipped` applies this to a file's findings before placement: each finding in a
skipped frame gets ``skipped_by`` (the line of the break), which placement turns into the
``never`` scope with its reason, and each break that skips a frame says so in its message.
``ast`` only; the breaks are the rules' own findings (a rule that is not enabled finds none).
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator

from zlint.core import registry
from zlint.core.diagnostics import Diagnostic

#: the family whose default-tier findings are graph breaks: a data-dependent value read into Python
BREAKING_FAMILY = "data-dependent"
_FRAMES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
Function = ast.FunctionDef | ast.AsyncFunctionDef


def skipped_reason(line: int) -> str:
    return f"dynamo skips this frame: graph break in a loop at line {line}"


def _functions(tree: ast.Module) -> dict[str, Function]:
    """Every function by the qualified name the rules give a finding (``Class.method``,
    ``outer.inner``)."""
    found: dict[str, Function] = {}

    def visit(node: ast.AST, prefix: tuple[str, ...]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = (*prefix, child.name)
                found.setdefault(".".join(name), child)
                visit(child, name)
            elif isinstance(child, ast.ClassDef):
                visit(child, (*prefix, child.name))
            else:
                visit(child, prefix)

    visit(tree, ())
    return found


def _own_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``node``'s own frame: not those of nested functions, classes, lambdas or
    comprehensions (each its own frame)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, _FRAMES + _COMPREHENSIONS):
            continue
        yield child
        yield from _own_nodes(child)


def _loop_bodies(function: Function) -> list[tuple[int, int]]:
    """Line ranges of the bodies of the frame's own loops (not a ``for``'s iterable nor a
    ``while``'s test, nor an ``else:`` clause)."""
    spans = []
    for node in _own_nodes(function):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) and node.body:
            spans.append((node.body[0].lineno, max(s.end_lineno or s.lineno for s in node.body)))
    return spans


def _own_calls(function: Function) -> Iterator[ast.Call]:
    for node in _own_nodes(function):
        if isinstance(node, ast.Call):
            yield node


def _callee(call: ast.Call, qualname: str, functions: dict[str, Function]) -> str | None:
    """The same-file function a call names: ``helper(...)`` (a module-level function) or
    ``self.helper(...)`` (a method of the caller's class)."""
    func = call.func
    if isinstance(func, ast.Name) and func.id in functions:
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        owner = qualname.rpartition(".")[0]
        name = f"{owner}.{func.attr}" if owner else None
        if name in functions:
            return name
    return None


def _is_break(d: Diagnostic) -> bool:
    rule = registry.RULES_BY_CODE.get(d.code)
    return rule is not None and rule.family == BREAKING_FAMILY and d.tier == "default"


def mark_skipped(tree: ast.Module, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The findings with the frame model applied (see the module docstring)."""
    breaks = [d for d in diagnostics if _is_break(d) and d.function]
    if not breaks:
        return diagnostics
    functions = _functions(tree)
    bodies = {name: _loop_bodies(function) for name, function in functions.items()}
    bodies = {name: spans for name, spans in bodies.items() if spans}
    skip: dict[str, int] = {}  # frame -> line of the first break in one of its loops
    in_loop: set[int] = set()  # ids of the break findings that skip their frame
    for d in breaks:
        spans = bodies.get(d.function or "", ())
        if any(start <= d.line <= end for start, end in spans):
            skip[d.function] = min(d.line, skip.get(d.function, d.line))
            in_loop.add(id(d))
    # calling a frame that dynamo skips breaks the graph at the call: in a loop, that skips the
    # caller too (measured); a plain break in the callee does not (dynamo resumes inside it)
    changed = bool(skip)
    while changed:
        changed = False
        for name, spans in bodies.items():
            for call in _own_calls(functions[name]):
                if not any(start <= call.lineno <= end for start, end in spans):
                    continue
                callee = _callee(call, name, functions)
                if callee in skip and callee != name and call.lineno < skip.get(name, call.lineno + 1):
                    skip[name] = call.lineno
                    changed = True
    if not skip:
        return diagnostics
    hidden = {
        name: sum(1 for d in diagnostics if d.function == name and id(d) not in in_loop) for name in skip
    }
    out = []
    for d in diagnostics:
        frame = skip.get(d.function or "")
        if frame is None:
            out.append(d)
        elif id(d) in in_loop:
            more = hidden[d.function]
            note = f" (hiding {more} more finding{'s' if more != 1 else ''})" if more else ""
            cost = f"graph break in a loop: dynamo runs all of `{d.function}` eagerly{note}"
            if "graph break" in d.message:
                message = d.message.replace("graph break", cost, 1)
            else:
                message = f"{d.message}; {cost}"
            out.append(dataclasses.replace(d, message=message))
        else:
            out.append(dataclasses.replace(d, skipped_by=frame))
    return out
