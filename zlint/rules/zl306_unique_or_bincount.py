"""ZL306: ``unique``, ``unique_consecutive``, ``bincount``: data-dependent output sizes."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import UNIQUE_FUNCTIONS
from zlint.rules.calls import snippet
from zlint.rules.data_dependent import OUTPUT_SHAPE, CallRule


class UniqueOrBincount(CallRule):
    code = "ZL306"
    name = "unique-or-bincount"
    summary = "`torch.unique`, `unique_consecutive` or `bincount`: the output size depends on the data"

    METHODS = UNIQUE_FUNCTIONS
    FUNCTIONS = METHODS

    def check(self, node: cst.Call, name: str, is_method: bool) -> None:
        if name == "bincount":
            fix = "scatter_add_ into a fixed-size tensor"
        else:
            fix = "keep the full tensor and use masks"
        self.report(node, f"`{snippet(self.context, node)}` has a {OUTPUT_SHAPE}; {fix}")
