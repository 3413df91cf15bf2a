"""What a function's own code says about its names: tensor or not, and which dims are fixed.

One walk per function, before the facts of its body are computed, so that a use further down
(``boxes.any(dim=1)``) tells what a name held further up (``if boxes.any():``). Evidence is kept
per *binding* of a name (the n-th assignment to it in source order), so a list that is later
rebound to ``torch.stack(...)`` is not mistaken for a tensor before it.

Evidence for a tensor: uses only a tensor allows (``.size()``, ``.numel()``, ``.masked_fill()``,
``.any(dim=...)``, ``.tolist()``, ``.shape``, being the input of a ``torch.nn.functional`` op,
``x[x > 0]``). Evidence against, which wins: a comparison with a string, ``isinstance`` with
non-tensor types, list/dict/str methods (``.append``), a literal tuple/list/dict/str bound to it,
a non-tensor annotation. Static dims: a name fed to a conv or norm over channels has a fixed
dim 1, one fed to ``nn.Linear``/``LayerNorm`` a fixed last dim (the layer's weights fix them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from zlint.cst.batched import visit
from zlint.facts.vocabulary import (
    DIM_KEYWORDS,
    NOT_TENSOR_FIRST,
    NUMPY_SHARED_METHODS,
    SHAPED_ATTRIBUTES,
    TENSOR_ATTRIBUTES,
    TENSOR_METHODS,
)

#: Methods of str/list/dict/set: the receiver is not a tensor.
NON_TENSOR_METHODS = frozenset(
    {
        "append", "extend", "insert", "items", "keys", "values", "startswith", "endswith", "lower",
        "upper", "strip", "lstrip", "rstrip", "format", "encode", "decode", "get", "update",
        "setdefault", "popitem", "join", "replace", "splitlines", "isdigit", "remove", "discard",
        "astype", "copy", "tobytes", "ravel",
    }
)
#: Non-tensor types in ``isinstance`` checks.
NON_TENSOR_TYPES = frozenset(
    {"str", "int", "float", "bool", "list", "tuple", "dict", "set", "List", "Tuple", "Dict", "Sequence", "Mapping",
     "bytes", "complex", "Number", "numbers.Number", "np.ndarray", "numpy.ndarray", "ndarray"}
)
#: ops (``torch.nn.functional.<name>`` or a module class) whose input dim 1 is the channel dim
CHANNEL_OPS = frozenset(
    {
        "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
        "batch_norm", "group_norm", "instance_norm",
    }
)
#: ops whose input's last dim is the feature dim
FEATURE_OPS = frozenset({"linear", "layer_norm", "rms_norm"})


@dataclass
class Evidence:
    """Evidence for the names of one function, keyed by ``(name, binding number)``."""

    tensor: set[tuple[str, int]] = field(default_factory=set)
    against: set[tuple[str, int]] = field(default_factory=set)
    #: shape, ndim or dtype read (a tensor or an array): len() of it is a size
    shaped: set[tuple[str, int]] = field(default_factory=set)
    static_dims: dict[tuple[str, int], frozenset[int]] = field(default_factory=dict)
    #: parameters that no call in the module fills with a tensor (:mod:`zlint.facts.call_sites`):
    #: evidence against that also closes an ``isinstance(x, torch.Tensor)`` branch
    from_callers: set[tuple[str, int]] = field(default_factory=set)

    def is_tensor(self, key: tuple[str, int]) -> bool:
        return key in self.tensor and not self.not_tensor(key)

    def not_tensor(self, key: tuple[str, int]) -> bool:
        return key in self.against or key in self.from_callers


class Bindings:
    """Counts the bindings of each name within one function, in source order.

    The evidence walk and the facts walk both count through this, at the same events
    (assignment targets after their value, ``for`` targets before the body, walrus targets).
    """

    def __init__(self) -> None:
        self.count: dict[str, int] = {}

    def bind(self, target: cst.BaseExpression) -> list[str]:
        """Counts one binding of each name in ``target``; returns the names."""
        names: list[str] = []
        if isinstance(target, cst.Name):
            self.count[target.value] = self.count.get(target.value, 0) + 1
            names.append(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                names.extend(self.bind(element.value))
        elif isinstance(target, cst.StarredElement):
            names.extend(self.bind(target.value))
        return names

    def key(self, name: str) -> tuple[str, int]:
        return name, self.count.get(name, 0)


class _Scan(cst.CSTVisitor):
    def __init__(
        self,
        qualify: Callable[[cst.BaseExpression], str | None],
        layer_of: Callable[[cst.BaseExpression], str | None],
        numpy: bool,
    ) -> None:
        self.qualify = qualify
        self.numpy = numpy
        self.tensor_methods = TENSOR_METHODS if numpy else TENSOR_METHODS | NUMPY_SHARED_METHODS
        self.layer_of = layer_of  # "channels"/"features"/... for a call's func, else None
        self.bindings = Bindings()
        self.evidence = Evidence()
        #: isinstance checks: with non-tensor types only, and with a tensor type
        self.checked_other: set[tuple[str, int]] = set()
        self.checked_tensor: set[tuple[str, int]] = set()
        self.arrays: set[tuple[str, int]] = set()  # bound from numpy

    # nested scopes have their own walk
    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def _key(self, node: cst.BaseExpression) -> tuple[str, int] | None:
        # an imported name (`torch` in `torch.cat(xs, dim=1)`) is a module, and `self.device`
        # is a module's or pipeline's: neither is a tensor
        if isinstance(node, cst.Name) and node.value not in {"self", "cls"} and self.qualify(node) is None:
            return self.bindings.key(node.value)
        return None

    def _for(self, node: cst.BaseExpression) -> None:
        key = self._key(node)
        if key is not None:
            self.evidence.tensor.add(key)

    def _against(self, node: cst.BaseExpression) -> None:
        key = self._key(node)
        if key is not None:
            self.evidence.against.add(key)

    # -- bindings (same events as SizeFactsProvider) --------------------------------------
    def leave_Assign(self, original_node: cst.Assign) -> None:
        value = original_node.value
        literal = _is_literal(value) or _builds_python_value(value) or self._is_array(value)
        if isinstance(value, cst.IfExp):  # `slice(None) if a is None else mask`: maybe no tensor
            literal = any(_is_literal(v) or _builds_python_value(v) for v in (value.body, value.orelse))
        array = self._is_array(value)
        for target in original_node.targets:
            names = self.bindings.bind(target.target)
            if isinstance(target.target, cst.Name):
                if literal:
                    self.evidence.against.add(self.bindings.key(names[0]))
                if array:
                    self.arrays.add(self.bindings.key(names[0]))
            elif isinstance(target.target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)):
                # a, b = (torch.stack(a), []): each name gets its own element
                pairs = zip(target.target.elements, value.elements)
                if len(target.target.elements) == len(value.elements):
                    for element, item in pairs:
                        if isinstance(element.value, cst.Name) and (
                            _is_literal(item.value) or _builds_python_value(item.value)
                        ):
                            self.evidence.against.add(self.bindings.key(element.value.value))

    def _is_array(self, value: cst.BaseExpression) -> bool:
        """A numpy call, or arithmetic on a name last bound to one (``idx = idx + offsets``)."""
        if isinstance(value, cst.Call):
            return (self.qualify(value.func) or "").startswith("numpy.")
        if isinstance(value, cst.BinaryOperation):
            return any(
                isinstance(side, cst.Name) and self.bindings.key(side.value) in self.arrays
                for side in (value.left, value.right)
            ) or any(self._is_array(side) for side in (value.left, value.right))
        return False

    def leave_AnnAssign(self, original_node: cst.AnnAssign) -> None:
        self.bindings.bind(original_node.target)

    def leave_NamedExpr(self, original_node: cst.NamedExpr) -> None:
        self.bindings.bind(original_node.target)

    def visit_For_body(self, node: cst.For) -> None:
        self.bindings.bind(node.target)

    # -- uses -----------------------------------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> None:
        attr = node.attr.value
        if attr in TENSOR_ATTRIBUTES or (attr in SHAPED_ATTRIBUTES and not self.numpy):
            self._for(node.value)
        elif attr in SHAPED_ATTRIBUTES:
            key = self._key(node.value)
            if key is not None:
                self.evidence.shaped.add(key)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            receiver = func.value
            if method in NON_TENSOR_METHODS:
                self._against(receiver)
            elif method in self.tensor_methods or any(
                a.keyword is not None and a.keyword.value in DIM_KEYWORDS for a in node.args
            ):
                self._for(receiver)
        if isinstance(func, cst.Name) and func.value == "isinstance" and len(node.args) == 2:
            types = node.args[1].value
            names = [e.value for e in types.elements] if isinstance(types, cst.Tuple) else [types]
            spelled = {self.qualify(n) or (n.value if isinstance(n, cst.Name) else "") for n in names}
            key = self._key(node.args[0].value)
            if key is not None and any("Tensor" in s or "Parameter" in s for s in spelled):
                self.checked_tensor.add(key)  # the function handles the tensor case too
            elif key is not None and spelled & NON_TENSOR_TYPES:
                self.checked_other.add(key)
            return
        args = [a.value for a in node.args if a.keyword is None and not a.star]
        if not args:
            return
        first = args[0]
        qual = self.qualify(func) or ""
        last = qual.rsplit(".", 1)[-1]
        if qual.startswith("torch.nn.functional.") or (
            qual.startswith("torch.") and qual.count(".") == 1 and last not in NOT_TENSOR_FIRST
            and not last[:1].isupper() and not last.startswith(("is_", "_", "set_", "get_"))
        ):
            self._for(first)
        layer = last if qual.startswith("torch.nn.functional.") else self.layer_of(func)
        dims = _static_dims_of(layer)
        key = self._key(first)
        if dims and key is not None:
            self.evidence.tensor.add(key)
            self.evidence.static_dims[key] = self.evidence.static_dims.get(key, frozenset()) | dims

    def visit_Subscript(self, node: cst.Subscript) -> None:
        # x[x > 0]: indexing a name with a comparison of itself selects elements of a tensor (or
        # of a numpy array: no evidence in a file that imports numpy); so does x[:, 0]
        if self.numpy or not isinstance(node.value, cst.Name):
            return
        if len(node.slice) > 1 and any(isinstance(e.slice, cst.Slice) for e in node.slice):
            # rois[:, 0]: a slice among several axes; a list, tuple or dict rejects that index
            self._for(node.value)
            return
        if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            index = node.slice[0].slice.value
            if isinstance(index, cst.Comparison) and _same_name(index.left, node.value):
                self._for(node.value)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        operands = [node.left, *(t.comparator for t in node.comparisons)]
        if any(isinstance(o, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)) for o in operands):
            for operand in operands:
                self._against(operand)
        for target in node.comparisons:
            if isinstance(target.operator, (cst.In, cst.NotIn)) and _holds_strings(target.comparator):
                self._against(node.left)


def _static_dims_of(layer: str | None) -> frozenset[int]:
    if layer is None:
        return frozenset()
    if layer in CHANNEL_OPS or layer == "channels":
        return frozenset({1})
    if layer in FEATURE_OPS or layer == "features":
        return frozenset({-1})
    return frozenset()


def _same_name(a: cst.BaseExpression, b: cst.BaseExpression) -> bool:
    return isinstance(a, cst.Name) and isinstance(b, cst.Name) and a.value == b.value


def _holds_strings(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.Tuple, cst.List, cst.Set)) and any(
        isinstance(e.value, (cst.SimpleString, cst.ConcatenatedString)) for e in node.elements
    )


def _builds_python_value(node: cst.BaseExpression) -> bool:
    """``slice(None)``, ``list(x)``, ``x.astype(...)``, ``t.numpy()``: a Python or numpy value."""
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    if isinstance(func, cst.Attribute):
        return func.attr.value in {"astype", "numpy", "tobytes", "ravel", "tolist"}
    return isinstance(func, cst.Name) and func.value in {
        "slice", "list", "tuple", "dict", "set", "str", "range", "int", "float",
    }


def is_plain_value(node: cst.BaseExpression) -> bool:
    """A value that is certainly no tensor: a literal, a comprehension, ``list(...)``, ``t.tolist()``."""
    return _is_literal(node) or _builds_python_value(node)


def _is_literal(node: cst.BaseExpression) -> bool:
    """A value that is certainly no tensor: a literal container, string, number or comprehension."""
    return isinstance(
        node,
        (
            cst.Tuple, cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp,
            cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Integer, cst.Float,
        ),
    )


class _BoundNames(cst.CSTVisitor):
    """The names a function's own body binds (nested scopes excepted): :func:`bound_names`."""

    def __init__(self) -> None:
        self.bindings = Bindings()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.bindings.bind(node.name)  # a nested def binds its name here; its body is its own
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.bindings.bind(node.name)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_CompFor(self, node: cst.CompFor) -> bool | None:
        return None  # its targets are the comprehension's own; a walrus inside binds here

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.bindings.bind(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self.bindings.bind(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.bindings.bind(node.target)

    def visit_For(self, node: cst.For) -> None:
        self.bindings.bind(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.bindings.bind(node.asname.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.bindings.bind(node.target)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self.bindings.bind(node.name.name)

    def visit_Del(self, node: cst.Del) -> None:
        self.bindings.bind(node.target)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        bound = node.asname.name if node.asname is not None else node.name
        if isinstance(bound, cst.Name):
            self.bindings.bind(bound)


def bound_names(function: cst.FunctionDef | cst.Lambda) -> frozenset[str]:
    """The names ``function``'s body binds anywhere (assignments, loop and ``with`` targets, walrus,
    ``except ... as``, ``del``, imports, nested defs): a parameter among them does not hold the
    caller's value everywhere in the body."""
    if isinstance(function, cst.Lambda):
        return frozenset()
    return bound_in(function.body)


def bound_in(node: cst.CSTNode) -> frozenset[str]:
    """The names the statements of ``node`` bind, nested scopes excepted (a loop: its target too)."""
    found = _BoundNames()
    visit(node, found)
    return frozenset(found.bindings.count)


def scan_function(
    function: cst.FunctionDef | cst.Lambda,
    qualify: Callable[[cst.BaseExpression], str | None],
    layer_of: Callable[[cst.BaseExpression], str | None],
    numpy: bool = False,
) -> Evidence:
    """The evidence the body of ``function`` gives about its names (nested scopes excepted);
    ``numpy``: the file imports numpy, so ``.tolist()``/``.item()`` may be an array's."""
    scan = _Scan(qualify, layer_of, numpy)
    visit(function.body, scan)  # zlint.cst.batched.visit: no node rebuilding
    # isinstance(x, (list, tuple)) says x may be a list, unless the same code checks for a tensor
    scan.evidence.against |= scan.checked_other - scan.checked_tensor
    # ... and code that asks whether x is a tensor does not know it is one: its tensor uses sit
    # in the branch that asked (SizeFactsProvider narrows there), not everywhere
    scan.evidence.tensor -= scan.checked_tensor
    return scan.evidence
