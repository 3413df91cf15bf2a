"""ZL404: ``torch.compile(..., dynamic=False)`` on a callable fed new inputs in a loop."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import PositionProvider

from zlint.rules.api import CompileSite, Dynamic, Frame, Kind
from zlint.rules.compiled_calls import CompiledCallRule


class StaticCompileWithVaryingSizes(CompiledCallRule):
    code = "ZL404"
    about_compiled_code = False  # about a call site, wherever it sits
    name = "static-compile-with-varying-sizes"
    summary = "`torch.compile(..., dynamic=False)` on a callable called in a loop on new tensors"

    def __init__(self, context) -> None:
        super().__init__(context)
        self._done: set[int] = set()

    def compiled_call(self, call: cst.Call, site: CompileSite, frame: Frame) -> None:
        if site.dynamic is not Dynamic.FALSE or site.dynamic_arg is None or id(site) in self._done:
            return
        args = self.varying_args(call, frame)
        if not args:
            return
        self._done.add(id(site))
        # name a tensor if the facts know one (a loop can also pass strings or modules)
        tensors = [a for a in args if getattr(self.fact(a), "kind", None) is Kind.TENSOR]
        args = tensors or args
        line = self.get_metadata(PositionProvider, call).start.line
        self.report(
            site.dynamic_arg,
            f"`dynamic=False` with new sizes in a loop (line {line}): recompiles for every size; "
            "drop it",
        )
