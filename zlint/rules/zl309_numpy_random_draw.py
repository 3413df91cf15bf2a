"""ZL309: a ``numpy.random`` draw in compiled code that breaks the graph.

Dynamo traces numpy through torch's own numpy layer (``torch._numpy``): a draw becomes a torch op
on a tensor. Measured with the workloads' oracle on torch 2.13.0 and 2.14.1 (sizes 2..8): a draw
with no size (``np.random.random()``, ``np.random.uniform(0, 1)``, ``np.random.choice([1, 2])``)
returns a Python number, read back out of the graph (a graph break at the call, every call); an
array drawn and read back (``np.random.rand(1).item()``, ``float(...)``) breaks at the read; a
function the layer lacks (``np.random.permutation``, ``np.random.beta``) breaks at the call
("attempted to trace numpy function unsupported by PyTorch"). An array drawn and kept as an array
(``np.random.rand(3)`` into ``torch.from_numpy``) traces without a break.
"""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import TRACED_NUMPY_RANDOM, VALUE_CONVERSIONS, Rule
from zlint.rules.calls import snippet

ADVICE = "draw with torch's generator (torch.rand, torch.randint, torch.randperm) and keep it a tensor"


class NumpyRandomDraw(Rule):
    code = "ZL309"
    name = "numpy-random-draw"
    summary = "A `numpy.random` draw in compiled code returns a Python number or cannot be traced: graph break"
    _numpy = False

    def visit_Module(self, node: cst.Module) -> None:
        self._numpy = self.context.imports.imports("numpy")

    def visit_Call(self, node: cst.Call) -> None:
        if not self._numpy:
            return  # no draw without an import of numpy
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "item" and not node.args:
            if self._array_draw(func.value):
                self._read_back(node)
            return
        if isinstance(func, cst.Name) and func.value in VALUE_CONVERSIONS and len(node.args) == 1:
            if self._array_draw(node.args[0].value):
                self._read_back(node)
            return
        function = self._numpy_random(node)
        if function is None:
            return
        if function not in TRACED_NUMPY_RANDOM:
            self.report(
                node,
                f"`{snippet(self.context, node)}`: dynamo cannot trace `numpy.random.{function}`: graph break; "
                f"{ADVICE}",
            )
        elif not self._draws_array(node, function) and TRACED_NUMPY_RANDOM[function] != -1:
            self.report(
                node,
                f"`{snippet(self.context, node)}` draws a Python number, which dynamo reads back out of the "
                f"graph: graph break; {ADVICE}",
            )

    def _read_back(self, node: cst.Call) -> None:
        self.report(
            node,
            f"`{snippet(self.context, node)}` reads a numpy draw back into Python: graph break; {ADVICE}",
        )

    def _numpy_random(self, node: cst.BaseExpression) -> str | None:
        """``rand`` for a call of ``numpy.random.rand`` (through any import of it)."""
        if not isinstance(node, cst.Call):
            return None
        qualified = self.context.imports.qualify(node.func) or ""
        module, _, function = qualified.rpartition(".")
        return function if module == "numpy.random" and function else None

    def _array_draw(self, node: cst.BaseExpression) -> bool:
        """A traced draw that returns an array (``np.random.rand(1)``)."""
        function = self._numpy_random(node)
        return function in TRACED_NUMPY_RANDOM and self._draws_array(node, function)  # type: ignore[arg-type]

    @staticmethod
    def _draws_array(node: cst.Call, function: str) -> bool:
        """Whether the draw is given a size: ``size=``, the positional argument at its place, or
        any positional argument of ``rand``/``randn``."""
        at = TRACED_NUMPY_RANDOM[function]
        if at == -1:
            return False
        if any(arg.star for arg in node.args):
            return True  # sizes unknown: give it the benefit of the doubt
        size = next((arg.value for arg in node.args if arg.keyword is not None and arg.keyword.value == "size"), None)
        if size is not None:
            return not (isinstance(size, cst.Name) and size.value == "None")
        positional = [arg for arg in node.args if arg.keyword is None]
        return bool(positional) if at is None else len(positional) > at
