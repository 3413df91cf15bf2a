"""Dims the code writes down: a size spelled in the call that builds the tensor.

``pos.expand(3, b, -1)``, ``x.view(b, s, self.num_heads, 64)``, ``torch.zeros(4, n)``,
``torch.stack([a, b, c])``: a dim given as an int literal, a module constant or an attribute
(``self.num_heads``, ``config.hidden_size``: ints dynamo reads as constants) is the same for
every input, so dynamo never gives it a symbol; so is a size the facts already know is static
(``N, D, H, _ = self.blocks.shape`` then ``view(N * D, H, H)``) and arithmetic on such sizes
(``config.dim // config.heads``). The positions are kept both from the front and
from the back (``3`` in ``expand(3, b, -1)`` is dim 0 and dim -3), so ``x.shape[0]`` and
``x.shape[-3]`` read it alike. Methods that keep the shape (``.float()``, ``.contiguous()``,
``.to(device)``) keep such dims static. A call that writes every dim down (``-1`` only where the
receiver's own dims are all static) builds a tensor whose whole shape is static.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from zlint.facts.literals import int_literal, number_literal

#: what the facts know to be a static size (a parameter's dim bound to a name): None knows nothing
Static = Callable[[cst.BaseExpression], bool] | None

#: torch factories whose result size is given by their arguments
FACTORIES = frozenset(
    {"arange", "linspace", "logspace", "tensor", "zeros", "ones", "empty", "full", "rand", "randn", "eye", "as_tensor"}
)
#: factories whose positional arguments (or one tuple of them) are the shape
_SHAPE_FACTORIES = frozenset({"zeros", "ones", "empty", "rand", "randn"})
#: tensor methods whose arguments (or one tuple of them) are the result's shape
_SHAPE_METHODS = frozenset({"expand", "view", "reshape", "new_zeros", "new_ones", "new_empty"})
#: tensor methods whose result has the receiver's shape: its static dims stay static
SHAPE_KEEPING_METHODS = frozenset(
    {"float", "half", "double", "bfloat16", "long", "int", "bool", "to", "type", "type_as", "clone",
     "contiguous", "detach", "cpu", "cuda", "sigmoid", "tanh", "relu", "exp", "abs", "neg", "sqrt", "rsqrt",
     "softmax", "log_softmax", "clamp", "clamp_min", "clamp_max", "masked_fill", "pow", "requires_grad_"}
)
#: tensor methods whose result's sizes are the receiver's, rearranged: a static shape stays static
REARRANGING_METHODS = frozenset(
    {"squeeze", "unsqueeze", "transpose", "permute", "t", "flatten", "movedim", "swapaxes", "swapdims"}
)
#: keywords that carry a size of a factory (the others are dtype, device, ...)
_SIZE_KEYWORDS = frozenset({"steps", "size", "end", "start", "data"})
#: arithmetic that keeps static sizes static
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide)


def written_dims(
    node: cst.Call, qualify: Callable[[cst.BaseExpression], str | None], receiver: frozenset[int] | None = None,
    static: Static = None,
) -> frozenset[int]:
    """The dims of the tensor ``node`` builds whose size the call writes down, or that a
    shape-keeping method keeps static from its receiver (``receiver``: the receiver's static dims)."""
    func = node.func
    if receiver and isinstance(func, cst.Attribute) and func.attr.value in SHAPE_KEEPING_METHODS:
        return receiver
    if name := _torch_function(node, qualify):
        if name in _SHAPE_FACTORIES:
            return _fixed_positions(_shape_arguments(node), static)
        return _stacked_dim(node) if name == "stack" else frozenset()
    if isinstance(func, cst.Attribute) and func.attr.value in _SHAPE_METHODS:
        return _fixed_positions(_shape_arguments(node), static)
    return frozenset()


def writes_whole_shape(
    node: cst.Call, qualify: Callable[[cst.BaseExpression], str | None], receiver_fixed: bool, static: Static = None
) -> bool:
    """``node`` builds a tensor whose every dim is static: a shape-keeping method of such a
    receiver, or a shape factory/method whose every size is written down (``-1`` in
    ``view``/``reshape``/``expand`` too when the receiver's dims are all static: it is inferred
    from them, or kept)."""
    func = node.func
    method = func.attr.value if isinstance(func, cst.Attribute) else None
    if receiver_fixed and (method in SHAPE_KEEPING_METHODS or method in REARRANGING_METHODS):
        return True
    name = _torch_function(node, qualify)
    if name is not None and name not in _SHAPE_FACTORIES:
        return False
    if name is None and method not in _SHAPE_METHODS:
        return False
    shape = _shape_arguments(node)
    if not shape:
        return False
    inferred = receiver_fixed and method in {"view", "reshape", "expand"}
    return all(is_written_size(dim, static) or (inferred and int_literal(dim) == -1) for dim in shape)


def _torch_function(node: cst.Call, qualify: Callable[[cst.BaseExpression], str | None]) -> str | None:
    """``zeros`` for ``torch.zeros(...)``: a function of the torch namespace itself."""
    qual = qualify(node.func) or ""
    return qual[len("torch."):] if qual.startswith("torch.") and qual.count(".") == 1 else None


def fixed_size(node: cst.Call) -> bool:
    """A factory whose sizes are all literals or attributes (``torch.logspace(0, 1, 5)``,
    ``torch.arange(self.n)``): its length does not follow an input size."""
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value not in _SIZE_KEYWORDS:
            continue
        value = arg.value
        if arg.star:
            return False  # torch.zeros(*x.shape): as many sizes as the input has, each its own
        if number_literal(value) is not None or (isinstance(value, cst.Attribute) and not _is_shape(value)):
            continue
        if isinstance(value, (cst.List, cst.Tuple)) and all(
            number_literal(e.value) is not None for e in value.elements
        ):
            continue
        if isinstance(value, cst.Name) and value.value.isupper():
            continue  # a module constant
        return False
    return bool(node.args)


def is_written_size(node: cst.BaseExpression, static: Static = None) -> bool:
    """An int literal >= 0, a module constant (``CACHE_T``), an attribute (``self.heads``), a
    size ``static`` knows is static, or arithmetic on these (``config.dim // config.heads``)."""
    value = int_literal(node)
    if value is not None:
        return value >= 0  # -1 in view/expand: inferred or kept from the input
    if static is not None and static(node):
        return True
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _ARITHMETIC):
        return is_written_size(node.left, static) and is_written_size(node.right, static)
    if isinstance(node, cst.Name):
        return node.value.isupper()
    if isinstance(node, cst.Attribute):
        if _is_shape(node):
            return False  # view(x.shape): the input's sizes
        root = node.value
        while isinstance(root, cst.Attribute):
            root = root.value
        # `x.view(torch.float16)` reinterprets the dtype: not a size
        return not (isinstance(root, cst.Name) and root.value in {"torch", "np", "numpy"})
    return False


def _is_shape(node: cst.Attribute) -> bool:
    """``x.shape``: a tensor's sizes, not an int the code writes down."""
    return node.attr.value == "shape"


def _shape_arguments(node: cst.Call) -> list[cst.BaseExpression] | None:
    """The shape a call spells: its positional arguments, or the one tuple/list it is given
    (``size=`` included); None when a starred argument hides the positions."""
    args = [a for a in node.args if a.keyword is None]
    if any(a.star for a in args):
        return None
    for a in node.args:
        if a.keyword is not None and a.keyword.value == "size":
            args = [a]
    if len(args) == 1 and isinstance(args[0].value, (cst.Tuple, cst.List)):
        elements = args[0].value.elements
        if any(isinstance(e, cst.StarredElement) for e in elements):
            return None
        return [e.value for e in elements]
    return [a.value for a in args]


def _fixed_positions(shape: list[cst.BaseExpression] | None, static: Static = None) -> frozenset[int]:
    if not shape:
        return frozenset()
    rank = len(shape)
    fixed = [i for i, dim in enumerate(shape) if is_written_size(dim, static)]
    return frozenset(fixed) | frozenset(i - rank for i in fixed)


def _stacked_dim(node: cst.Call) -> frozenset[int]:
    """``torch.stack([a, b, c], dim=k)``: the new dim ``k`` holds as many tensors as the literal
    list names (a list built elsewhere may vary)."""
    if not node.args or node.args[0].keyword is not None:
        return frozenset()
    items = node.args[0].value
    if not isinstance(items, (cst.List, cst.Tuple)) or any(isinstance(e, cst.StarredElement) for e in items.elements):
        return frozenset()
    dim_arg = next((a.value for a in node.args[1:] if a.keyword is None or a.keyword.value == "dim"), None)
    dim = 0 if dim_arg is None else int_literal(dim_arg)
    return frozenset() if dim is None else frozenset({dim})
