"""Resolve local names to the qualified names they were imported as (``T`` -> ``torch``).

Cheaper than LibCST's QualifiedNameProvider (which needs full scope analysis): zlint only needs
to know which names are torch modules, functions and types.
"""

from __future__ import annotations

import libcst as cst


def dotted_name(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


class ImportMap:
    """Local name -> qualified name, fed with import statements in source order."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}

    def add_import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted_name(alias.name)
            if full is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._names[alias.asname.name.value] = full
            else:
                # `import torch.nn` binds `torch`
                head = full.split(".", 1)[0]
                self._names[head] = head

    def add_import_from(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        module = dotted_name(node.module)
        if module is None:
            return
        for alias in node.names:
            if not isinstance(alias.name, cst.Name):
                continue
            local = alias.name.value
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self._names[local] = f"{module}.{alias.name.value}"

    def qualify(self, node: cst.BaseExpression) -> str | None:
        """The qualified name of a Name/Attribute chain whose head was imported, else None."""
        dotted = dotted_name(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        resolved = self._names.get(head)
        if resolved is None:
            return None
        return f"{resolved}.{rest}" if rest else resolved

    @property
    def imports_torch(self) -> bool:
        return self.imports("torch")

    def imports(self, module: str) -> bool:
        """Whether ``module`` (or something inside it) was imported."""
        return any(q == module or q.startswith(module + ".") for q in self._names.values())

    def names(self) -> dict[str, str]:
        """Local name -> qualified name, a copy (tests compare two maps with it)."""
        return dict(self._names)


#: the fields of a compound statement (or of its blocks) that hold statements, in source order
_BLOCK_FIELDS = ("body", "handlers", "orelse", "finalbody", "cases")
_BLOCKS = (
    cst.BaseCompoundStatement, cst.BaseSuite, cst.ExceptHandler, cst.ExceptStarHandler, cst.Else, cst.Finally,
    cst.MatchCase,
)


def file_imports(module: cst.Module) -> ImportMap:
    """Every import of the module, anywhere (function bodies, branches, ``try``), fed in source
    order: the map every rule reads as ``FileContext.imports``, filled by the engine before the
    traversal, whatever metadata the rules declare. Only statements are walked (an import is
    always a statement), so this costs a small fraction of a full traversal.

    The size facts keep a map of their own, fed *during* their traversal (a name is resolved
    with the imports above it); once that traversal ends, both maps hold the same names."""
    imports = ImportMap()
    _feed(module.body, imports)
    return imports


def _feed(statements: object, imports: ImportMap) -> None:
    for node in statements if isinstance(statements, (tuple, list)) else (statements,):
        if isinstance(node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in node.body:
                if isinstance(small, cst.Import):
                    imports.add_import(small)
                elif isinstance(small, cst.ImportFrom):
                    imports.add_import_from(small)
        elif isinstance(node, _BLOCKS):
            for name in _BLOCK_FIELDS:
                value = getattr(node, name, None)
                if value is not None:
                    _feed(value, imports)
