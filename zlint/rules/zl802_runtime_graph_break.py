"""ZL802: torch.compile broke the graph.

Reported by ``zlint --verify`` only (:mod:`zlint.verify.runner`), at lines no static rule
flagged; registered so that the code has a doc, shows in ``zlint rules`` and obeys
``--select``/``--ignore``/``noqa`` like any other. Its doc marks examples ``# verify: ZL802``.
"""

code = "ZL802"
name = "runtime-graph-break"
summary = "--verify: torch.compile broke the graph at a line no rule flagged"
kind = "runtime"
