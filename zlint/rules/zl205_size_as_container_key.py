"""ZL205: a size used as a key or index of a Python dict/list (``cache[(h, w)]``, ``{n: ...}``)."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import Kind, SizeFactsRule
from zlint.rules.calls import method_name, positional, snippet

LOOKUPS = frozenset({"get", "setdefault", "pop", "__getitem__", "__contains__"})


class SizeAsContainerKey(SizeFactsRule):
    code = "ZL205"
    name = "size-as-container-key"
    summary = "A tensor size used as a key or index of a Python dict or list"

    def _report(self, node: cst.CSTNode, key: cst.BaseExpression) -> None:
        self.report(
            node,
            f"`{snippet(self.context, key)}` is a size used as a container key: recompiles for every "
            "size; keep per-size caches outside compiled code",
        )

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return
        key = node.slice[0].slice.value
        if self.is_kind(node.value, Kind.CONTAINER) and self.holds_size(key):
            self._report(node, key)

    def visit_Dict(self, node: cst.Dict) -> None:
        for element in node.elements:
            if isinstance(element, cst.DictElement) and self.holds_size(element.key):
                self._report(element.key, element.key)

    def visit_Call(self, node: cst.Call) -> None:
        if method_name(node) not in LOOKUPS:
            return
        assert isinstance(node.func, cst.Attribute)
        args = positional(node)
        if args and self.is_kind(node.func.value, Kind.CONTAINER) and self.holds_size(args[0]):
            self._report(node, args[0])

    def visit_Comparison(self, node: cst.Comparison) -> None:
        left = node.left
        for target in node.comparisons:
            # `n in (1, 3)` on a literal is a comparison with constants: ZL1xx's finding
            literal = isinstance(target.comparator, (cst.List, cst.Set, cst.Tuple))
            membership = isinstance(target.operator, (cst.In, cst.NotIn))
            if membership and self.is_kind(target.comparator, Kind.CONTAINER) and not literal:
                if self.holds_size(left):
                    self._report(node, left)
                    return
            left = target.comparator
