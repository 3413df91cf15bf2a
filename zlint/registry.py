"""Rule lookup and selection by code or prefix (``ZL1``, ``ZL101``, ``ALL``)."""

from __future__ import annotations

from collections.abc import Iterable

from zlint.rules import ALL_RULES, Rule

RULES_BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in ALL_RULES}
if len(RULES_BY_CODE) != len(ALL_RULES):  # pragma: no cover - a programming error
    raise RuntimeError("two zlint rules share a code")


class UnknownSelector(ValueError):
    """A selector that names no rule."""


def expand(selector: str) -> frozenset[str]:
    """The codes a selector names; raises :class:`UnknownSelector` when it names none."""
    sel = selector.strip().upper()
    if sel == "ALL":
        return frozenset(RULES_BY_CODE)
    codes = frozenset(code for code in RULES_BY_CODE if code.startswith(sel))
    if not sel or not codes:
        raise UnknownSelector(f"unknown rule selector {selector!r} (see `zlint rules`)")
    return codes


def expand_all(selectors: Iterable[str]) -> frozenset[str]:
    out: set[str] = set()
    for selector in selectors:
        out |= expand(selector)
    return frozenset(out)


def default_codes() -> frozenset[str]:
    return frozenset(rule.code for rule in ALL_RULES if rule.default_enabled)


def rules_for(codes: Iterable[str]) -> list[type[Rule]]:
    """Rule classes for ``codes``, in a stable (code) order."""
    wanted = set(codes)
    return [rule for rule in ALL_RULES if rule.code in wanted]
