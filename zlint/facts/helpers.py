"""Helpers defined in the same module: what a call of one returns (a size, a tensor).

``def seq_len(x): return x.shape[1]`` makes ``seq_len(h)`` a size at every call site, and
``self._shape(x)`` likewise for a method of the enclosing class. One level deep: a helper's
summary reads its own ``return`` values, not the helpers it calls in turn. A helper visited
before the call (defined above it) is summarised from the facts of its body; one defined below
from the syntax of its ``return`` values.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from zlint.facts.loops import assigned_names
from zlint.facts.tensor_evidence import is_plain_value
from zlint.facts.values import statements_below


def _own_statements(function: cst.FunctionDef) -> Iterator[cst.CSTNode]:
    """The statements of ``function``'s body, nested defs and classes excepted."""
    return statements_below(function.body, (cst.ClassDef, cst.FunctionDef))


def _returns(function: cst.FunctionDef) -> list[cst.BaseExpression | None]:
    """The values of ``function``'s return statements (nested defs and classes excepted)."""
    return [s.value for s in _own_statements(function) if isinstance(s, cst.Return)]


def _assignments(function: cst.FunctionDef) -> list[tuple[str, cst.BaseExpression | None]]:
    """(name, value) of each binding of a plain name in ``function`` (nested defs excepted); the
    value is None where the name is bound otherwise (a tuple target, a loop, ``+=``, a walrus)."""
    found: list[tuple[str, cst.BaseExpression | None]] = []
    for statement in _own_statements(function):
        if isinstance(statement, cst.Assign):
            for target in statement.targets:
                single = isinstance(target.target, cst.Name)
                found.extend((n, statement.value if single else None) for n in assigned_names(target.target))
        elif isinstance(statement, (cst.AugAssign, cst.AnnAssign)):
            value = statement.value if isinstance(statement, cst.AnnAssign) else None
            found.extend((n, value) for n in assigned_names(statement.target))
        elif isinstance(statement, cst.For):
            found.extend((n, None) for n in assigned_names(statement.target))
    return found


def unpacks_shape(value: cst.BaseExpression) -> bool:
    """``x.shape``, ``x.size()``, ``x.shape[1:]``: what ``b, n, c = ...`` unpacks into sizes."""
    if isinstance(value, cst.Subscript):
        value = value.value
    if isinstance(value, cst.Attribute):
        return value.attr.value == "shape"
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and (
        value.func.attr.value == "size" and not value.args
    )


def _unpacked(function: cst.FunctionDef) -> dict[str, list[cst.BaseExpression]]:
    """The names ``function`` binds by unpacking a value (``B, H, C = q.shape``, ``q_h, q_w =
    q_size``), with the values they are unpacked from."""
    found: dict[str, list[cst.BaseExpression]] = {}
    for statement in _own_statements(function):
        if isinstance(statement, cst.Assign):
            for target in statement.targets:
                if isinstance(target.target, (cst.Tuple, cst.List)):
                    for name in assigned_names(target.target):
                        found.setdefault(name, []).append(statement.value)
    return found


def syntactic_size(value: cst.BaseExpression | None) -> bool:
    """``x.shape[i]``, ``x.size(i)``, ``x.numel()``: a size whatever ``x`` is."""
    if isinstance(value, cst.Subscript) and len(value.slice) == 1 and isinstance(value.slice[0].slice, cst.Index):
        base = value.value
        return isinstance(base, cst.Attribute) and base.attr.value == "shape"
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
        method = value.func.attr.value
        return (method == "size" and len(value.args) == 1) or (method in {"numel", "nelement"} and not value.args)
    return False


def _instantiates(value: cst.BaseExpression) -> bool:
    """``BaseModelOutput(...)``, ``outputs.Result(...)``: a call of a class, by its capitalised name
    (torch's tensor types and ``Parameter`` excepted)."""
    if not isinstance(value, cst.Call):
        return False
    func = value.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    root = func
    while isinstance(root, cst.Attribute):
        root = root.value
    from_torch = isinstance(root, cst.Name) and root.value in {"torch", "nn"} and root is not func
    return (
        name[:1].isupper() and not name.isupper() and not from_torch
        and "Tensor" not in name and "Parameter" not in name
    )


class FunctionIndex:
    """The module-level functions and the methods of each class of one module."""

    def __init__(self, module: cst.Module) -> None:
        self.functions: dict[str, cst.FunctionDef] = {}
        self.methods: dict[str, dict[str, cst.FunctionDef]] = {}
        #: the module-level classes, in source order
        self.classes: list[cst.ClassDef] = []
        for statement in module.body:
            if isinstance(statement, cst.FunctionDef):
                self.functions[statement.name.value] = statement
            elif isinstance(statement, cst.ClassDef) and isinstance(statement.body, cst.IndentedBlock):
                self.classes.append(statement)
                self.methods[statement.name.value] = {
                    s.name.value: s for s in statement.body.body if isinstance(s, cst.FunctionDef)
                }
        self._returns: dict[int, list[cst.BaseExpression | None]] = {}
        self._plain: dict[int, frozenset[str]] = {}
        self._bindings: dict[int, dict[str, list[cst.BaseExpression | None]]] = {}
        self._unpacked: dict[int, dict[str, list[cst.BaseExpression]]] = {}

    def bindings(self, function: cst.FunctionDef, name: str) -> list[cst.BaseExpression | None]:
        """The values ``function`` binds ``name`` to in its body (None for a binding whose value
        is not one expression: a tuple target, a loop, ``+=``); parameters are not bindings."""
        found = self._bindings.get(id(function))
        if found is None:
            found = self._bindings[id(function)] = {}
            for target, value in _assignments(function):
                found.setdefault(target, []).append(value)
        return found.get(name, [])

    def unpacked(self, function: cst.FunctionDef, name: str) -> list[cst.BaseExpression]:
        """The values ``function`` unpacks ``name`` from (``B, H, C = q.shape``: ``q.shape`` for
        ``H``)."""
        found = self._unpacked.get(id(function))
        if found is None:
            found = self._unpacked[id(function)] = _unpacked(function)
        return found.get(name, [])

    def container_returns(self, function: cst.FunctionDef) -> str | None:
        """``"plain"`` when every return of ``function`` gives a plain Python value (a literal, a
        comprehension, a list build, a name :meth:`plain_names` knows: ``out = []`` ... ``return
        out``); ``"object"`` when some give an instance of a class instead (``return
        BaseModelOutput(last_hidden_state=h)``, whose ``[0]`` is a tensor); else None."""
        values = self.returns(function)
        plain = self.plain_names(function)
        kinds = set()
        for value in values:
            if value is None:
                return None
            if isinstance(value, cst.Name) and value.value in plain or is_plain_value(value):
                kinds.add("plain")
            elif _instantiates(value):
                kinds.add("object")
            else:
                return None
        return ("object" if "object" in kinds else "plain") if kinds else None

    def plain_names(self, function: cst.FunctionDef) -> frozenset[str]:
        """Names that ``function`` binds only to plain Python values (``lengths = [a + b for
        ...]``): every assignment to them is a literal, a comprehension or a list build."""
        found = self._plain.get(id(function))
        if found is None:
            params = function.params
            every = [*params.posonly_params, *params.params, *params.kwonly_params]
            bound: dict[str, bool] = {p.name.value: False for p in every}  # a parameter may be anything
            for target, value in _assignments(function):
                bound[target] = bound.get(target, True) and value is not None and is_plain_value(value)
            found = self._plain[id(function)] = frozenset(name for name, plain in bound.items() if plain)
        return found

    def tuple_returns(self, function: cst.FunctionDef) -> frozenset[int] | None:
        """For a function that returns only tuple literals (``return cos, sin``), the positions
        every return fills with a plain Python value (a literal, a list build, or a name
        :meth:`plain_names` knows); None when it returns anything else."""
        values = self.returns(function)
        if not values or not all(isinstance(v, cst.Tuple) and len(v.elements) > 1 for v in values):
            return None
        width = {len(v.elements) for v in values}  # type: ignore[union-attr]
        if len(width) != 1:
            return frozenset()
        plain = self.plain_names(function)

        def is_plain(value: cst.BaseExpression) -> bool:
            return value.value in plain if isinstance(value, cst.Name) else is_plain_value(value)

        return frozenset(
            i for i in range(width.pop()) if all(is_plain(v.elements[i].value) for v in values)  # type: ignore[union-attr]
        )

    def returns(self, function: cst.FunctionDef) -> list[cst.BaseExpression | None]:
        found = self._returns.get(id(function))
        if found is None:
            found = self._returns[id(function)] = _returns(function)
        return found

    def lookup(self, name: str, in_class: str | None) -> cst.FunctionDef | None:
        """The helper ``name`` (a method when ``in_class`` is given), else None."""
        if in_class is not None:
            return self.methods.get(in_class, {}).get(name)
        return self.functions.get(name)
