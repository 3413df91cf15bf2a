"""ZL204: ``unbind``/``split``/``chunk``/``tensor_split`` whose number of outputs follows a size."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import OUTPUT_COUNT_OPS, Kind, SizeFactsRule, int_literal, visit
from zlint.rules.calls import keyword, method_name, positional, snippet, torch_function


class OutputCountDependsOnSize(SizeFactsRule):
    code = "ZL204"
    name = "output-count-depends-on-size"
    summary = "`unbind`/`split`/`chunk`/`tensor_split` whose number of outputs depends on a size"

    def __init__(self, context) -> None:
        super().__init__(context)
        # `a, b = x.split(n)`: the code itself fixes the count (anything else fails in eager)
        self._unpacked: set[int] = set()
        #: per function: names its code unpacks into a fixed number of targets
        self._unpacked_by_function: dict[int, frozenset[str]] = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        if any(isinstance(t.target, (cst.Tuple, cst.List)) for t in node.targets):
            self._unpacked.add(id(node.value))
        elif self.context.functions and isinstance(node.value, cst.Call) and any(
            isinstance(t.target, cst.Name) and t.target.value in self._unpacked_names() for t in node.targets
        ):
            # `e = t.chunk(6, dim=1)` then `a, b, c, d, f, g = [x.squeeze(1) for x in e]`
            self._unpacked.add(id(node.value))

    def _unpacked_names(self) -> frozenset[str]:
        function = self.context.functions[-1]
        found = self._unpacked_by_function.get(id(function))
        if found is None:
            finder = _UnpackedNames()
            visit(function.body, finder)
            found = self._unpacked_by_function[id(function)] = frozenset(finder.names)
        return found

    def visit_Call(self, node: cst.Call) -> None:
        if id(node) in self._unpacked:
            return
        fn = torch_function(node, self.context.imports)
        args = positional(node)
        if fn in OUTPUT_COUNT_OPS:
            op, tensor, rest = fn, (args[0] if args else None), args[1:]
        else:
            op = method_name(node)
            if op not in OUTPUT_COUNT_OPS:
                return
            assert isinstance(node.func, cst.Attribute)
            tensor, rest = node.func.value, args
            fact = self.fact(tensor)
            if op == "split" and (fact is None or fact.kind is not Kind.TENSOR) and keyword(node, "dim") is None:
                return  # str.split and friends: only a known tensor or an explicit dim
            if (fact is None or fact.kind is not Kind.TENSOR) and not self.context.imports.imports_torch:
                return
        if op == "unbind":
            dim = rest[0] if rest else keyword(node, "dim")
            pieces = None
        else:
            pieces = rest[0] if rest else keyword(node, "split_size_or_sections" if op == "split" else (
                "chunks" if op == "chunk" else "indices_or_sections"))
            if op == "split" and pieces is None:
                pieces = keyword(node, "split_size")
            dim = rest[1] if len(rest) > 1 else keyword(node, "dim")
        if int_literal(dim) == -1:
            return  # the last dim is the feature dim in model code: static
        fact = self.fact(tensor) if tensor is not None else None
        if fact is not None and (fact.fixed or int_literal(dim) in fact.static_dims):
            # split along channels into a conv, features into a Linear: fixed by weights; any dim
            # of a parameter (or a view of static sizes): measured, no graph as inputs vary
            return
        if op != "unbind":
            count = int_literal(pieces)
            if op == "chunk":
                # chunk(2) gives 2 pieces for every size >= 2 (measured: no extra graph)
                if not (self.is_kind(pieces, Kind.SIZE) or (count is not None and count >= 3)):
                    return
            elif not (self.is_kind(pieces, Kind.SIZE) or count is not None):
                return  # a list of sizes fixes the count; an unknown value may be a list
        self.report(
            node,
            f"`{snippet(self.context, node)}` makes a size-dependent number of tensors: recompiles "
            "per count; use narrow",
        )


class _UnpackedNames(cst.CSTVisitor):
    """Names unpacked into a tuple of targets, whole (``a, b = parts``) or through a
    comprehension over them (``a, b = [p.squeeze(1) for p in parts]``)."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        if not any(isinstance(t.target, (cst.Tuple, cst.List)) for t in node.targets):
            return
        value = node.value
        if isinstance(value, (cst.ListComp, cst.GeneratorExp)) and value.for_in.inner_for_in is None:
            value = value.for_in.iter
        if isinstance(value, cst.Name):
            self.names.add(value.value)
