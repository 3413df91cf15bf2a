"""The ``ast`` utilities of core: one dotted-name reading, and its named variants."""

from __future__ import annotations

import ast

import pytest

from zlint.core.ast_walk import dotted_path
from zlint.scope.compile_state import dotted_with_super
from zlint.verify.caller_verdicts import is_caller


def _expr(code: str) -> ast.expr:
    return ast.parse(code, mode="eval").body


@pytest.mark.parametrize(("code", "expected"), [
    ("a", "a"), ("a.b.c", "a.b.c"), ("torch.nn.Linear", "torch.nn.Linear"),
    ("f().x", None), ("a[0].b", None), ("super().forward", None), ("f()", None), ("1", None),
])
def test_dotted_path_reads_attribute_chains_on_a_name_only(code, expected):
    assert dotted_path(_expr(code)) == expected


def test_the_scope_variant_adds_super_and_nothing_else():
    assert dotted_with_super(_expr("super().forward")) == "super().forward"
    assert dotted_with_super(_expr("super(A, self).forward")) == "super().forward"
    for code in ("a", "a.b.c", "f().x", "a[0].b", "f()"):
        assert dotted_with_super(_expr(code)) == dotted_path(_expr(code))


def test_a_compile_call_on_any_expression_makes_a_caller():
    # the verifier's reading keeps the attributes after a head that is no name
    assert is_caller(ast.parse("def f():\n    make_model().compile()\n"))
    assert is_caller(ast.parse("def f():\n    models[0].compile()\n"))
    assert not is_caller(ast.parse("def f():\n    re.compile('x')\n"))
