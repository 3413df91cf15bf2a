"""The compiled scope: what a file compiles, the flag on diagnostics, and ``compiled-only``."""

from __future__ import annotations

import json
import textwrap

import libcst as cst
import pytest

from conftest import lint, run_zlint
from zlint.core.settings import ConfigError, Settings, settings_from_table
from zlint.facts.compiled_scope import Dynamic, compute_compiled_scope

SOURCE = textwrap.dedent(
    """
    import torch
    from torch import nn


    def helper(x):
        if x.size(0) == 1:
            return x
        return x + 1


    def unrelated(x):
        if x.size(0) == 1:
            return x
        return x


    class Sub(nn.Module):
        def forward(self, x):
            return self.inner(x)

        def inner(self, x):
            return helper(x)

        def unused(self, x):
            return x


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.sub = Sub()

        def forward(self, x):
            def local(y):
                return y

            return self.sub(local(x))


    @torch.compile(dynamic=False)
    def step(x):
        return x * 2


    def main(batches):
        model = torch.compile(Net(), dynamic=True)
        return [model(b) for b in batches]
    """
)


def scope_of(code: str):
    return compute_compiled_scope(cst.parse_module(textwrap.dedent(code)))


def test_roots_and_reachable_functions():
    scope = compute_compiled_scope(cst.parse_module(SOURCE))
    assert scope.functions == {"Net.forward", "Net.forward.local", "Sub.forward", "Sub.inner", "helper", "step"}
    assert scope.contains("Net.forward.local") and not scope.contains("Sub.unused")
    assert not scope.contains("unrelated") and not scope.contains("Net.__init__") and not scope.contains(None)
    assert [(s.bound_to, s.owner, s.roots, s.dynamic) for s in scope.sites] == [
        (("step",), "", ("step",), Dynamic.FALSE),
        (("model",), "main", ("Net.forward",), Dynamic.TRUE),
    ]


MODULE = "import torch\nclass M(torch.nn.Module):\n  def forward(self, x): return x\n"


@pytest.mark.parametrize(
    "code, expected",
    [
        ("import torch\ndef f(x): return x\ng = torch.compile(f)\n", {"f"}),
        ("import torch as T\ndef f(x): return x\nT.compile(f)(1)\n", {"f"}),
        ("from torch import compile as c\n@c()\ndef f(x): return x\n", {"f"}),
        (MODULE + "m = M()\nm.compile()\n", {"M.forward"}),
        (MODULE + "m = M()\nc = torch.compile(m.forward)\n", {"M.forward"}),
        (
            "import torch\nclass M:\n  def step(self, x): return x\n  def setup(self):\n"
            "    self.fast = torch.compile(self.step)\n",
            {"M.step"},
        ),
        # not torch.compile: re.compile, a keras-style compile(optimizer=...), an unknown compile
        ("import re\ndef f(x): return x\np = re.compile(f)\n", set()),
        ("import torch\nclass M:\n  def forward(self, x): return x\nm = M()\nm.compile(optimizer='adam')\n", set()),
        ("from mylib import compile\ndef f(x): return x\ng = compile(f)\n", set()),
        ("import torch\ndef f(x): return x\n", set()),
    ],
)
def test_compile_spellings(code, expected):
    assert scope_of(code).functions == expected


def test_torch_name_follows_the_alias():
    assert scope_of("import torch as T\n").torch_name == "T"
    assert scope_of("import torch._dynamo\n").torch_name == "torch"
    assert scope_of("from torch import nn\n").torch_name is None


def test_diagnostics_carry_the_flag():
    found = {(d.line, d.code, d.compiled) for d in lint(SOURCE) if d.code.startswith("ZL1")}
    assert found == {(7, "ZL101", True), (13, "ZL101", False)}


def test_compiled_only_setting_and_flag(tmp_path):
    (tmp_path / "m.py").write_text(SOURCE)
    result = lint(SOURCE, Settings(select=("ZL1",), compiled_only=True))
    assert [(d.line, d.code) for d in result] == [(7, "ZL101")]

    proc = run_zlint("--select", "ZL101", "--compiled-only", "m.py", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout == "m.py:7:8: ZL101 " + result[0].message + "\n"

    (tmp_path / "pyproject.toml").write_text("[tool.zlint]\ncompiled-only = true\nselect = ['ZL101']\n")
    proc = run_zlint("--format", "json", "m.py", cwd=tmp_path)
    rows = json.loads(proc.stdout)
    assert [(r["location"]["row"], r["compiled_scope"]) for r in rows] == [(7, True)]


def test_compiled_only_must_be_a_bool():
    with pytest.raises(ConfigError, match="compiled-only must be true or false"):
        settings_from_table({"compiled-only": "yes"}, "pyproject.toml", None)


def test_json_carries_compiled_scope_false(tmp_path):
    (tmp_path / "m.py").write_text(SOURCE)
    proc = run_zlint("--select", "ZL101", "--format", "json", "m.py", cwd=tmp_path)
    rows = json.loads(proc.stdout)
    assert [(r["location"]["row"], r["compiled_scope"]) for r in rows] == [(7, True), (13, False)]
