"""ZL308: ``torch._check_tensor_all(cond)`` reads the whole condition tensor into Python, and so
does a function of the run that hands it its first argument (a check wrapper)."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import TENSOR_CHECKS, Kind, SizeFactsRule, dotted_name, tensor_check_need
from zlint.rules.calls import snippet
from zlint.rules.data_dependent import SCALAR


class CheckTensorAll(SizeFactsRule):
    code = "ZL308"
    name = "check-tensor-all"
    summary = "`torch._check_tensor_all(cond)` reads a tensor condition into Python: graph break"

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.imports.qualify(node.func) or ""
        head, _, function = qualified.rpartition(".")
        if head != "torch" or function not in TENSOR_CHECKS:
            return
        self.report(
            node,
            f"`{snippet(self.context, node)}` reads its condition tensor into Python: {SCALAR}; "
            "use `torch._assert_async(cond.all(), msg)`",
        )

    def visit_Expr(self, node: cst.Expr) -> None:
        # `check(n_tokens == feats.shape[0], "mismatch")` as a statement: a tensor condition handed
        # to a function; whether that function is a tensor check only the run's index can tell
        # (the wrapper lives in another file), so the finding needs that fact
        call = node.value
        if not isinstance(call, cst.Call) or not call.args or call.args[0].keyword or call.args[0].star:
            return
        # a function by its name, or through an imported module (`utils.check(...)`): a check is
        # a module's function, never a method of a local object (`out.append(t)`)
        name = dotted_name(call.func)
        qualified = self.context.imports.qualify(call.func)
        if not name or ("." in name and qualified is None) or (qualified or "").startswith("torch."):
            return
        if not self.is_kind(call.args[0].value, Kind.TENSOR):
            return
        self.report(
            call,
            f"`{snippet(self.context, call)}` hands a tensor condition to `{name}`, which reads it with "
            f"torch._check_tensor_all: {SCALAR}; check sizes, or use `torch._assert_async(cond.all(), msg)`",
            needs=tensor_check_need(name),
        )
