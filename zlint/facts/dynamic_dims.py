"""Which dims the code says are dynamic or static.

Sources, all in the same file: ``mark_dynamic``/``maybe_mark_dynamic``/``mark_unbacked`` calls
(dynamic), ``torch.export.Dim`` specs (dynamic), jaxtyping-style annotations
(``Float[Tensor, "batch seq 768"]``: a literal is static, a name is dynamic unless the
``static-dims`` setting lists it), and the ``dynamic-dims``/``static-dims`` settings.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import BatchableMetadataProvider

from zlint.cst.batched import visit
from zlint.facts.imports import ImportMap, file_imports
from zlint.facts.literals import int_literal
from zlint.facts.vocabulary import MARK_FUNCTIONS

_MARK_MODULES = ("torch._dynamo", "torch._dynamo.decorators", "torch.compiler")
DIM_FACTORIES = frozenset({"torch.export.Dim", "torch.export.dynamic_shapes.Dim"})


def mark_kind(qualified: str | None) -> str | None:
    """``mark_dynamic``/``maybe_mark_dynamic``/``mark_unbacked`` for a call to one of them."""
    if not qualified:
        return None
    module, _, name = qualified.rpartition(".")
    return name if name in MARK_FUNCTIONS and module in _MARK_MODULES else None





def annotation_dims(annotation: cst.BaseExpression, imports: ImportMap) -> tuple[str, ...] | None:
    """The dim names of a jaxtyping/torchtyping annotation (``Float[Tensor, "b s 768"]``)."""
    if not isinstance(annotation, cst.Subscript):
        return None
    base = imports.qualify(annotation.value) or ""
    if not base.startswith(("jaxtyping.", "torchtyping.")):
        return None
    parts = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
    if len(parts) < 2 or not isinstance(parts[1], cst.SimpleString):
        return None
    text = parts[1].evaluated_value
    if not isinstance(text, str) or "..." in text or "*" in text:
        return None  # variadic dims: positions unknown
    return tuple(text.split())


def dim_is_static(token: str, dynamic: tuple[str, ...] = (), static: tuple[str, ...] = ()) -> bool:
    """A jaxtyping dim token is static when it is a literal size or a name declared static."""
    name = token.split("=")[-1].lstrip("#_")
    if name in dynamic:
        return False
    return name.isdigit() or name in static


class StaticDims:
    """Sizes a function's annotations say are static: ``x.shape[2]`` for ``x: Float[Tensor, "b s 768"]``,
    names unpacked from such a shape, and dims the ``static-dims`` setting names."""

    def __init__(
        self,
        function: cst.FunctionDef,
        imports: ImportMap,
        dynamic: tuple[str, ...] = (),
        static: tuple[str, ...] = (),
    ) -> None:
        self.dims: dict[str, tuple[str, ...]] = {}
        self.dynamic, self.static = dynamic, static
        params = function.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            if param.annotation is not None:
                dims = annotation_dims(param.annotation.annotation, imports)
                if dims is not None:
                    self.dims[param.name.value] = dims
        self.names: dict[str, tuple[str, int]] = {}
        if self.dims:
            visit(function.body, _ShapeBindings(self))  # zlint.cst.batched.visit

    def _static(self, tensor: str, index: int | None) -> bool:
        dims = self.dims.get(tensor)
        if dims is None or index is None or not -len(dims) <= index < len(dims):
            return False
        return dim_is_static(dims[index], self.dynamic, self.static)

    def source(self, node: cst.BaseExpression) -> tuple[str, int | None] | None:
        """``(tensor, dim)`` for ``x.shape[i]``, ``x.size(i)``, ``x.size()[i]``, a name bound from one."""
        if isinstance(node, cst.Name):
            return self.names.get(node.value)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "size":
            if isinstance(node.func.value, cst.Name) and len(node.args) == 1:
                return node.func.value.value, int_literal(node.args[0].value)
        if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            shape = _shape_of(node.value)
            if shape is not None:
                return shape, int_literal(node.slice[0].slice.value)
        return None

    def is_static(self, node: cst.BaseExpression) -> bool:
        if not self.dims:
            return False
        found = self.source(node)
        return found is not None and self._static(*found)


def _shape_of(node: cst.BaseExpression) -> str | None:
    """``x`` for ``x.shape`` and ``x.size()``."""
    if isinstance(node, cst.Attribute) and node.attr.value == "shape" and isinstance(node.value, cst.Name):
        return node.value.value
    if (
        isinstance(node, cst.Call) and not node.args and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "size" and isinstance(node.func.value, cst.Name)
    ):
        return node.func.value.value
    return None


class _ShapeBindings(cst.CSTVisitor):
    def __init__(self, dims: StaticDims) -> None:
        self.owner = dims

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            t = target.target
            if isinstance(t, cst.Name):
                found = self.owner.source(node.value)
                if found is not None:
                    self.owner.names[t.value] = found
            elif isinstance(t, (cst.Tuple, cst.List)):
                shape = _shape_of(node.value)
                if shape is not None and not any(isinstance(e, cst.StarredElement) for e in t.elements):
                    for i, element in enumerate(t.elements):
                        if isinstance(element.value, cst.Name):
                            self.owner.names[element.value.value] = (shape, i)


@dataclass(frozen=True)
class DimSettings:
    """What :class:`StaticDimsProvider` reads besides the module: the file's imports (None: it
    collects them itself) and the ``dynamic-dims``/``static-dims`` settings. The engine hands it
    over through the MetadataWrapper's cache."""

    imports: ImportMap | None = field(default=None, compare=False)
    dynamic: tuple[str, ...] = ()
    static: tuple[str, ...] = ()


class StaticDimsProvider(BatchableMetadataProvider[StaticDims]):
    """Sets on every ``FunctionDef`` the :class:`StaticDims` its annotations and the settings give
    it (what the branch rules leave out: ``if x.shape[2] > 512`` on a dim annotated ``768``)."""

    @classmethod
    def gen_cache(cls, root_path: object, paths: list[str], timeout: object = None, **_: object) -> dict:
        # declaring a cache makes MetadataWrapper hand the engine's DimSettings to __init__
        return {path: DimSettings() for path in paths}

    def __init__(self, cache: object = None) -> None:
        # a wrapper without a cache (LibCST would refuse None): no settings, imports collected here
        self._inputs = cache if isinstance(cache, DimSettings) else DimSettings()
        super().__init__(self._inputs)
        self._imports = self._inputs.imports

    def visit_Module(self, node: cst.Module) -> None:
        if self._imports is None:
            self._imports = file_imports(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        assert self._imports is not None
        self.set_metadata(node, StaticDims(node, self._imports, self._inputs.dynamic, self._inputs.static))
