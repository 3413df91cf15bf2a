"""ZL304: ``nonzero()``, ``torch.argwhere`` and one-argument ``torch.where``: data-dependent sizes."""

from __future__ import annotations

import libcst as cst

from zlint.rules.calls import keyword, positional
from zlint.rules.data_dependent import OUTPUT_SHAPE, CallRule


class Nonzero(CallRule):
    code = "ZL304"
    trigger_words = frozenset({"nonzero", "argwhere", "where"})
    name = "nonzero"
    summary = "`nonzero()`, `torch.argwhere` or one-argument `torch.where(cond)`: the output size depends on the data"

    METHODS = frozenset({"nonzero", "argwhere"})
    FUNCTIONS = frozenset({"nonzero", "argwhere", "where"})

    def check(self, node: cst.Call, name: str, is_method: bool) -> None:
        if name == "where" and (len(positional(node)) != 1 or len(node.args) != 1):
            return  # torch.where(cond, a, b) is elementwise: static size
        if is_method and name == "nonzero" and keyword(node, "size") is not None:
            return
        self.report(
            node,
            f"`{self.context.snippet(node)}`: {OUTPUT_SHAPE}; use torch.nonzero_static(x, "
            "size=k) with a known bound, or keep the mask and use torch.where(mask, a, b)",
        )
