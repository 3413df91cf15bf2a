"""ZL306: ``unique``, ``unique_consecutive``, ``bincount``: data-dependent output sizes."""

from __future__ import annotations

import libcst as cst

from zlint.rules.calls import keyword
from zlint.rules.data_dependent import OUTPUT_SHAPE, CallRule


class UniqueOrBincount(CallRule):
    code = "ZL306"
    trigger_words = frozenset({"unique", "unique_consecutive", "bincount"})
    name = "unique-or-bincount"
    summary = "`torch.unique`, `unique_consecutive` or `bincount`: the output size depends on the data"

    METHODS = frozenset({"unique", "unique_consecutive", "bincount"})
    FUNCTIONS = METHODS

    def check(self, node: cst.Call, name: str, is_method: bool) -> None:
        if name == "bincount":
            fix = "pass a minlength that bounds the values and slice, or use scatter_add_ into a fixed-size tensor"
            if keyword(node, "minlength") is not None:
                fix = "minlength is only a lower bound; use scatter_add_ into a fixed-size tensor"
        else:
            fix = "keep the full tensor and work with masks or a sort, or do this outside compiled code"
        self.report(node, f"`{self.context.snippet(node)}`: {OUTPUT_SHAPE}; {fix}")
