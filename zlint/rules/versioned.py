"""Rules that only apply to some torch releases ask here which release the user targets."""

from __future__ import annotations

from zlint.rules.api import SYMBOLIC_SINCE, Rule, target_version


class BeforeSymbolicRelease(Rule):
    """Pick this base for a rule that only applies when the targeted torch is older than
    ``SYMBOLIC_SINCE`` (the pattern traces symbolically from then on): ``self.applies`` says
    whether this file's settings target such a release; its gate wraps the candidate test in
    ``before_symbolic_release`` (``zlint/candidates/gates/sizes.py``). Reads no size fact
    (combine it with ``SizeFactsRule`` when the rule does, as ZL207). ZL207, ZL208."""

    def __init__(self, context) -> None:
        super().__init__(context)
        self.applies = target_version(context.settings) < SYMBOLIC_SINCE
