"""ZL401: a compiled callable is fed new inputs in a loop, and nothing marks their dims dynamic."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import PositionProvider

from zlint.rules.api import Applicability, CompileSite, Dynamic, Edit, Fix, Frame
from zlint.rules.compiled_calls import CompiledCallRule


class MissingMarkDynamic(CompiledCallRule):
    code = "ZL401"
    about_compiled_code = False  # about a call site, wherever it sits
    name = "missing-mark-dynamic"
    summary = "A compiled callable is called in a loop on new tensors never marked dynamic, with `dynamic=` unset"

    def compiled_call(self, call: cst.Call, site: CompileSite, frame: Frame) -> None:
        if site.dynamic is not Dynamic.UNSET:
            return
        for arg in self.varying_args(call, frame):
            text = self.text_of(arg)
            torch = self.context.compiled_scope.torch_name or "torch"
            suggestion = f"{torch}._dynamo.maybe_mark_dynamic({text}, 0)"
            self.report(
                arg,
                f"`{text}` varies in a loop: recompiles at the first new size; add `{suggestion}`",
                fix=self._fix(call, suggestion),
            )

    def _fix(self, call: cst.Call, suggestion: str) -> Fix | None:
        statement = self.statement_of(call)
        if statement is None or self.context.compiled_scope.torch_name is None or not self.indents:
            return None
        line = self.get_metadata(PositionProvider, statement).start.line
        newline = self.context.module.default_newline
        return Fix(
            f"insert `{suggestion}`",
            (Edit(line, 0, line, 0, f"{self.indent}{suggestion}{newline}"),),
            Applicability.UNSAFE,
        )
