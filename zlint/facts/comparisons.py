"""What a size is compared with: 0 or 1, a threshold, another size, a divisor.

The comparison half of the size facts, a mixin of :class:`~zlint.facts.size_facts.SizeFactsProvider`
(which supplies ``fact``, ``_kind``, ``_set``, the enclosing functions and the loop targets):
``n - c > 0`` is read as ``n > c``, ``n // 4 > 0`` as ``n >= 4``, a remainder against 0 as a
divisibility test, and a comparison with a name for a fixed width (channels, hidden size) as no
size comparison at all. Nor is a dim the function tests against several small values
(``if n == 2: ... elif n == 4:``, ``n in (3, 4)``): the code enumerates the layouts it takes (2 or
4 box coordinates, 3 or 4 position rows), a structural choice, not a size that varies.
"""

from __future__ import annotations

from typing import NamedTuple

import libcst as cst

from zlint.cst.batched import visit
from zlint.facts.lattice import MASK, Fact, Kind, Versus
from zlint.facts.literals import int_literal, number_literal, source_text

#: Names of attributes and variables that hold a fixed width: a size compared with one is a dim
#: the model fixes (channels, hidden size, heads), not one that varies.
WIDTH_WORDS = frozenset(
    {"channel", "channels", "chans", "hidden", "embed", "features", "head", "heads", "dim", "groups",
     "classes", "vocab", "model", "planes"}
)
#: builtins that make a number of numbers: applied to constants and thresholds, a threshold
_NUMBER_BUILTINS = frozenset({"pow", "min", "max", "int", "float", "round", "abs"})
#: Names of a count that a model's structure fixes: the number of axes of a position grid
RANK_WORDS = frozenset({"ndim", "ndims", "naxes", "axes"})
#: Words that say a bound name counts something that varies with the input (``bs_embed``: a batch
#: size; ``n_image_features``: image tokens), whatever width word it also holds
VARYING_WORDS = frozenset(
    {"bs", "batch", "tokens", "patches", "frames", "time", "temporal", "image", "audio", "video", "text"}
)
#: ... unless the name also says it is a limit: ``max_position_embeddings``, ``min_dim``
LIMIT_WORDS = frozenset({"max", "min", "limit", "thresh", "threshold", "position", "positions", "len", "length", "seq"})
#: the small values a layout dim takes (coordinates, position rows, image channels)
CATEGORY_VALUES = range(2, 9)
COMPARISON_OPS = (
    cst.Equal, cst.NotEqual, cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual,
)



def elementwise_comparison(node: cst.BaseExpression) -> bool:
    """A comparison a tensor makes elementwise (``a == b``, ``a > b``; not ``is`` or ``in``)."""
    return isinstance(node, cst.Comparison) and all(
        isinstance(t.operator, COMPARISON_OPS) for t in node.comparisons
    )

class Reading(NamedTuple):
    """What one comparison compares a size with (:meth:`ComparisonFacts._compare`)."""

    versus: Versus
    #: the constant, as the message shows it, or None
    constant: str | None = None
    #: Versus.ZERO_ONE: the small sizes the test sets apart (:attr:`Fact.small`)
    small: frozenset[int] = frozenset()


class ComparisonFacts:
    """``leave_Comparison`` and the reading of each comparison (see the module docstring)."""

    def leave_Comparison(self, original_node: cst.Comparison) -> None:
        versus: set[Versus] = set()
        constants: list[str] = []
        small: frozenset[int] = frozenset()
        left = original_node.left
        for target in original_node.comparisons:
            right = target.comparator
            found = self._compare(left, target.operator, right)
            if found is not None:
                versus.add(found.versus)
                small |= found.small
                if found.constant is not None:
                    constants.append(found.constant)
            left = right
        if versus:
            self._set(
                original_node,
                Fact(
                    Kind.PREDICATE,
                    sources=(original_node,),
                    versus=frozenset(versus),
                    constants=tuple(constants),
                    small=small,
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
    ) -> Reading | None:
        """What a size in ``left op right`` is compared with, or None when no size is involved."""
        lk, rk = self._kind(left), self._kind(right)
        if isinstance(op, (cst.In, cst.NotIn, cst.Equal, cst.NotEqual)) and self._enumerated(left, right):
            return None  # `if n == 2: ... elif n == 4:`: a layout the code enumerates
        if isinstance(op, (cst.In, cst.NotIn)):
            if lk is Kind.SIZE and isinstance(right, (cst.Tuple, cst.List, cst.Set)):
                values = [number_literal(e.value) for e in right.elements]
                if values and all(v is not None for v in values):
                    text = ", ".join(str(v) for v in values)
                    small = frozenset({0, 1} & set(values))
                    return Reading(Versus.ZERO_ONE if small else Versus.CONSTANT, text, small)
            return None
        if not isinstance(op, COMPARISON_OPS):
            return None
        sized = {Kind.SIZE, Kind.SHAPE}
        if lk in sized and rk in sized:
            return Reading(Versus.SIZE)
        for mine, own_node, other_node in ((lk, left, right), (rk, right, left)):
            if mine is Kind.SIZE:
                value = number_literal(other_node)
                if value is not None:
                    if _decided_for_positive(self.fact(own_node), op if own_node is left else _flip(op), value):
                        return None  # `rest = k - n % k; if rest > 0:` is always true
                    return self._versus_value(own_node, op if own_node is left else _flip(op), value)
                if self._kind(other_node) is Kind.STATIC:
                    # num_patches == num_positions (a parameter's dim): a constant the size meets
                    return Reading(Versus.CONSTANT, _short(other_node))
                if self._is_threshold(other_node):
                    if names_width(other_node):
                        return None  # x.shape[1] != self.in_channels: a dim the model fixes
                    return Reading(Versus.CONSTANT, _short(other_node))
            if mine is Kind.SHAPE and isinstance(other_node, (cst.Tuple, cst.List)):
                return Reading(Versus.CONSTANT)
        return None

    def _enumerated(self, left: cst.BaseExpression, right: cst.BaseExpression) -> bool:
        """One side is a size the enclosing function tests against several small values."""
        sides = [n for n in (left, right) if self._kind(n) is Kind.SIZE]
        if not sides or not self._functions:
            return False
        function = self._functions[-1]
        found = self._enumerations.get(id(function))
        if found is None:
            finder = _Enumerations()
            visit(function.body, finder)
            found = self._enumerations[id(function)] = finder.layouts()
        # `num_frames == 2 ... == 4`: the name says the dim varies, so the values are sizes
        return any(source_text(n) in found and not _names_extent(n) for n in sides)

    def _is_threshold(self, node: cst.BaseExpression) -> bool:
        """A value a size can be compared with as a threshold: a config attribute, parameter,
        module constant or other int (not a tensor, a static dim, a rank, None or a string)."""
        if self._kind(node) is not None:
            return False
        if isinstance(node, cst.Name):
            # `i == n - 1` in `for i, t in enumerate(...)`: the loop, not the comparison, costs
            in_loop = bool(self._loop_targets) and node.value in self._loop_targets[-1]
            return node.value not in {"None", "True", "False"} and not in_loop
        if isinstance(node, cst.Attribute):
            return True
        if isinstance(node, cst.Subscript):  # config["max_len"], sizes[i]
            return isinstance(node.value, (cst.Name, cst.Attribute))
        if isinstance(node, cst.BinaryOperation):  # 2 * self.window
            return all(self._constant_or_threshold(side) for side in (node.left, node.right))
        if isinstance(node, cst.IfExp):  # (4000 if boxes.device.type == "cpu" else 100_000)
            return all(self._constant_or_threshold(side) for side in (node.body, node.orelse))
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in _NUMBER_BUILTINS:
            # pow(2, 31), max(self.min_len, 16): a number made of constants and thresholds
            return bool(node.args) and all(
                not a.star and a.keyword is None and self._constant_or_threshold(a.value) for a in node.args
            )
        return False

    def _constant_or_threshold(self, node: cst.BaseExpression) -> bool:
        return number_literal(node) is not None or self._is_threshold(node)

    def _versus_value(self, own: cst.BaseExpression, op: cst.BaseCompOp, value: float) -> Reading:
        """What ``own op value`` compares the underlying size with: ``n - 3 > 0`` is ``n > 3``,
        ``n - c > 0`` is ``n > c``, ``n // 4 > 0`` is ``n >= 4``; ``n >= 2`` is ``n > 1``."""
        fact = self.fact(own)
        if value == 0 and fact is not None and fact.remainder:
            return Reading(Versus.DIVISIBILITY)
        while isinstance(own, cst.BinaryOperation):
            operator, left, right = own.operator, own.left, own.right
            lk, rk = self._kind(left), self._kind(right)
            if isinstance(operator, cst.Modulo):
                return Reading(Versus.DIVISIBILITY) if value == 0 else Reading(Versus.CONSTANT, str(value))
            if isinstance(operator, (cst.Add, cst.Subtract)):
                if rk is Kind.SIZE and lk is not Kind.SIZE and isinstance(operator, cst.Add):
                    left, right, lk, rk = right, left, rk, lk
                if lk is not Kind.SIZE or rk is Kind.SIZE:
                    break
                shift = number_literal(right)
                if shift is None:
                    return Reading(Versus.CONSTANT, _short(right))  # x.shape[1] - c > 0: n > c
                value = value - shift if isinstance(operator, cst.Add) else value + shift
                own = left
                continue
            if isinstance(operator, (cst.FloorDivide, cst.Divide)) and lk is Kind.SIZE:
                divisor = number_literal(right)
                if isinstance(divisor, int) and divisor >= 2:
                    value = value * divisor if value > 0 else divisor
                    op = cst.GreaterThanEqual() if value == divisor else op
                    own = left
                    continue
            break
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        small = _small_sizes(op, value)
        return Reading(Versus.ZERO_ONE if small else Versus.CONSTANT, str(value), small)


_FLIPPED = {
    cst.LessThan: cst.GreaterThan, cst.GreaterThan: cst.LessThan,
    cst.LessThanEqual: cst.GreaterThanEqual, cst.GreaterThanEqual: cst.LessThanEqual,
}


def _flip(op: cst.BaseCompOp) -> cst.BaseCompOp:
    """``a < b`` read from ``b``'s side: ``b > a``."""
    flipped = _FLIPPED.get(type(op))
    return flipped() if flipped is not None else op


def _small_sizes(op: cst.BaseCompOp, value: float) -> frozenset[int]:
    """The sizes among 0 and 1 that ``size op value`` sets apart from the sizes above them:
    ``== 0``, ``> 0``, ``>= 1``, ``< 1`` single out 0 (an empty input); ``== 1``, ``!= 1`` single
    out 1; ``> 1``, ``<= 1``, ``>= 2``, ``< 2`` put 0 and 1 on one side. Empty for any other test
    (a threshold)."""
    if value == 0 or (value == 1 and isinstance(op, (cst.GreaterThanEqual, cst.LessThan))):
        return frozenset({0})
    if value == 1 and isinstance(op, (cst.Equal, cst.NotEqual)):
        return frozenset({1})
    if value == 1 or (value == 2 and isinstance(op, (cst.GreaterThanEqual, cst.LessThan))):
        return frozenset({0, 1})
    return frozenset()


def _decided_for_positive(fact: Fact | None, op: cst.BaseCompOp, value: float) -> bool:
    """``size op value`` has one answer for every size at least 1 (:attr:`Fact.positive`):
    ``> 0``, ``>= 1``, ``!= 0`` always hold, ``== 0``, ``< 1``, ``<= 0`` never do. Measured on
    torch 2.13: ``gap = K - (P + L % K) % K; if gap > 0:`` adds no graph and no guard by default,
    under ``mark_unbacked`` and under ``backed_size_oblivious``; ``rest = T % 4; if rest > 0:``
    adds one in each mode."""
    if fact is None or not fact.positive:
        return False
    if value == 0:
        return isinstance(op, (cst.GreaterThan, cst.NotEqual, cst.Equal, cst.LessThanEqual))
    if value == 1:
        return isinstance(op, (cst.GreaterThanEqual, cst.LessThan))
    return False


def _names_extent(node: cst.BaseExpression) -> bool:
    """``num_frames``, ``seq_len``: a name for an extent that varies with the input."""
    name = _identifier(node)
    return bool(name) and bool(set(name.lower().split("_")) & (VARYING_WORDS | LIMIT_WORDS))


class _Enumerations(cst.CSTVisitor):
    """The small values each expression of a function is tested against for (in)equality
    (keyed by its text; nested functions are their own)."""

    def __init__(self) -> None:
        self.values: dict[str, set[int]] = {}
        #: expressions also tested against 0: a count that may be empty (a chain `n == 0 ... elif
        #: n == 1 ... elif n == 2` dispatches on a count; a layout has no empty case, though it may
        #: have a single row: position ids of 1, 3 or 4 rows)
        self.counts: set[str] = set()

    def layouts(self) -> frozenset[str]:
        """The expressions tested against several layout values and never against 0."""
        return frozenset(t for t, v in self.values.items() if len(v) >= 2 and t not in self.counts)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Comparison(self, node: cst.Comparison) -> None:
        left = node.left
        for target in node.comparisons:
            right, op = target.comparator, target.operator
            if isinstance(op, (cst.Equal, cst.NotEqual)):
                for own, other in ((left, right), (right, left)):
                    value = int_literal(other)
                    if value in CATEGORY_VALUES and int_literal(own) is None:
                        self.values.setdefault(source_text(own), set()).add(value)
                    elif value == 0 and int_literal(own) is None:
                        self.counts.add(source_text(own))
            elif isinstance(op, (cst.In, cst.NotIn)) and isinstance(right, (cst.Tuple, cst.List, cst.Set)):
                values = {int_literal(e.value) for e in right.elements}
                if values and all(v in CATEGORY_VALUES for v in values):
                    self.values.setdefault(source_text(left), set()).update(values)  # type: ignore[arg-type]
                elif 0 in values:
                    self.counts.add(source_text(left))
            left = right


def _short(node: cst.BaseExpression) -> str:
    text = source_text(node)
    return text if len(text) <= 30 else text[:27] + "..."


def _identifier(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        key = node.slice[0].slice.value
        if isinstance(key, cst.SimpleString) and isinstance(key.evaluated_value, str):
            return key.evaluated_value
    return None


def names_width(node: cst.BaseExpression) -> bool:
    """``self.in_channels``, ``config.hidden_size``, ``num_heads``, ``embed_dim``: a name for a
    width the model fixes (not a limit such as ``max_position_embeddings``)."""
    if isinstance(node, cst.BinaryOperation):  # self.num_heads * self.head_dim
        return names_width(node.left) or names_width(node.right)
    name = _identifier(node)
    if not name:
        return False
    words = set(name.lower().split("_"))
    return bool(words & WIDTH_WORDS) and not words & LIMIT_WORDS


def names_fixed_size(name: str) -> bool:
    """A variable named for a fixed width or count (``num_channels``, ``head_dim``, ``ndim``):
    a size bound to it is static. Not a bare ``dim`` or ``dim_size`` (code also uses them for
    lengths), nor a name that also says what varies (``bs_embed``, ``n_image_features``)."""
    parts = name.lower().split("_")
    words = set(parts)
    if words & VARYING_WORDS:
        return False
    if words & RANK_WORDS:
        return True
    if parts[0] == "dim" and not (words - {"dim"}) & WIDTH_WORDS:
        return False
    return names_width(cst.Name(name))
