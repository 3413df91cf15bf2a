"""ZL410: ``mode=`` and ``options=`` given to one torch.compile call."""

from __future__ import annotations

from zlint.rules.api import CompileCall
from zlint.rules.compile_checks import CompileCallRule


class CompileModeWithOptions(CompileCallRule):
    code = "ZL410"
    about_compiled_code = False  # about a call site, wherever it sits
    name = "compile-mode-with-options"
    summary = "torch.compile() given both mode= and options= (RuntimeError)"

    def check(self, call: CompileCall) -> None:
        # literals only: a variable may hold None, which is allowed
        mode = call.literal_mode()
        if mode is None or not call.literal_options():
            return
        settings = self.data.modes.get(mode or "")
        move = f" ({mode!r} sets {settings})" if settings else ""
        self.report(
            call.keywords["options"],
            f"mode= with options= raises RuntimeError; drop `mode` or move its settings into `options`{move}",
        )
