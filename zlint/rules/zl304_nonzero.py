"""ZL304: ``nonzero()``, ``torch.argwhere`` and one-argument ``torch.where``: data-dependent sizes."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import NONZERO_FUNCTIONS
from zlint.rules.calls import keyword, positional, snippet
from zlint.rules.data_dependent import OUTPUT_SHAPE, CallRule


class Nonzero(CallRule):
    code = "ZL304"
    name = "nonzero"
    summary = "`nonzero()`, `torch.argwhere` or one-argument `torch.where(cond)`: the output size depends on the data"

    METHODS = frozenset({"nonzero", "argwhere"})
    FUNCTIONS = NONZERO_FUNCTIONS

    def check(self, node: cst.Call, name: str, is_method: bool) -> None:
        if name == "where" and (len(positional(node)) != 1 or len(node.args) != 1):
            return  # torch.where(cond, a, b) is elementwise: static size
        if is_method and name == "nonzero" and keyword(node, "size") is not None:
            return
        self.report(
            node,
            f"`{snippet(self.context, node)}` has a {OUTPUT_SHAPE}; use nonzero_static or a mask",
        )
