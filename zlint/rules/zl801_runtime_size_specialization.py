"""ZL801: torch.compile guarded, specialized or recompiled on a size.

Reported by ``zlint --verify`` only (:mod:`zlint.verify.runner`), at lines no static rule
flagged; registered so that the code has a doc, shows in ``zlint rules`` and obeys
``--select``/``--ignore``/``noqa`` like any other. Its doc marks examples ``# verify: ZL801``.
"""

code = "ZL801"
name = "runtime-size-specialization"
summary = "--verify: torch.compile guarded, specialized or recompiled on a size at a line no rule flagged"
kind = "runtime"
