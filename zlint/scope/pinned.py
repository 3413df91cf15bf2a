"""Sizes a frame already pins: a guard on them adds nothing of its own.

``range(n)`` over a symbolic size makes dynamo specialize ``n``: the graph holds its value as a
constant and guards on it, one graph per value (ZL201). A specialization holds for the whole
graph, so any other test of ``n`` in that frame (``n > 512``, ``n == 1``, another ``range(n)``) is
decided by the same guard and costs no recompile of its own (measured on torch 2.13: the same
graphs with and without such a test, for sizes 2, 3, 5, 8). The same holds for the other specializations
(:data:`PINNING`). Only a ``range`` that runs whenever
the frame does pins anything: one in the frame's own top-level statements (or a top-level loop's
iterable), evaluated whatever its operands do, not one under an ``if`` or inside a loop body.

A test is paid for when every size it reads is pinned: a name the ``range`` reads, or a local
bound once from pinned names and constants (``boundaries = list(range(0, T, chunk))``); a module
attribute (``self.chunk``) is a constant dynamo guards anyway. :func:`mark_pinned` gives such
findings ``paid_by`` (what pinned them), which placement turns into the ``never`` scope with
that reason. ``ast`` only; the ranges are ZL201's own findings.
"""

from __future__ import annotations

import ast
import dataclasses

from zlint.core.diagnostics import Diagnostic
from zlint.core.walks import settle
from zlint.scope.frames import Function, contains, functions_by_name, nested_blocks, unconditional

#: findings that specialize the sizes they read for the frame's graph: `range(size)`, a size as a
#: key (`table.get(n)`), a size handed to an argument torch takes as a plain number
#: (`torch.linspace(0, 1, n)`, :mod:`zlint.rules.zl210_size_to_plain_number_argument`)
PINNING = frozenset({"ZL201", "ZL205", "ZL210"})
#: rules whose finding is a guard on the sizes its expression reads
GUARDS = frozenset({"ZL101", "ZL103", "ZL201", "ZL205", "ZL210"})
_FRAMES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _node_at(root: ast.AST, d: Diagnostic) -> ast.expr | None:
    """The expression a finding flags: the one spanning exactly its start and end."""
    want = (d.line, d.column, d.end_line, d.end_column)
    for node in ast.walk(root):
        if isinstance(node, ast.expr) and (
            node.lineno, node.col_offset, node.end_lineno, node.end_col_offset
        ) == want:
            return node
    return None


def _size_expression(node: ast.expr) -> bool:
    """``x.shape[k]``, ``x.size(k)``, ``x.shape``, ``len(x)``: a size read as one whole."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
        return True
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        return True
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "size":
            return True
        if isinstance(func, ast.Name) and func.id == "len" and len(node.args) == 1:
            return True
    return False


def _size_atom(node: ast.expr) -> str:
    """One spelling per size: ``x.shape[0]`` and ``x.size(0)`` are the same size."""
    index: ast.expr | None = None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute):
        owner, index = node.value.value, node.slice
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and len(node.args) == 1:
        owner, index = node.func.value, node.args[0]
    if index is not None and isinstance(index, ast.Constant) and type(index.value) is int:
        return f"{ast.dump(owner)}:{index.value}"
    return ast.dump(node)


def _atoms(node: ast.AST) -> set[str] | None:
    """The sizes and names an expression reads (a size expression in one spelling); None when it
    reads something else that may vary (a lambda, a comprehension, a starred value)."""
    if isinstance(node, ast.expr) and _size_expression(node):
        return {_size_atom(node)}
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Attribute):
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        # `self.chunk`, `config.size`: a module's or an object's attribute, guarded as a constant
        return set() if isinstance(root, ast.Name) else _atoms(node.value)
    if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Starred)):
        return None
    out: set[str] = set()
    children = list(ast.iter_child_nodes(node))
    if isinstance(node, ast.Call):
        children = [*node.args, *(k.value for k in node.keywords)]  # not the callee's name
    for child in children:
        found = _atoms(child)
        if found is None:
            return None
        out |= found
    return out


def _top_level(function: Function, d: Diagnostic) -> ast.stmt | None:
    """The statement of the frame's own body that evaluates ``d`` each time the frame runs."""
    for statement in function.body:
        if not contains(statement, d.line, d.column):
            continue
        inner = [s for block in nested_blocks(statement) for s in block]
        if any(contains(s, d.line, d.column) for s in inner) or isinstance(statement, _FRAMES):
            return None
        return statement if unconditional(statement, d.line, d.column) else None
    return None


def _bound_once(function: Function) -> tuple[dict[str, ast.expr | None], dict[str, list[ast.AST]]]:
    """Names the frame binds exactly once: a parameter (None) or a plain ``name = value``; and
    what the frame may change them with in place (``name.append(v)``'s arguments, a value stored
    into ``name[i]``; ``...`` when not known)."""
    counts: dict[str, int] = {}
    values: dict[str, ast.expr | None] = {}
    mutations: dict[str, list[ast.AST]] = {}
    args = function.args
    for a in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        counts[a.arg], values[a.arg] = 1, None
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _FRAMES):
            if not isinstance(node, ast.Lambda):
                counts[node.name] = counts.get(node.name, 0) + 1
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            counts[node.id] = counts.get(node.id, 0) + 1
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            values[node.targets[0].id] = node.value
        func = node.func if isinstance(node, ast.Call) else None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            mutations.setdefault(func.value.id, []).extend([*node.args, *(k.value for k in node.keywords)])
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    mutations.setdefault(target.value.id, []).append(node.value)
        stack.extend(ast.iter_child_nodes(node))
    return {name: values.get(name) for name, count in counts.items() if count == 1}, mutations


def mark_pinned(tree: ast.Module, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The findings with the pinned sizes applied (see the module docstring)."""
    ranges = [d for d in diagnostics if d.code in PINNING and d.function and not d.skipped_by]
    if not ranges:
        return diagnostics
    functions = functions_by_name(tree)
    paid: dict[int, str] = {}
    for name in {d.function for d in ranges}:
        function = functions.get(name)
        if function is None:
            continue
        once, mutations = _bound_once(function)
        pins: list[tuple[Diagnostic, set[str], str]] = []  # range finding, atoms, its text
        for d in ranges:
            statement = _top_level(function, d) if d.function == name else None
            node = _node_at(statement, d) if statement is not None else None
            if node is None:
                continue
            atoms = _atoms(node)
            # only what nothing rebinds pins: the names it reads, those inside `x.shape[0]` too
            # (what is called is no size: `ANCHORS.get(n)` reads the module's table)
            callees = {
                id(c) for n in ast.walk(node) if isinstance(n, ast.Call) and not _size_expression(n)
                for c in ast.walk(n.func)
            }
            names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and id(n) not in callees}
            if atoms and names <= once.keys():
                pins.append((d, atoms, ast.unparse(node)))
        if not pins:
            continue
        for d in diagnostics:
            if d.function != name or d.code not in GUARDS or d.skipped_by:
                continue
            before = [p for p in pins if p[0] is not d and (d.code not in PINNING or p[0].line < d.line)]
            pinned = set().union(*(atoms for _, atoms, _ in before)) if before else set()
            pinned |= _derived(once, pinned, mutations)
            # `n = x.shape[0]` pinned: so is `x.size(0)`, read again under another spelling
            pinned |= {
                _size_atom(value) for name in list(pinned)
                if (value := once.get(name)) is not None and _size_expression(value)
            }
            node = _node_at(function, d)
            atoms = _atoms(node) if node is not None else None
            if atoms and pinned and atoms <= pinned:
                # the range it reads, else (a local derived from pinned sizes) the first one
                first = next((p for p in before if p[1] & atoms), before[0])
                paid[id(d)] = f"already paid: `{first[2]}` at line {first[0].line} pins these sizes for the graph"
    if not paid:
        return diagnostics
    return [dataclasses.replace(d, paid_by=paid[id(d)]) if id(d) in paid else d for d in diagnostics]


def _derived(once: dict[str, ast.expr | None], pinned: set[str], mutations: dict[str, list[ast.AST]]) -> set[str]:
    """Locals bound once from pinned sizes and constants only, and changed in place only with
    such values (``boundaries.append(T)``): pinned too."""
    out = set(pinned)

    def one_round() -> bool:  # each round pins more names, or ends
        changed = False
        for name, value in once.items():
            if name in out or value is None:
                continue
            reads = [_atoms(v) for v in (value, *mutations.get(name, ()))]
            if reads[0] and all(r is not None and r <= out for r in reads):
                out.add(name)
                changed = True
        return changed

    settle(one_round)
    return out - pinned
