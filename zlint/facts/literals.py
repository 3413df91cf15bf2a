"""Literal values in source: the one place that reads ``3``, ``-1`` or ``2.0`` off a node."""

from __future__ import annotations

import libcst as cst


def number_literal(node: cst.BaseExpression | None) -> int | float | None:
    """The value of an int or float literal, signed (``-1``, ``+2.0``), else None."""
    sign = 1
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        sign = -1 if isinstance(node.operator, cst.Minus) else 1
        node = node.expression
    try:
        if isinstance(node, cst.Integer):
            return sign * int(node.evaluated_value)
        if isinstance(node, cst.Float):
            return sign * float(node.evaluated_value)
    except ValueError:
        return None
    return None


def int_literal(node: cst.BaseExpression | None) -> int | None:
    """The value of an int literal (``-1`` included), else None."""
    value = number_literal(node)
    return value if isinstance(value, int) else None


def source_text(node: cst.CSTNode) -> str:
    """The code of ``node`` with its whitespace collapsed: two spellings of the same expression
    (``self.k`` and ``self.k``) read alike."""
    return " ".join(cst.Module([]).code_for_node(node).split())
