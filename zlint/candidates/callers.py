"""Which callers the call-site facts of a kept function read, decided on the ``ast``.

:mod:`zlint.facts.call_sites` tells that a parameter is *no tensor* when every call in the module
passes it a value that is certainly none. That fact only matters for a parameter the function's
facts may take for a tensor, and it cannot hold once one call passes something else: one such
call per parameter (a *witness*) keeps the facts from saying it, whatever the other callers
pass. So the candidate stage keeps the witnesses, and only where a parameter has none, every
caller up the chain (:func:`zlint.candidates.stage._callers`).
"""

from __future__ import annotations

import ast

from zlint.candidates.summary import FunctionSummary, Unit
from zlint.candidates.values import FUNCTIONS
from zlint.candidates.walk import assigned_targets, call_arguments, callee_name, is_self_attribute
from zlint.facts.vocabulary import (
    PYTHON_BUILTINS,
    REARRANGING_METHODS,
    SHAPE_KEEPING_METHODS,
    SIZE_ATTRIBUTES,
    SIZE_METHODS,
)

#: calls :func:`zlint.facts.tensor_evidence.is_plain_value` takes for a Python value
_PLAIN_METHODS = frozenset({"astype", "numpy", "tobytes", "ravel", "tolist"})
_PLAIN_BUILTINS = frozenset({"slice", "list", "tuple", "dict", "set", "str", "range", "int", "float"})
#: what a call passes where no value can be read (``*args``, no argument and no default)
_UNKNOWN = object()
#: a parameter left to its default (whatever the default is: never a witness)
_DEFAULT = object()
#: attributes whose value may be a parameter whatever holds them (zlint.facts.parameters)
_PARAMETER_ATTRIBUTES = frozenset({"weight", "bias", "grad", "data"})


def indexed(unit: Unit, tree: ast.AST) -> bool:
    """Whether ``unit`` is the definition the facts index (the last of its name directly in the
    module, or directly in the last module-level class of its name): no other has call sites."""
    if len(unit.classes) > 1 or not isinstance(tree, ast.Module):
        return False
    body = tree.body
    if unit.classes:
        cls = unit.classes[0]
        if _last(body, ast.ClassDef, cls.name) is not cls:
            return False
        body = cls.body
    return _last(body, FUNCTIONS, unit.node.name) is unit.node


def _last(body: list[ast.stmt], kinds, name: str) -> ast.AST | None:
    found = None
    for statement in body:
        if isinstance(statement, kinds) and statement.name == name:
            found = statement
    return found


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef, bound: bool) -> list[ast.arg]:
    """The parameters a call fills, ``self``/``cls`` excepted when ``bound`` (as the facts do)."""
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args]
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in function.decorator_list)
    if bound and not static and every:
        every = every[1:]
    return [*every, *arguments.kwonlyargs]


def tensor_parameters(unit: Unit) -> frozenset[str]:
    """The parameters a call fills that the facts of ``unit`` may take for a tensor."""
    names = {p.arg for p in _parameters(unit.node, bool(unit.classes))}
    return frozenset(names & unit.summary.tensor_names)


def _defaults(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    found = {p.arg for p in positional[len(positional) - len(arguments.defaults):]} if arguments.defaults else set()
    found.update(p.arg for p, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None)
    return found


def _passed(function: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, bound: bool) -> dict[str, object]:
    """What ``call`` passes to each parameter of ``function`` (a mirror of the facts' reading)."""
    params = [p.arg for p in _parameters(function, bound)]
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return dict.fromkeys(params, _UNKNOWN)
    by_position = len(params) - len(function.args.kwonlyargs)
    passed: dict[str, object] = {}
    for position, arg in enumerate(call.args):
        if position < by_position:
            passed[params[position]] = arg
    for keyword in call.keywords:
        passed[keyword.arg] = keyword.value
    defaults = _defaults(function)
    return {name: passed.get(name, _DEFAULT if name in defaults else _UNKNOWN) for name in params}


class _Caller:
    """The bindings of the function a call is written in, as the facts read them
    (:func:`zlint.facts.helpers._assignments`): statement-level assignments, nested scopes
    excepted; None for a binding whose value is not one expression (a tuple target, a loop,
    ``+=``, an annotation without value)."""

    def __init__(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        arguments = function.args
        self.parameters = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
        self.bindings: dict[str, list[ast.AST | None]] = {}
        todo: list[ast.AST] = list(function.body)
        while todo:
            statement = todo.pop()
            if isinstance(statement, ast.Assign):
                for target in statement.targets:
                    value = statement.value if isinstance(target, ast.Name) else None
                    for name in assigned_targets(target):
                        self.bindings.setdefault(name, []).append(value)
            elif isinstance(statement, (ast.AugAssign, ast.AnnAssign)):
                value = statement.value if isinstance(statement, ast.AnnAssign) else None
                for name in assigned_targets(statement.target):
                    self.bindings.setdefault(name, []).append(value)
            elif isinstance(statement, (*FUNCTIONS, ast.ClassDef)):
                continue
            if isinstance(statement, (ast.For, ast.AsyncFor)):
                for name in assigned_targets(statement.target):
                    self.bindings.setdefault(name, []).append(None)
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                todo.extend(getattr(statement, field, None) or ())

    def certainly_no_plain_name(self, name: str, seen: frozenset[str]) -> bool:
        """:meth:`zlint.facts.call_sites.CallSites._name_no_tensor` is certainly False."""
        if name in seen:
            return False  # a cycle adds no binding of its own
        values = self.bindings.get(name, [])
        if name not in self.parameters and not values:
            return True  # a global or a closure's: the facts read no value
        return any(v is None or _certainly_no_plain_value(v, self, seen | {name}) for v in values)


def _certainly_no_plain_value(value: object, caller: _Caller | None, seen: frozenset[str] = frozenset()) -> bool:
    """Whether the facts certainly find ``value``, passed from ``caller`` (None: unknown), no
    *no-tensor* value (:meth:`zlint.facts.call_sites.CallSites._no_tensor` is False for it)."""
    if value is _UNKNOWN:
        return True
    if isinstance(value, ast.Name):
        return caller is not None and value.id not in {"None", "True", "False"} and (
            caller.certainly_no_plain_name(value.id, seen)
        )
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Attribute):
            return func.attr not in SIZE_METHODS and func.attr not in _PLAIN_METHODS
        if isinstance(func, ast.Name):
            return func.id not in PYTHON_BUILTINS and func.id not in _PLAIN_BUILTINS
        return True
    if isinstance(value, ast.Attribute):
        return value.attr not in SIZE_ATTRIBUTES
    if isinstance(value, ast.Subscript):
        return not (isinstance(value.value, ast.Attribute) and value.value.attr in SIZE_ATTRIBUTES)
    if isinstance(value, ast.BinOp):
        return _certainly_no_plain_value(value.left, caller, seen) or _certainly_no_plain_value(
            value.right, caller, seen
        )
    if isinstance(value, ast.IfExp):
        return _certainly_no_plain_value(value.body, caller, seen) or _certainly_no_plain_value(
            value.orelse, caller, seen
        )
    if isinstance(value, ast.UnaryOp):
        return _certainly_no_plain_value(value.operand, caller, seen)
    return isinstance(value, (ast.Compare, ast.BoolOp, ast.Lambda, ast.GeneratorExp, ast.Await))


def _certainly_no_parameter(value: object, caller: _Caller | None, seen: frozenset[str] = frozenset()) -> bool:
    """Whether the facts certainly find ``value``, passed from ``caller`` (None: unknown), holds
    no parameter or buffer (:meth:`zlint.facts.call_sites.CallSites._parameter` is False for it;
    ``None`` counts as one, it leaves the fact standing)."""
    if value is _UNKNOWN:
        return True
    if isinstance(value, ast.Constant):
        return value.value is not None
    if isinstance(value, ast.Name):
        if value.id == "None" or caller is None or value.id in seen or value.id in caller.parameters:
            return caller is not None and value.id in seen
        values = caller.bindings.get(value.id, [])
        return not values or any(v is None or _certainly_no_parameter(v, caller, seen | {value.id}) for v in values)
    if isinstance(value, ast.Attribute):
        # x.weight, p.grad, self.table: what zlint.facts.parameters may take for a parameter
        return value.attr not in _PARAMETER_ATTRIBUTES and not (
            isinstance(value.value, ast.Name) and value.value.id == "self"
        )
    if isinstance(value, ast.Subscript):  # self.blocks[name]
        return not is_self_attribute(value.value)
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr in (SHAPE_KEEPING_METHODS | REARRANGING_METHODS):
            return _certainly_no_parameter(func.value, caller, seen)
        return True
    return True


def _own_calls(function: ast.AST, name: str) -> set[int]:
    """The ids of the calls of ``name`` written in ``function`` itself, not in a nested scope."""
    found: set[int] = set()
    todo = list(ast.iter_child_nodes(function))
    while todo:
        node = todo.pop()
        if isinstance(node, (*FUNCTIONS, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Call) and callee_name(node) == name:
            found.add(id(node))
        todo.extend(ast.iter_child_nodes(node))
    return found


def witnesses(
    unit: Unit, parameters: frozenset[str], units: list[Unit], module: FunctionSummary
) -> set[int] | None:
    """The ids of units holding, for each of ``parameters``, a call of ``unit`` that passes it a
    value the facts certainly find no *no-tensor* value; none when no code spells its name
    (then it has no call-site facts); None when a parameter has no such call.
    Module-level calls count and are always parsed; a method's calls there, and calls in callers
    that define a class (whose ``self`` may be another class's), are not read."""
    name = unit.node.name
    method = bool(unit.classes)
    owner = unit.classes[0].name if method else None
    left = set(parameters)
    found: set[int] = set()
    sites = 0  # the calls of ``unit`` seen; ``unsure``: some may be out of this reading's sight
    unsure = False
    sources: list[tuple[Unit | None, FunctionSummary]] = [(None, module)]
    sources.extend((u, u.summary) for u in units if name in u.summary.words)
    for caller, summary in sources:
        calls = [call for call in summary.calls((name,)) if _calls(call, method)]
        if not calls:
            continue
        if (caller is None and method) or caller is not None and (
            method and (caller.classes[-1].name if caller.classes else None) != owner
            or any(True for _ in summary.of(ast.ClassDef))
        ):
            unsure = True
            continue
        own: set[int] = set()
        reader: _Caller | None = None
        if caller is not None and any(isinstance(v, ast.Name) for call in calls for v in call_arguments(call)):
            own, reader = _own_calls(caller.node, name), _Caller(caller.node)
        for call in calls:
            sites += 1
            passed = _passed(unit.node, call, method)
            where = reader if id(call) in own else None
            witnessed = {
                p for p in left
                if _certainly_no_plain_value(passed.get(p, _UNKNOWN), where)
                and _certainly_no_parameter(passed.get(p, _UNKNOWN), where)
            }
            if witnessed:
                left -= witnessed
                if caller is not None:
                    found.add(id(caller))
            if not left:
                return found
    # no call the facts read: none at all when no code spells the name (an alias such as
    # ``self.core = f`` is called under another name)
    spelled = any(name in summary.words for _, summary in sources)
    return set() if not sites and not unsure and not spelled else None


def _calls(call: ast.Call, method: bool) -> bool:
    """``f(...)`` for a function, ``self.m(...)`` for a method: the calls the facts read."""
    func = call.func
    if method:
        return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"
    return isinstance(func, ast.Name)
