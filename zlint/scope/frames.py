"""What dynamo traces of one frame: a graph break inside a loop makes it skip the whole frame.

Dynamo cannot resume a frame in the middle of a ``for``/``while`` body, so a graph break there
makes it give up on the frame: the function runs eagerly, with no graph at all (measured on
torch 2.13: 0 graphs over sizes 2, 3, 5, where the same break outside the loop gives one graph per
side of the break). Then nothing else in that frame costs a guard, a recompile or a break of its
own; the break is the one cost, and fixing it brings the others back. A plain break before the
loop ends a graph dynamo keeps: what runs before it still costs, and the frame dynamo resumes in
after it is the one it skips. Measured near misses, which
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

from zlint.core import registry
from zlint.core.diagnostics import Diagnostic
from zlint.core.walks import settle

#: the family whose default-tier findings are graph breaks: a data-dependent value read into Python
BREAKING_FAMILY = "data-dependent"
_FRAMES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
Function = ast.FunctionDef | ast.AsyncFunctionDef


def skipped_reason(line: int) -> str:
    return f"dynamo skips this frame: graph break in a loop at line {line}"


def nested_blocks(statement: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists nested in ``statement`` (bodies, branches, handlers, cases)."""
    blocks = [getattr(statement, name, None) for name in ("body", "orelse", "finalbody")]
    blocks += [handler.body for handler in getattr(statement, "handlers", ())]
    blocks += [case.body for case in getattr(statement, "cases", ())]
    return [block for block in blocks if isinstance(block, list)]


def functions_by_name(tree: ast.Module) -> dict[str, Function]:
    """Every function by the qualified name the rules give a finding (``Class.method``,
    ``outer.inner``). Functions are statements: only statement lists are walked."""
    found: dict[str, Function] = {}
    stack: list[tuple[list[ast.stmt], tuple[str, ...]]] = [(tree.body, ())]
    while stack:
        statements, prefix = stack.pop()
        for statement in statements:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = (*prefix, statement.name)
                found.setdefault(".".join(name), statement)
                stack.append((statement.body, name))
            elif isinstance(statement, ast.ClassDef):
                stack.append((statement.body, (*prefix, statement.name)))
            else:
                stack.extend((block, prefix) for block in nested_blocks(statement))
    return found


def _loops(function: Function) -> list[ast.For | ast.AsyncFor | ast.While]:
    """The frame's own loops (not those of nested functions or classes, each a frame of its own)."""
    loops = []
    stack = [function.body]
    while stack:
        for statement in stack.pop():
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
                loops.append(statement)
            stack.extend(nested_blocks(statement))
    return loops


def _span(loop: ast.For | ast.AsyncFor | ast.While) -> tuple[int, int]:
    """The lines of a loop's body: not a ``for``'s iterable nor a ``while``'s test, evaluated
    before dynamo is inside the loop, nor an ``else:`` clause."""
    return loop.body[0].lineno, max(s.end_lineno or s.lineno for s in loop.body)


def _calls_in(loop: ast.For | ast.AsyncFor | ast.While) -> list[ast.Call]:
    """The calls of a loop's body in its own frame (not in nested functions, lambdas or
    comprehensions)."""
    calls = []
    stack: list[ast.AST] = list(loop.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _FRAMES + _COMPREHENSIONS):
            continue
        if isinstance(node, ast.Call):
            calls.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return calls


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


def contains(node: ast.AST, line: int, column: int) -> bool:
    end = (node.end_lineno or node.lineno, node.end_col_offset if node.end_col_offset is not None else 1 << 30)
    return (node.lineno, node.col_offset) <= (line, column) < end


def unconditional(root: ast.AST, line: int, column: int) -> bool:
    """Whether the expression at ``line:column`` runs whenever ``root`` does: not in a later
    ``and``/``or`` operand, a conditional expression's branch, a comprehension or a lambda."""
    node = root
    while True:
        inner = next(
            (c for c in ast.iter_child_nodes(node) if hasattr(c, "lineno") and contains(c, line, column)), None
        )
        if inner is None:
            return True
        if isinstance(inner, _COMPREHENSIONS + (ast.Lambda,)):
            return False
        if isinstance(node, ast.BoolOp) and inner is not node.values[0]:
            return False
        if isinstance(node, ast.IfExp) and inner is not node.test:
            return False
        node = inner


def _header_break(statement: ast.stmt, breaks: list[tuple[int, int]]) -> int | None:
    """The first line of a break that ``statement`` evaluates each time it runs, outside its
    nested blocks (a simple statement; a compound one's test, iterable or context expressions)."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return None
    blocks = nested_blocks(statement)
    lines = [
        line for line, column in breaks
        if contains(statement, line, column)
        and not any(contains(s, line, column) for block in blocks for s in block)
        and unconditional(statement, line, column)
    ]
    return min(lines, default=None)


def _always_breaks(statement: ast.stmt, breaks: list[tuple[int, int]]) -> int | None:
    """The first line of a break that ``statement`` reaches on every path through it: in its
    header, in the body of a ``with``, or in both branches of an ``if``/``else``. Loop bodies may
    run zero times and ``try`` bodies may stop early: neither counts."""
    line = _header_break(statement, breaks)
    if line is not None:
        return line
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        return _first_always(statement.body, breaks)
    if isinstance(statement, ast.If) and statement.orelse:
        body, orelse = _first_always(statement.body, breaks), _first_always(statement.orelse, breaks)
        if body is not None and orelse is not None:
            return min(body, orelse)
    return None


def _first_always(statements: list[ast.stmt], breaks: list[tuple[int, int]]) -> int | None:
    return next((line for s in statements if (line := _always_breaks(s, breaks)) is not None), None)


def _dominated(function: Function, in_loop: list[Diagnostic]) -> dict[int, int]:
    """The in-loop breaks that another break always precedes in the same iteration (see the
    module docstring), by id, with the line of the first break that precedes them."""
    out: dict[int, int] = {}
    for d in in_loop:
        others = [(b.line, b.column) for b in in_loop if b is not d]
        statements, inside = function.body, False
        while True:
            index = next((i for i, s in enumerate(statements) if contains(s, d.line, d.column)), None)
            if index is None:
                break
            statement = statements[index]
            if inside:
                line = _first_always(statements[:index], others)
                if line is not None:
                    out[id(d)] = line
                    break
            block = next((b for b in nested_blocks(statement) if any(contains(s, d.line, d.column) for s in b)), None)
            if block is None or isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                break
            if inside and (line := _header_break(statement, others)) is not None:
                out[id(d)] = line
                break
            inside = inside or (isinstance(statement, (ast.For, ast.AsyncFor, ast.While)) and block is statement.body)
            statements = block
    return out


def _is_break(d: Diagnostic) -> bool:
    rule = registry.RULES_BY_CODE.get(d.code)
    return rule is not None and rule.family == BREAKING_FAMILY and d.tier == "default"


def mark_skipped(tree: ast.Module, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The findings with the frame model applied (see the module docstring)."""
    # a finding that needs a fact of the run (a check wrapper in another file) may yet be dropped:
    # it takes no part here
    breaks = [d for d in diagnostics if _is_break(d) and d.function and not d.needs]
    if not breaks:
        return diagnostics
    functions = functions_by_name(tree)
    spans = {
        name: [_span(loop) for loop in _loops(functions[name])] for name in {d.function for d in breaks}
        if name in functions
    }
    skip: dict[str, int] = {}  # frame -> line of the first break in one of its loops
    in_loop: set[int] = set()  # ids of the break findings that skip their frame
    for d in breaks:
        if any(start <= d.line <= end for start, end in spans.get(d.function, ())):
            skip[d.function] = min(d.line, skip.get(d.function, d.line))
            in_loop.add(id(d))
    # calling a frame that dynamo skips breaks the graph at the call: in a loop, that skips the
    # caller too (measured); a plain break in the callee does not (dynamo resumes inside it)
    calls = {}
    for name, function in functions.items() if skip else ():
        found = [call for loop in _loops(function) for call in _calls_in(loop)]
        if found:
            calls[name] = found

    def one_round() -> bool:  # each round moves a frame's first skipped line up, or ends
        changed = False
        for name, found in calls.items():
            for call in found:
                callee = _callee(call, name, functions)
                if callee in skip and callee != name and call.lineno < skip.get(name, call.lineno + 1):
                    skip[name] = call.lineno
                    changed = True
        return changed

    if skip:
        settle(one_round)
    if not skip:
        return diagnostics
    behind: dict[int, int] = {}  # in-loop breaks another one of the same iteration always precedes
    for name in skip:
        if name in functions:
            behind.update(_dominated(functions[name], [d for d in breaks if d.function == name and id(d) in in_loop]))
    in_loop -= set(behind)
    # a plain break before the skipping one ends a graph that dynamo keeps: what runs before it
    # still costs (measured: 2 graphs for such a frame, 0 without the earlier break); dynamo
    # skips the frame it resumes in, from after that break on
    resumes = {name: 0 for name in skip}
    for d in breaks:
        first = skip.get(d.function or "")
        if first is not None and id(d) not in in_loop and d.line < first:
            resumes[d.function] = max(resumes[d.function], d.line)

    def skipped(d: Diagnostic) -> bool:
        return d.function in skip and d.line > resumes[d.function] and id(d) not in in_loop and not d.needs

    hidden = {name: sum(1 for d in diagnostics if d.function == name and skipped(d)) for name in skip}
    out = []
    for d in diagnostics:
        if id(d) in in_loop:
            more = hidden[d.function]
            note = f" (hiding {more} more finding{'s' if more != 1 else ''})" if more else ""
            where = f"the rest of `{d.function}`" if resumes[d.function] else f"all of `{d.function}`"
            cost = f"graph break in a loop: dynamo runs {where} eagerly{note}"
            if "graph break" in d.message:
                message = d.message.replace("graph break", cost, 1)
            else:
                message = f"{d.message}; {cost}"
            out.append(dataclasses.replace(d, message=message))
        elif id(d) in behind:
            out.append(dataclasses.replace(d, skipped_by=behind[id(d)]))
        elif skipped(d):
            out.append(dataclasses.replace(d, skipped_by=skip[d.function]))
        else:
            out.append(d)
    return out
