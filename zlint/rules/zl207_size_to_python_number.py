"""ZL207: a size handed to Python's number functions: ``math``/``numpy`` functions dynamo
evaluates on the concrete int (every release), and ``int()``/``float()``/``math.ceil()`` on
releases before 2.13."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import SIZE_CONVERSIONS, Kind, SizeFactsRule, torch_data
from zlint.rules.calls import positional, snippet
from zlint.rules.versioned import BeforeSymbolicRelease


class SizeToPythonNumber(BeforeSymbolicRelease, SizeFactsRule):
    code = "ZL207"
    name = "size-to-python-number"
    summary = "A tensor size handed to `math`/`numpy` (or `int()`/`float()` before torch 2.13): specializes"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        name = func.value if isinstance(func, cst.Name) else self.context.imports.qualify(func)
        if name is None:
            return
        module, _, function = name.partition(".")
        if module in ("math", "numpy") and function and self._takes_size(node.args):
            if module == "math" and function in self._symbolic_math():
                pass  # a SymNode op: traced symbolically (the version-gated check below may apply)
            else:
                # measured on 2.14 (sizes 2..6): math.copysign/log/exp/pow/fabs and np.ceil/sqrt/
                # prod/int64 each took a graph per size; math.ceil/floor/sqrt/cos/log2 took none
                self.report(
                    node,
                    f"`{snippet(self.context, node)}` hands a size to `{name}`, which dynamo runs on the "
                    "concrete int: recompiles for every size; keep it integer arithmetic on the size "
                    "(n // k) or torch.sym_float(n)",
                )
                return
        if not self.applies or name not in SIZE_CONVERSIONS:
            return
        args = positional(node)
        fact = self.fact(args[0]) if len(args) == 1 else None
        if fact is None or fact.kind is not Kind.SIZE:
            return
        fix = "torch.sym_float(n)" if name == "float" else "n // k or torch.sym_int"
        self.report(
            node,
            f"`{snippet(self.context, node)}` turns a size into a number: recompiles for every size "
            f"before torch 2.13; use {fix}",
        )

    def _takes_size(self, args) -> bool:
        return any(not a.star and self.is_kind(a.value, Kind.SIZE) for a in args)

    def _symbolic_math(self) -> frozenset[str]:
        return torch_data(settings=self.context.settings).symbolic_math or frozenset()
