"""Which expressions are symbolic tensor sizes, which are static, which are tensors.

One LibCST metadata provider computes this once per file, in source order, and every rule reads
it. The facts are deliberately conservative: an expression is a *size* only when it is derived
from a tensor's shape (``x.size(0)``, ``x.shape[-1]``, ``len(t)`` on a known tensor, names bound
from those, arithmetic on them). Ranks (``x.dim()``, ``x.ndim``, ``len(x.shape)``) are static and
plain Python ints are unknown, so rules stay quiet on them.
"""

from __future__ import annotations

import enum
from collections import ChainMap
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import BatchableMetadataProvider
from zlint.facts.literals import number_literal

from zlint.batched import visit
from zlint.facts.imports import ImportMap
from zlint.facts.values import (
    DIM_TUPLE_RESULTS,
    MASK_FUNCTIONS,
    MASK_METHODS,
    container_attributes,
    is_container_value,
    requests_bool,
    returns_tensor,
    returns_tuple_by_flag,
    TUPLE_RESULTS,
)


class Kind(enum.Enum):
    SIZE = "size"  # one symbolic size: x.size(0), n = x.shape[1], n * 2
    SHAPE = "shape"  # a tuple of sizes: x.shape, x.size(), x.shape[:2]
    RANK = "rank"  # static: x.dim(), x.ndim, len(x.shape)
    TENSOR = "tensor"
    PREDICATE = "predicate"  # a bool computed by comparing sizes
    CONTAINER = "container"  # a Python dict/list/set: indexing it with a size needs a concrete int


class Versus(enum.Enum):
    """What a size is compared with."""

    ZERO_ONE = "0 or 1"
    CONSTANT = "a constant"
    SIZE = "another size"
    DIVISIBILITY = "a divisor"  # n % k == 0


@dataclass(frozen=True)
class Fact:
    kind: Kind
    #: PREDICATE: the size comparisons the bool was computed from (a Comparison's own is itself)
    sources: tuple[cst.Comparison, ...] = ()
    #: PREDICATE on a Comparison node: what its sizes are compared with
    versus: frozenset[Versus] = frozenset()
    #: the literal constants a size is compared with (for messages)
    constants: tuple[str, ...] = ()
    #: TENSOR: known to hold bools (``x > 0``, ``m.bool()``): indexing with it is data-dependent
    boolean: bool = False


#: Fast path (zlint/prepass.py): no expression is a SIZE or SHAPE (nor a size bool) unless one
#: of these words occurs in its function or in the module-level code. Keep in step with the
#: sources of sizes below (.size()/.shape/.numel()/.nelement()/len()/torch.numel).
SIZE_WORDS = frozenset({"size", "shape", "numel", "nelement", "len"})
#: Likewise for TENSOR facts (and masks): they all come from names qualified through a torch
#: import, or from a "Tensor"/"torch.Tensor" string annotation.
TENSOR_WORDS = frozenset({"torch", "Tensor"})

SIZE = Fact(Kind.SIZE)
SHAPE = Fact(Kind.SHAPE)
RANK = Fact(Kind.RANK)
TENSOR = Fact(Kind.TENSOR)
MASK = Fact(Kind.TENSOR, boolean=True)
CONTAINER = Fact(Kind.CONTAINER)

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
# Tensor methods whose result is not a tensor.
NON_TENSOR_METHODS = frozenset(
    {
        "size", "dim", "ndimension", "numel", "nelement", "item", "tolist", "stride",
        "storage_offset", "is_contiguous", "is_floating_point", "is_complex", "data_ptr",
        "element_size", "get_device", "numpy", "unbind", "split", "chunk", "tensor_split",
        "type", "is_set_to", "equal", "__len__", "untyped_storage", "storage", "keys",
        "values", "items", "get", "pop", "append", "extend",
    }
)
# torch.* callables that do not return a tensor.
NON_TENSOR_TORCH = frozenset(
    {
        "is_tensor", "is_floating_point", "is_complex", "numel", "device", "dtype", "compile",
        "no_grad", "enable_grad", "inference_mode", "set_grad_enabled", "is_grad_enabled",
        "manual_seed", "get_default_dtype", "set_default_dtype", "cond", "jit", "cuda",
        "broadcast_shapes", "Size", "unbind", "split", "chunk", "tensor_split", "meshgrid",
        "is_autocast_enabled", "autocast", "finfo", "iinfo", "promote_types", "result_type",
        "sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "sym_ite",
    }
)
# Tensor methods that keep a mask a mask.
MASK_PRESERVING_METHODS = frozenset(
    {
        "flatten", "view", "reshape", "unsqueeze", "squeeze", "expand", "expand_as", "transpose",
        "permute", "contiguous", "clone", "detach", "cuda", "cpu", "repeat", "index_select",
        "logical_not", "logical_and", "logical_or", "narrow", "select", "masked_fill", "flip",
    }
)
SIZE_PRESERVING_BUILTINS = frozenset({"int", "round", "abs", "math.ceil", "math.floor", "math.sqrt"})
TENSOR_EVIDENCE_ATTRS = frozenset({"shape", "ndim", "dtype", "device"})
TENSOR_EVIDENCE_METHODS = frozenset({"size", "numel", "nelement", "dim", "view", "reshape"})
COMPARISON_OPS = (
    cst.Equal, cst.NotEqual, cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual,
)


class _TensorEvidence(cst.CSTVisitor):
    """Names whose shape, dtype or device is read somewhere in a function: they hold tensors."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self._containers: set[str] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if isinstance(node.value, cst.Name):
            if node.attr.value in TENSOR_EVIDENCE_ATTRS or node.attr.value in TENSOR_EVIDENCE_METHODS:
                self.names.add(node.value.value)

    def visit_Call(self, node: cst.Call) -> None:
        # `isinstance(input, list)`: the name may hold a Python container, so len() of it
        # is not known to be a size
        if isinstance(node.func, cst.Name) and node.func.value == "isinstance" and len(node.args) == 2:
            target, types = node.args[0].value, node.args[1].value
            names = [e.value for e in types.elements] if isinstance(types, cst.Tuple) else [types]
            if isinstance(target, cst.Name) and any(
                isinstance(n, cst.Name) and n.value in {"list", "tuple", "dict", "set", "List", "Tuple", "Sequence"}
                for n in names
            ):
                self._containers.add(target.value)

    @property
    def tensor_names(self) -> set[str]:
        return self.names - self._containers


class SizeFactsProvider(BatchableMetadataProvider[Fact]):
    """Sets a :class:`Fact` on every expression that is a size, shape, rank, tensor or size bool.

    Names are resolved flow-insensitively in source order within a function: the most recent
    binding above a use wins. Nested functions see their enclosing function's bindings.
    """

    @classmethod
    def gen_cache(cls, root_path: object, paths: list[str], timeout: object = None, **_: object) -> dict:
        # Declaring a cache makes MetadataWrapper hand us the engine's per-file ImportMap, so
        # rules resolve torch aliases from the same map the facts were computed with.
        return {path: ImportMap() for path in paths}

    def __init__(self, cache: ImportMap | None = None) -> None:
        imports = cache if isinstance(cache, ImportMap) else ImportMap()
        super().__init__(imports)
        self.imports = imports
        self._env: ChainMap[str, Fact | None] = ChainMap({})
        self._functions: list[cst.FunctionDef | cst.Lambda] = []
        self._evidence: dict[int, set[str]] = {}
        self._facts: dict[int, Fact] = {}
        #: per enclosing class: its self.<attr> names that hold Python containers
        self._container_attrs: list[frozenset[str]] = []

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

    def _has_tensor_evidence(self, name: str) -> bool:
        if not self._functions:
            return False
        func = self._functions[-1]
        names = self._evidence.get(id(func))
        if names is None:
            scan = _TensorEvidence()
            visit(func.body, scan)  # zlint.batched.visit: no node rebuilding
            names = self._evidence[id(func)] = scan.tensor_names
        return name in names

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

    def _bind(self, target: cst.BaseExpression, fact: Fact | None, value: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Name):
            self._env[target.value] = fact
        elif isinstance(target, (cst.Tuple, cst.List)):
            elements = target.elements
            literal = value.elements if isinstance(value, (cst.Tuple, cst.List)) else None
            for i, element in enumerate(elements):
                inner = element.value
                if fact is not None and fact.kind is Kind.SHAPE:
                    sub = SHAPE if isinstance(element, cst.StarredElement) else SIZE
                    self._bind(inner, sub, None)
                elif literal is not None and len(literal) == len(elements) and not isinstance(
                    element, cst.StarredElement
                ):
                    self._bind(inner, self.fact(literal[i].value), literal[i].value)
                else:
                    self._bind(inner, None, None)

    # -- scopes --------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        self.imports.add_import(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.imports.add_import_from(node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._container_attrs.append(container_attributes(node, self.imports.qualify))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._container_attrs.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._env = self._env.new_child()
        self._functions.append(node)
        params = node.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            tensor = param.annotation is not None and self.is_tensor_annotation(param.annotation.annotation)
            if tensor and self.imports.qualify(param.annotation.annotation) == "torch.BoolTensor":
                self._env[param.name.value] = MASK
            else:
                self._env[param.name.value] = TENSOR if tensor else None
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self._env[star.name.value] = None

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._env = self._env.parents
        self._functions.pop()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._env = self._env.new_child()
        self._functions.append(node)
        for param in node.params.params:
            self._env[param.name.value] = None

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._env = self._env.parents
        self._functions.pop()

    # -- bindings ------------------------------------------------------------------------
    def leave_Assign(self, original_node: cst.Assign) -> None:
        fact = self.fact(original_node.value)
        for target in original_node.targets:
            self._bind(target.target, fact, original_node.value)

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
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
            self._env[target.value] = _arith(current, self.fact(original_node.value))

    def leave_NamedExpr(self, original_node: cst.NamedExpr) -> None:
        fact = self.fact(original_node.value)
        self._bind(original_node.target, fact, original_node.value)
        self._set(original_node, fact)

    def visit_For_body(self, node: cst.For) -> None:
        # `for d in x.shape:` binds a size; any other loop target is unknown
        fact = SIZE if self._kind(node.iter) is Kind.SHAPE else None
        self._bind(node.target, fact, None)

    # -- expressions (post-order: children already have facts) --------------------------
    def leave_Name(self, original_node: cst.Name) -> None:
        self._set(original_node, self._env.get(original_node.value))

    def leave_Attribute(self, original_node: cst.Attribute) -> None:
        attr = original_node.attr.value
        if attr == "shape":
            self._set(original_node, SHAPE)
        elif attr == "ndim":
            self._set(original_node, RANK)
        elif attr in {"T", "mT", "H", "mH", "data", "grad", "real", "imag"} and (
            self._kind(original_node.value) is Kind.TENSOR
        ):
            self._set(original_node, TENSOR)
        elif (
            self._container_attrs
            and isinstance(original_node.value, cst.Name)
            and original_node.value.value == "self"
            and attr in self._container_attrs[-1]
        ):
            self._set(original_node, CONTAINER)

    def leave_Dict(self, original_node: cst.Dict) -> None:
        self._set(original_node, CONTAINER)

    def leave_List(self, original_node: cst.List) -> None:
        self._set(original_node, CONTAINER)

    def leave_Set(self, original_node: cst.Set) -> None:
        self._set(original_node, CONTAINER)

    def leave_DictComp(self, original_node: cst.DictComp) -> None:
        self._set(original_node, CONTAINER)

    def leave_ListComp(self, original_node: cst.ListComp) -> None:
        self._set(original_node, CONTAINER)

    def leave_Call(self, original_node: cst.Call) -> None:
        fact = self._call_fact(original_node)
        if fact is TENSOR and self._is_mask_call(original_node):
            fact = MASK
        elif fact is None and is_container_value(original_node, self.imports.qualify):
            fact = CONTAINER
        self._set(original_node, fact)

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
            # ops that keep the dtype of a mask: m[...], ~m, m.flatten(), m.view(...)
            receiver = self.fact(func.value)
            return receiver is not None and receiver.boolean and method in MASK_PRESERVING_METHODS
        return False

    def _call_fact(self, node: cst.Call) -> Fact | None:
        func, args = node.func, node.args
        positional = [a for a in args if a.keyword is None and not a.star]
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method == "size" and not args:
                return SHAPE
            if method == "size" and len(args) == 1 and not args[0].star:
                return SIZE
            if method in {"numel", "nelement"} and not args:
                return SIZE
            if method in {"dim", "ndimension"} and not args:
                return RANK
        qual = self.imports.qualify(func)
        if qual is not None:
            if qual == "torch.numel":
                return SIZE
            if qual in {"torch.sym_int", "torch.sym_max", "torch.sym_min", "torch.sym_float"}:
                return SIZE if any(self._kind(a.value) is Kind.SIZE for a in args) else None
            if qual in SIZE_PRESERVING_BUILTINS:
                return SIZE if positional and self._kind(positional[0].value) is Kind.SIZE else None
            if qual.startswith("torch."):
                last = qual.rsplit(".", 1)[-1]
                if last in NON_TENSOR_TORCH or last[:1].isupper() or qual.startswith("torch._"):
                    return None
                # torch.cuda.is_available(), torch.jit.is_tracing(): runtime state, not tensors
                if not returns_tensor(qual) or self._returns_tuple(last, positional, node):
                    return None
                return TENSOR
            return None
        if isinstance(func, cst.Name):
            name = func.value
            if name == "len" and len(positional) == 1:
                arg = positional[0].value
                kind = self._kind(arg)
                if kind is Kind.SHAPE:
                    return RANK
                if kind is Kind.TENSOR:
                    return SIZE
                if kind is None and isinstance(arg, cst.Name) and self._has_tensor_evidence(arg.value):
                    return SIZE
                return None
            if name in {"int", "round", "abs"} and positional:
                return SIZE if self._kind(positional[0].value) is Kind.SIZE else None
            if name in {"min", "max"} and positional:
                kinds = [self._kind(a.value) for a in positional]
                if Kind.SIZE in kinds and Kind.TENSOR not in kinds:
                    return SIZE
            return None
        if isinstance(func, cst.Attribute) and self._kind(func.value) is Kind.TENSOR:
            method = func.attr.value
            # x.is_pinned(), x.is_shared(): metadata, not tensors
            if method not in NON_TENSOR_METHODS and not method.startswith("is_"):
                return None if self._returns_tuple(method, positional, node) else TENSOR
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
        kind = self._kind(original_node.value)
        if kind is Kind.SHAPE and len(original_node.slice) == 1:
            index = original_node.slice[0].slice
            self._set(original_node, SIZE if isinstance(index, cst.Index) else SHAPE)
        elif kind is Kind.TENSOR:
            # indexing a mask keeps a mask (m[:, 0]); indexing with a mask selects
            self._set(original_node, self.fact(original_node.value))

    def leave_BinaryOperation(self, original_node: cst.BinaryOperation) -> None:
        left, right = self.fact(original_node.left), self.fact(original_node.right)
        if isinstance(original_node.operator, cst.MatrixMultiply):
            self._set(original_node, TENSOR if left or right else None)
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
        self._set(original_node, _arith(left, right))

    def leave_UnaryOperation(self, original_node: cst.UnaryOperation) -> None:
        fact = self.fact(original_node.expression)
        if isinstance(original_node.operator, cst.Not):
            if fact is not None and fact.kind is Kind.PREDICATE:
                self._set(original_node, Fact(Kind.PREDICATE, sources=fact.sources))
        elif fact is not None and fact.kind in (Kind.SIZE, Kind.RANK, Kind.TENSOR):
            self._set(original_node, fact)

    def leave_IfExp(self, original_node: cst.IfExp) -> None:
        body, orelse = self.fact(original_node.body), self.fact(original_node.orelse)
        kinds = {f.kind if f else None for f in (body, orelse)}
        if kinds == {Kind.SIZE} or (
            Kind.SIZE in kinds
            and any(number_literal(n) is not None for n in (original_node.body, original_node.orelse))
        ):
            self._set(original_node, SIZE)
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

    def leave_Comparison(self, original_node: cst.Comparison) -> None:
        versus: set[Versus] = set()
        constants: list[str] = []
        left = original_node.left
        for target in original_node.comparisons:
            right = target.comparator
            found = self._compare(left, target.operator, right)
            if found is not None:
                versus.add(found[0])
                if found[1] is not None:
                    constants.append(found[1])
            left = right
        if versus:
            self._set(
                original_node,
                Fact(
                    Kind.PREDICATE,
                    sources=(original_node,),
                    versus=frozenset(versus),
                    constants=tuple(constants),
                ),
            )
        elif self._compares_tensor(original_node):
            self._set(original_node, MASK)  # x > 0 on a tensor is an elementwise bool tensor

    def _compares_tensor(self, node: cst.Comparison) -> bool:
        operands = [node.left, *(t.comparator for t in node.comparisons)]
        ops_ok = all(isinstance(t.operator, COMPARISON_OPS) for t in node.comparisons)
        return ops_ok and any(self._kind(o) is Kind.TENSOR for o in operands)

    def _compare(
        self, left: cst.BaseExpression, op: cst.BaseCompOp, right: cst.BaseExpression
    ) -> tuple[Versus, str | None] | None:
        """What a size in ``left op right`` is compared with, or None when no size is involved."""
        lk, rk = self._kind(left), self._kind(right)
        if isinstance(op, (cst.In, cst.NotIn)):
            if lk is Kind.SIZE and isinstance(right, (cst.Tuple, cst.List, cst.Set)):
                values = [number_literal(e.value) for e in right.elements]
                if values and all(v is not None for v in values):
                    text = ", ".join(str(v) for v in values)
                    return (Versus.ZERO_ONE if {0, 1} & set(values) else Versus.CONSTANT), text
            return None
        if not isinstance(op, COMPARISON_OPS):
            return None
        sized = {Kind.SIZE, Kind.SHAPE}
        if lk in sized and rk in sized:
            return Versus.SIZE, None
        for mine, own_node, other_node in ((lk, left, right), (rk, right, left)):
            if mine is Kind.SIZE:
                value = number_literal(other_node)
                if value is not None:
                    if value == 0 and _is_modulo(own_node):
                        # `h % ph == 0` guards divisibility (Eq(Mod(s0, k), 0)), not a 0/1 size
                        return Versus.DIVISIBILITY, None
                    return (Versus.ZERO_ONE if value in (0, 1) else Versus.CONSTANT), str(value)
            if mine is Kind.SHAPE and isinstance(other_node, (cst.Tuple, cst.List)):
                return Versus.CONSTANT, None
        return None


def _is_modulo(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo)


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _arith(left: Fact | None, right: Fact | None) -> Fact | None:
    """The fact of ``left <op> right`` for arithmetic operators."""
    kinds = {f.kind if f else None for f in (left, right)}
    if Kind.TENSOR in kinds:
        return TENSOR
    if Kind.SIZE in kinds:
        return SIZE
    if Kind.RANK in kinds and kinds <= {Kind.RANK, None}:
        return RANK
    return None
