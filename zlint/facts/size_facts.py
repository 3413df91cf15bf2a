"""Which expressions are symbolic tensor sizes, which are static, which are tensors.

One LibCST metadata provider computes this once per file, in source order, and every rule reads
it. An expression is a *size* only when it is derived from a tensor's shape (``x.size(0)``,
``x.shape[-1]``, ``len(t)`` on a tensor, names bound from those, arithmetic on them, a call of a
same-module helper that returns one). A size is *static* (Kind.STATIC, never reported) when the
code fixes it: dims of parameters and buffers (and of a tensor parameter every call in the module
fills with one: :mod:`zlint.facts.call_sites`), of tensors computed only from static shapes
(:mod:`zlint.facts.static_operands`), the channel dim of a conv input or output, the feature dim
of a ``Linear``/``LayerNorm`` input or output (kept where ``transpose``/``permute``/indexing move
it), the count of a ``torch.stack`` over a Python list (:mod:`zlint.facts.written_shapes`).
Ranks (``x.dim()``, ``x.ndim``, ``len(x.shape)``) are static and plain Python ints are unknown,
so rules stay quiet on them.

A name is a *tensor* when it is bound from a torch function or tensor method (tuple results
such as ``x.max(dim=1)`` give Kind.TENSORS, whose elements are tensors), from a call of an
``nn`` layer attribute, or when the function's own code uses it as only a tensor can
(:mod:`zlint.facts.tensor_evidence`, kept per binding of the name); evidence against wins.
"""

from __future__ import annotations

from collections import ChainMap
from dataclasses import replace

import libcst as cst
from libcst.metadata import BatchableMetadataProvider

from zlint.facts.call_sites import CallSites
from zlint.facts.comparisons import ComparisonFacts, elementwise_comparison, names_fixed_size
from zlint.facts.helpers import FunctionIndex, syntactic_size
from zlint.facts.imports import ImportMap, dotted_name
from zlint.facts.lattice import (
    CONDITIONAL,
    CONTAINER,
    MASK,
    POSITIVE,
    RANK,
    REMAINDER,
    SHAPE,
    SIZE,
    STATIC,
    TENSOR,
    TENSORS,
    Fact,
    Kind,
    arith_fact,
    mapped_dim,
    merged_origin,
    sized,
)
from zlint.facts.literals import int_literal, number_literal, source_text
from zlint.facts.modules import ClassFacts, class_facts, layer_kind
from zlint.facts.parameters import PARAMETER, holds_parameter, iterated
from zlint.facts.static_operands import static_operands, static_value
from zlint.facts.tensor_evidence import (
    CHANNEL_OPS,
    FEATURE_OPS,
    NON_TENSOR_TYPES,
    Bindings,
    Evidence,
    bound_in,
    bound_names,
    scan_function,
)
from zlint.facts.values import (
    DIM_TUPLE_RESULTS,
    TUPLE_RESULTS,
    container_attributes,
    is_container_value,
    moves_only,
    requests_bool,
    returns_tuple_by_flag,
)
from zlint.facts.vocabulary import (
    DIM_KEEPING_METHODS,
    MASK_FUNCTIONS,
    MASK_METHODS,
    MASK_PRESERVING_METHODS,
    NON_TENSOR_RESULT_METHODS,
    NON_TENSOR_TORCH,
    TENSOR_ONLY_METHODS,
    returns_tensor,
)
from zlint.facts.written_shapes import (
    FACTORIES,
    fixed_size,
    indexed_dims,
    is_written_size,
    writes_whole_shape,
    written_dims,
)

TENSOR_TYPES = frozenset(
    {
        "torch.Tensor",
        "torch.FloatTensor",
        "torch.LongTensor",
        "torch.BoolTensor",
        "torch.HalfTensor",
        "torch.IntTensor",
        "torch.nn.Parameter",
        "torch.nn.parameter.Parameter",
    }
)
SIZE_PRESERVING_BUILTINS = frozenset({"int", "round", "abs", "math.ceil", "math.floor", "math.sqrt"})


class SizeFactsProvider(ComparisonFacts, BatchableMetadataProvider[Fact]):
    """Sets a :class:`Fact` on every expression that is a size, shape, rank, tensor or size bool.

    Names are resolved in source order within a function: the most recent binding above a use
    wins (branches are not joined). Nested functions see their enclosing function's bindings.
    """

    def __init__(self, cache: object = None) -> None:
        super().__init__(cache)
        # fed during the traversal (a name resolves with the imports above it); the rules read
        # the engine's map of the whole file instead (``zlint.facts.imports.file_imports``),
        # which holds the same names once this traversal ends
        self.imports = ImportMap()
        self._env: ChainMap[str, Fact | None] = ChainMap({})
        #: per name: PARAMETER/PARAM_GROUP when its latest binding holds one (zlint.facts.parameters)
        self._held: ChainMap[str, str | None] = ChainMap({})
        #: what the closed branches of the enclosing `if` statements bound (see leave_If)
        self._branches: list[tuple[dict[str, Fact | None], dict[str, str | None]] | None] = []
        self._functions: list[cst.FunctionDef | cst.Lambda] = []
        #: per enclosing function: the bindings counted so far and the evidence of its body
        self._bindings: list[Bindings] = []
        #: the functions and the loops the walk is in, whose bound names :meth:`_size_source` asks
        self._rebound: list[cst.FunctionDef | cst.Lambda] = []
        self._loop_bound: list[cst.For | cst.While] = []
        #: id(function or loop) -> the names it binds, read only where a size read asks
        self._bound: dict[int, frozenset[str]] = {}
        #: isinstance narrowings of the enclosing if-bodies (None where the test is no isinstance)
        self._narrowed: list[tuple[str, tuple[str, int], bool] | None] = []
        #: per enclosing function: names bound as loop targets (counters of unrolled loops)
        self._loop_targets: list[set[str]] = []
        #: per function (by id): sizes it tests against several small values (comparisons.py)
        self._enumerations: dict[int, frozenset[str]] = {}
        self._evidence: list[Evidence] = []
        self._facts: dict[int, Fact] = {}
        #: per enclosing class: its self.<attr> names that hold Python containers
        self._container_attrs: list[frozenset[str]] = []
        #: per enclosing class: its name and what its self.<attr> hold
        self._classes: list[tuple[str, ClassFacts]] = []
        #: the facts of every class read so far, by name: a subclass starts from its bases'
        self._known_classes: dict[str, ClassFacts] = {}
        self._index: FunctionIndex | None = None
        self._call_sites: CallSites | None = None
        self._module: cst.Module | None = None
        #: per function (by id): the facts of its return values; summary once it is left
        self._returned: dict[int, list[Fact | None]] = {}
        self._summaries: dict[int, Fact | None] = {}

    # -- helpers -------------------------------------------------------------------------
    def fact(self, node: cst.CSTNode) -> Fact | None:
        return self._facts.get(id(node))

    def _set(self, node: cst.CSTNode, fact: Fact | None) -> None:
        if fact is not None:
            self._facts[id(node)] = fact
            self.set_metadata(node, fact)

    def _kind(self, node: cst.CSTNode) -> Kind | None:
        fact = self._facts.get(id(node))
        return fact.kind if fact else None

    def _layer_of(self, func: cst.BaseExpression) -> str | None:
        """``channels``/``features``/``tensor`` when ``func`` is a torch.nn layer: ``self.conv``
        assigned ``nn.Conv2d(...)`` in the class, or ``nn.Linear(...)`` called inline."""
        if (
            isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"
            and self._classes
        ):
            return self._classes[-1][1].layers.get(func.attr.value)
        if isinstance(func, cst.Call):  # nn.Linear(a, b)(x)
            return layer_kind(self.imports.qualify(func.func))
        return None

    def _size_source(self, tensor: cst.BaseExpression) -> tuple[str, tuple[int, ...] | None] | None:
        """The name a size read off ``tensor`` is recorded under (``x`` in ``x.shape[0]``), for a
        workload to look its sizes up: the parameter whose dims the tensor has, and where its dims
        went (:attr:`Fact.dim_map`). Its fact says so where it is known (``x``, ``x + 1``,
        ``x.float()``, ``x.permute(0, 2, 3, 1)``: the parameter ``x``) unless a loop around the
        read binds the name (a later turn reads what the loop bound); else the name itself, where
        the function never binds it (``self.cache``, a parameter of no known kind). A name rebound
        where the dims cannot be followed (``x = x.view(...)``, ``x = f(x)``) is the parameter's
        only where none of the statements that bind it ran (its origin is marked
        :data:`~zlint.facts.lattice.CONDITIONAL`)."""
        name = dotted_name(tensor)
        if name is None:
            return None
        head = name.partition(".")[0]
        # a name the function never binds holds the caller's value everywhere: no loop to look at
        rebound = bool(self._rebound) and head in self._binds(self._rebound[-1])
        if rebound and any(head in self._binds(loop) for loop in self._loop_bound):
            return None
        fact = self.fact(tensor)
        if fact is not None and fact.kind is Kind.TENSOR and fact.origin and "." not in name:
            return fact.origin[0], fact.dim_map
        if rebound:
            # the parameter's dims only where no statement that binds the name ran: a recording
            # can tell (zlint.workload.decide, with the binding lines the finding names)
            return f"{name}{CONDITIONAL}", None
        return name, None

    def _binds(self, node: cst.FunctionDef | cst.Lambda | cst.For | cst.While) -> frozenset[str]:
        """The names a function's body or a loop binds, walked once, when a size read first asks
        (most functions read no size off a name they bind)."""
        found = self._bound.get(id(node))
        if found is None:
            found = self._bound[id(node)] = (
                bound_names(node) if isinstance(node, (cst.FunctionDef, cst.Lambda)) else bound_in(node)
            )
        return found

    def _is_parameter(self, node: cst.BaseExpression) -> bool:
        """A parameter or buffer (:mod:`zlint.facts.parameters`): dynamo keeps their shapes static."""
        return holds_parameter(node, self._held.get, self._classes[-1][1] if self._classes else None)

    def _hold_iterated(self, target: cst.BaseExpression, iterable: cst.BaseExpression) -> None:
        """Marks the loop target that takes the parameters (or param groups) ``iterable`` yields."""
        found = iterated(iterable, self._held.get, self._classes[-1][1] if self._classes else None)
        if found is None:
            return
        what, position = found
        if position is not None and isinstance(target, (cst.Tuple, cst.List)):
            elements = target.elements
            target = elements[position].value if len(elements) > position else target
        if isinstance(target, cst.Name):
            self._held[target.value] = what

    def _forward(self, attr: str) -> cst.FunctionDef | None:
        """The ``forward`` of the class that ``self.<attr>`` instantiates, when it is in this module."""
        if not self._classes or self._index is None:
            return None
        name = self._classes[-1][1].classes.get(attr)
        return self._index.methods.get(name, {}).get("forward") if name else None

    def _is_module_call(self, node: cst.BaseExpression) -> bool:
        """``self.block(x)`` where ``self.block`` holds a module of a class zlint does not know."""
        return isinstance(node, cst.Call) and self._layer_of(node.func) == "module"

    def _tensor_with_dims(self, dims: frozenset[int]) -> Fact:
        return Fact(Kind.TENSOR, static_dims=dims) if dims else TENSOR

    def _helper_fact(self, function: cst.FunctionDef, node: cst.Call) -> Fact | None:
        """What a call of a same-module helper returns: a size or a tensor (one level deep)."""
        summary = self._summaries.get(id(function), _UNSEEN)
        if summary is not _UNSEEN:
            return summary  # type: ignore[return-value]
        if self._index is None or function in self._functions:
            return None
        # defined below the call: read its return values
        values = self._index.returns(function)
        if values and all(syntactic_size(v) for v in values):
            return SIZE
        return None

    def is_tensor_annotation(self, ann: cst.BaseExpression) -> bool:
        if isinstance(ann, cst.SimpleString):
            text = ann.evaluated_value if isinstance(ann.evaluated_value, str) else ""
            return text in {"Tensor", "torch.Tensor"}
        qual = self.imports.qualify(ann)
        if qual in TENSOR_TYPES:
            return True
        if isinstance(ann, cst.BinaryOperation) and isinstance(ann.operator, cst.BitOr):
            sides = (ann.left, ann.right)
            return any(self.is_tensor_annotation(s) for s in sides) and all(
                self.is_tensor_annotation(s) or _is_none(s) for s in sides
            )
        if isinstance(ann, cst.Subscript) and ann.slice:
            base = self.imports.qualify(ann.value) or ""
            args = [e.slice.value for e in ann.slice if isinstance(e.slice, cst.Index)]
            if base.startswith("jaxtyping.") or base.startswith("torchtyping."):
                return bool(args) and self.is_tensor_annotation(args[0])
            if base in {"typing.Optional", "typing.Union"}:
                return any(self.is_tensor_annotation(a) for a in args) and all(
                    self.is_tensor_annotation(a) or _is_none(a) for a in args
                )
        return False

    def _count(self, target: cst.BaseExpression) -> None:
        """One more binding of the names in ``target`` (evidence is kept per binding)."""
        if self._bindings:
            self._bindings[-1].bind(target)

    def _bind(
        self, target: cst.BaseExpression, fact: Fact | None, value: cst.BaseExpression | None, named: bool = True
    ) -> None:
        """Bind ``target`` to ``fact``; ``named``: a size bound to a name for a fixed width
        (``num_channels = x.shape[1]``) is the author saying the dim is static."""
        if isinstance(target, cst.Name):
            if named and fact is not None and fact.kind is Kind.SIZE and names_fixed_size(target.value):
                fact = STATIC
            self._env[target.value] = fact
            self._held[target.value] = PARAMETER if value is not None and self._is_parameter(value) else None
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = target.elements
            literal = value.elements if isinstance(value, (cst.Tuple, cst.List)) else None
            starred = any(isinstance(e, cst.StarredElement) for e in elements)
            for i, element in enumerate(elements):
                inner = element.value
                if fact is not None and fact.kind is Kind.STATIC:
                    self._bind(inner, STATIC, None, named)
                elif fact is not None and fact.kind is Kind.SHAPE:
                    fixed = (
                        fact.static_dims
                        and not starred
                        and (i in fact.static_dims or i - len(elements) in fact.static_dims)
                    )
                    # `b, *rest, d = x.shape`: positions after a star count from the end
                    stars = [j for j, e in enumerate(elements) if isinstance(e, cst.StarredElement)]
                    position = i if not stars or i < stars[0] else i - len(elements)
                    sub = (
                        SHAPE if isinstance(element, cst.StarredElement)
                        else STATIC if fixed
                        else _dim_read(_dim_origin(fact, position))
                    )
                    self._bind(inner, sub, None, named)
                elif fact is not None and fact.kind is Kind.TENSORS:
                    if isinstance(element, cst.StarredElement):
                        self._bind(inner, TENSORS, None)
                    else:
                        self._bind(inner, None if (i in fact.plain and not starred) else _element(fact), None)
                elif literal is not None and len(literal) == len(elements) and not isinstance(
                    element, cst.StarredElement
                ):
                    self._bind(inner, self.fact(literal[i].value), literal[i].value, named)
                else:
                    self._bind(inner, None, None)

    # -- scopes --------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        self.imports.add_import(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.imports.add_import_from(node)

    def visit_Module(self, node: cst.Module) -> None:
        self._index = FunctionIndex(node)
        self._module = node

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._container_attrs.append(container_attributes(node, self.imports.qualify))
        facts = class_facts(node, self.imports.qualify, self._known_classes)
        self._known_classes[node.name.value] = facts
        self._classes.append((node.name.value, facts))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._container_attrs.pop()
        self._classes.pop()

    def _enter(self, node: cst.FunctionDef | cst.Lambda) -> Evidence:
        self._env = self._env.new_child()
        self._held = self._held.new_child()
        self._functions.append(node)
        self._bindings.append(Bindings())
        self._rebound.append(node)
        self._loop_targets.append(set())
        evidence = (
            scan_function(node, self.imports.qualify, self._layer_of, self.imports.imports("numpy"))
            if self.imports.imports_torch
            else Evidence()
        )
        self._evidence.append(evidence)
        return evidence

    def _leave(self) -> None:
        self._env = self._env.parents
        self._held = self._held.parents
        self._functions.pop()
        self._bindings.pop()
        self._rebound.pop()
        self._loop_targets.pop()
        self._evidence.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        evidence = self._enter(node)
        params = node.params
        if self.imports.imports_torch:
            # parameters that no call in the module fills with a tensor: no tensor here
            evidence.from_callers.update((name, 0) for name in self._callers_pass_no_tensor(node))
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            name = param.name.value
            key = (name, 0)
            annotation = param.annotation.annotation if param.annotation is not None else None
            tensor = annotation is not None and self.is_tensor_annotation(annotation)
            if annotation is not None and not tensor and not _is_any(annotation):
                evidence.against.add(key)  # `mode: str`, `sizes: list[int]`
            if evidence.not_tensor(key):
                self._env[name] = None  # an annotation is evidence, not proof
            elif tensor and self.imports.qualify(annotation) == "torch.BoolTensor":
                self._env[name] = replace(MASK, origin=(name,))
            elif tensor or evidence.is_tensor(key):
                fact = self._tensor_with_dims(evidence.static_dims.get(key, frozenset()))
                self._env[name] = replace(fact, origin=(name,))
            else:
                self._env[name] = None
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self._env[star.name.value] = None
        if self._call_sites is not None:
            # a tensor parameter that every call in the module fills with a parameter or buffer
            for name in self._call_sites.static_shaped(node):
                fact = self._env.get(name)
                if fact is not None and fact.kind is Kind.TENSOR:
                    self._env[name] = replace(fact, fixed=True)
                    self._held[name] = PARAMETER

    def _callers_pass_no_tensor(self, node: cst.FunctionDef) -> frozenset[str]:
        if self._call_sites is None and self._index is not None and self._module is not None:
            # once per file, at its first function (torch files only)
            annotation = lambda a: not self.is_tensor_annotation(a) and not _is_any(a)  # noqa: E731
            self._call_sites = CallSites(self._module, self._index, annotation, self.imports.qualify)
        return self._call_sites.not_tensors(node) if self._call_sites is not None else frozenset()

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._leave()
        returned = self._returned.pop(id(original_node), [])
        kinds = {f.kind if f else None for f in returned}
        summary = None
        if len(kinds) == 1 and kinds <= {Kind.SIZE, Kind.TENSOR, Kind.TENSORS, Kind.STATIC}:
            summary = Fact(next(iter(kinds)))
        self._summaries[id(original_node)] = summary

    def leave_Return(self, original_node: cst.Return) -> None:
        if self._functions and isinstance(self._functions[-1], cst.FunctionDef):
            value = original_node.value
            self._returned.setdefault(id(self._functions[-1]), []).append(
                self.fact(value) if value is not None else None
            )

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._enter(node)
        for param in node.params.params:
            self._env[param.name.value] = None

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._leave()

    # -- bindings ------------------------------------------------------------------------
    def leave_Assign(self, original_node: cst.Assign) -> None:
        fact = self.fact(original_node.value)
        if (
            fact is not None and fact.kind is Kind.TENSOR and self._is_module_call(original_node.value)
            and any(isinstance(t.target, (cst.Tuple, cst.List)) for t in original_node.targets)
        ):
            # `cos, sin = self.rotary_emb(x)`: a module whose result is unpacked returns a tuple
            fact = TENSORS
            self._set(original_node.value, fact)
        for target in original_node.targets:
            self._count(target.target)
            self._bind(target.target, fact, original_node.value)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        self._count(original_node.target)
        if original_node.value is not None:
            self._bind(original_node.target, self.fact(original_node.value), original_node.value)
        elif isinstance(original_node.target, cst.Name) and self.is_tensor_annotation(
            original_node.annotation.annotation
        ):
            self._env[original_node.target.value] = TENSOR

    def leave_AugAssign(self, original_node: cst.AugAssign) -> None:
        target = original_node.target
        if isinstance(target, cst.Name):
            current = self._env.get(target.value)
            fact = arith_fact(current, self.fact(original_node.value))
            if current is not None and current.kind is Kind.TENSOR and fact is not None and fact.kind is Kind.TENSOR:
                # in place: `x += y` cannot change x's dims
                fact = replace(fact, origin=current.origin, dim_map=current.dim_map)
            self._env[target.value] = fact

    def leave_NamedExpr(self, original_node: cst.NamedExpr) -> None:
        fact = self.fact(original_node.value)
        self._count(original_node.target)
        self._bind(original_node.target, fact, original_node.value)
        self._set(original_node, fact)

    def visit_For(self, node: cst.For) -> None:
        self._loop_bound.append(node)

    def leave_For(self, original_node: cst.For) -> None:
        self._loop_bound.pop()

    def visit_While(self, node: cst.While) -> None:
        self._loop_bound.append(node)

    def leave_While(self, original_node: cst.While) -> None:
        self._loop_bound.pop()

    def visit_For_body(self, node: cst.For) -> None:
        # `for d in x.shape:` binds a size, `for c in x.split(2):` a tensor; others are unknown
        kind = self._kind(node.iter)
        iterated = self.fact(node.iter)
        fact = (
            sized(iterated.origin) if iterated is not None and iterated.sizes  # for val in boxes_per_image
            else SIZE if kind is Kind.SHAPE
            else STATIC if kind is Kind.STATIC
            else _element(self.fact(node.iter)) if kind is Kind.TENSORS
            else None
        )
        self._count(node.target)
        self._bind(node.target, fact, None, named=False)  # `for dim in x.shape[2:]`: each varies
        self._hold_iterated(node.target, node.iter)
        if self._bindings and isinstance(node.target, (cst.Name, cst.Tuple)):
            self._loop_targets[-1].update(_names(node.target))

    # -- expressions (post-order: children already have facts) --------------------------
    def leave_Name(self, original_node: cst.Name) -> None:
        name = original_node.value
        fact = self._env.get(name)
        if self._evidence:
            key = self._bindings[-1].key(name)
            evidence = self._evidence[-1]
            if fact is None and evidence.is_tensor(key):
                fact = self._tensor_with_dims(evidence.static_dims.get(key, frozenset()))
            elif fact is not None and fact.kind is Kind.TENSOR and evidence.not_tensor(key):
                fact = None  # compared with a string, isinstance(x, str): not a tensor here
            for entry in reversed(self._narrowed):
                if entry is None:
                    continue
                narrowed, binding, tensor = entry
                if narrowed == name and binding == key:  # not rebound inside the branch
                    fact = (fact if fact is not None and fact.kind is Kind.TENSOR else TENSOR) if tensor else None
                    if key in evidence.from_callers:
                        fact = None  # a tensor branch no caller reaches
                    break
        if fact is not None and fact.kind is Kind.TENSOR and self._held.get(name) == PARAMETER:
            fact = replace(fact, fixed=True)
        self._set(original_node, fact)

    # -- isinstance narrowing: `if isinstance(x, torch.Tensor):` / `if isinstance(x, list):` --
    def visit_If_body(self, node: cst.If) -> None:
        self._narrowed.append(self._narrowing(node.test))
        self._open_branch()

    def leave_If_body(self, node: cst.If) -> None:
        self._narrowed.pop()
        self._branches.append(self._close_branch())

    # -- branches: `else`/`elif` do not see what the `if` body binds (only one of them runs);
    # after the statement the latest binding in source order holds, as everywhere else
    def visit_If_orelse(self, node: cst.If) -> None:
        self._open_branch()

    def leave_If_orelse(self, node: cst.If) -> None:
        self._branches.append(self._close_branch())

    def visit_If(self, node: cst.If) -> None:
        self._branches.append(None)  # where this statement's branches start

    def leave_If(self, original_node: cst.If) -> None:
        start = len(self._branches) - 1 - self._branches[::-1].index(None)
        closed, self._branches = self._branches[start + 1:], self._branches[:start]
        for env, held in closed:  # the body first, then the else branch: source order
            self._env.update(env)
            self._held.update(held)

    def _open_branch(self) -> None:
        self._env = self._env.new_child()
        self._held = self._held.new_child()

    def _close_branch(self) -> tuple[dict[str, Fact | None], dict[str, str | None]]:
        env, held = self._env.maps[0], self._held.maps[0]
        self._env, self._held = self._env.parents, self._held.parents
        return env, held

    def _narrowing(self, test: cst.BaseExpression) -> tuple[str, tuple[str, int], bool] | None:
        """``(name, binding, is_tensor)`` for a test ``isinstance(name, types)``."""
        if not (
            self._bindings and isinstance(test, cst.Call) and isinstance(test.func, cst.Name)
            and test.func.value == "isinstance" and len(test.args) == 2 and isinstance(test.args[0].value, cst.Name)
        ):
            return None
        name = test.args[0].value.value
        types = test.args[1].value
        names = [e.value for e in types.elements] if isinstance(types, cst.Tuple) else [types]
        spelled = [self.imports.qualify(n) or (n.value if isinstance(n, cst.Name) else "") for n in names]
        tensor = any(t in TENSOR_TYPES or t == "Tensor" for t in spelled)
        if not tensor and not set(spelled) & NON_TENSOR_TYPES:
            return None  # an unknown class: says nothing about tensors
        return name, self._bindings[-1].key(name), tensor

    def leave_Attribute(self, original_node: cst.Attribute) -> None:
        attr = original_node.attr.value
        receiver = self.fact(original_node.value)
        if attr == "shape":
            source = self._size_source(original_node.value)
            origin, dim_map = ((source[0],), source[1]) if source else ((), None)
            if self._is_parameter(original_node.value) or (receiver is not None and receiver.fixed):
                self._set(original_node, STATIC)
            elif receiver is not None and receiver.kind is Kind.TENSOR and receiver.static_dims:
                self._set(
                    original_node, Fact(Kind.SHAPE, static_dims=receiver.static_dims, origin=origin, dim_map=dim_map)
                )
            else:
                self._set(original_node, Fact(Kind.SHAPE, origin=origin, dim_map=dim_map) if origin else SHAPE)
        elif attr in {"values", "indices"} and receiver is not None and receiver.kind is Kind.TENSORS:
            self._set(original_node, TENSOR)  # x.max(dim=1).values
        elif attr == "ndim":
            self._set(original_node, RANK)
        elif attr in {"T", "mT", "H", "mH", "data", "grad", "real", "imag"} and (
            self._kind(original_node.value) is Kind.TENSOR
        ):
            self._set(original_node, Fact(Kind.TENSOR, fixed=True) if self._is_parameter(original_node) else TENSOR)
        elif (
            self._container_attrs
            and isinstance(original_node.value, cst.Name)
            and original_node.value.value == "self"
            and attr in self._container_attrs[-1]
        ):
            self._set(original_node, CONTAINER)
        elif (
            isinstance(original_node.value, cst.Name) and original_node.value.value == "self" and self._classes
            and attr in self._classes[-1][1].parameters
        ):
            # a buffer or parameter the class registers (not any `self.bias`: a flag may have that
            # name): a tensor whose shape dynamo keeps static, whose values it traces as a graph
            # input (a branch on them breaks the graph)
            self._set(original_node, Fact(Kind.TENSOR, fixed=True))

    # -- comprehensions: their targets take parameters too (`sum(p.numel() for p in m.parameters())`)
    def _enter_comprehension(self, node: cst.BaseComp) -> None:
        self._held = self._held.new_child()
        comp: cst.CompFor | None = node.for_in
        while comp is not None:  # the targets are bound before the element is read
            for name in _names(comp.target):
                self._held[name] = None
            self._hold_iterated(comp.target, comp.iter)
            comp = comp.inner_for_in

    def _leave_comprehension(self) -> None:
        self._held = self._held.parents

    def visit_GeneratorExp(self, node: cst.GeneratorExp) -> None:
        self._enter_comprehension(node)

    def leave_GeneratorExp(self, original_node: cst.GeneratorExp) -> None:
        self._leave_comprehension()
        self._set(original_node, _sizes_of(self.fact(original_node.elt)))

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self._enter_comprehension(node)

    def visit_SetComp(self, node: cst.SetComp) -> None:
        self._enter_comprehension(node)

    def leave_SetComp(self, original_node: cst.SetComp) -> None:
        self._leave_comprehension()

    def visit_DictComp(self, node: cst.DictComp) -> None:
        self._enter_comprehension(node)

    def leave_Dict(self, original_node: cst.Dict) -> None:
        self._set(original_node, CONTAINER)

    def leave_List(self, original_node: cst.List) -> None:
        # [0, pad_w, 0, pad_h]: sizes and written ints make a list of sizes
        elements = [e for e in original_node.elements if not isinstance(e, cst.StarredElement)]
        facts = [self.fact(e.value) for e in elements]
        sizes = [f is not None and f.kind is Kind.SIZE for f in facts]
        if len(elements) == len(original_node.elements) and any(sizes) and all(
            size or int_literal(e.value) is not None for size, e in zip(sizes, elements)
        ):
            self._set(original_node, Fact(Kind.CONTAINER, sizes=True, origin=merged_origin(*facts)))
            return
        self._set(original_node, CONTAINER)

    def leave_Set(self, original_node: cst.Set) -> None:
        self._set(original_node, CONTAINER)

    def leave_DictComp(self, original_node: cst.DictComp) -> None:
        self._leave_comprehension()
        self._set(original_node, CONTAINER)

    def leave_ListComp(self, original_node: cst.ListComp) -> None:
        self._leave_comprehension()
        self._set(original_node, _sizes_of(self.fact(original_node.elt)) or CONTAINER)

    def leave_Call(self, original_node: cst.Call) -> None:
        fact = self._call_fact(original_node)
        if fact is TENSOR and self._is_mask_call(original_node):
            fact = MASK
        elif fact is None and is_container_value(original_node, self.imports.qualify):
            fact = CONTAINER
        fact = self._kept_dims(original_node, fact)
        if fact is not None and fact.kind is Kind.TENSOR:
            fact = self._written_shape(original_node, fact)
        if fact is not None and fact.kind in (Kind.TENSOR, Kind.TENSORS) and not fact.fixed and (
            self._from_static_operands(original_node)
        ):
            fact = replace(fact, fixed=True)  # torch.bmm(P, R) of parameter-shaped tensors
        self._set(original_node, fact)

    def _kept_dims(self, node: cst.Call, fact: Fact | None) -> Fact | None:
        """A tensor method that keeps its receiver's dims (``x.float()``, ``x.clamp(0)``) or only
        moves them (``x.permute(0, 2, 3, 1)``, ``x.transpose(1, 2)``, literal dims) keeps the
        receiver's origin, with where its dims went: a size read off the result is the parameter's."""
        func = node.func
        if fact is None or fact.kind is not Kind.TENSOR or not isinstance(func, cst.Attribute):
            return fact
        receiver = self.fact(func.value)
        if receiver is None or receiver.kind is not Kind.TENSOR or not receiver.origin:
            return fact
        method = func.attr.value
        if method in DIM_KEEPING_METHODS:
            return replace(fact, origin=receiver.origin, dim_map=receiver.dim_map)
        moved = _moved_dims(method, node.args, receiver.dim_map)
        return fact if moved is None else replace(fact, origin=receiver.origin, dim_map=moved)

    def _from_static_operands(self, node: cst.Call) -> bool:
        """A torch function, a ``torch.nn`` layer or a method of a static-shaped tensor, called
        only on static operands (:mod:`zlint.facts.static_operands`)."""
        func = node.func
        qual = self.imports.qualify(func) or ""
        if qual.startswith("torch.") or self._layer_of(func) in ("channels", "features", "embedding", "tensor"):
            receiver_static = True
        elif isinstance(func, cst.Attribute):
            receiver = self.fact(func.value)
            receiver_static = self._is_parameter(func.value) or (
                receiver is not None and receiver.kind is Kind.TENSOR and receiver.fixed
            )
        else:
            return False
        return static_operands(node, self.fact, receiver_static, self._state())

    def _written_shape(self, node: cst.Call, fact: Fact) -> Fact:
        """``fact`` with the dims ``node`` writes down (or keeps from its receiver) made static."""
        receiver = self.fact(node.func.value) if isinstance(node.func, cst.Attribute) else None
        static = self._is_static
        written = written_dims(
            node, self.imports.qualify, receiver.static_dims if receiver else None, static, self._is_sequence
        )
        if written:  # pos.expand(3, b, -1): dim 0 is 3 for every input; .float() keeps it
            fact = replace(fact, static_dims=fact.static_dims | written)
        receiver_fixed = receiver is not None and receiver.fixed
        if self._is_parameter(node) or writes_whole_shape(node, self.imports.qualify, receiver_fixed, static):
            fact = replace(fact, fixed=True)  # p.float(), w.view(N * D, H, H): every dim static
        return fact

    def _is_static(self, node: cst.BaseExpression) -> bool:
        return self._kind(node) is Kind.STATIC

    def _state(self) -> frozenset[str]:
        """The enclosing class's ``self.<attr>`` that may change between calls."""
        return self._classes[-1][1].state if self._classes else frozenset()

    def _is_sequence(self, node: cst.BaseExpression) -> bool:
        """A Python list or tuple (of tensors): its length is a Python int at trace time."""
        return self._kind(node) in (Kind.CONTAINER, Kind.TENSORS)

    def _is_mask_call(self, node: cst.Call) -> bool:
        """A tensor-valued call that yields bools: ``torch.isnan(x)``, ``x.gt(0)``, ``x.bool()``."""
        if requests_bool(node, self.imports.qualify):
            return True
        func = node.func
        qual = self.imports.qualify(func)
        if qual is not None and qual.startswith("torch."):
            return qual.rsplit(".", 1)[-1] in MASK_FUNCTIONS
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in MASK_METHODS:
                return True
            if method in {"any", "all"}:  # x.any(dim) keeps a bool tensor
                return True
            # ops that keep the dtype of a mask: m[...], ~m, m.flatten(), m.view(...), m.to(device)
            receiver = self.fact(func.value)
            if method not in MASK_PRESERVING_METHODS and not moves_only(node):
                return False
            if receiver is not None:
                return receiver.boolean
            # (ids == tok).unsqueeze(-1): only a tensor has the method, so the comparison is a mask
            return method in TENSOR_ONLY_METHODS and elementwise_comparison(func.value)
        return False

    def _call_fact(self, node: cst.Call) -> Fact | None:
        func, args = node.func, node.args
        positional = [a for a in args if a.keyword is None and not a.star]
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            receiver = self.fact(func.value)
            if method in {"size", "numel", "nelement"} and (
                self._is_parameter(func.value) or (receiver is not None and receiver.fixed)
            ):
                return STATIC
            dims = receiver.static_dims if receiver is not None and receiver.kind is Kind.TENSOR else frozenset()
            source = self._size_source(func.value)
            if method == "size" and not args:
                return Fact(
                    Kind.SHAPE, static_dims=dims, origin=(source[0],) if source else (),
                    dim_map=source[1] if source else None,
                )
            if method == "size" and len(args) == 1 and not args[0].star:
                index = number_literal(args[0].value)
                if index is not None and index in dims:
                    return STATIC
                return _dim_read(_source_dim(source, index))
            if method in {"numel", "nelement"} and not args:
                return sized((f"{source[0]}:*",) if source else ())
            if method in {"dim", "ndimension"} and not args:
                return RANK
            if isinstance(func.value, cst.Name) and func.value.value == "self" and self._index is not None:
                layer = self._layer_of(func)
                if layer == "module":
                    if any(self._kind(a.value) is Kind.TENSOR for a in positional):
                        # `self.rotary(x)` with `return cos, sin`: a tuple of tensors, less the
                        # positions every return fills with a plain value; `return out` with
                        # `out = []`: no tensor; `return BaseModelOutput(...)`: holds tensors
                        forward = self._forward(func.attr.value)
                        plain = self._index.tuple_returns(forward) if forward is not None else None
                        if plain is None:
                            container = self._index.container_returns(forward) if forward is not None else None
                            return TENSOR if container is None else TENSORS if container == "object" else None
                        return Fact(Kind.TENSORS, plain=plain) if plain else TENSORS
                elif layer is not None:
                    return self._tensor_with_dims(
                        frozenset({1}) if layer == "channels"
                        else frozenset({-1}) if layer in ("features", "embedding")
                        else frozenset()
                    )
                helper = self._index.lookup(method, self._classes[-1][0] if self._classes else None)
                if helper is not None:
                    return self._helper_fact(helper, node)
        elif isinstance(func, cst.Call) and self._layer_of(func) is not None:
            return TENSOR  # nn.Linear(a, b)(x)
        qual = self.imports.qualify(func)
        if qual is not None:
            if qual == "torch.numel":
                return SIZE
            if qual in {"torch.sym_int", "torch.sym_max", "torch.sym_min", "torch.sym_float"}:
                facts = [self.fact(a.value) for a in args]
                return sized(merged_origin(*facts)) if any(f and f.kind is Kind.SIZE for f in facts) else None
            if qual in SIZE_PRESERVING_BUILTINS or qual.startswith("math."):
                # `math.log2(n)`: a number computed from the size, traced symbolically where
                # torch's SymNode implements the function and made concrete where not (ZL207);
                # either way it follows the size (`range(ceil(log2(n)))`: a graph per count)
                first = self.fact(positional[0].value) if positional else None
                return sized(first.origin) if first is not None and first.kind is Kind.SIZE else None
            if qual.startswith("torch."):
                last = qual.rsplit(".", 1)[-1]
                if last in {"split", "chunk", "unbind", "tensor_split"} and qual.count(".") == 1:
                    return TENSORS
                if last in NON_TENSOR_TORCH or last[:1].isupper() or qual.startswith("torch._"):
                    return None
                # torch.cuda.is_available(), torch.jit.is_tracing(): runtime state, not tensors
                if not returns_tensor(qual):
                    return None
                if self._returns_tuple(last, positional, node):
                    return TENSORS
                if qual.startswith("torch.nn.functional.") and last in CHANNEL_OPS:
                    return Fact(Kind.TENSOR, static_dims=frozenset({1}))
                if qual.startswith("torch.nn.functional.") and (last in FEATURE_OPS or last == "embedding"):
                    return Fact(Kind.TENSOR, static_dims=frozenset({-1}))
                if last in FACTORIES and qual.count(".") == 1 and fixed_size(node):
                    return Fact(Kind.TENSOR, fixed=True)
                return TENSOR
            return None
        if isinstance(func, cst.Name):
            name = func.value
            if name == "len" and len(positional) == 1:
                arg = positional[0].value
                kind = self._kind(arg)
                if self._is_parameter(arg) or (kind is Kind.TENSOR and self.fact(arg).fixed):
                    return STATIC
                if kind is Kind.SHAPE:
                    return RANK
                if kind is Kind.TENSOR:
                    return _dim_read(_source_dim(self._size_source(arg), 0))
                if kind in (Kind.CONTAINER, Kind.TENSORS):
                    return STATIC  # the length of a Python list or tuple: an int at trace time
                if kind is None and isinstance(arg, cst.Name) and self._evidence:
                    # x.shape read in a numpy-importing file: a tensor or an array, sized either way
                    key = self._bindings[-1].key(arg.value)
                    if key in self._evidence[-1].shaped and not self._evidence[-1].not_tensor(key):
                        return SIZE
                return STATIC if kind is Kind.STATIC else None
            if name in {"sum", "min", "max", "any", "all"} and len(positional) == 1:
                # of a list of sizes: a size (any/all: the truth of sizes, which a branch tests)
                listed = self.fact(positional[0].value)
                if listed is not None and listed.sizes:
                    return sized(listed.origin)
            if name in {"int", "round", "abs"} and positional:
                first = self.fact(positional[0].value)
                return sized(first.origin) if first is not None and first.kind is Kind.SIZE else None
            if name in {"min", "max"} and positional:
                facts = [self.fact(a.value) for a in positional]
                kinds = [f.kind if f else None for f in facts]
                if Kind.SIZE in kinds and Kind.TENSOR not in kinds:
                    origin = merged_origin(*facts)
                    if name == "min":
                        bounds = [number_literal(a.value) for a in positional]
                        ints = [b for b in bounds if isinstance(b, int)]
                        if ints:
                            return Fact(Kind.SIZE, bound=min(ints), origin=origin)
                    return sized(origin)
            if name in {"any", "all"} and len(positional) == 1:
                # any(c.size(2) < k for c in chunks): the bool of its element comparisons
                inner = positional[0].value
                if isinstance(inner, (cst.GeneratorExp, cst.ListComp)):
                    fact = self.fact(inner.elt)
                    if fact is not None and fact.kind is Kind.PREDICATE:
                        return Fact(Kind.PREDICATE, sources=fact.sources)
                return None
            if name not in self._env and self._index is not None:
                helper = self._index.lookup(name, None)
                if helper is not None:
                    return self._helper_fact(helper, node)
            return None
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            kind = self._kind(func.value)
            if kind is Kind.TENSOR:
                if method in {"split", "chunk", "unbind", "tensor_split"}:
                    return TENSORS
                # x.is_pinned(), x.is_shared(): metadata, not tensors
                if method not in NON_TENSOR_RESULT_METHODS and not method.startswith("is_"):
                    return TENSORS if self._returns_tuple(method, positional, node) else TENSOR
            elif kind is None and self._evidence and self.imports.imports_torch:
                # a method only tensors have: (coords == -1).all(dim=-1), m.masked_fill(...)
                if method in TENSOR_ONLY_METHODS or (
                    method not in NON_TENSOR_RESULT_METHODS
                    and any(a.keyword is not None and a.keyword.value in {"dim", "keepdim"} for a in args)
                ):
                    return TENSORS if self._returns_tuple(method, positional, node) else TENSOR
        return None

    def _returns_tuple(self, name: str, positional: list[cst.Arg], node: cst.Call) -> bool:
        """``x.topk(k)``, ``x.max(dim=1)``, ``torch.sort(x)``: a tuple of tensors, not a tensor."""
        if name in TUPLE_RESULTS or returns_tuple_by_flag(node):
            return True
        if name == "where" and len(node.args) == 1:  # torch.where(cond): a tuple of index tensors
            return True
        if name not in DIM_TUPLE_RESULTS:
            return False
        if any(a.keyword is not None and a.keyword.value == "dim" for a in node.args):
            return True
        # x.max(1) reduces over a dim; x.max(y) is elementwise (and torch.max(x, 1) likewise)
        others = positional[1:] if not isinstance(node.func, cst.Attribute) or (
            self.imports.qualify(node.func) or ""
        ).startswith("torch.") else positional
        return bool(others) and self._kind(others[0].value) is not Kind.TENSOR

    def leave_Subscript(self, original_node: cst.Subscript) -> None:
        value = self.fact(original_node.value)
        kind = value.kind if value else None
        if kind is Kind.STATIC:
            self._set(original_node, STATIC)
        elif value is not None and value.sizes and len(original_node.slice) == 1 and isinstance(
            original_node.slice[0].slice, cst.Index
        ):
            self._set(original_node, sized(value.origin))  # pad[0] of a list of sizes
        elif kind is Kind.SHAPE and len(original_node.slice) == 1:
            index = original_node.slice[0].slice
            if not isinstance(index, cst.Index):
                self._set(original_node, SHAPE)
            else:
                position = number_literal(index.value)
                fixed = value is not None and position is not None and position in value.static_dims
                self._set(original_node, STATIC if fixed else _dim_read(_dim_origin(value, position)))
        elif kind is Kind.TENSORS and len(original_node.slice) == 1 and isinstance(
            original_node.slice[0].slice, cst.Index
        ):
            # x.split(2)[0], x.max(dim=1)[0]; an element of static-shaped tensors is one too
            self._set(original_node, _element(value))
        elif kind is Kind.TENSOR:
            # indexing a mask keeps a mask (m[:, 0]); indexing with a mask selects
            assert value is not None
            if value.fixed and not self._static_index(original_node):
                value = replace(value, fixed=False)  # p[:n], p[idx]: sized by the index
            if value.static_dims and not value.fixed:
                # h[:, :n] of a conv output: its channels are n now; h[0] moves them to dim 0
                value = replace(value, static_dims=indexed_dims(original_node, value.static_dims, self._keeps_size))
            self._set(original_node, value)

    def _keeps_size(self, index: cst.BaseExpression) -> str:
        """What one subscript element does to its dim: ``keep`` (a slice whose bounds are written
        sizes, ``:``), ``vary`` (a slice by a size), ``drop`` (an int), ``new`` (``None``), or
        ``unknown`` (a tensor or list index)."""
        if isinstance(index, cst.Slice):
            bounds = (index.lower, index.upper, index.step)
            return "keep" if all(b is None or is_written_size(b, self._is_static) for b in bounds) else "vary"
        if isinstance(index, cst.Name) and index.value == "None":
            return "new"
        if int_literal(index) is not None or self._kind(index) in (Kind.SIZE, Kind.STATIC, Kind.RANK):
            return "drop"
        return "unknown"

    def _static_index(self, node: cst.Subscript) -> bool:
        """Every element of the subscript keeps a static shape static: an int (``p[0]``, ``p[i]``,
        ``None``, ``...``) or a slice whose bounds are written sizes (``p[:, :self.k]``)."""
        for element in node.slice:
            index = element.slice
            if isinstance(index, cst.Slice):
                bounds = (index.lower, index.upper, index.step)
                if not all(b is None or is_written_size(b, self._is_static) for b in bounds):
                    return False
            elif not (
                int_literal(index.value) is not None or isinstance(index.value, cst.Ellipsis)
                or (isinstance(index.value, cst.Name) and index.value.value == "None")
                or self._kind(index.value) in (Kind.SIZE, Kind.STATIC, Kind.RANK)
            ):
                return False
        return True

    def leave_BinaryOperation(self, original_node: cst.BinaryOperation) -> None:
        left, right = self.fact(original_node.left), self.fact(original_node.right)
        if isinstance(original_node.operator, cst.MatrixMultiply):
            sides = (original_node.left, original_node.right)
            fixed = all(static_value(side, self.fact, self._state()) for side in sides)
            product = Fact(Kind.TENSOR, fixed=True) if fixed else TENSOR
            self._set(original_node, product if left or right else None)
            return
        if isinstance(original_node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)) and any(
            f is not None and f.boolean for f in (left, right)
        ):
            self._set(original_node, MASK)  # mask & other_mask
            return
        if isinstance(original_node.operator, cst.Add) and (
            (left and left.kind is Kind.SHAPE) or (right and right.kind is Kind.SHAPE)
        ):
            # x.shape[:-1] + (h, d): a tuple concatenation, not arithmetic
            self._set(original_node, SHAPE)
            return
        numbers = isinstance(original_node.left, (cst.Integer, cst.Float)) or isinstance(
            original_node.right, (cst.Integer, cst.Float)
        )
        fact = arith_fact(left, right, scalar=numbers)
        if fact is not None and fact.kind is Kind.TENSOR and all(
            static_value(side, self.fact, self._state()) for side in (original_node.left, original_node.right)
        ):
            fact = replace(fact, fixed=True)  # 2 * R, R - I of static-shaped tensors
        if fact is not None and fact.kind is Kind.SIZE and isinstance(original_node.operator, cst.Modulo):
            # `rest = n % k; if rest != 0:` guards divisibility, not a 0/1 size
            fact = replace(REMAINDER, origin=fact.origin)
        elif fact is not None and fact.kind is Kind.SIZE and _pads_to_multiple(original_node):
            fact = replace(POSITIVE, origin=fact.origin)  # `k - n % k` is in [1, k]
        self._set(original_node, fact)

    def leave_UnaryOperation(self, original_node: cst.UnaryOperation) -> None:
        fact = self.fact(original_node.expression)
        if isinstance(original_node.operator, cst.Not):
            if fact is not None and fact.kind is Kind.PREDICATE:
                self._set(original_node, Fact(Kind.PREDICATE, sources=fact.sources))
        elif fact is not None and fact.kind in (Kind.SIZE, Kind.RANK, Kind.TENSOR, Kind.STATIC):
            self._set(original_node, fact)

    def leave_IfExp(self, original_node: cst.IfExp) -> None:
        body, orelse = self.fact(original_node.body), self.fact(original_node.orelse)
        kinds = {f.kind if f else None for f in (body, orelse)}
        if kinds == {Kind.SIZE} or (
            Kind.SIZE in kinds
            and any(number_literal(n) is not None for n in (original_node.body, original_node.orelse))
        ):
            self._set(original_node, sized(merged_origin(body, orelse)))
        elif len(kinds) == 1 and body is not None:
            self._set(original_node, Fact(body.kind))

    def leave_Tuple(self, original_node: cst.Tuple) -> None:
        elements = original_node.elements
        if elements and all(self._kind(e.value) is Kind.SIZE for e in elements):
            self._set(original_node, SHAPE)

    def leave_BooleanOperation(self, original_node: cst.BooleanOperation) -> None:
        sources: list[cst.Comparison] = []
        for side in (original_node.left, original_node.right):
            fact = self.fact(side)
            if fact is not None and fact.kind is Kind.PREDICATE:
                sources.extend(fact.sources)
        if sources:
            self._set(original_node, Fact(Kind.PREDICATE, sources=tuple(sources)))

_UNSEEN = object()


def _element(tensors: Fact | None) -> Fact:
    """An element of a tuple of tensors: static-shaped when they all are."""
    return Fact(Kind.TENSOR, fixed=True) if tensors is not None and tensors.fixed else TENSOR


def _pads_to_multiple(node: cst.BinaryOperation) -> bool:
    """``k - n % k``: what pads ``n`` up to a multiple of ``k``, between 1 and ``k`` (``k`` is a
    modulus, so at least 1 wherever the code runs at all)."""
    right = node.right
    return (
        isinstance(node.operator, cst.Subtract) and isinstance(right, cst.BinaryOperation)
        and isinstance(right.operator, cst.Modulo) and source_text(node.left) == source_text(right.right)
    )


def _names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _names(e.value)]
    return []


def _is_any(node: cst.BaseExpression) -> bool:
    """``Any``/``typing.Any``/``object``: an annotation that says nothing."""
    name = node.attr.value if isinstance(node, cst.Attribute) else node.value if isinstance(node, cst.Name) else ""
    return name in {"Any", "object"} or isinstance(node, cst.SimpleString)


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _dim_read(origin: tuple[str, ...]) -> Fact:
    """A size read straight off one dim (``x.shape[0]``): exactly that dim's size."""
    return Fact(Kind.SIZE, origin=origin, exact=True) if len(origin) == 1 else sized(origin)


def _dim_origin(shape: Fact | None, position: object) -> tuple[str, ...]:
    """The origin of one dim of ``shape`` (``x.shape[1]``, ``b, n = x.shape``): the parameter's
    dim it is, through the shape's :attr:`Fact.dim_map`."""
    if shape is None or not isinstance(position, int):
        return ()
    dim = mapped_dim(shape.dim_map, position)
    return () if dim is None else tuple(f"{name}:{dim}" for name in shape.origin if ":" not in name)


def _source_dim(source: tuple[str, tuple[int, ...] | None] | None, position: object) -> tuple[str, ...]:
    """The origin of dim ``position`` of the tensor :meth:`SizeFactsProvider._size_source` names."""
    if source is None or not isinstance(position, int):
        return ()
    dim = mapped_dim(source[1], position)
    return () if dim is None else (f"{source[0]}:{dim}",)


def _sizes_of(element: Fact | None) -> Fact | None:
    """A comprehension of ``element``: a list of sizes when the element is a size."""
    if element is not None and element.kind is Kind.SIZE:
        return Fact(Kind.CONTAINER, sizes=True, origin=element.origin)
    return None


def _moved_dims(method: str, args, dim_map: tuple[int, ...] | None) -> tuple[int, ...] | None:
    """The dim map after ``x.permute(...)`` or ``x.transpose(a, b)`` of a tensor with ``dim_map``,
    when the dims are non-negative literals; None otherwise (the dims cannot be followed)."""
    values = [a.value for a in args if a.keyword is None and not a.star]
    if len(values) == 1 and isinstance(values[0], (cst.Tuple, cst.List)):  # x.permute((0, 2, 1))
        values = [e.value for e in values[0].elements]
    dims = [number_literal(v) for v in values]
    if not dims or not all(isinstance(d, int) and d >= 0 for d in dims) or len(values) != len(args):
        return None
    if method == "permute" and sorted(dims) == list(range(len(dims))):
        old = [mapped_dim(dim_map, d) for d in range(len(dims))]
        return None if None in old else tuple(old[d] for d in dims)  # type: ignore[misc]
    if method in {"transpose", "swapaxes", "swapdims"} and len(dims) == 2:
        a, b = dims
        width = max(a, b) + 1
        moved = [mapped_dim(dim_map, d) for d in range(max(width, len(dim_map or ())))]
        moved[a], moved[b] = moved[b], moved[a]
        return tuple(moved)  # type: ignore[arg-type]
    return None
