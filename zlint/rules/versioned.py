"""Rules that only apply to some torch releases ask here which release the user targets."""

from __future__ import annotations

import functools

from zlint.rules.api import Rule, parse_version, target_torch_version


@functools.lru_cache(maxsize=16)
def _target(configured: str | None) -> tuple[int, int, int]:
    # the installed torch's metadata is read once per process, not once per file
    return parse_version(target_torch_version(_Configured(configured) if configured else None))


class _Configured:
    def __init__(self, torch_version: str) -> None:
        self.torch_version = torch_version


def target_version(settings: object | None) -> tuple[int, int, int]:
    """The torch version the rules target for these settings (``torch-version``, else installed)."""
    return _target(getattr(settings, "torch_version", None) or None)


# Measured on torch 2.13 (CPU): int()/float()/math.* on sizes and squeeze() without a dim trace
# symbolically, with no guard. Older releases guarded on them (PRs #95479, #94365); which release
# changed each is not measured here, so the rules apply to every release before the pinned one.
SYMBOLIC_SINCE = (2, 13, 0)


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
