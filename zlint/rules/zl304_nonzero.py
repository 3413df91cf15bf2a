"""ZL304: ``nonzero()``, ``torch.argwhere`` and one-argument ``torch.where``: data-dependent sizes."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import callee_name
from zlint.rules.calls import keyword, positional, snippet
from zlint.rules.data_dependent import OUTPUT_SHAPE, CallRule


class Nonzero(CallRule):
    code = "ZL304"
    trigger_words = frozenset({"nonzero", "argwhere", "where"})
    # torch.where(cond, a, b) is elementwise: only a call of one argument can report
    candidate = staticmethod(lambda s, _: s.data_dependent_call(
        Nonzero.FUNCTIONS, lambda call: callee_name(call) != "where" or len(call.args) + len(call.keywords) == 1
    ))
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
            f"`{snippet(self.context, node)}` has a {OUTPUT_SHAPE}; use nonzero_static or a mask",
        )
