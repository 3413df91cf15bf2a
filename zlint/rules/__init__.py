"""Every zlint rule. Add a rule by writing its module and listing its class here."""

from __future__ import annotations

from zlint.rules.base import Rule
from zlint.rules.zl101_size_compared_with_zero_or_one import SizeComparedWithZeroOrOne
from zlint.rules.zl102_size_truthiness import SizeTruthiness
from zlint.rules.zl103_size_compared_with_constant import SizeComparedWithConstant

ALL_RULES: tuple[type[Rule], ...] = (
    SizeComparedWithZeroOrOne,
    SizeTruthiness,
    SizeComparedWithConstant,
)

__all__ = ["ALL_RULES", "Rule"]
