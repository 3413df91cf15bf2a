"""Which expressions hold a module's parameters or buffers, whose every dim is static.

Dynamo never gives a parameter's or a buffer's dims a symbol (``force_parameter_static_shapes``,
``force_nn_module_property_static_shapes``; measured on torch 2.13: comparisons, loops and
``unbind`` over them add no graph as the input sizes vary). A value holds one when it is
``self.<attr>`` registered as a parameter or buffer, ``self.<...>.weight/.bias``, an entry of a
``self.<attr> = nn.ParameterDict/ParameterList(...)``, a name bound to one of these, an element of
``<module>.parameters()``/``buffers()`` (the second of ``named_parameters()``/``named_buffers()``,
of a parameter container's ``.items()``), of ``group["params"]`` for a ``group`` of
``<optimizer>.param_groups``, and the ``.grad``/``.data`` of one, or a method of one that keeps or
rearranges its sizes (``p.detach()``, ``p.float()``, ``p.t()``): gradients, copies and transposes
are as static as the parameter.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from zlint.facts.modules import ClassFacts
from zlint.facts.vocabulary import REARRANGING_METHODS, SHAPE_KEEPING_METHODS

#: what a name holds: one parameter, or one entry of ``param_groups``
PARAMETER, PARAM_GROUP = "parameter", "param_group"
#: module methods that yield parameters or buffers, and those that yield (name, tensor) pairs
_ITERATORS = frozenset({"parameters", "buffers"})
_NAMED_ITERATORS = frozenset({"named_parameters", "named_buffers"})
#: attributes of a parameter that have its shape
_SAME_SHAPE_ATTRIBUTES = frozenset({"grad", "data"})

Held = Callable[[str], str | None]


def holds_parameter(node: cst.BaseExpression, held: Held, cls: ClassFacts | None) -> bool:
    """``node`` holds a parameter or buffer (see the module docstring); ``held`` tells what a
    name holds, ``cls`` the enclosing class's ``self.<attr>`` facts."""
    if isinstance(node, cst.Name):
        return held(node.value) == PARAMETER
    if isinstance(node, cst.Attribute):
        if node.attr.value in _SAME_SHAPE_ATTRIBUTES and holds_parameter(node.value, held, cls):
            return True
        return _self_parameter(node, cls)
    if isinstance(node, cst.Subscript):
        return _container(node.value, cls) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        method = node.func.attr.value
        keeps = method in SHAPE_KEEPING_METHODS or method in REARRANGING_METHODS
        return keeps and holds_parameter(node.func.value, held, cls)
    return False


def iterated(node: cst.BaseExpression, held: Held, cls: ClassFacts | None) -> tuple[str, int | None] | None:
    """What iterating ``node`` yields: ``(PARAMETER, None)`` for parameters, ``(PARAMETER, 1)``
    for (name, parameter) pairs, ``(PARAM_GROUP, None)`` for param groups; None otherwise.
    ``enumerate(xs)`` yields ``(i, x)``: the parameter is its second element."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "enumerate":
        inner = iterated(node.args[0].value, held, cls) if len(node.args) == 1 else None
        return (PARAMETER, 1) if inner == (PARAMETER, None) else None
    if isinstance(node, cst.Attribute) and node.attr.value == "param_groups":
        return PARAM_GROUP, None
    if _container(node, cls):
        return PARAMETER, None
    if isinstance(node, cst.Subscript) and _params_of_group(node, held):
        return PARAMETER, None
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
        return None
    method, receiver = node.func.attr.value, node.func.value
    if method in _ITERATORS or (method == "values" and _container(receiver, cls)):
        return PARAMETER, None
    if method in _NAMED_ITERATORS or (method == "items" and _container(receiver, cls)):
        return PARAMETER, 1
    return None


def _self_parameter(node: cst.Attribute, cls: ClassFacts | None) -> bool:
    """``self.table`` registered as a parameter/buffer, or the ``.weight``/``.bias`` of a module
    reached from ``self`` through attributes, container entries and method calls
    (``self.proj.weight``, ``self.lora_A[name].weight``, ``self.get_base_layer().weight``)."""
    if node.attr.value in {"weight", "bias"}:
        return _reached_from_self(node.value)
    return (
        isinstance(node.value, cst.Name) and node.value.value == "self" and cls is not None
        and node.attr.value in cls.parameters
    )


def _reached_from_self(node: cst.BaseExpression) -> bool:
    """``self``, or an attribute, entry or method result of something reached from it."""
    while True:
        if isinstance(node, cst.Name):
            return node.value == "self"
        if isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            node = node.func.value
        else:
            return False


def _container(node: cst.BaseExpression, cls: ClassFacts | None) -> bool:
    """``self.<attr>`` holding an ``nn.ParameterDict``/``nn.ParameterList``."""
    return (
        cls is not None and isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)
        and node.value.value == "self" and node.attr.value in cls.parameter_containers
    )


def _params_of_group(node: cst.Subscript, held: Held) -> bool:
    """``group["params"]`` for a ``group`` of ``param_groups``."""
    if not (isinstance(node.value, cst.Name) and held(node.value.value) == PARAM_GROUP and len(node.slice) == 1):
        return False
    index = node.slice[0].slice
    return isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString) and (
        index.value.evaluated_value == "params"
    )
