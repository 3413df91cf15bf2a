"""ZL419: an ``options=`` value whose literal type the inductor option does not accept."""

from __future__ import annotations

from zlint.rules.api import CompileCall, literal_type
from zlint.rules.compile_checks import CompileCallRule, version_note

# torch checks isinstance(value, declared type): a bool is an int, an int is not a float
_ACCEPTS = {"bool": {"bool"}, "int": {"int", "bool"}, "float": {"float"}, "str": {"str"}}


class InductorOptionWrongType(CompileCallRule):
    code = "ZL419"
    about_compiled_code = False  # about a call site, wherever it sits
    name = "inductor-option-wrong-type"
    summary = "torch.compile(options={...}) value of a type the inductor option rejects"

    def check(self, call: CompileCall) -> None:
        items = call.option_items()
        if not items or not call.backend_is_inductor():
            return
        for item in items:
            declared = self.data.option_type(item.key)
            given = literal_type(item.value)
            if not declared or given is None or given in _ACCEPTS[declared]:
                continue
            self.report(
                item.value,
                f"option {item.key!r} takes a {declared} on {version_note(self.data)}, not a {given}: "
                "raises RuntimeError",
            )
