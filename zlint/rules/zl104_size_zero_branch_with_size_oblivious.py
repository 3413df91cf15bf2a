"""ZL104: a branch on a size being 0 in code compiled with ``backed_size_oblivious`` enabled."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import Fact, Kind, number_literal, target_version
from zlint.rules.branching import BranchRule, Where

# Measured unsound on torch 2.13.0, 2.14.1 and 2.15.0 (rules/ZL104-*.md). No release is known to
# be sound again; when one is measured, it goes here and the rule stops applying from it on.
UNSOUND_FROM = (2, 13, 0)
SOUND_AGAIN_IN: tuple[int, int, int] | None = None

# `n == 0`, `n != 0`, `n > 0`, `n <= 0` and `n < 1`, `n >= 1` ask whether a size is 0
_ZERO_OPS = (cst.Equal, cst.NotEqual, cst.GreaterThan, cst.LessThanEqual)
_ONE_OPS = (cst.LessThan, cst.GreaterThanEqual)
_MIRRORED = {cst.GreaterThan: cst.LessThan, cst.LessThan: cst.GreaterThan,
             cst.GreaterThanEqual: cst.LessThanEqual, cst.LessThanEqual: cst.GreaterThanEqual}


class SizeZeroBranchWithSizeOblivious(BranchRule):
    code = "ZL104"
    name = "size-zero-branch-with-size-oblivious"
    summary = "A branch on a size being 0 where backed_size_oblivious is on (wrong result at size 0)"
    function_local = True
    #: reported only where this file enables backed_size_oblivious, or the run does and the code
    #: is compiled (zlint.scope.placement)
    needs_size_oblivious = True
    severity = "error"  # a wrong result, not a slowdown

    def __init__(self, context) -> None:
        super().__init__(context)
        version = target_version(context.settings)
        self.applies = version >= UNSOUND_FROM and (SOUND_AGAIN_IN is None or version < SOUND_AGAIN_IN)

    def check_atom(self, atom: cst.BaseExpression, fact: Fact | None, where: Where) -> None:
        if not self.applies or fact is None or where is Where.ARGUMENT:
            return
        if fact.kind is Kind.SIZE or (isinstance(atom, cst.Comparison) and self._tests_zero(atom)):
            self.report_once(
                atom,
                f"`{self.context.snippet(atom)}` under backed_size_oblivious: wrong result at size 0; "
                "use torch.cond or branch-free code",
            )

    def _tests_zero(self, comparison: cst.Comparison) -> bool:
        if len(comparison.comparisons) != 1:
            return False
        target = comparison.comparisons[0]
        left, op, right = comparison.left, type(target.operator), target.comparator
        if number_literal(left) is not None:  # `0 < n`: read it as `n > 0`
            left, right = right, left
            op = _MIRRORED.get(op, op)
        size = self.fact(left)
        if size is None or size.kind is not Kind.SIZE:
            return False
        value = number_literal(right)
        return (value == 0 and op in _ZERO_OPS) or (value == 1 and op in _ONE_OPS)
