"""ZL403: ``mark_dynamic(x, d)`` on a dim the compiled function then specializes."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import PositionProvider

from zlint.rules.api import Applicability, CompileSite, Edit, Fix, Frame, positional_params, specializing_use
from zlint.rules.compiled_calls import CompiledCallRule


class MarkDynamicOnSpecializedDim(CompiledCallRule):
    code = "ZL403"
    about_compiled_code = False  # about a call site, wherever it sits
    name = "mark-dynamic-on-specialized-dim"
    summary = "`mark_dynamic(x, d)` on a dim the compiled function specializes (ConstraintViolationError)"

    def __init__(self, context) -> None:
        super().__init__(context)
        self._done: set[int] = set()

    def compiled_call(self, call: cst.Call, site: CompileSite, frame: Frame) -> None:
        marks = [
            m for m in frame.marks
            if m.kind == "mark_dynamic" and m.dim is not None and id(m.call) not in self._done
        ]
        if not marks:
            return
        function = self.context.compiled_scope.root_function(site)
        if function is None:
            return
        params = positional_params(function)
        positional = [a.value for a in call.args if a.keyword is None and not a.star]
        for index, arg in enumerate(positional):
            if index >= len(params):
                break
            text = self.text_of(arg)
            for mark in marks:
                if mark.target != text or id(mark.call) in self._done:
                    continue
                use = specializing_use(function, params[index], mark.dim)
                if use is None:
                    continue
                self._done.add(id(mark.call))
                line = self.get_metadata(PositionProvider, use).start.line
                self.report(
                    mark.call,
                    f"`mark_dynamic({text}, {mark.dim})` but line {line} specializes that dim: raises "
                    "ConstraintViolationError; use maybe_mark_dynamic",
                    fix=self._fix(mark.call),
                )

    def _fix(self, call: cst.Call) -> Fix | None:
        func = call.func
        # `from torch._dynamo import mark_dynamic`: renaming the call alone would not resolve
        name = func.attr if isinstance(func, cst.Attribute) else None
        if name is None or name.value != "mark_dynamic":
            return None
        pos = self.get_metadata(PositionProvider, name)
        return Fix(
            "use `maybe_mark_dynamic`",
            (Edit(pos.start.line, pos.start.column, pos.end.line, pos.end.column, "maybe_mark_dynamic"),),
            Applicability.SAFE,
        )
