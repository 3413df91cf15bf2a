"""The rules' gates: per rule code, what the fast path (:mod:`zlint.engine.prepass`) and the
candidate stage (:mod:`zlint.candidates.stage`) may assume about where the rule can report.

A gate is declared here, once, and not on the rule class: :class:`zlint.rules.base.Rule` binds
``trigger_words``, ``candidate`` and ``may_report`` from the gate of its ``code`` when the class
is defined, and the engine reads the gates of the enabled codes without importing any rule
module, so that a file in which no rule can report is linted without loading LibCST. The gates
sit by family (``sizes``: ZL1xx and ZL2xx, ``data_dependent``: ZL3xx, ``compile_setup``:
ZL4xx), with the words a gate and its rule's visitor share (a rule imports them through
``zlint.rules.api``).
"""

from __future__ import annotations

from zlint.candidates.gates import compile_setup, data_dependent, sizes
from zlint.candidates.gates.gate import Gate

GATES: dict[str, Gate] = {gate.code: gate for family in (sizes, data_dependent, compile_setup) for gate in family.GATES}


def gate_of(code: str) -> Gate:
    """The gate of rule ``code``; an open one (the rule always runs, on whole files) for a rule
    that declares none."""
    found = GATES.get(code)
    return found if found is not None else Gate(code)
