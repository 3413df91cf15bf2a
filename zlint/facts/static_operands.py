"""A tensor computed only from static shapes has a static shape.

A torch op's output shape is a function of its operands' shapes and of its other arguments,
except for the ops whose output size is read from the data (:data:`DATA_SIZED_OPS`). So when
every tensor operand has a static shape (a parameter or buffer, a tensor built with written sizes,
or one computed this same way) and every other argument is a constant (a literal, a module
attribute, a static size, a dtype), dynamo has nothing to make symbolic: ``torch.bmm(P, B)`` of
two parameter-shaped tensors, ``torch.block_diag(*torch.unbind(R))`` of a parameter view, a
``torch.nn`` layer called on one, ``R @ Q`` and ``2 * R``. Helper functions and modules of
unknown classes are not read this way: they may hold state that grows between calls (a cache).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from zlint.facts.lattice import Fact, Kind
from zlint.facts.literals import number_literal
from zlint.facts.written_shapes import is_written_size

#: ops whose output size depends on the values of their input, not its shape
DATA_SIZED_OPS = frozenset(
    {"nonzero", "argwhere", "masked_select", "unique", "unique_consecutive", "bincount", "repeat_interleave",
     "item", "tolist"}
)
#: attributes that never hold a shape's size
_SHAPELESS_ATTRIBUTES = frozenset({"dtype", "device", "layout"})
#: keywords that never change a shape
_SHAPELESS_KEYWORDS = frozenset(
    {"dtype", "device", "layout", "out", "requires_grad", "memory_format", "non_blocking", "copy", "generator",
     "pin_memory", "inplace"}
)

FactOf = Callable[[cst.BaseExpression], Fact | None]
#: the ``self.<attr>`` names that may change between calls (a cache the module reassigns)
State = frozenset[str]


def static_value(node: cst.BaseExpression, fact_of: FactOf, state: State = frozenset()) -> bool:
    """``node`` is a static-shaped tensor (or tuple of them) or a value dynamo reads as a
    constant: a literal, ``None``, a string, a static size or rank, a module attribute (not one
    of ``state``) or constant, a ``torch.float32``, or a tuple/list of these."""
    if isinstance(node, (cst.Tuple, cst.List)):  # torch.cat([a, b]): its items count
        return all(
            not isinstance(e, cst.StarredElement) and static_value(e.value, fact_of, state) for e in node.elements
        )
    fact = fact_of(node)
    if fact is not None:
        if fact.kind in (Kind.TENSOR, Kind.TENSORS):
            return fact.fixed
        return fact.kind in (Kind.STATIC, Kind.RANK)
    if number_literal(node) is not None or isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(node, cst.Name) and node.value in {"None", "True", "False"}:
        return True
    if isinstance(node, cst.Attribute):
        # torch.float32, x.dtype; a module's own attribute that only __init__ sets: an int or a
        # constant tensor (another object's attribute may be a tensor of any shape:
        # `outputs.hidden`; one forward reassigns may grow: `self.cache`)
        if node.attr.value in _SHAPELESS_ATTRIBUTES:
            return True
        root, first = _root(node)
        return root == "torch" or (root == "self" and first not in state)
    return isinstance(node, cst.Name) and is_written_size(node)  # a module constant


def static_operands(node: cst.Call, fact_of: FactOf, receiver_static: bool, state: State = frozenset()) -> bool:
    """Every operand of the call ``node`` is static (:func:`static_value`); ``receiver_static``:
    for a method, its receiver has a static shape. ``*xs`` counts when ``xs`` is a tuple of
    static-shaped tensors (``torch.block_diag(*torch.unbind(R))``)."""
    func = node.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    if name in DATA_SIZED_OPS or not receiver_static:
        return False
    if name == "where" and len(node.args) == 1:
        return False  # torch.where(cond): index tensors as long as the data says
    if name == "one_hot" and (len(node.args) < 2 or number_literal(node.args[1].value) == -1):
        return False  # F.one_hot(t) without num_classes: as wide as t's largest value
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value in _SHAPELESS_KEYWORDS:
            continue
        if arg.star == "**":
            return False
        if arg.star == "*":
            fact = fact_of(arg.value)
            if not (fact is not None and fact.kind is Kind.TENSORS and fact.fixed):
                return False
        elif not static_value(arg.value, fact_of, state):
            return False
    return True


def _root(node: cst.Attribute) -> tuple[str | None, str]:
    """The name an attribute chain starts from, and the first attribute read off it."""
    root: cst.BaseExpression = node
    first = node.attr.value
    while isinstance(root, cst.Attribute):
        first = root.attr.value
        root = root.value
    return (root.value if isinstance(root, cst.Name) else None), first
