"""What reaches a flagged line, from source alone (no torch): which parameters' values flow into
it, and which values of flags and optional arguments the branches around it need.

Synthesized inputs should be the least that runs the flagged line: an optional argument that
never reaches it keeps its default (``attention_mask=None``), and a flag the line sits behind gets
the value that enters its branch (``if stagewise:`` -> ``stagewise=True``; ``if
self.compress_time:`` -> the module built with ``compress_time=True``;
``if isinstance(depths, int):`` -> an int, its ``else`` -> a list).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable, Iterator
from typing import Any

#: requirements on a name: truthy, falsy, None, not None, or ``isinstance`` of a type (or not)
TRUE, FALSE, NONE, NOT_NONE = "true", "false", "none", "not-none"


def header(node: ast.stmt) -> list[ast.AST]:
    """The parts of a statement that run on its own line: an ``if``'s test, not its body."""
    if isinstance(node, (ast.If, ast.While)):
        return [node.test]
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [node.target, node.iter]
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [item.context_expr for item in node.items]
    if isinstance(node, (ast.Try, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Match)):
        return []
    return [node]


def names_read(func: ast.AST, lines: Iterable[int]) -> set[str]:
    """Names (and ``self.<attr>`` texts) read by the statements that start on ``lines`` (their
    headers) and by expressions starting there."""
    lines = set(lines)
    out: set[str] = set()
    for node in ast.walk(func):
        if getattr(node, "lineno", None) not in lines:
            continue
        parts = header(node) if isinstance(node, ast.stmt) else [node] if isinstance(node, ast.expr) else []
        for part in parts:
            for sub in ast.walk(part):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                    out.add(sub.id)
    return out


def _bound_names(target: ast.AST) -> set[str]:
    """Names an assignment target binds or updates (``x[i] = ...`` and ``x.a = ...`` update x)."""
    while isinstance(target, (ast.Subscript, ast.Attribute, ast.Starred)):
        target = target.value
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(_bound_names(e) for e in target.elts)) if target.elts else set()
    return set()


def _flows(func: ast.AST) -> Iterator[tuple[set[str], set[str]]]:
    """(names bound, names read) for every binding in ``func``."""
    for node in ast.walk(func):
        value = targets = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            targets, value = [node.target], node.value
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            targets, value = [node.target], node.iter
        elif isinstance(node, ast.NamedExpr):
            targets, value = [node.target], node.value
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    yield _bound_names(item.optional_vars), _loads(item.context_expr)
            continue
        if targets is None:
            continue
        read = _loads(value)
        if isinstance(node, ast.AugAssign):
            read |= _bound_names(node.target)
        for target in targets:
            yield _bound_names(target), read


def _loads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def reaching(func: ast.FunctionDef | ast.AsyncFunctionDef, lines: Iterable[int], params: Iterable[str]) -> set[str]:
    """The ``params`` whose values reach the statements on ``lines``: read there, or through the
    names assigned from them (``out = self.model(x, mask=mask)`` carries ``mask``)."""
    lines = list(lines)
    params = set(params)
    carried: dict[str, set[str]] = {p: {p} for p in params}  # name -> params it carries
    flows = list(_flows(func))
    changed = True
    while changed:
        changed = False
        for bound, read in flows:
            carries = set().union(*(carried.get(n, set()) for n in read)) if read else set()
            for name in bound:
                have = carried.setdefault(name, set())
                if not carries <= have:
                    have |= carries
                    changed = True
    found: set[str] = set()
    for name in names_read(func, lines):
        found |= carried.get(name, set())
    return found & params


# -- the branches around a flagged line ---------------------------------------------------------


def _enclosing_tests(func: ast.AST, line: int) -> list[tuple[ast.expr, bool]]:
    """The ``if`` tests around ``line``, outermost first, each with whether the line is in its body
    (True) or its ``else`` (False)."""
    out: list[tuple[ast.expr, bool]] = []

    def visit(body: list[ast.stmt]) -> bool:
        for stmt in body:
            start, end = stmt.lineno, stmt.end_lineno or stmt.lineno
            if end < line and _guard_clause(stmt):
                out.append((stmt.test, False))  # ``if isinstance(d, int): return ...``: later lines need it false
                continue
            if not start <= line <= end:
                continue
            if isinstance(stmt, ast.If) and line > (stmt.test.end_lineno or stmt.lineno):
                in_body = any(s.lineno <= line <= (s.end_lineno or s.lineno) for s in stmt.body)
                out.append((stmt.test, in_body))
                return visit(stmt.body if in_body else stmt.orelse)
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and visit(inner):
                    return True
            return True
        return False

    visit(getattr(func, "body", []))
    return out


def _guard_clause(stmt: ast.stmt) -> bool:
    """An ``if`` without ``else`` whose body always leaves (``return``, ``raise``, ``continue``,
    ``break``): the statements after it run only when its test is false."""
    return (isinstance(stmt, ast.If) and not stmt.orelse and bool(stmt.body)
            and isinstance(stmt.body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break)))


def _requirements(test: ast.expr, holds: bool) -> list[tuple[str, str]]:
    """``(name, requirement)`` pairs that make ``test`` evaluate to ``holds``, for the simple
    forms (a name, ``not``, ``is None``, ``isinstance``, ``and``/``or`` where each part must
    hold); other tests give none."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _requirements(test.operand, not holds)
    if isinstance(test, ast.BoolOp):
        every = isinstance(test.op, ast.And) == holds  # ``a and b`` true, ``a or b`` false
        if every:
            return [r for value in test.values for r in _requirements(value, holds)]
        return []
    name = _subject(test)
    if name is not None:
        return [(name, TRUE if holds else FALSE)]
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        other = test.comparators[0]
        name = _subject(test.left)
        if name is not None and isinstance(other, ast.Constant) and other.value is None:
            is_none = isinstance(test.ops[0], ast.Is) == holds
            if isinstance(test.ops[0], (ast.Is, ast.IsNot)):
                return [(name, NONE if is_none else NOT_NONE)]
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance":
        if len(test.args) == 2:
            name = _subject(test.args[0])
            kind = test.args[1]
            if name is not None and isinstance(kind, (ast.Name, ast.Attribute)):
                return [(name, f"{'' if holds else 'not '}isinstance:{ast.unparse(kind)}")]
    return []


def _subject(node: ast.expr) -> str | None:
    """A parameter name or ``self.<attr>`` a test is about."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return f"self.{node.attr}"
    return None


def _init_sources(cls: ast.ClassDef | None) -> tuple[dict[str, str], dict[str, Any]]:
    """``self.<attr>`` bound straight from an ``__init__`` parameter (attr -> parameter), and
    those parameters' literal defaults."""
    if cls is None:
        return {}, {}
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is None:
        return {}, {}
    args = init.args
    positional = [*args.posonlyargs, *args.args][1:]
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    defaults = {}
    for arg, default in pairs:
        try:
            defaults[arg.arg] = ast.literal_eval(default)
        except ValueError:
            continue
    params = {a.arg for a in [*positional, *args.kwonlyargs]}
    sources: dict[str, str] = {}
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Name):
            name = _subject(node.targets[0])
            if name and name.startswith("self.") and node.value.id in params:
                sources.setdefault(name, node.value.id)
    return sources, defaults


def _flag_value(requirement: str, default: Any) -> tuple[bool, Any]:
    """The value of a flag with a literal default that meets ``requirement``."""
    if isinstance(default, bool) and requirement in (TRUE, FALSE):
        return True, requirement == TRUE
    if default is None and requirement == NONE:
        return True, None
    return False, None


def choices(
    func: ast.FunctionDef | ast.AsyncFunctionDef, line: int, cls: ast.ClassDef | None = None,
) -> dict[str, dict[str, Any]]:
    """What the branches around ``line`` need: ``{"params": {name: requirement}, "init":
    {parameter: value}}``. Parameters get a requirement (``true``, ``false``, ``none``,
    ``not-none``, ``isinstance:int``, ``not isinstance:int``) for the input plan to meet; the
    ``__init__`` parameters behind ``self.<attr>`` flags get a value. Empty when the line sits
    behind no such branch (or behind contradicting ones)."""
    args = func.args
    params = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    sources, init_defaults = _init_sources(cls)
    out: dict[str, dict[str, Any]] = {"params": {}, "init": {}}
    tests = _enclosing_tests(func, line)
    own = next((n for n in ast.walk(func) if isinstance(n, (ast.If, ast.While)) and n.lineno == line), None)
    if own is not None and isinstance(own.test, ast.BoolOp) and isinstance(own.test.op, ast.And):
        # ``if crop_scale and ss[0] <= H:``: the flagged comparison runs only when the flags before it hold
        for value in own.test.values:
            if not _requirements(value, True):
                break
            tests.append((value, True))
    for test, in_body in tests:
        for name, requirement in _requirements(test, in_body):
            if name in params and name != "self":
                if out["params"].setdefault(name, requirement) != requirement:
                    return {}  # the line needs a value and its opposite
            elif name in sources and sources[name] in init_defaults:
                known, value = _flag_value(requirement, init_defaults[sources[name]])
                if known:
                    out["init"].setdefault(sources[name], value)
    return {k: v for k, v in out.items() if v}


def branch_groups(
    func: ast.FunctionDef | ast.AsyncFunctionDef, lines: Iterable[int], cls: ast.ClassDef | None = None,
) -> list[tuple[dict[str, dict[str, Any]], list[int] | None]]:
    """The flagged ``lines`` of ``func`` grouped by what their branches need (:func:`choices`):
    one run per group. The first group, the lines that need nothing (else the largest group), is
    the function's own run (``None``: it also takes every other line the run covers, a helper's
    included); each other group lists its lines."""
    grouped: dict[str, list[int]] = {}
    for line in sorted(set(lines)):
        grouped.setdefault(json.dumps(choices(func, line, cls), sort_keys=True), []).append(line)
    if not grouped:
        return [({}, None)]
    first = "{}" if "{}" in grouped else max(grouped, key=lambda k: len(grouped[k]))
    return [(json.loads(first), None)] + [(json.loads(k), v) for k, v in grouped.items() if k != first]
