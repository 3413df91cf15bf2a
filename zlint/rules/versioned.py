"""Rules that only apply to some torch releases ask here which release the user targets."""

from __future__ import annotations

from zlint.rules.api import SYMBOLIC_SINCE, Rule, target_version


class BeforeSymbolicRelease(Rule):
    """Pick this base for a rule that only applies when the targeted torch is older than
    ``SYMBOLIC_SINCE`` (the pattern traces symbolically from then on): ``self.applies`` says
    whether this file's settings target such a release; pair it with
    :func:`before_symbolic_release` for the ``candidate``. Reads no size fact (combine it with
    ``SizeFactsRule`` when the rule does, as ZL207). ZL207, ZL208."""

    def __init__(self, context) -> None:
        super().__init__(context)
        self.applies = target_version(context.settings) < SYMBOLIC_SINCE


def before_symbolic_release(test):
    """Candidate stage (zlint/candidates/stage.py): ``test`` where the settings target a torch older
    than ``SYMBOLIC_SINCE``; no function is a candidate elsewhere (the rule reports nothing)."""

    def candidate(summary, settings) -> bool:
        return target_version(settings) < SYMBOLIC_SINCE and test(summary, settings)

    return candidate
