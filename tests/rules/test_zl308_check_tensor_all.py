"""ZL308: exact findings, and the near misses it must stay quiet on."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import codes_at, lint
from inprocess import zlint
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


def test_it_reads_the_size_facts_and_is_on_by_default():
    from zlint import rules as rule_modules
    from zlint.core import registry
    from zlint.facts.size_facts import SizeFactsProvider

    visitor = rule_modules.visitors(["ZL308"])[0]
    assert SizeFactsProvider in visitor.get_inherited_dependencies()  # is a wrapper's argument a tensor
    assert registry.RULES_BY_CODE["ZL308"].default_enabled


# transformers' torch_compilable_check: under tracing it hands a tensor condition to
# torch._check_tensor_all (measured on 2.13: 4 graphs over 3 sizes, a graph break, where the
# same model without the call compiles 2)
WRAPPER = """\
import os


def is_tracing():
    import torch
    return torch.compiler.is_compiling()


def torch_compilable_check(cond, msg, error_type=ValueError):
    if os.getenv("NO_CHECK") == "1":
        return
    import torch

    if is_tracing():
        if isinstance(cond, torch.Tensor):
            torch._check_tensor_all(cond)
        else:
            torch._check(cond)
        return
    if not cond:
        raise error_type(msg)


def eager_check(cond, msg):
    import torch

    if not torch.compiler.is_compiling():
        torch._check_tensor_all(cond)


def plain_check(cond, msg):
    if not cond:
        raise ValueError(msg)
"""
MODEL = """\
import torch
from torch import nn

from ..utils import eager_check, plain_check, torch_compilable_check


class Model(nn.Module):
    def forward(self, ids: torch.Tensor, feats: torch.Tensor):
        n = (ids == 3).sum()
        torch_compilable_check(n * feats.shape[-1] == feats.numel(), "tokens")
        torch_compilable_check(ids.shape[0] == feats.shape[0], "sizes")
        plain_check(n == feats.shape[0], "plain")
        eager_check(n == feats.shape[0], "eager")
        ok = torch_compilable_check(n > 0, "value used")
        return feats * 2 if ok is None else feats
"""


def _package(root: Path) -> None:
    for name, text in {
        "pkg/__init__.py": "", "pkg/models/__init__.py": "", "pkg/models/model.py": MODEL,
        "pkg/utils/__init__.py": "from .checks import eager_check, plain_check, torch_compilable_check\n",
        "pkg/utils/checks.py": WRAPPER,
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


@pytest.mark.parametrize("full_path", ["", "1"])
def test_a_tensor_condition_handed_to_a_check_wrapper_of_the_run(tmp_path, monkeypatch, full_path):
    _package(tmp_path)
    monkeypatch.setenv("ZLINT_FULL_PATH", full_path)
    found = json.loads(zlint("--no-cache", "--format", "json", "--select", "ZL308", "pkg", cwd=tmp_path).stdout)
    assert [(Path(f["filename"]).name, f["location"]["row"], f["location"]["column"]) for f in found] == [
        ("model.py", 10, 9), ("checks.py", 16, 13),
    ]
    assert found[0]["message"] == (
        "`torch_compilable_check(n ...` hands a tensor condition to `torch_compilable_check`, which reads it with "
        "torch._check_tensor_all: graph break; check sizes, or use `torch._assert_async(cond.all(), msg)`"
    )
    # linted alone, the file cannot see what the wrapper does: nothing is claimed
    alone = zlint("--no-cache", "--select", "ZL308", os.path.join("pkg", "models", "model.py"), cwd=tmp_path)
    assert (alone.returncode, alone.stdout) == (0, "")
