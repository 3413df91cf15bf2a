"""zlint's rules. A rule is one module ``zl<code>_<name>.py`` here plus its doc ``rules/ZLxxx-name.md``.

Nothing to list: :mod:`zlint.core.registry` finds the modules by their file names and reads their
metadata without importing them; :func:`visitors` imports the visitor classes the engine runs.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable

from zlint.core import registry
from zlint.rules.base import Rule

_LOADED: dict[registry.RuleRecord, type[Rule]] = {}


def visitor(record: registry.RuleRecord) -> type[Rule]:
    """The visitor class of a static rule (its module is imported on first use)."""
    found = _LOADED.get(record)
    if found is None:
        if record.visitor is None:
            raise ValueError(f"{record.code} is a {record.kind} rule: no visitor reports it")
        found = getattr(importlib.import_module(record.module), record.visitor)
        if not (isinstance(found, type) and issubclass(found, Rule)) or found.code != record.code:
            raise TypeError(f"{record.module}.{record.visitor} is not the Rule subclass of {record.code}")
        _LOADED[record] = found
    return found


def visitors(codes: Iterable[str]) -> list[type[Rule]]:
    """The visitor classes of the static rules among ``codes``, in code order."""
    return [visitor(record) for record in registry.static_records(codes)]


def all_visitors() -> list[type[Rule]]:
    """Every static rule's visitor class, in code order."""
    return visitors(registry.RULES_BY_CODE)


__all__ = ["all_visitors", "visitor", "visitors"]
