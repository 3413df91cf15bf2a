"""Shared per-file analysis, computed once and read by every rule.

A fact about nodes that rules share is a LibCST metadata provider here (``size_facts``,
``dynamic_dims.StaticDimsProvider``, ``condition_facts``): the rules that read it declare it in
``METADATA_DEPENDENCIES`` and a file computes it only when one of them runs. Every rule's
``context.imports`` comes from ``imports.file_imports``, filled by the engine for each file.

The package itself imports nothing: the project-wide scope (``project_scope``, ``ast`` only)
loads without LibCST, which the per-file facts (``size_facts``) need.
"""
