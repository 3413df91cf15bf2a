"""Which calls yield boolean-mask tensors and which values are plain Python containers.

Read by :class:`~zlint.facts.size_facts.SizeFactsProvider`: a mask used as an index selects a
data-dependent number of elements (ZL3xx); a size used as a key of a Python dict or list must be
concrete (ZL2xx). Both are conservative: only what the code says counts.
"""

from __future__ import annotations

import libcst as cst

from zlint.batched import visit

# torch.* namespaces whose functions return tensors; any other submodule (torch.cuda,
# torch.jit, torch.distributed, torch.backends, ...) answers questions about the runtime.
TENSOR_NAMESPACES = frozenset(
    {"torch", "torch.nn.functional", "torch.linalg", "torch.fft", "torch.special", "torch.nn.init", "torch.sparse"}
)
# Name prefixes of torch functions that report state rather than compute tensors.
STATE_PREFIXES = ("is_", "are_", "get_", "set_", "use_", "has_")

# Functions (torch.<name>) and tensor methods whose result is a boolean tensor.
MASK_FUNCTIONS = frozenset(
    {
        "isnan", "isinf", "isfinite", "isneginf", "isposinf", "isreal", "isin", "isclose",
        "logical_and", "logical_or", "logical_not", "logical_xor",
        "eq", "ne", "gt", "lt", "ge", "le", "greater", "greater_equal", "less", "less_equal",
        "not_equal", "signbit",
    }
)
MASK_METHODS = MASK_FUNCTIONS | {"bool"}
# Ops that return a tuple of tensors (a namedtuple or a split), not one tensor.
TUPLE_RESULTS = frozenset(
    {
        "topk", "sort", "kthvalue", "cummax", "cummin", "aminmax", "std_mean", "var_mean", "frexp",
        "slogdet", "eig", "eigh", "qr", "svd", "lu", "lu_factor", "lu_factor_ex", "inv_ex",
        "cholesky_ex", "solve_ex", "ldl_factor", "lstsq", "geqrf", "triangular_solve",
        "broadcast_tensors", "hsplit", "vsplit", "dsplit", "split_with_sizes", "histogram",
        "unique_consecutive", "atleast_1d", "atleast_2d", "atleast_3d", "sort_", "lobpcg",
    }
)
# Reductions that return (values, indices) when given a dim.
DIM_TUPLE_RESULTS = frozenset({"max", "min", "median", "nanmedian", "mode"})
# torch.* functions that return Python objects, not tensors.
NON_TENSOR_FUNCTIONS = frozenset({"load", "save", "typename", "from_numpy_dtype", "can_cast", "vmap"})
# Python's container constructors.
CONTAINER_CALLS = frozenset(
    {"dict", "list", "set", "collections.OrderedDict", "collections.defaultdict", "collections.Counter"}
)
CONTAINER_LITERALS = (cst.Dict, cst.List, cst.Set, cst.DictComp, cst.ListComp, cst.SetComp)


def is_bool_dtype(node: cst.BaseExpression, qualify) -> bool:
    """``torch.bool`` (through aliases) or the string ``"bool"``."""
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value == "bool"
    return qualify(node) == "torch.bool"


def requests_bool(call: cst.Call, qualify) -> bool:
    """A call that asks for a bool result: ``dtype=torch.bool``, ``.to(torch.bool)``."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == "dtype" and is_bool_dtype(arg.value, qualify):
            return True
    if isinstance(call.func, cst.Attribute) and call.func.attr.value in {"to", "type"}:
        return any(arg.keyword is None and is_bool_dtype(arg.value, qualify) for arg in call.args)
    return False


def returns_tensor(qualified: str) -> bool:
    """Whether ``torch.<...>`` names a tensor-returning function (conservatively)."""
    namespace, _, last = qualified.rpartition(".")
    if namespace not in TENSOR_NAMESPACES or last in NON_TENSOR_FUNCTIONS:
        return False
    # private helpers (torch.nn.init._calculate_fan_in_and_fan_out) return anything
    return not last.startswith(STATE_PREFIXES) and not last.startswith("_")


def returns_tuple_by_flag(call: cst.Call) -> bool:
    """``torch.unique(x, return_counts=True)``, ``torch.nonzero(x, as_tuple=True)``: a tuple."""
    return any(
        a.keyword is not None
        and (a.keyword.value.startswith("return_") or a.keyword.value == "as_tuple")
        and not (isinstance(a.value, cst.Name) and a.value.value == "False")
        for a in call.args
    )


class ContainerAttributes(cst.CSTVisitor):
    """``self.<attr>`` names a class assigns a dict/list/set literal or constructor to."""

    def __init__(self, qualify) -> None:
        self.qualify = qualify
        self.names: set[str] = set()

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False  # a nested class has its own attributes

    def _record(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if (
            value is not None
            and isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == "self"
            and is_container_value(value, self.qualify)
        ):
            self.names.add(target.attr.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._record(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._record(node.target, node.value)


def is_container_value(node: cst.BaseExpression, qualify) -> bool:
    """A dict/list/set literal, comprehension or constructor call."""
    if isinstance(node, CONTAINER_LITERALS):
        return True
    if isinstance(node, cst.Call):
        func = node.func
        if isinstance(func, cst.Name) and func.value in CONTAINER_CALLS:
            return True
        return (qualify(func) or "") in CONTAINER_CALLS
    return False


def container_attributes(node: cst.ClassDef, qualify) -> frozenset[str]:
    """The ``self.<attr>`` names of ``node`` that hold Python containers."""
    scan = ContainerAttributes(qualify)
    visit(node.body, scan)  # zlint.batched.visit: no node rebuilding
    return frozenset(scan.names)
