"""ZL210: a size handed to an op argument that torch takes as a plain number.

An ATen op's schema says, argument by argument, whether it takes a symbolic size (``SymInt``,
``SymInt[]``, ``Scalar``) or a plain number (``int``, ``int[2]``, ``float?``). Dynamo hands a
symbolic size to the first kind as it is; for the second it must make the size concrete, so it
guards on its value and compiles one graph per size. Measured with the workloads' oracle on torch
2.14.1 (sizes 4..13): ``torch.linspace(-1, 1, w)`` (``int steps``), ``F.avg_pool2d(x, (h, w))`` and
``F.max_pool2d(x, kernel_size=x.shape[2:])`` (``int[2] kernel_size``), ``F.one_hot(t, num_classes=n)``,
``x.unfold(1, n, 1)``, ``torch.histc(x, bins=n)`` and ``F.pad(x, p, value=n - 1)`` (``float?
value``) each took a graph per size; ``torch.tril(x, n)``, ``torch.kthvalue(x, n)`` (``SymInt``),
``torch.arange(n)`` and ``torch.full((1,), n)`` (``Scalar``) took one. Which arguments are plain
numbers is read from the targeted torch's schemas (``TorchData.concrete_arguments``).
"""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import OUTPUT_COUNT_OPS, Kind, SizeFactsRule, torch_data
from zlint.rules.calls import snippet

#: what takes the size symbolically instead, where one op is the usual way out
ALTERNATIVES = {
    "avg_pool1d": "a global pool is `F.adaptive_avg_pool1d(x, 1)` (or `x.mean(-1, keepdim=True)`)",
    "avg_pool2d": "a global pool is `F.adaptive_avg_pool2d(x, 1)` (or `x.mean((2, 3), keepdim=True)`)",
    "avg_pool3d": "a global pool is `F.adaptive_avg_pool3d(x, 1)`",
    "max_pool1d": "a global pool is `x.amax(-1, keepdim=True)`",
    "max_pool2d": "a global pool is `x.amax((2, 3), keepdim=True)`",
    "max_pool3d": "a global pool is `x.amax((2, 3, 4), keepdim=True)`",
    "linspace": "`start + torch.arange(n) * ((end - start) / (n - 1))` takes the size symbolically",
}


class SizeToPlainNumberArgument(SizeFactsRule):
    code = "ZL210"
    name = "size-to-plain-number-argument"
    summary = "A size handed to an op argument torch takes as a plain number (`torch.linspace(0, 1, w)`): recompiles"
    # the arguments are hyperparameters (classes, bins, windows, kernels): on code never tuned on,
    # 5 of 32 sizes passed there varied, the rest were fixed by weights or configuration, which
    # the size facts cannot tell apart yet (judged with a repro each): opt-in, best with a workload
    default_enabled = False

    #: the targeted torch's table (:attr:`TorchData.concrete_arguments`), read once per file
    _table: dict[str, dict[str, int]] = {}

    def visit_Module(self, node: cst.Module) -> None:
        self._table = torch_data(settings=self.context.settings).concrete_arguments or {}

    def visit_Call(self, node: cst.Call) -> None:
        spelling = self._spelling(node.func)
        if spelling is None:
            return
        arguments = self._table.get(spelling)
        if not arguments:
            return
        positional = [arg for arg in node.args if arg.keyword is None]
        if any(arg.star for arg in node.args):
            positional = []  # `f(*args)`: the positions are not known
        for name, place in sorted(arguments.items(), key=lambda item: item[1] if item[1] >= 0 else 99):
            value = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == name), None)
            if value is None and 0 <= place < len(positional):
                value = positional[place].value
            if value is not None and self._holds_size(value):
                op = spelling.rsplit(".", 1)[-1]
                advice = ALTERNATIVES.get(op, "pass a size only where torch takes one symbolically, or keep it static")
                self.report(
                    node,
                    f"`{snippet(self.context, node)}` hands a size to `{name}`, which `{op}` takes as a plain "
                    f"number: recompiles for every size; {advice}",
                )
                return

    def _spelling(self, func: cst.BaseExpression) -> str | None:
        """``torch.linspace``, ``torch.nn.functional.avg_pool2d``, or ``Tensor.unfold`` for a method
        called on a tensor; None for anything else and for the ops ZL204 owns (``chunk``)."""
        qualified = self.context.imports.qualify(func)
        if qualified is not None and qualified.startswith("torch."):
            spelling = qualified
        elif isinstance(func, cst.Attribute) and self.is_kind(func.value, Kind.TENSOR):
            spelling = f"Tensor.{func.attr.value}"
        else:
            return None
        return None if spelling.rsplit(".", 1)[-1] in OUTPUT_COUNT_OPS else spelling

    def _holds_size(self, value: cst.BaseExpression) -> bool:
        """A size, a shape or a list of sizes (``x.size(2)``, ``x.shape[2:]``, ``(h, w)``)."""
        if isinstance(value, (cst.Tuple, cst.List)):
            return any(self._holds_size(element.value) for element in value.elements)
        fact = self.fact(value)
        if fact is None:
            return False
        return (
            fact.kind is Kind.SIZE
            or (fact.kind is Kind.SHAPE and not fact.fixed)
            or (fact.kind is Kind.CONTAINER and fact.sizes)
        )
