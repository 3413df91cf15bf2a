"""Which calls yield boolean masks or tuples of tensors, and which values are plain Python containers.

Read by :class:`~zlint.facts.size_facts.SizeFactsProvider`: a mask used as an index selects a
data-dependent number of elements (ZL3xx); a size used as a key of a Python dict or list must be
concrete (ZL2xx). Both are conservative: only what the code says counts. The names of the mask
functions live in :mod:`zlint.facts.vocabulary`, which the ``ast`` candidate stage reads too.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from zlint.cst.batched import field_order

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


#: keywords of ``Tensor.to`` that move a tensor without changing its dtype
_MOVE_KEYWORDS = frozenset({"device", "non_blocking", "copy", "memory_format"})


def moves_only(call: cst.Call) -> bool:
    """``x.to(device)``, ``x.to(other.device)``, ``x.to("cuda", non_blocking=True)``: a move that
    keeps the dtype (a mask stays a mask). Not ``x.to(torch.float)``, ``x.to(dtype=...)`` nor
    ``x.to(other)``, which takes ``other``'s dtype."""
    if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "to") or not call.args:
        return False
    for arg in call.args:
        if arg.star:
            return False
        if arg.keyword is not None:
            if arg.keyword.value not in _MOVE_KEYWORDS:
                return False
            continue
        value = arg.value
        device = (
            isinstance(value, cst.SimpleString)
            or (isinstance(value, cst.Attribute) and value.attr.value == "device")
            or (isinstance(value, cst.Name) and "device" in value.value)
        )
        if not device:
            return False
    return True


def returns_tuple_by_flag(call: cst.Call) -> bool:
    """``torch.unique(x, return_counts=True)``, ``torch.nonzero(x, as_tuple=True)``: a tuple."""
    return any(
        a.keyword is not None
        and (a.keyword.value.startswith("return_") or a.keyword.value == "as_tuple")
        and not (isinstance(a.value, cst.Name) and a.value.value == "False")
        for a in call.args
    )


# nodes that can hold statements: the scan below never enters an expression (assignments are
# statements), which makes it a small fraction of a walk over the class; the statement scans of
# facts.helpers and facts.modules walk the same blocks (with :func:`statement_children`)
BLOCKS = (
    cst.BaseSuite, cst.BaseCompoundStatement, cst.Else, cst.ExceptHandler, cst.ExceptStarHandler,
    cst.Finally, cst.MatchCase,
)


def statements_below(node: cst.CSTNode, skipped: tuple[type, ...]) -> Iterator[cst.CSTNode]:
    """The small statements below ``node`` and the blocks and compound statements that hold them
    (each before what it holds), none inside a ``skipped`` compound statement."""
    todo = [node]
    while todo:
        current = todo.pop()
        if isinstance(current, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            yield from current.body
        elif isinstance(current, BLOCKS) and not isinstance(current, skipped):
            yield current
            todo.extend(statement_children(current))


def _assignments(node: cst.CSTNode):
    """The Assign/AnnAssign statements below ``node``, nested classes excepted (a nested class
    has its own attributes)."""
    return (s for s in statements_below(node, (cst.ClassDef,)) if isinstance(s, (cst.Assign, cst.AnnAssign)))


def statement_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The blocks and simple statement lines right below ``node``, in LibCST's field order."""
    out = []
    for attribute in field_order(node):
        value = getattr(node, attribute)
        for item in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(item, (BLOCKS, cst.SimpleStatementLine)):
                out.append(item)
    return out


def _is_self_attribute(target: cst.BaseExpression) -> bool:
    return isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self"


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
    """The ``self.<attr>`` names of ``node`` that a dict/list/set literal or constructor is
    assigned to (in any method, nested classes excepted)."""
    names = set()
    for statement in _assignments(node.body):
        if isinstance(statement, cst.Assign):
            pairs = [(t.target, statement.value) for t in statement.targets]
        else:
            pairs = [(statement.target, statement.value)]
        for target, value in pairs:
            if value is not None and _is_self_attribute(target) and is_container_value(value, qualify):
                names.add(target.attr.value)
    return frozenset(names)
