"""ZL414: keyword (or extra positional) arguments that torch.compile does not take."""

from __future__ import annotations

from zlint.rules.api import CompileCall
from zlint.rules.compile_checks import CompileCallRule, did_you_mean, version_note


class UnknownCompileArgument(CompileCallRule):
    code = "ZL414"
    about_compiled_code = False  # about a call site, wherever it sits
    name = "unknown-compile-argument"
    summary = "torch.compile() given an argument it does not take (TypeError)"

    def check(self, call: CompileCall) -> None:
        if not call.qualified:  # x.compile(...): the receiver may have a compile() of its own
            return
        params = self.data.compile_parameters
        for keyword, arg in call.keywords.items():
            if keyword in params:
                continue
            self.report(
                arg,
                f"torch.compile() takes no `{keyword}=` in {version_note(self.data)}: raises TypeError; "
                + (did_you_mean(keyword, params).strip(" ()") or "remove it"),
            )
        for arg in call.positional[self.data.compile_positional:]:
            self.report(
                arg,
                "torch.compile() takes only the model positionally: raises TypeError; pass this by keyword",
            )
