"""``ast.walk`` without generators: the same nodes in the same
order, about three times faster (one ``getattr`` per field, no per-node generator objects).
The linter walks every file's ``ast`` several times before LibCST parses anything."""

from __future__ import annotations

import ast


def walk(root: ast.AST) -> list[ast.AST]:
    """``root`` and every node under it, in ``ast.walk``'s order (breadth first)."""
    out = [root]
    for node in out:  # the list grows while it is read
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                out.extend([item for item in value if isinstance(item, ast.AST)])
            elif isinstance(value, ast.AST):
                out.append(value)
    return out


def dotted_path(node: ast.AST) -> str | None:
    """``"a.b.c"`` for a chain of attributes on a name (``a.b.c``, ``a``); None for anything else,
    a chain on any other expression included: ``f().x``, ``a[0].b`` and ``super().x`` are None.

    The one ``ast`` dotted-name reading of the linter (LibCST's is
    :func:`zlint.facts.imports.dotted_name`); :func:`zlint.scope.compile_state.dotted_with_super`
    adds ``super().x`` and ``zlint.verify.caller_verdicts`` keeps the attributes after a head that
    is no name (``make().compile`` -> ``"compile"``)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))
