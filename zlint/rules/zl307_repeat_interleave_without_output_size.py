"""ZL307: ``repeat_interleave`` with tensor repeats and no ``output_size``."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import REPEAT_INTERLEAVE, Kind
from zlint.rules.calls import keyword, positional, snippet
from zlint.rules.data_dependent import OUTPUT_SHAPE, CallRule


class RepeatInterleaveWithoutOutputSize(CallRule):
    code = "ZL307"
    name = "repeat-interleave-without-output-size"
    summary = "`repeat_interleave` with tensor repeats and no `output_size=`: the output size depends on the data"

    METHODS = REPEAT_INTERLEAVE
    FUNCTIONS = METHODS

    def check(self, node: cst.Call, name: str, is_method: bool) -> None:
        if keyword(node, "output_size") is not None:
            return
        args = positional(node)
        # torch.repeat_interleave(repeats) alone, else the repeats after the input
        if is_method:
            repeats = args[0] if args else keyword(node, "repeats")
        elif len(args) == 1 and len(node.args) == 1:
            repeats = args[0]
        else:
            repeats = args[1] if len(args) > 1 else keyword(node, "repeats")
        fact = self.fact(repeats) if repeats is not None else None
        # an int repeat count (repeat_interleave(n_rep, dim=1)) has a known output size
        if fact is None or fact.kind is not Kind.TENSOR:
            return
        self.report(
            node,
            f"`{snippet(self.context, node)}` repeats by a tensor: {OUTPUT_SHAPE}; pass output_size=",
        )
