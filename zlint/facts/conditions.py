"""Where a value decides control flow, and the atoms of a condition.

``if a and not (b or c)`` has atoms ``a``, ``b`` and ``c``: each is tested for truth.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst


def condition_atoms(expr: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The operands of ``and``/``or``/``not`` whose truth the condition tests."""
    if isinstance(expr, cst.BooleanOperation):
        yield from condition_atoms(expr.left)
        yield from condition_atoms(expr.right)
    elif isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        yield from condition_atoms(expr.expression)
    else:
        yield expr


def truth_tested_in_assert(test: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The atoms of an ``assert``'s test whose truth Python takes before the assert checks its
    value: everything under ``not``, and every ``and``/``or`` operand but the last (the last is
    the value asserted; dynamo turns an assert of one tensor into a runtime assert)."""
    if isinstance(test, cst.BooleanOperation):
        yield from condition_atoms(test.left)
        yield from truth_tested_in_assert(test.right)
    elif isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        yield from condition_atoms(test.expression)


def only_raises(body: cst.BaseSuite) -> bool:
    """True for a block that does nothing but raise: an input validation, not a code path."""
    if isinstance(body, cst.SimpleStatementSuite):
        return all(isinstance(s, cst.Raise) for s in body.body)
    statements = body.body
    return bool(statements) and all(
        isinstance(stmt, cst.SimpleStatementLine) and all(isinstance(s, cst.Raise) for s in stmt.body)
        for stmt in statements
    )
