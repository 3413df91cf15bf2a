"""Small ``ast`` helpers of the candidate stage, and the one walk that groups a file's nodes by
the function holding them (:func:`group`)."""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator
from typing import Any

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def assigned_targets(node: ast.AST) -> Iterator[str]:
    """The names a binding target binds (``a``, ``a, (b, *c)``); attributes and subscripts bind none."""
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, (ast.Tuple, ast.List)):
        for element in node.elts:
            yield from assigned_targets(element)
    elif isinstance(node, ast.Starred):
        yield from assigned_targets(node.value)


def callee_name(node: ast.Call) -> str:
    """The last name of a call's callee: ``range`` for ``range(n)``, ``item`` for ``x.item()``."""
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def chain_head(node: ast.AST) -> ast.AST:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


def condition_atoms(test: ast.AST) -> Iterator[ast.AST]:
    """The operands of ``and``/``or``/``not`` whose truth a condition tests."""
    if isinstance(test, ast.BoolOp):
        for value in test.values:
            yield from condition_atoms(value)
    elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yield from condition_atoms(test.operand)
    else:
        yield test


def own_returns(node: ast.AST) -> Iterator[ast.AST]:
    """The values of the ``return`` statements of a function, nested scopes excepted."""
    todo = list(getattr(node, "body", ()))
    while todo:
        current = todo.pop()
        if isinstance(current, ast.Return):
            if current.value is not None:
                yield current.value
        elif not isinstance(current, SCOPES):
            todo.extend(c for c in ast.iter_child_nodes(current) if isinstance(c, (ast.stmt, ast.excepthandler,
                                                                                   ast.match_case)))


def is_self_attribute(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


#: Fields no summary descends into: contexts and operators (read from their parent node).
_LEAF_FIELDS = frozenset({"ctx", "op", "ops", "type_ignores"})
_FIELDS: dict[type, tuple[str, ...]] = {}


def group(node: ast.AST, stop: Collection[int] = (), into: dict[int, dict[type, list[Any]]] | None = None
          ) -> dict[type, list[Any]]:
    """The nodes under ``node`` (itself included) by type, in one walk faster than ``ast.walk``.
    A node whose id is in ``stop`` is grouped on its own, into ``into[id(node)]``."""
    groups: dict[type, list[Any]] = {}
    stack = [node]
    pop, push = stack.pop, stack.append
    while stack:
        current = pop()
        kind = type(current)
        found = groups.get(kind)
        if found is None:
            groups[kind] = [current]
        else:
            found.append(current)
        fields = _FIELDS.get(kind)
        if fields is None:
            fields = _FIELDS[kind] = tuple(f for f in kind._fields if f not in _LEAF_FIELDS)
        for name in fields:
            value = getattr(current, name, None)
            if value is None:
                continue
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        if id(item) in stop and into is not None:
                            into[id(item)] = group(item)
                        else:
                            push(item)
            elif isinstance(value, ast.AST):
                push(value)
    return groups


def static_shape(node: ast.AST) -> bool:
    """``self.weight.shape``: the shape of a module's own attribute, maybe a parameter's."""
    if not (isinstance(node, ast.Attribute) and node.attr == "shape"):
        return False
    head = chain_head(node.value)
    return isinstance(head, ast.Name) and head.id == "self"


def call_arguments(call: ast.Call) -> Iterator[ast.AST]:
    yield from call.args
    for keyword in call.keywords:
        yield keyword.value
