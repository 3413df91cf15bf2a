"""ZL406: a ``torch.export`` example input has a literal size 0 or 1 on a dim declared dynamic."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import Rule, int_literal

EXPORTS = frozenset({"torch.export.export", "torch.export.export_for_training", "torch.export.draft_export"})
_FACTORIES = frozenset({"randn", "rand", "zeros", "ones", "empty", "full", "randint", "randn_like"})


def _elements(node: cst.BaseExpression | None) -> list[cst.BaseExpression] | None:
    if isinstance(node, (cst.Tuple, cst.List)):
        return [e.value for e in node.elements if not isinstance(e, cst.StarredElement)]
    return None


class ExportExampleSizeOne(Rule):
    code = "ZL406"
    about_compiled_code = False  # about a call site, wherever it sits
    name = "export-example-size-one"
    summary = "A `torch.export` example input has size 0 or 1 on a dim declared dynamic"

    def __init__(self, context) -> None:
        super().__init__(context)
        self.bindings: list[dict[str, cst.BaseExpression]] = [{}]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.bindings.append({})

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.bindings.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.bindings[-1][target.target.value] = node.value

    def lookup(self, node: cst.BaseExpression | None) -> cst.BaseExpression | None:
        for _ in range(3):  # a few hops: a = b; b = (...)
            if isinstance(node, cst.Name):
                for scope in reversed(self.bindings):
                    if node.value in scope:
                        node = scope[node.value]
                        break
                else:
                    return node
        return node

    def sizes(self, example: cst.BaseExpression | None) -> list[cst.BaseExpression] | None:
        """The literal-or-not size expressions a torch factory call builds the example with."""
        example = self.lookup(example)
        if not isinstance(example, cst.Call):
            return None
        qual = self.context.imports.qualify(example.func) or ""
        last = qual.rsplit(".", 1)[-1]
        if not qual.startswith("torch.") or last not in _FACTORIES or last == "randn_like":
            return None
        positional = [a.value for a in example.args if a.keyword is None and not a.star]
        keyword = {a.keyword.value: a.value for a in example.args if a.keyword is not None}
        if last == "randint":
            size = keyword.get("size", positional[-1] if positional else None)
            return _elements(size)
        if "size" in keyword:
            return _elements(keyword["size"])
        if positional and _elements(positional[0]) is not None:
            return _elements(positional[0])
        return positional if last != "full" else None

    def dynamic_dims(self, spec: cst.BaseExpression | None) -> list[tuple[int, cst.BaseExpression]]:
        spec = self.lookup(spec)
        out: list[tuple[int, cst.BaseExpression]] = []
        if isinstance(spec, cst.Dict):
            for element in spec.elements:
                if isinstance(element, cst.DictElement) and int_literal(element.key) is not None:
                    out.append((int_literal(element.key), element.value))
        elif _elements(spec) is not None:
            out = list(enumerate(_elements(spec)))
        return [
            (d, v) for d, v in out
            if not (isinstance(v, cst.Name) and v.value == "None") and int_literal(v) is None
        ]

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.imports.qualify(node.func) not in EXPORTS:
            return
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        keyword = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        examples = _elements(self.lookup(keyword.get("args", positional[1] if len(positional) > 1 else None)))
        shapes = self.lookup(keyword.get("dynamic_shapes"))
        if examples is None or shapes is None:
            return
        if isinstance(shapes, cst.Dict):
            specs = [e.value for e in shapes.elements if isinstance(e, cst.DictElement)]
        else:
            specs = _elements(shapes)
        if specs is None or len(specs) != len(examples):
            return
        for example, spec in zip(examples, specs):
            sizes = self.sizes(example)
            if sizes is None:
                continue
            for dim, _ in self.dynamic_dims(spec):
                if 0 <= dim < len(sizes) and int_literal(sizes[dim]) in (0, 1):
                    value = int_literal(sizes[dim])
                    self.report(
                        sizes[dim],
                        f"example size {value} on dynamic dim {dim}: export specializes it (an error, or a "
                        "static dim); use size >= 2",
                    )
