"""ZL402: ``mark_dynamic`` & co called inside compiled code or a ``forward``."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import Rule, mark_kind


class MarkDynamicInCompiledCode(Rule):
    code = "ZL402"
    name = "mark-dynamic-in-compiled-code"
    summary = "`mark_dynamic`/`maybe_mark_dynamic`/`mark_unbacked` called inside compiled code or `forward`"

    def visit_Call(self, node: cst.Call) -> None:
        kind = mark_kind(self.context.imports.qualify(node.func))
        if kind is None:
            return
        scope = self.context.scope
        in_forward = "forward" in scope[1:]
        if not in_forward and not self.context.compiled_scope.contains(self.context.function):
            return
        where = "a `forward`" if in_forward else "compiled code"
        self.report(
            node,
            f"`{kind}` inside {where} raises (forbidden callable); mark inputs before the call",
        )
