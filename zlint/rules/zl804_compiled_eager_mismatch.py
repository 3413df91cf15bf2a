"""ZL804: the compiled function returned something other than eager.

Reported by ``zlint --verify`` only (:mod:`zlint.verify.runner`), at lines no static rule
flagged; registered so that the code has a doc, shows in ``zlint rules`` and obeys
``--select``/``--ignore``/``noqa`` like any other. Its doc marks examples ``# verify: ZL804``.
"""

code = "ZL804"
name = "compiled-eager-mismatch"
summary = "--verify: the compiled function returned something other than eager at some size"
kind = "runtime"
