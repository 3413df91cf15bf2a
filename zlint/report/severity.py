"""A finding's severity, read in one place so where it is declared can move without the writers."""

from __future__ import annotations

from zlint.core import registry

#: what a rule is unless it says otherwise
DEFAULT_SEVERITY = "warning"
SEVERITIES = ("error", "warning", "note")


def severity_of(code: str) -> str:
    """"error", "warning" or "note": the rule's ``severity`` attribute, else ``warning``."""
    rule = registry.RULES_BY_CODE.get(code)
    value = getattr(rule, "severity", DEFAULT_SEVERITY) if rule is not None else DEFAULT_SEVERITY
    value = "note" if value == "info" else value  # advisory rules say "info"; SARIF calls it note
    return value if value in SEVERITIES else DEFAULT_SEVERITY
