"""ZL803: compiling failed where eager runs.

Reported by ``zlint --verify`` only (:mod:`zlint.verify.runner`), at lines no static rule
flagged; registered so that the code has a doc, shows in ``zlint rules`` and obeys
``--select``/``--ignore``/``noqa`` like any other. Its doc marks examples ``# verify: ZL803``.
"""

code = "ZL803"
name = "runtime-compile-error"
summary = "--verify: compiling failed (data-dependent guard, constraint violation) where eager runs"
kind = "runtime"
