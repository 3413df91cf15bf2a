"""ZL801-ZL804: effects only ``zlint --verify`` sees, at lines no static rule flagged.

These rules never fire statically (no visit methods, no trigger words): they exist so that the
codes have docs, show in ``zlint rules`` and obey ``--select``/``--ignore``/``noqa`` like any
other. :mod:`zlint.verify.runner` reports them from what dynamo did.
"""

from __future__ import annotations

from typing import ClassVar

from zlint.rules.base import Rule


class _RuntimeOnly(Rule):
    #: reported by ``--verify`` only; the rule docs mark them ``# verify: ZL8xx``
    runtime_only: ClassVar[bool] = True
    trigger_words: ClassVar[frozenset[str] | None] = frozenset()
    function_local: ClassVar[bool] = True
    METADATA_DEPENDENCIES = ()


class RuntimeSizeSpecialization(_RuntimeOnly):
    code = "ZL801"
    name = "runtime-size-specialization"
    summary = "--verify: torch.compile guarded, specialized or recompiled on a size at a line no rule flagged"


class RuntimeGraphBreak(_RuntimeOnly):
    code = "ZL802"
    name = "runtime-graph-break"
    summary = "--verify: torch.compile broke the graph at a line no rule flagged"


class RuntimeCompileError(_RuntimeOnly):
    code = "ZL803"
    name = "runtime-compile-error"
    summary = "--verify: compiling failed (data-dependent guard, constraint violation) where eager runs"


class CompiledEagerMismatch(_RuntimeOnly):
    code = "ZL804"
    name = "compiled-eager-mismatch"
    summary = "--verify: the compiled function returned something other than eager at some size"


RUNTIME_RULES = (RuntimeSizeSpecialization, RuntimeGraphBreak, RuntimeCompileError, CompiledEagerMismatch)
