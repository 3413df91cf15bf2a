"""What the callers in the same module pass: parameters that no caller fills with a tensor, and
tensor parameters that every caller fills with a parameter or buffer.

``seq2img(seq, p, hidden_states.shape)`` as the only call of ``seq2img`` says its ``shape`` is a
``torch.Size``, whatever the annotation claims, so ``isinstance(shape, torch.Tensor)`` there is a
branch that never runs. A parameter is *no tensor* when the module calls its function at least
once, every call passes a value that is certainly no tensor (a literal or comprehension, ``None``,
``x.shape``/``x.size()``/``len(x)``, a name its caller binds only to such values or annotates as
a non-tensor, an unannotated parameter of the caller named as a list (``spatial_shapes_list``) that
it never rebinds, or a parameter of the caller that is no tensor by this same rule) or leaves the
parameter to a default of that kind. One call that passes anything else (a tensor, or a value
zlint cannot read) keeps the parameter as it was: evidence for a tensor wins over its absence.

A tensor parameter is *static-shaped* when every call fills it with a parameter or buffer
(:func:`zlint.facts.parameters.holds_parameter` on the caller's class: ``self.rel_pos_h``,
``self.proj.weight``, a name bound only to one, a parameter of the caller that is static-shaped by
this same rule) or with ``None``, and at least one with a parameter; unless some call hands the
function an input's size (``x.shape[1]``, a name unpacked from a shape), which the function then
fits the tensor to.

Scope: calls in the same module only. A module-level function called by its name ``f(...)`` or
through an attribute its class binds to it (``self.core = f`` ... ``self.core(...)``), a method
called as ``self.m(...)`` in its own class. Any other mention of the name (``map(f, xs)``,
``other.m(...)``, ``super().m(...)``) means some calls are out of sight, and the function gets no
call-site facts. Callers' own parameters count through up to :data:`CALL_SITE_DEPTH` calls up the chain.
Callers in other files are not seen: a function that other modules call with tensors is read from
its callers here.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from zlint.cst.batched import visit
from zlint.facts.helpers import FunctionIndex, syntactic_size, unpacks_shape
from zlint.facts.modules import ClassFacts, class_facts, self_attribute
from zlint.facts.parameters import PARAMETER, holds_parameter
from zlint.facts.tensor_evidence import is_plain_value
from zlint.facts.vocabulary import CALL_SITE_DEPTH, PYTHON_BUILTINS, SIZE_ATTRIBUTES, SIZE_METHODS

#: the endings of a name that says it holds a Python list
LIST_SUFFIXES = ("_list", "_lists")
#: what a call passes where no value can be read: ``*args``/``**kwargs``, no argument and no default
_UNKNOWN = object()

Annotation = Callable[[cst.BaseExpression], bool]
Qualify = Callable[[cst.BaseExpression], str | None]


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _reads_self(node: cst.BaseExpression) -> bool:
    """``self.x``, ``self.x[k]``, ``self.x.float()``: a chain that starts at ``self``."""
    while True:
        if isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        elif isinstance(node, cst.Call):
            node = node.func
        else:
            return isinstance(node, cst.Name) and node.value == "self"


class _Site:
    """One call of an indexed function: the caller (and its class) and what it passes to each
    parameter."""

    def __init__(self, caller: cst.FunctionDef | None, passed: dict[str, object], cls: str | None = None) -> None:
        self.caller = caller
        self.passed = passed  # parameter name -> argument expression, or _UNKNOWN
        self.cls = cls  # the class whose body the call is written in (what its `self` is)


def _parameters(function: cst.FunctionDef, bound: bool) -> list[cst.Param]:
    """The parameters a call fills by position or keyword (``self``/``cls`` excepted when bound)."""
    params = function.params
    every = [*params.posonly_params, *params.params]
    decorators = {d.decorator.value for d in function.decorators if isinstance(d.decorator, cst.Name)}
    if bound and "staticmethod" not in decorators and every:
        every = every[1:]
    return [*every, *params.kwonly_params]


def _passed(function: cst.FunctionDef, call: cst.Call, bound: bool) -> dict[str, object]:
    params = _parameters(function, bound)
    names = [p.name.value for p in params]
    by_position = len(params) - len(function.params.kwonly_params)
    passed: dict[str, object] = {}
    position = 0
    for arg in call.args:
        if arg.star:  # f(*args), f(**kwargs): any parameter may come from it
            return dict.fromkeys(names, _UNKNOWN)
        if arg.keyword is not None:
            passed[arg.keyword.value] = arg.value
        else:
            if position < by_position:
                passed[names[position]] = arg.value
            position += 1
    for param in params:
        if param.name.value not in passed:
            # the default is evaluated where the function is defined, not in the caller
            passed[param.name.value] = _Default(param.default) if param.default is not None else _UNKNOWN
    return {name: passed.get(name, _UNKNOWN) for name in names}


class _Default:
    """A default value a call leaves a parameter to."""

    def __init__(self, value: cst.BaseExpression) -> None:
        self.value = value


class _Collect(cst.CSTVisitor):
    """One walk of the module: the calls of indexed functions, and every other mention of them."""

    def __init__(self, index: FunctionIndex) -> None:
        self.index = index
        self.method_names = {name for methods in index.methods.values() for name in methods}
        self.classes: list[str | None] = []
        self.callers: list[cst.FunctionDef | None] = []
        #: (class, attribute) -> module-level function: ``self.core = f``
        self.aliases: dict[tuple[str, str], str] = {}
        self.sites: dict[int, list[_Site]] = {}
        self.allowed: set[int] = set()  # mentions that are calls, definitions or aliases
        self.escaped_names: set[str] = set()
        self.escaped_attrs: set[str] = set()

    def _class(self) -> str | None:
        return self.classes[-1] if self.classes else None

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.append(node.name.value)
        self.allowed.add(id(node.name))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.classes.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.callers.append(node)
        self.allowed.add(id(node.name))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.callers.pop()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.callers.append(None)  # its parameters are nobody's to read

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self.callers.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        # self.core = f: calls of self.core in this class are calls of f
        value, cls = node.value, self._class()
        if cls is None or not isinstance(value, cst.Name) or value.value not in self.index.functions:
            return
        for target in node.targets:
            attr = self_attribute(target.target)
            if attr is not None and (cls, attr) not in self.aliases and attr not in self.method_names:
                self.aliases[(cls, attr)] = value.value
                self.allowed.update({id(value), id(target.target)})
                return

    def visit_Call(self, node: cst.Call) -> None:
        func, cls = node.func, self._class()
        caller = self.callers[-1] if self.callers else None
        target: cst.FunctionDef | None = None
        bound = False
        if isinstance(func, cst.Name):
            target = self.index.functions.get(func.value)
        attr = self_attribute(func)
        if attr is not None and cls is not None:
            target = self.index.methods.get(cls, {}).get(attr)
            bound = target is not None
            alias = self.aliases.get((cls, attr))
            if target is None and alias is not None:
                target = self.index.functions.get(alias)
        if target is not None:
            self.allowed.add(id(func))
            self.sites.setdefault(id(target), []).append(_Site(caller, _passed(target, node, bound), cls))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.index.functions and id(node) not in self.allowed:
            self.escaped_names.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        attr = node.attr.value
        if id(node) in self.allowed:
            return
        if attr in self.method_names:
            self.escaped_attrs.add(attr)
        for (_, aliased), function in self.aliases.items():
            if aliased == attr:
                self.escaped_names.add(function)


class CallSites:
    """Per function of one module: the parameters every call in the module fills with no tensor."""

    def __init__(
        self,
        module: cst.Module,
        index: FunctionIndex,
        non_tensor_annotation: Annotation,
        qualify: Qualify | None = None,
    ) -> None:
        self.index = index
        self.non_tensor_annotation = non_tensor_annotation
        self.qualify = qualify
        self._classes: dict[str, ClassFacts | None] = {}  # the module's classes, read on first need
        collect = _Collect(index)
        visit(module, collect)
        self._sites: dict[int, list[_Site]] = {}
        self._functions: dict[int, cst.FunctionDef] = {}
        for function in index.functions.values():
            if function.name.value not in collect.escaped_names:
                self._add(function, collect.sites)
        for methods in index.methods.values():
            for name, function in methods.items():
                if name not in collect.escaped_attrs:
                    self._add(function, collect.sites)
        self._found: dict[int, set[str]] = {key: set() for key in self._sites}
        self._fixed: dict[int, set[str]] = {key: set() for key in self._sites}
        for _ in range(CALL_SITE_DEPTH):
            if not self._round():
                break

    def _add(self, function: cst.FunctionDef, sites: dict[int, list[_Site]]) -> None:
        if sites.get(id(function)):
            self._sites[id(function)] = sites[id(function)]
            self._functions[id(function)] = function

    def not_tensors(self, function: cst.FunctionDef) -> frozenset[str]:
        """The parameters of ``function`` that no call in the module fills with a tensor."""
        return frozenset(self._found.get(id(function), ()))

    def static_shaped(self, function: cst.FunctionDef) -> frozenset[str]:
        """The parameters of ``function`` that every call in the module fills with a parameter or
        buffer (or leaves None), in a function no call hands an input's size: one that is handed
        both (``get_rel_pos(q_size, k_size, self.rel_pos_h)`` with ``q_size`` from ``q.shape``)
        fits the table to that size, and what it compares the table's dims with varies with it
        (measured on torch 2.13: ``Ne(2*s0 - 1, 7)`` as the query length varies)."""
        fixed = self._fixed.get(id(function))
        if not fixed:
            return frozenset()
        sites = self._sites.get(id(function), ())
        if any(self._sized(v, s.caller, 1, frozenset()) for s in sites for v in s.passed.values()):
            return frozenset()
        return frozenset(fixed)

    def _sized(
        self, value: object, caller: cst.FunctionDef | None, depth: int, seen: frozenset[tuple[int, str]]
    ) -> bool:
        """``value``, passed from ``caller`` (``depth`` calls up), may be an input's size:
        ``x.shape[1]``, ``x.size(1)``, a name the caller unpacks from a shape (or from a value that
        may hold sizes) or binds to such a value, a parameter of the caller that one of its calls
        hands such a value (up to :data:`CALL_SITE_DEPTH` calls up), arithmetic on or a tuple of
        these."""
        if not isinstance(value, cst.BaseExpression):
            return False
        if syntactic_size(value) or unpacks_shape(value):
            return True
        if isinstance(value, cst.BinaryOperation):
            return self._sized(value.left, caller, depth, seen) or self._sized(value.right, caller, depth, seen)
        if isinstance(value, (cst.Tuple, cst.List)):
            return any(self._sized(e.value, caller, depth, seen) for e in value.elements)
        if not isinstance(value, cst.Name) or caller is None or (id(caller), value.value) in seen:
            return False  # a cycle adds no value of its own
        name = value.value
        seen = seen | {(id(caller), name)}
        bound = [*self.index.unpacked(caller, name), *(v for v in self.index.bindings(caller, name) if v is not None)]
        if any(self._sized(v, caller, depth, seen) for v in bound):
            return True
        params = caller.params
        if depth >= CALL_SITE_DEPTH or not any(
            p.name.value == name for p in (*params.posonly_params, *params.params, *params.kwonly_params)
        ):
            return False
        return any(self._sized(s.passed.get(name), s.caller, depth + 1, seen) for s in self._sites.get(id(caller), ()))

    def _round(self) -> bool:
        """One more call up every chain: each round reads only the previous round's facts, so
        the facts after :data:`CALL_SITE_DEPTH` rounds read no caller more than that many calls up (the
        candidate stage keeps exactly those)."""
        grown: dict[int, set[str]] = {}
        fixed: dict[int, set[str]] = {}
        for key, sites in self._sites.items():
            for name in sites[0].passed:
                if name not in self._found[key] and all(
                    self._no_tensor(s.passed[name], s.caller, set()) for s in sites
                ):
                    grown.setdefault(key, set()).add(name)
                if name not in self._fixed[key] and self.qualify is not None and self._all_parameters(sites, name):
                    fixed.setdefault(key, set()).add(name)
        for key, names in grown.items():
            self._found[key] |= names
        for key, names in fixed.items():
            self._fixed[key] |= names
        return bool(grown or fixed)

    def _all_parameters(self, sites: list[_Site], name: str) -> bool:
        """Every call fills ``name`` with a parameter or buffer or with None, one at least with one."""
        found = False
        for site in sites:
            held = self._parameter(site.passed[name], site.caller, site.cls, frozenset())
            if held is False:
                return False
            found = found or held is True
        return found

    def _parameter(
        self, value: object, caller: cst.FunctionDef | None, cls: str | None, seen: frozenset[str]
    ) -> bool | None:
        """True when ``value``, passed from ``caller`` in class ``cls``, holds a parameter or buffer
        (:func:`zlint.facts.parameters.holds_parameter`, its names read from the caller's
        bindings and parameters); None for ``None``, passed or left to as a default; else False."""
        if isinstance(value, _Default):
            return None if _is_none(value.value) else False
        if not isinstance(value, cst.BaseExpression):
            return False
        if _is_none(value):
            return None
        # only `self.<attr>` (and entries and methods of it) reads the class's registrations
        facts = self._class_facts(cls) if cls is not None and _reads_self(value) else None

        def held(name: str) -> str | None:
            return PARAMETER if caller is not None and self._name_parameter(name, caller, cls, seen) else None

        return holds_parameter(value, held, facts)

    def _name_parameter(self, name: str, caller: cst.FunctionDef, cls: str | None, seen: frozenset[str]) -> bool:
        """``name`` in ``caller`` holds a parameter: a parameter of the caller that every call
        fills with one (the previous rounds' facts), or a local bound only to such values."""
        if name in seen:
            return False
        params = caller.params
        if any(p.name.value == name for p in (*params.posonly_params, *params.params, *params.kwonly_params)):
            return name in self._fixed.get(id(caller), ()) and not self.index.bindings(caller, name)
        values = self.index.bindings(caller, name)
        return bool(values) and all(
            v is not None and self._parameter(v, caller, cls, seen | {name}) is True for v in values
        )

    def _class_facts(self, name: str) -> ClassFacts | None:
        """The facts of the module-level class ``name`` (the last of that name), on top of its
        bases' in the module, read on first need."""
        if name in self._classes:
            return self._classes[name]
        node = next((c for c in reversed(self.index.classes) if c.name.value == name), None)
        self._classes[name] = None  # a class that names itself as a base reads no facts of it
        if node is None or self.qualify is None:
            return None
        known = {}
        for base in node.bases:
            if isinstance(base.value, cst.Name):
                inherited = self._class_facts(base.value.value)
                if inherited is not None:
                    known[base.value.value] = inherited
        facts = self._classes[name] = class_facts(node, self.qualify, known)
        return facts

    def _no_tensor(self, value: object, caller: cst.FunctionDef | None, seen: set[str]) -> bool:
        """Whether ``value``, passed from ``caller``, is certainly no tensor."""
        if isinstance(value, _Default):
            value, caller = value.value, None
        if not isinstance(value, cst.BaseExpression):
            return False
        if is_plain_value(value):
            return True
        if isinstance(value, cst.Name):
            if value.value in {"None", "True", "False"}:
                return True
            return caller is not None and self._name_no_tensor(value.value, caller, seen)
        if isinstance(value, cst.Attribute):
            return value.attr.value in SIZE_ATTRIBUTES
        if isinstance(value, cst.Subscript):  # x.shape[0], x.shape[-2:]
            return isinstance(value.value, cst.Attribute) and value.value.attr.value in SIZE_ATTRIBUTES
        if isinstance(value, cst.Call):
            func = value.func
            if isinstance(func, cst.Attribute):
                return func.attr.value in SIZE_METHODS
            return isinstance(func, cst.Name) and func.value in PYTHON_BUILTINS
        if isinstance(value, cst.UnaryOperation):
            return self._no_tensor(value.expression, caller, seen)
        if isinstance(value, cst.BinaryOperation):  # h * w of two sizes
            return self._no_tensor(value.left, caller, seen) and self._no_tensor(value.right, caller, seen)
        if isinstance(value, cst.IfExp):
            return self._no_tensor(value.body, caller, seen) and self._no_tensor(value.orelse, caller, seen)
        return False

    def _name_no_tensor(self, name: str, caller: cst.FunctionDef, seen: set[str]) -> bool:
        """Every binding of ``name`` in ``caller`` is no tensor (its parameter included)."""
        if name in seen:
            return True  # a cycle adds no binding of its own
        seen = seen | {name}
        params = caller.params
        param = next(
            (p for p in (*params.posonly_params, *params.params, *params.kwonly_params) if p.name.value == name), None
        )
        values = self.index.bindings(caller, name)
        if param is None and not values:
            return False  # a global, a closure's, or bound in a way no value tells
        if param is not None:
            annotation = param.annotation.annotation if param.annotation is not None else None
            if annotation is not None:
                known = self.non_tensor_annotation(annotation)
            else:  # spatial_shapes_list=None: a parameter that is named a list and never rebound
                known = not values and name.endswith(LIST_SUFFIXES)
            if not known and name not in self._found.get(id(caller), ()):
                return False
        return all(v is not None and self._no_tensor(v, caller, seen) for v in values)
