"""ZL416: CUDA graphs (``mode="reduce-overhead"``/``"max-autotune"``, ``triton.cudagraphs``) on a
callable that gets dynamic shapes: one CUDA graph is recorded per distinct shape."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from zlint.rules.api import (
    CompileCall,
    compile_call,
    dotted_name,
    is_none,
    literal_bool,
    literal_string,
)
from zlint.rules.compile_checks import TorchDataRule

MARK_FUNCTIONS = frozenset(
    f"{ns}.{fn}"
    for ns in ("torch._dynamo", "torch._dynamo.decorators", "torch.compiler")
    for fn in ("mark_dynamic", "maybe_mark_dynamic", "mark_unbacked")
)


@dataclass
class _CudagraphSite:
    call: CompileCall
    #: where to report: the mode= value or the "triton.cudagraphs" key
    anchor: cst.CSTNode
    how: str
    reported: bool = False


@dataclass
class _Use:
    """A call of a compiled callable: which names it passes, and loop variables they use."""

    site_node: cst.CSTNode
    function: str
    arg_names: set[str] = field(default_factory=set)
    loop_vars_used: set[str] = field(default_factory=set)


def _names_in(node: cst.CSTNode) -> set[str]:
    out: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            out.add(current.value)
        stack.extend(current.children)
    return out


def _literal_iteration(node: cst.BaseExpression) -> bool:
    """``range(...)`` or a literal list/tuple of numbers: the loop variable takes several values."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "range":
        return True
    if isinstance(node, (cst.List, cst.Tuple)) and len(node.elements) > 1:
        return all(isinstance(e.value, (cst.Integer, cst.Tuple)) for e in node.elements)
    return False


class CudagraphsWithDynamicShapes(TorchDataRule):
    code = "ZL416"
    about_compiled_code = False  # about a call site, wherever it sits
    name = "cudagraphs-with-dynamic-shapes"
    summary = "CUDA graphs on a compiled callable that gets dynamic shapes: one graph per shape"

    def __init__(self, context) -> None:
        super().__init__(context)
        self._sites: dict[int, _CudagraphSite] = {}
        self._marked: set[tuple[str, str]] = set()
        self._uses: list[_Use] = []
        self._loops: list[set[str]] = []

    def _cudagraph_anchor(self, call: CompileCall) -> tuple[cst.CSTNode, str] | None:
        if not call.backend_is_inductor():
            return None
        items = {item.key.replace("-", "_"): item.value for item in call.option_items() or ()}
        sizes = items.get("triton.cudagraph_capture_sizes")
        skip = literal_bool(items.get("triton.cudagraph_skip_dynamic_graphs"))
        if skip or (sizes is not None and not is_none(sizes)):
            return None  # dynamic graphs skip CUDA graphs, or the recorded sizes are bounded
        mode = literal_string(call.value("mode"))
        if mode is not None and mode in self.data.cudagraph_modes():
            return call.value("mode"), f"mode={mode!r}"
        for item in call.option_items() or ():
            if item.key.replace("-", "_") == "triton.cudagraphs" and literal_bool(item.value):
                return item.key_node, "options={'triton.cudagraphs': True}"
        return None

    def visit_For(self, node: cst.For) -> None:
        self._loops.append(_names_in(node.target) if _literal_iteration(node.iter) else set())

    def leave_For(self, original_node: cst.For) -> None:
        self._loops.pop()

    def visit_Call(self, node: cst.Call) -> None:
        call = compile_call(node, self.context.imports)
        if call is not None:
            found = self._cudagraph_anchor(call)
            if found is not None:
                anchor, how = found
                site = self._sites[id(node)] = _CudagraphSite(call, anchor, how)
                if literal_bool(call.value("dynamic")):
                    self._report(site, "dynamic=True is set")
            return
        function = self.context.function or ""
        if self.context.imports.qualify(node.func) in MARK_FUNCTIONS and node.args:
            name = dotted_name(node.args[0].value)
            if name:
                self._marked.add((function, name))
            return
        site = self.context.compiled_scope.site_for_call(node.func, self.context.function)
        if site is None:
            return
        target = site.node.decorator if isinstance(site.node, cst.Decorator) else site.node
        use = _Use(target, function)
        loop_vars = set().union(*self._loops) if self._loops else set()
        for arg in node.args:
            name = dotted_name(arg.value)
            if name:
                use.arg_names.add(name)
            use.loop_vars_used |= _names_in(arg.value) & loop_vars
        self._uses.append(use)

    def leave_Module(self, original_node: cst.Module) -> None:
        for use in self._uses:
            site = self._sites.get(id(use.site_node))
            if site is None or site.reported:
                continue
            marked = sorted(n for n in use.arg_names if (use.function, n) in self._marked)
            if marked:
                self._report(site, f"`{marked[0]}` is marked dynamic")
            elif use.loop_vars_used:
                var = sorted(use.loop_vars_used)[0]
                self._report(site, f"sizes vary with `{var}`")

    def _report(self, site: _CudagraphSite, evidence: str) -> None:
        site.reported = True
        self.report(
            site.anchor,
            f"{site.how}: a CUDA graph per shape, and {evidence}; pad inputs or set "
            "triton.cudagraph_skip_dynamic_graphs",
        )
