"""Workloads: what a real run of the user's program did, for the linter to weigh its findings by.

``recording`` watches a run (which lines ran, which sizes each function's parameters held) and
writes the workload file; ``model`` reads one back. Neither imports torch: a tensor is known by
the ``torch`` module the program itself imported.
"""
