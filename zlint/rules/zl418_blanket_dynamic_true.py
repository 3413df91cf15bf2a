"""ZL418 (opt-in): ``torch.compile(..., dynamic=True)`` makes every input dim dynamic up front."""

from __future__ import annotations

from zlint.rules.api import CompileCall, literal_bool
from zlint.rules.compile_checks import CompileCallRule


class BlanketDynamicTrue(CompileCallRule):
    code = "ZL418"
    about_compiled_code = False  # about a call site, wherever it sits
    name = "blanket-dynamic-true"
    summary = "torch.compile(dynamic=True) makes every dim dynamic; mark the dims that vary (opt-in)"
    default_enabled = False

    def check(self, call: CompileCall) -> None:
        arg = call.keywords.get("dynamic")
        if arg is None or literal_bool(arg.value) is not True:
            return
        self.report(
            arg,
            "dynamic=True makes every dim symbolic, even static ones; leave it unset and "
            "torch._dynamo.mark_dynamic the varying dims",
        )
