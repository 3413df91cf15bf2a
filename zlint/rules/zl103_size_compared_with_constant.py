"""ZL103: a size compared with a constant other than 0/1, or with another size, decides control flow."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import Fact, Versus
from zlint.rules.branching import BranchRule, Where, comparisons_of
from zlint.rules.calls import snippet

#: Validations are not reported here, so every finding is a real branch: torch._check would turn
#: its other side into an error. Slicing clamps and padding by 0 is a no-op, so most thresholds
#: and divisibility tests can go; torch.cond keeps both sides in one graph.
ADVICE = "make it branch-free (slices clamp, pad by 0) or use torch.cond"
#: a check that raises past a threshold states a bound the code relies on (ZL101's advice)
VALIDATION_ADVICE = "state the check with torch._check"


class SizeComparedWithConstant(BranchRule):
    code = "ZL103"
    name = "size-compared-with-constant"
    summary = "A tensor size compared with a constant (`seq_len > 512`) or another size decides control flow"

    def check_atom(self, atom: cst.BaseExpression, fact: Fact | None, where: Where) -> None:
        # A check that only raises cannot flip into another graph: the other side is an error,
        # so it costs nothing by default. Under mark_unbacked a threshold there is a branch on an
        # unbacked size: a graph break (measured on 2.14.1: `if p.shape[0] < 4: raise` breaks,
        # `assert p.shape[0] >= 4` is a runtime assert). Relations (`x.size(1) != y.size(1)`)
        # stay quiet: two sizes a model ties together are often one symbol, and nothing breaks.
        # So does an equality (`if h != self.img_size: raise`): every size but one raises, so
        # the dim cannot vary in a run that works, and nothing would mark it.
        if where is Where.VALIDATION:
            self._validation(atom, fact)
            return
        if fact is not None and fact.remainder and where is Where.BRANCH:
            # `if n % 8:` is `n % 8 != 0`: a guard on Mod(n, 8) that flips with the size
            self.report_once(
                atom,
                f"`{snippet(self.context, atom)}` is a divisibility test: recompiles when it flips; "
                f"{ADVICE}",
            )
            return
        for comparison in comparisons_of(atom, fact):
            own = self.fact(comparison)
            if own is None or Versus.ZERO_ONE in own.versus:
                continue  # ZL101's finding
            # a threshold may be a literal, an attribute, a parameter or a constant (own.constants)
            if Versus.CONSTANT in own.versus:
                what = "a size threshold"
            elif Versus.SIZE in own.versus:
                what = "a size relation"
            elif Versus.DIVISIBILITY in own.versus:
                what = "a divisibility test"
            else:
                continue
            self.report_once(
                comparison,
                f"{self.described(comparison, atom, where)} is {what}: recompiles when it flips; {ADVICE}",
                atom=atom,
                where=where,
            )

    def _validation(self, atom: cst.BaseExpression, fact: Fact | None) -> None:
        for comparison in comparisons_of(atom, fact):
            own = self.fact(comparison)
            if own is None or Versus.ZERO_ONE in own.versus or Versus.CONSTANT not in own.versus:
                continue
            if Versus.SIZE in own.versus or self.plain_assertion(comparison) or not _ordering(comparison):
                continue
            self.report_once(
                comparison,
                f"{self.described(comparison, atom, Where.VALIDATION)} checks a size threshold: blocks "
                f"single-graph mode; {VALIDATION_ADVICE}",
                tier="single-graph",
                atom=atom,
                where=Where.VALIDATION,
            )


_ORDERING = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)


def _ordering(comparison: cst.BaseExpression) -> bool:
    """``n < 4``, ``4 <= n <= 512``: a bound that a range of sizes passes (not ``==``/``!=``)."""
    return isinstance(comparison, cst.Comparison) and all(
        isinstance(target.operator, _ORDERING) for target in comparison.comparisons
    )
