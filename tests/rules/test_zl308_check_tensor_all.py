"""ZL308: exact findings, and the near misses it must stay quiet on."""

from __future__ import annotations

from conftest import codes_at, lint
from zlint.core.settings import Settings

ZL308 = Settings(select=("ZL308",))


def test_the_checks_through_any_alias():
    code = """\
import torch
import torch as T
from torch import _check_tensor_all, _check_tensor_all_with as check_with
def f(x, index, table):
    torch._check_tensor_all(x >= 0, lambda: "negative")
    T._check_tensor_all(x.isfinite())
    _check_tensor_all(x != 0)
    check_with(IndexError, index < table.shape[0], lambda: "bad index")
    return x
"""
    assert codes_at(code, ZL308) == [(5, 5, "ZL308"), (6, 5, "ZL308"), (7, 5, "ZL308"), (8, 5, "ZL308")]
    message = lint(code, ZL308)[0].message
    assert "graph break" in message and "torch._assert_async(cond.all(), msg)" in message


def test_near_misses_are_quiet():
    code = """\
import torch
from mylib import checks
def f(self, x, n):
    torch._check(x.shape[0] == n)
    torch._check_is_size(n)
    torch._assert_async((x >= 0).all(), "negative")
    torch.testing._check_tensor_all(x >= 0)
    checks._check_tensor_all(x >= 0)
    self._check_tensor_all(x >= 0)
    name = "torch._check_tensor_all"
    return torch._check_tensor_all
"""
    assert codes_at(code, ZL308) == []


def test_a_local_function_of_that_name_is_not_torchs():
    code = """\
def _check_tensor_all(cond, msg=None):
    return cond
def f(x):
    _check_tensor_all(x >= 0)
    return torch._check_tensor_all(x >= 0)  # torch never imported here
"""
    assert codes_at(code, ZL308) == []


def test_it_reads_no_size_fact_and_is_on_by_default():
    from zlint import rules as rule_modules
    from zlint.core import registry
    from zlint.facts.size_facts import SizeFactsProvider

    visitor = rule_modules.visitors(["ZL308"])[0]
    assert SizeFactsProvider not in visitor.get_inherited_dependencies()
    assert registry.RULES_BY_CODE["ZL308"].default_enabled
