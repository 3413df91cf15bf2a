"""Shared per-file analysis on LibCST, computed once and read by every rule: which expressions are
sizes, shapes, tensors and masks (``size_facts``), how they are compared, loops and compile sites,
static dims, imports. The run-wide, ``ast``-only scope lives in :mod:`zlint.scope`.

A fact about nodes that rules share is a LibCST metadata provider here (``size_facts``,
``dynamic_dims.StaticDimsProvider``, ``condition_facts``): the rules that read it declare it in
``METADATA_DEPENDENCIES`` and a file computes it only when one of them runs. Every rule's
``context.imports`` comes from ``imports.file_imports``, filled by the engine for each file.
"""
