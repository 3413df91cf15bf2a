"""ZL417 (info): raising dynamo's recompile limits far above the default hides recompile storms."""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from zlint.rules.api import compile_call, dotted_name, literal_string
from zlint.rules.compile_checks import TorchDataRule

CONFIG = "torch._dynamo.config"
#: "far above": this many times the default; a limit of 2x-4x is an ordinary adjustment
FACTOR = 8
_BIG = 10**18


def constant_int(node: cst.BaseExpression, imports) -> int | None:
    """The value of a literal integer expression (``1_000_000``, ``10**6``, ``1e6``, ``sys.maxsize``)."""
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if isinstance(node, cst.Float):
        value = node.evaluated_value
        return int(value) if value == value and abs(value) < _BIG else _BIG
    if isinstance(node, cst.BinaryOperation):
        left, right = constant_int(node.left, imports), constant_int(node.right, imports)
        if left is None or right is None:
            return None
        if isinstance(node.operator, cst.Power) and 0 <= right < 64:
            return min(left**right, _BIG)
        if isinstance(node.operator, cst.Multiply):
            return min(left * right, _BIG)
        if isinstance(node.operator, cst.LeftShift) and 0 <= right < 64:
            return min(left << right, _BIG)
        return None
    qual = imports.qualify(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
    if qual == "sys.maxsize" or qual in ("math.inf", "numpy.inf"):
        return _BIG
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "float":
        if node.args and literal_string(node.args[0].value) in ("inf", "+inf", "infinity"):
            return _BIG
    return None


class RaisedRecompileLimit(TorchDataRule):
    code = "ZL417"
    about_compiled_code = False  # about a call site, wherever it sits
    name = "raised-recompile-limit"
    summary = "dynamo's cache_size_limit/recompile_limit raised far above the default (info)"
    #: advisory: the code runs, but hides a problem (SARIF/JSON writers may map it to "note")
    severity: ClassVar[str] = "info"

    def _check(self, key: str, value: cst.BaseExpression, anchor: cst.CSTNode, per_call: bool = False) -> None:
        default = self.data.limits.get(key)
        if default is None:
            return
        number = constant_int(value, self.context.imports)
        if number is None or number < FACTOR * default:
            return
        shown = "unlimited" if number >= _BIG else f"{number:,}"
        where = " for this torch.compile call" if per_call else ""
        self.report(
            anchor,
            f"{key} raised to {shown}{where} (default {default}) hides recompiles; find them with "
            "TORCH_LOGS=recompiles",
        )

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            qual = self.context.imports.qualify(target.target) if isinstance(target.target, cst.Attribute) else None
            if qual and qual.startswith(CONFIG + "."):
                self._check(qual[len(CONFIG) + 1:], node.value, target.target)

    def visit_Call(self, node: cst.Call) -> None:
        imports = self.context.imports
        call = compile_call(node, imports)
        if call is not None:
            arg = call.keywords.get("recompile_limit")
            if arg is not None:
                self._check("recompile_limit", arg.value, arg, per_call=True)
            return
        func = imports.qualify(node.func)
        if func == CONFIG + ".patch":
            positional = [a for a in node.args if a.keyword is None and not a.star]
            if len(positional) == 2:
                key = literal_string(positional[0].value)
                if key:
                    self._check(key, positional[1].value, positional[1])
            elif len(positional) == 1 and isinstance(positional[0].value, cst.Dict):
                self._dict(positional[0].value)
            for arg in node.args:
                if arg.keyword is not None:
                    self._check(arg.keyword.value, arg.value, arg)
        elif func == CONFIG + ".update" and node.args and isinstance(node.args[0].value, cst.Dict):
            self._dict(node.args[0].value)
        elif isinstance(node.func, cst.Name) and node.func.value == "setattr" and len(node.args) == 3:
            if imports.qualify(node.args[0].value) == CONFIG or dotted_name(node.args[0].value) == CONFIG:
                key = literal_string(node.args[1].value)
                if key:
                    self._check(key, node.args[2].value, node.args[2])

    def _dict(self, value: cst.Dict) -> None:
        for element in value.elements:
            if isinstance(element, cst.DictElement):
                key = literal_string(element.key)
                if key:
                    self._check(key, element.value, element)
