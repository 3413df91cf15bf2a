"""The values the shared facts give expressions: what a name or expression holds.

A small lattice read by every rule: a symbolic size, a shape, a rank, a tensor (a mask when it
holds bools), a tuple of tensors, a static dim, a size bool (predicate) or a Python container;
``None`` (no fact) is "unknown". :mod:`zlint.facts.size_facts` computes them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import libcst as cst


class Kind(enum.Enum):
    SIZE = "size"  # one symbolic size: x.size(0), n = x.shape[1], n * 2
    SHAPE = "shape"  # a tuple of sizes: x.shape, x.size(), x.shape[:2]
    RANK = "rank"  # static: x.dim(), x.ndim, len(x.shape)
    TENSOR = "tensor"
    TENSORS = "tensors"  # a tuple/list of tensors: x.split(...), x.max(dim=1), torch.unique(..., return_counts=True)
    STATIC = "static"  # a size or shape that never varies: parameter dims, channels, feature dims
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
    #: PREDICATE on a Comparison against 0 or 1: the small sizes the test sets apart from the
    #: others (``n == 0``, ``n >= 1``: {0}; ``n == 1``: {1}; ``n > 1``, ``n in (0, 1)``: {0, 1}).
    #: What the test singles out decides the advice: an empty-input guard, a size-1 fast path
    small: frozenset[int] = frozenset()
    #: TENSOR: known to hold bools (``x > 0``, ``m.bool()``): indexing with it is data-dependent
    boolean: bool = False
    #: TENSOR/SHAPE: dims fixed by what the code does with the tensor (1: channels into a conv,
    #: -1: features into nn.Linear/LayerNorm)
    static_dims: frozenset[int] = frozenset()
    #: TENSOR: every dim is static: a parameter or buffer, a tensor built with sizes known up
    #: front (``torch.logspace(0, 1, 5)``, ``w.view(N * D, H, H)`` of static sizes): iterating,
    #: unbinding or reading a size of it costs nothing
    fixed: bool = False
    #: SIZE: an upper clamp, ``min(n, 4)``: only values below it vary
    bound: int | None = None
    #: SIZE: a remainder (``n % k``, also through a name): compared with 0 it tests divisibility
    remainder: bool = False
    #: SIZE: at least 1 by construction (``k - n % k`` lies in [1, k]): compared with 0 its answer
    #: never changes, and dynamo's value ranges decide it without a guard
    positive: bool = False
    #: TENSORS: positions of the tuple that hold plain Python values (a forward that returns
    #: ``hidden, lengths`` with ``lengths = [...]``)
    plain: frozenset[int] = frozenset()
    #: SIZE/SHAPE: where the size comes from, as ``"NAME:DIM"`` (``x.size(0)``: ``"x:0"``,
    #: ``x.shape[-1]``: ``"x:-1"``, ``x.numel()``: ``"x:*"``; a SHAPE: ``"x"``), kept through
    #: names, arithmetic and ``min``/``max``. A workload (:mod:`zlint.workload`) reads it to say
    #: whether the size varies there; empty: not known. TENSOR: the parameter whose dims the
    #: tensor has, size for size (the parameter itself, ``x + 1``, ``x.float()``); empty when
    #: they may differ (``x.transpose(0, 1)``, ``x.view(...)``) or it came from elsewhere
    origin: tuple[str, ...] = ()
    #: TENSOR/SHAPE with an origin: the parameter's dim each of the leading dims is
    #: (``x.permute(0, 2, 3, 1)``: ``(0, 2, 3, 1)``; ``x.transpose(0, 1)``: ``(1, 0)``); the dims
    #: after those are the parameter's own, in place. None: every dim in place
    dim_map: tuple[int, ...] | None = None
    #: SIZE: exactly the size of its one origin dim (``x.shape[0]``, ``n = x.size(0)``), not a
    #: value computed from it: a workload can tell on which side of a threshold it stayed
    exact: bool = False
    #: CONTAINER: a list of sizes (``[b.size(0) for b in boxes]``, ``[0, pad_w, 0, pad_h]``):
    #: its elements, its sum and its truth are sizes too
    sizes: bool = False


SIZE = Fact(Kind.SIZE)
SHAPE = Fact(Kind.SHAPE)
RANK = Fact(Kind.RANK)
TENSOR = Fact(Kind.TENSOR)
MASK = Fact(Kind.TENSOR, boolean=True)
CONTAINER = Fact(Kind.CONTAINER)
TENSORS = Fact(Kind.TENSORS)
REMAINDER = Fact(Kind.SIZE, remainder=True)
POSITIVE = Fact(Kind.SIZE, positive=True)
STATIC = Fact(Kind.STATIC)


def sized(origin: tuple[str, ...]) -> Fact:
    """A size read from ``origin`` (the plain SIZE when it is not known)."""
    return Fact(Kind.SIZE, origin=origin) if origin else SIZE


def merged_origin(*facts: Fact | None) -> tuple[str, ...]:
    """The origins of the sizes among ``facts``, in order, each once."""
    seen: dict[str, None] = {}
    for fact in facts:
        if fact is not None and fact.kind is Kind.SIZE:
            seen.update(dict.fromkeys(fact.origin))
    return tuple(seen)


def arith_fact(left: Fact | None, right: Fact | None, scalar: bool = False) -> Fact | None:
    """The fact of ``left <op> right`` for arithmetic operators; ``scalar``: the operand that has
    no fact is a number (a literal), which leaves a tensor's dims as they are."""
    kinds = {f.kind if f else None for f in (left, right)}
    if Kind.TENSOR in kinds:
        # h * scale keeps h's fixed dims; a scalar cannot change them
        tensors = [f for f in (left, right) if f is not None and f.kind is Kind.TENSOR]
        dims = tensors[0].static_dims if len(tensors) == 1 else frozenset()
        # with a scalar, the tensor keeps its dims; two tensors (or an unknown operand, which may
        # be one) may broadcast to others
        others = [f for f in (left, right) if f is None or f.kind is not Kind.TENSOR]
        scalars = all(f.kind in (Kind.SIZE, Kind.STATIC, Kind.RANK) if f is not None else scalar for f in others)
        kept = len(tensors) == 1 and scalars
        origin, dim_map = (tensors[0].origin, tensors[0].dim_map) if kept else ((), None)
        return Fact(Kind.TENSOR, static_dims=dims, origin=origin, dim_map=dim_map) if dims or origin else TENSOR
    if Kind.SIZE in kinds:
        return sized(merged_origin(left, right))
    if kinds & {Kind.RANK, Kind.STATIC} and kinds <= {Kind.RANK, Kind.STATIC, None}:
        return STATIC if Kind.STATIC in kinds else RANK
    return None


#: marks a name in an origin (``"x?:0"``) as the parameter's only where none of the statements of
#: the function that bind the name ran: the finding names those lines (``"x?12,15:0"``,
#: :func:`zlint.rules.base.Rule.report`), and a recording tells whether any of them ran
CONDITIONAL = "?"


def mapped_dim(dim_map: tuple[int, ...] | None, dim: int) -> int | None:
    """The parameter's dim that dim ``dim`` of a tensor with ``dim_map`` is (:attr:`Fact.dim_map`);
    None when it cannot be told (a negative dim of a tensor whose dims moved: its rank is unknown)."""
    if dim_map is None:
        return dim
    if dim < 0:
        return None
    return dim_map[dim] if dim < len(dim_map) else dim
