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
from zlint.facts.vocabulary import REARRANGING_METHODS, SHAPE_KEEPING_METHODS

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
#: keywords that carry a size of a factory (the others are dtype, device, ...)
_SIZE_KEYWORDS = frozenset({"steps", "size", "end", "start", "data"})
#: arithmetic that keeps static sizes static
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide)


def written_dims(
    node: cst.Call, qualify: Callable[[cst.BaseExpression], str | None], receiver: frozenset[int] | None = None,
    static: Static = None, sequence: Static = None,
) -> frozenset[int]:
    """The dims of the tensor ``node`` builds whose size the call writes down, or that a
    shape-keeping method keeps static from its receiver (``receiver``: the receiver's static dims);
    ``sequence`` tells a Python list or tuple (``torch.stack`` of one has a static new dim)."""
    func = node.func
    if receiver and isinstance(func, cst.Attribute) and func.attr.value in SHAPE_KEEPING_METHODS:
        return receiver
    if receiver and isinstance(func, cst.Attribute) and func.attr.value in REARRANGING_METHODS:
        return rearranged_dims(node, receiver)
    if name := _torch_function(node, qualify):
        if name in _SHAPE_FACTORIES:
            return _fixed_positions(_shape_arguments(node), static) or _around_star(node, static)
        return _stacked_dim(node, sequence) if name == "stack" else frozenset()
    if isinstance(func, cst.Attribute) and func.attr.value in _SHAPE_METHODS:
        return _fixed_positions(_shape_arguments(node), static) or _around_star(node, static)
    return frozenset()


def _around_star(node: cst.Call, static: Static = None) -> frozenset[int]:
    """``x.reshape(len(columns), -1, *x.shape[1:])``: the sizes written before the first starred
    argument sit at known places from the front, those after the last one from the back."""
    args = [a for a in node.args if a.keyword is None]
    if len(args) == 1 and isinstance(args[0].value, (cst.Tuple, cst.List)):
        items = [(isinstance(e, cst.StarredElement), e.value) for e in args[0].value.elements]
    else:
        items = [(bool(a.star), a.value) for a in args]
    stars = [i for i, (star, _) in enumerate(items) if star]
    if not stars:
        return frozenset()
    front = {i for i, (_, dim) in enumerate(items[: stars[0]]) if is_written_size(dim, static)}
    back = items[stars[-1] + 1:]
    return frozenset(front | {i - len(back) for i, (_, dim) in enumerate(back) if is_written_size(dim, static)})


def rearranged_dims(node: cst.Call, receiver: frozenset[int]) -> frozenset[int]:
    """Where ``x.transpose(1, 2)``, ``x.permute(0, 2, 1)``, ``x.flatten(2)``, ``x.unsqueeze(0)``
    or ``x.t()`` moves the static dims ``receiver`` of ``x`` (positions from the front and the
    back; a dim whose new place depends on a rank zlint does not know is dropped): the channels
    of a conv output stay static through ``.flatten(2).transpose(1, 2)``."""
    method = node.func.attr.value  # type: ignore[attr-defined]
    if any(a.keyword is not None or a.star for a in node.args):
        return frozenset()
    found = [int_literal(a.value) for a in node.args]
    dims = [d for d in found if d is not None]
    if len(dims) != len(found):
        return frozenset()  # a dim the code computes
    rank = _rank(receiver)
    if method == "permute" and dims:
        rank = len(dims)
        order = [d % rank for d in dims]
        return _both_ends({order.index(d % rank) for d in receiver if -rank <= d < rank and d % rank in order}, rank)
    if method == "flatten" and len(dims) <= 1:
        start = dims[0] if dims else 0
        if start < 0 and rank is not None:
            start += rank
        # the result has rank start + 1: dims before start keep their place
        return _both_ends({d for d in _front(receiver, rank) if d < start}, start + 1) if start >= 0 else frozenset()
    if method in {"transpose", "swapaxes", "swapdims", "t"}:
        if method == "t":
            dims = [0, 1] if not dims else []
        if len(dims) != 2:
            return frozenset()
        a, b = dims
        if rank is not None:
            a, b = a % rank, b % rank
            return _both_ends({ {a: b, b: a}.get(d, d) for d in _front(receiver, rank)}, rank)
        if (a < 0) != (b < 0):
            return frozenset()
        return frozenset({a: b, b: a}.get(d, d) for d in receiver if (d < 0) == (a < 0))
    if method == "unsqueeze" and len(dims) == 1:
        at = dims[0]
        if rank is not None:
            at = at % (rank + 1)
            return _both_ends({d + 1 if d >= at else d for d in _front(receiver, rank)}, rank + 1)
        if at >= 0:
            return frozenset(d + 1 if d >= at else d for d in receiver)
        if at == -1:
            return frozenset(d - 1 if d < 0 else d for d in receiver)
    return frozenset()


def indexed_dims(
    node: cst.Subscript, dims: frozenset[int], effect: Callable[[cst.BaseExpression], str]
) -> frozenset[int]:
    """Where the static dims ``dims`` of ``x`` sit in ``x[...]`` (``node``); ``effect`` tells what
    each element does to its dim (``SizeFactsProvider._keeps_size``: ``keep``, ``vary``, ``drop``,
    ``new``, ``unknown``). Elements before an ``...`` count from the front, those after it from
    the back. A slice by a size makes its dim vary (``h[:, :n]``); an index that is no int (a
    tensor, a list) may reorder everything: nothing stays static. A dim no element reaches keeps
    its place from its own end, when the elements before it leave that count known."""
    rank = _rank(dims)
    if rank is not None:
        dims = frozenset(d % rank for d in dims if -rank <= d < rank)
    elements = [e.slice for e in node.slice]
    effects = [effect(e.value if isinstance(e, cst.Index) else e) for e in elements]
    ellipsis = [isinstance(e, cst.Index) and isinstance(e.value, cst.Ellipsis) for e in elements]
    if "unknown" in [w for w, dots in zip(effects, ellipsis) if not dots]:
        return frozenset()
    split = ellipsis.index(True) if any(ellipsis) else None
    front = effects if split is None else effects[:split]
    back = [] if split is None else effects[split + 1:]
    out: set[int] = set()
    old = new = 0
    for what in front:
        if what == "keep" and old in dims:
            out.add(new)
        new += what != "drop"
        old += what != "new"
    if split is None:
        out.update(d + new - old for d in dims if d >= old)  # the dims past the elements
        if rank is not None:
            out.update(d - (rank + new - old) for d in set(out))  # the same, from the back
        elif all(what in ("keep", "new") for what in front):
            out.update(d for d in dims if d < 0)  # no dim removed or resized: the back stays
        return frozenset(out)
    old = new = -1
    for what in reversed(back):
        if what == "keep" and old in dims:
            out.add(new)
        new -= what != "drop"
        old -= what != "new"
    return frozenset(out)


def _rank(dims: frozenset[int]) -> int | None:
    """The rank that the two ends of ``dims`` agree on (``{1, -2}``: 3), when exactly one does."""
    front = [d for d in dims if d >= 0]
    back = [d for d in dims if d < 0]
    fits = {
        r for r in {p - n for p in front for n in back}
        if r > max(front) and all(p - r in dims for p in front) and all(n + r in dims for n in back)
    }
    return fits.pop() if len(fits) == 1 else None


def _front(dims: frozenset[int], rank: int | None) -> set[int]:
    """``dims`` counted from the front (those from the back only when ``rank`` is known)."""
    return {d % rank for d in dims if -rank <= d < rank} if rank is not None else {d for d in dims if d >= 0}


def _both_ends(front: set[int], rank: int) -> frozenset[int]:
    return frozenset(front | {d - rank for d in front})


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


def _stacked_dim(node: cst.Call, sequence: Static = None) -> frozenset[int]:
    """``torch.stack(xs, dim=k)`` of a Python list or tuple (a literal, a comprehension, a name
    ``sequence`` knows holds one): the new dim ``k`` counts its items, a Python int at trace time
    whichever way the list was built. A loop that built it over a size pays for that size where
    it loops; a list passed in is guarded on its length. Measured on torch 2.13: ``if
    s.shape[0] > 2`` on such a stack adds no graph (4 graphs with and without it, lists of 2 to
    5 tensors passed in or built by a loop over a size)."""
    if not node.args or node.args[0].keyword is not None:
        return frozenset()
    items = node.args[0].value
    if isinstance(items, cst.Call) and isinstance(items.func, cst.Name) and items.func.value in {"list", "tuple"} and (
        len(items.args) == 1 and isinstance(items.args[0].value, (cst.GeneratorExp, cst.ListComp))
    ):
        items = items.args[0].value  # tuple(blk(x) for blk in self.blocks)
    if isinstance(items, (cst.List, cst.Tuple)):
        if any(isinstance(e, cst.StarredElement) for e in items.elements):
            return frozenset()
    elif not isinstance(items, (cst.ListComp, cst.GeneratorExp)) and not (sequence is not None and sequence(items)):
        return frozenset()
    dim_arg = next((a.value for a in node.args[1:] if a.keyword is None or a.keyword.value == "dim"), None)
    dim = 0 if dim_arg is None else int_literal(dim_arg)
    return frozenset() if dim is None else frozenset({dim})
