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
