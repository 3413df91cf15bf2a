"""Shared per-file analysis, computed once and read by every rule.

The package itself imports nothing: the project-wide scope (``project_scope``, ``ast`` only)
loads without LibCST, which the per-file facts (``size_facts``) need.
"""
