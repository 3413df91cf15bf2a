"""ZL413: an ``options=`` key that is not an inductor config key of the target torch version."""

from __future__ import annotations

from zlint.rules.api import CompileCall
from zlint.rules.compile_checks import CompileCallRule, did_you_mean, version_note


class UnknownInductorOption(CompileCallRule):
    code = "ZL413"
    about_compiled_code = False  # about a call site, wherever it sits
    name = "unknown-inductor-option"
    summary = "torch.compile(options={...}) has a key that is not an inductor option"

    def check(self, call: CompileCall) -> None:
        items = call.option_items()
        if not items or not call.backend_is_inductor():
            return
        for item in items:
            if self.data.has_option(item.key):
                continue
            hint = did_you_mean(item.key.replace("-", "_"), self.data.inductor_options)
            self.report(
                item.key_node,
                f"{item.key!r} is no inductor option on {version_note(self.data)}: raises RuntimeError; "
                + (hint.strip(" ()") or "see torch._inductor.list_options()"),
            )
