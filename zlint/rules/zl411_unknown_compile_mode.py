"""ZL411: a ``mode=`` string that is not a compile mode of the target torch version."""

from __future__ import annotations

from zlint.rules.api import CompileCall, literal_string
from zlint.rules.compile_checks import CompileCallRule, did_you_mean, version_note


class UnknownCompileMode(CompileCallRule):
    code = "ZL411"
    about_compiled_code = False  # about a call site, wherever it sits
    name = "unknown-compile-mode"
    summary = "torch.compile(mode=...) names a mode the torch version does not have"

    def check(self, call: CompileCall) -> None:
        arg = call.keywords.get("mode")
        mode = literal_string(arg.value) if arg is not None else None
        # another backend receives mode= itself and may define its own modes
        if mode is None or mode in self.data.modes or not call.backend_is_inductor():
            return
        self.report(
            arg.value,
            f"mode={mode!r} raises RuntimeError on {version_note(self.data)}; "
            + (did_you_mean(mode, self.data.modes).strip(" ()") or "see torch._inductor.list_mode_options()"),
        )
