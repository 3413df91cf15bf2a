"""Branches that a module's default configuration never takes (:func:`option_paths`).

Dynamo guards a module's attributes as constants: with ``self.use_tiling = False`` set in
``__init__`` and turned on only by a user-called toggle (``enable_tiling()``), the body of
``if self.use_tiling and ...:`` is not traced under the default configuration, so what it holds
costs nothing unless a user opts in. A method's own keyword argument is a different matter: callers
pass it per call, so a branch on it stays where it is.

The default of ``self.A`` is known only when nothing else can have changed it: one assignment at
the top level of ``__init__``, from a literal or from a parameter whose default is a literal, and
otherwise only toggles that set a literal. Anything else (another write, a subclass or base in the
file that writes it or passes that parameter) leaves the default unknown, and the branch alone.
A parameter's default also needs that no constructor call passes it, which only a run over the
whole package can tell (:func:`zlint.scope.classify.classify` reads the summaries' calls).
"""

from __future__ import annotations

import ast
import operator

from zlint.core.ast_walk import walk

# methods that run inside the compiled call: a write there is no user's toggle
_CALLED_BY_TORCH = frozenset({"forward", "__call__"})
_ORDER = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge}
_UNKNOWN = object()  # no literal value


#: what an option path needs besides its class's own code: that no constructor call of the run
#: passes the ``__init__`` parameter the deciding attribute comes from, other than as a literal
#: equal to its default (class name, parameter, its positional index after ``self``, the
#: default's ``repr``); empty when the default is a literal in ``__init__``
Needs = tuple[tuple[str, str, int, str], ...]
Span = tuple[int, int, str, Needs]  # first line, last line, reason, needs
Operand = tuple[int, int, int, int, int, str, Needs]  # line, column, end line, end column, deciding line, ...


def option_paths(tree: ast.Module) -> tuple[list[Span], list[Operand]]:
    """What the default configuration of the file's classes never runs in their methods: the
    ``if``/``elif``/``else`` bodies, and the ``and``/``or`` operands of ``if`` tests that an
    operand before them decides (``self.layerdrop_prob > 0 and ...``), with the last line of
    that deciding operand (it runs; only positions, or whole lines after it, do not)."""
    classes = _classes(tree.body)
    related = _related(classes)
    spans: list[Span] = []
    operands: list[Operand] = []
    for cls in classes:
        defaults, needs = _defaults(cls, [c for c in classes if c is not cls and c.name in related[cls.name]])
        if defaults:
            for method in _methods(cls):
                _off_branches(method.body, defaults, needs, spans, operands)
    return spans, operands


def _classes(statements: list[ast.stmt]) -> list[ast.ClassDef]:
    """The classes defined among ``statements``, nested ones included (statements only: cheap)."""
    out: list[ast.ClassDef] = []
    for stmt in statements:
        if isinstance(stmt, ast.ClassDef):
            out.append(stmt)
        for name in ("body", "orelse", "finalbody"):
            block = getattr(stmt, name, None)
            if isinstance(block, list):
                out.extend(_classes(block))
    return out


def _related(classes: list[ast.ClassDef]) -> dict[str, set[str]]:
    """Class name -> the names of its bases and subclasses among the file's classes (transitively):
    their code runs on the same objects."""
    bases = {c.name: {_last(b) for b in c.bases} for c in classes}
    names = set(bases)
    out: dict[str, set[str]] = {}
    for name in names:
        up, todo = set(), [name]
        while todo:
            for base in bases.get(todo.pop(), ()):
                if base in names and base not in up and base != name:
                    up.add(base)
                    todo.append(base)
        out[name] = up
    for name, ups in list(out.items()):
        for base in ups:
            out[base] = out[base] | {name}
    return out


def _last(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _methods(cls: ast.ClassDef) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The instance methods of ``cls`` (first parameter ``self``)."""
    out = []
    for stmt in cls.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.args.args:
            plain = not any(_last(d) in ("staticmethod", "classmethod") for d in stmt.decorator_list)
            if plain and stmt.args.args[0].arg == "self":
                out.append(stmt)
    return out


def _literal(node: ast.expr | None) -> object:
    """The value of a literal (True/False/None, a number, a string, ``-1``), else ``_UNKNOWN``."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        value = node.operand.value
        return -value if isinstance(value, (int, float)) and not isinstance(value, bool) else _UNKNOWN
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (bool, int, float, str))):
        return node.value
    return _UNKNOWN


def passed_keyword(keyword: ast.keyword) -> str:
    """How a constructor call's keyword argument is recorded: ``name=repr`` for a literal (the
    default passed again changes nothing), else ``name``; ``*`` for ``**kwargs``."""
    if keyword.arg is None:
        return "*"
    value = _literal(keyword.value)
    return keyword.arg if value is _UNKNOWN else f"{keyword.arg}={value!r}"


def _self_attr(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


_WRITERS = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.Delete, ast.With, ast.AsyncWith)


def _writes(function: ast.AST, calls: set[str] | None = None) -> list[tuple[str, ast.expr | None, ast.AST]]:
    """(attribute, value or None when not a plain assignment, node) of every write of ``self.X``
    in ``function``; ``"*"`` for a ``setattr`` whose name is not a literal. Adds the names of the
    methods it calls on ``self`` to ``calls``, from the same walk."""
    out: list[tuple[str, ast.expr | None, ast.AST]] = []
    for node in walk(function):
        if isinstance(node, ast.Call):
            if calls is not None and isinstance(node.func, ast.Attribute) and _self_attr(node.func) is not None:
                calls.add(node.func.attr)
            if (named := _named_by_call(node)) is not None:
                out.append((named, None, node))
            continue
        if not isinstance(node, _WRITERS):
            continue
        targets: list[ast.expr] = []
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if _self_attr(target) is not None:
                    out.append((_self_attr(target), node.value, node))  # type: ignore[arg-type]
                else:
                    targets.append(target)  # `self.a, self.b = ...`: not from a literal
        elif isinstance(node, (ast.AugAssign, ast.For, ast.AsyncFor)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            targets = [item.optional_vars for item in node.items if item.optional_vars is not None]
        out.extend((name, None, node) for t in targets for part in walk(t) if (name := _self_attr(part)))
    return out


# calls that set an attribute by name: a buffer, parameter or submodule registered under it too
_SETTERS = frozenset({"setattr", "register_buffer", "register_parameter", "add_module", "register_module"})


def _named_by_call(node: ast.Call) -> str | None:
    """The attribute a ``setattr(self, "a", v)`` / ``self.register_buffer("a", t)`` sets, ``"*"``
    when its name is not a literal; None for other calls."""
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name not in _SETTERS:
        return None
    key = node.args[1 if name == "setattr" else 0] if len(node.args) > (name == "setattr") else None
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else "*"


def _defaults(
    cls: ast.ClassDef, related: list[ast.ClassDef]
) -> tuple[dict[str, object], dict[str, tuple[str, str, int]]]:
    """``self.A`` -> its literal default, for the attributes of ``cls`` that an ``if`` of its
    methods tests and whose default is known; and, for those set from a parameter, what the
    default needs (:data:`Needs`)."""
    methods = {m.name: m for m in _methods(cls)}
    init = methods.get("__init__")
    if init is None:
        return {}, {}
    # cheap gates first: a top-level assignment in __init__ of an attribute some `if` tests;
    # a decorated __init__ may be handed its arguments from elsewhere (a saved configuration:
    # diffusers' `@register_to_config`), so its parameters' defaults say nothing
    params = {} if init.decorator_list else _param_defaults(init)
    tested = {a for m in methods.values() for test in _tests(m.body) for a in _read(test)}
    candidates: dict[str, object] = {}
    sources: dict[str, str] = {}  # attribute -> the __init__ parameter it is set from
    positions: dict[str, int] = {}
    for index, stmt in enumerate(init.body):
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else (
            stmt.target if isinstance(stmt, ast.AnnAssign) else None)
        attr = _self_attr(target) if target is not None else None
        if attr in tested and stmt.value is not None:
            known = _literal(stmt.value)
            if known is _UNKNOWN and isinstance(stmt.value, ast.Name) and stmt.value.id in params:
                known, sources[attr] = params[stmt.value.id], stmt.value.id
            elif known is _UNKNOWN and (param := _test_of_one(stmt.value, params)) is not None:
                # `self.has_sigreg = sigreg_loss_weight > 0.`: a test of one such parameter
                truth = _truth(stmt.value, {}, {param: params[param]})
                if truth is not None:
                    known, sources[attr] = truth, param
            if known is not _UNKNOWN:
                candidates[attr], positions[attr] = known, index
    if not candidates:
        return {}, {}
    called: set[str] = set()  # a toggle the class's own code calls is no user's choice
    spoiled = _spoiled_in_init(init, positions, sources, called)
    writes = {name: _writes(method, called) for name, method in methods.items() if name != "__init__"}
    order = [a.arg for a in (*init.args.posonlyargs, *init.args.args)]
    for other in related:
        spoiled.update(attr for attr, _, _ in _writes(other, called))
        spoiled.update(a for a, p in sources.items() if _may_pass(other, p, order))
    for name, found in writes.items():
        toggle = not name.startswith("_") and name not in _CALLED_BY_TORCH and name not in called
        spoiled.update(a for a, value, _ in found if not toggle or value is None or _literal(value) is _UNKNOWN)
    # a method or property of that name: the attribute is not a plain value
    spoiled.update(s.name for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)))
    if "*" in spoiled:
        return {}, {}
    defaults = {attr: value for attr, value in candidates.items() if attr not in spoiled}
    index = {name: i - 1 for i, name in enumerate(order)}  # keyword-only: no position
    needs = {a: (cls.name, p, index.get(p, len(order)), repr(params[p])) for a, p in sources.items() if a in defaults}
    return defaults, needs


def _test_of_one(node: ast.expr, params: dict[str, object]) -> str | None:
    """The parameter a comparison, ``not`` or ``and``/``or`` of it and literals reads, when it
    reads exactly one of ``params`` and nothing else (no call, attribute or other name)."""
    if not isinstance(node, (ast.Compare, ast.BoolOp, ast.UnaryOp)):
        return None
    names: set[str] = set()
    for part in walk(node):
        if isinstance(part, ast.Name):
            names.add(part.id)
        elif not isinstance(part, (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Constant, ast.cmpop, ast.boolop,
                                   ast.unaryop, ast.expr_context)):
            return None
    return next(iter(names)) if len(names) == 1 and names <= params.keys() else None


def _spoiled_in_init(
    init: ast.FunctionDef | ast.AsyncFunctionDef, candidates: dict[str, int], sources: dict[str, str], calls: set[str]
) -> set[str]:
    """The candidates (attribute -> index of its statement in ``__init__``) that ``__init__``
    writes more than once, whose parameter it rebinds, or that a base class's ``__init__``
    called after the assignment may set again; adds the methods it calls on ``self`` to ``calls``."""
    nodes = walk(init)
    rebound = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    spoiled = {a for a, param in sources.items() if param in rebound}
    writes = [attr for attr, _, _ in _writes(init, calls)]
    spoiled.update(a for a in candidates if writes.count(a) != 1)
    last = max((i for i, stmt in enumerate(init.body) if any(map(_is_init_call, walk(stmt)))), default=-1)
    spoiled.update(a for a, index in candidates.items() if index < last)
    if "*" in writes:
        spoiled.add("*")
    return spoiled


def _tests(statements: list[ast.stmt]) -> list[ast.expr]:
    """The tests of the ``if`` statements among ``statements`` and their nested blocks."""
    out: list[ast.expr] = []
    for stmt in statements:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, ast.If):
            out.append(stmt.test)
        for name in ("body", "orelse", "finalbody"):
            block = getattr(stmt, name, None)
            if isinstance(block, list):
                out.extend(_tests(block))
        for inner in (*getattr(stmt, "handlers", ()), *getattr(stmt, "cases", ())):
            out.extend(_tests(inner.body))
    return out


def _read(test: ast.expr) -> list[str]:
    """The ``self`` attributes ``test`` reads, in order."""
    return [a for n in walk(test) if (a := _self_attr(n)) is not None]


def _is_init_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__"


def _param_defaults(init: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, object]:
    """Parameter name -> its literal default (parameters without one, or with another, left out)."""
    args = init.args
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    return {a.arg: value for a, d in pairs if (value := _literal(d)) is not _UNKNOWN}


def _may_pass(other: ast.ClassDef, param: str, order: list[str]) -> bool:
    """A related class calls ``__init__`` with an argument that may bind ``param``
    (``super().__init__(use_tiling=True)``): a subclass with another default."""
    index = order.index(param) if param in order else len(order)
    for node in walk(other):
        if not _is_init_call(node):
            continue
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg in (None, param) for k in node.keywords):
            return True
        # `super().__init__(a, b)` binds after self; `Base.__init__(self, a, b)` passes self too
        if index < len(node.args) + isinstance(node.func.value, ast.Call):
            return True
    return False


def _off_branches(
    statements: list[ast.stmt], defaults: dict[str, object], needs: dict[str, tuple[str, str, int]],
    spans: list[Span], operands: list[Operand],
) -> None:
    """Add the default-off bodies and operands among ``statements`` and their nested blocks
    (not in nested functions or classes: another ``self`` may be meant there)."""
    for stmt in statements:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, ast.If):
            value = _truth(stmt.test, defaults)
            off = stmt.body if value is False else stmt.orelse if value is True else []
            read = _deciding(stmt.test, defaults, value) if off else []
            if off and read and off[0].lineno > (stmt.test.end_lineno or stmt.test.lineno):
                end = max(s.end_lineno or s.lineno for s in off)
                spans.append((off[0].lineno, end, _reason(read, defaults), tuple(needs[a] for a in read if a in needs)))
            _skipped(stmt.test, defaults, needs, operands)
        for name in ("body", "orelse", "finalbody"):
            block = getattr(stmt, name, None)
            if isinstance(block, list):
                _off_branches(block, defaults, needs, spans, operands)
        for inner in (*getattr(stmt, "handlers", ()), *getattr(stmt, "cases", ())):
            _off_branches(inner.body, defaults, needs, spans, operands)


def _skipped(
    test: ast.expr, defaults: dict[str, object], needs: dict[str, tuple[str, str, int]], out: list[Operand]
) -> None:
    """The operands of ``and``/``or`` in ``test`` after one the defaults decide: never evaluated."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        _skipped(test.operand, defaults, needs, out)
    if not isinstance(test, ast.BoolOp):
        return
    stop = isinstance(test.op, ast.Or)  # the value that ends the chain
    for position, operand in enumerate(test.values):
        _skipped(operand, defaults, needs, out)
        rest = test.values[position + 1:]
        if rest and _truth(operand, defaults) is stop:
            first, last = rest[0], rest[-1]
            read = _deciding(operand, defaults, stop)
            end = operand.end_lineno or operand.lineno
            out.append((first.lineno, first.col_offset, last.end_lineno or last.lineno, last.end_col_offset or 0,
                        end, _reason(read, defaults), tuple(needs[a] for a in read if a in needs)))
            return


def _deciding(test: ast.expr, defaults: dict[str, object], value: bool | None) -> list[str]:
    """The attributes of known default that make ``test`` certainly ``value``, in order, once
    each (of ``a and b``, those of the operands that are certainly False, when it is False)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and value is not None:
        return _deciding(test.operand, defaults, not value)
    if isinstance(test, ast.BoolOp) and value is not None:
        # `and` is False by its False operands, True by all; `or` the other way round
        short = value is isinstance(test.op, ast.Or)
        operands = [v for v in test.values if _truth(v, defaults) is value] if short else test.values
        return list(dict.fromkeys(a for v in operands for a in _deciding(v, defaults, value)))
    return list(dict.fromkeys(a for n in walk(test) if (a := _self_attr(n)) in defaults))


def _reason(read: list[str], defaults: dict[str, object]) -> str:
    values = ", ".join(repr(defaults[a]) for a in read)
    if len(read) == 1:
        return f"only when self.{read[0]} is not its default ({values})"
    return f"only when {', '.join(f'self.{a}' for a in read)} are not their defaults ({values})"


def _truth(test: ast.expr, defaults: dict[str, object], names: dict[str, object] | None = None) -> bool | None:
    """What ``test`` is under the defaults (of ``self`` attributes, and of plain ``names`` when
    given): True, False, or None when that is not certain."""
    if isinstance(test, ast.BoolOp):
        values = [_truth(v, defaults, names) for v in test.values]
        if isinstance(test.op, ast.And):
            return False if False in values else True if all(v is True for v in values) else None
        return True if True in values else False if all(v is False for v in values) else None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _truth(test.operand, defaults, names)
        return None if inner is None else not inner
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right = _value(test.left, defaults, names), _value(test.comparators[0], defaults, names)
        if left is _UNKNOWN or right is _UNKNOWN:
            return None
        op = type(test.ops[0])
        if op in (ast.Is, ast.IsNot):
            if left is not None and right is not None:
                return None  # identity of two non-None literals says nothing sure
            return (left is right) is (op is ast.Is)
        if op in (ast.Eq, ast.NotEq):
            return (left == right) is (op is ast.Eq)
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (left, right))
        return _ORDER[op](left, right) if op in _ORDER and numbers else None
    value = _value(test, defaults, names)
    return None if value is _UNKNOWN else bool(value)


def _value(node: ast.expr, defaults: dict[str, object], names: dict[str, object] | None = None) -> object:
    name = _self_attr(node)
    if name is not None:
        return defaults.get(name, _UNKNOWN)
    if names and isinstance(node, ast.Name):
        return names.get(node.id, _UNKNOWN)
    return _literal(node)
