"""Shared per-file analysis on LibCST, computed once and read by every rule: which expressions are
sizes, shapes, tensors and masks (``size_facts``, the metadata provider the rules read), how they
are compared, loops and compile sites, static dims, imports. The run-wide, ``ast``-only scope
lives in :mod:`zlint.scope`.
"""
