"""Cost tiers and the settings that choose what a run shows (``target``, ``scope``), and ZL104,
the rule that only exists where backed_size_oblivious is on."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import ALL, codes_at
from inprocess import zlint
from zlint.core.diagnostics import Diagnostic
from zlint.core.settings import Settings
from zlint.scope.classify import FileScope
from zlint.scope.placement import place

# a file: module level (line 1), a compiled forward (2-5), a never-compiled __init__ (6-7), a
# function nobody compiled calls (8-9)
REGIONS = ((2, 5, "compiled", "forward of Net"), (6, 7, "never", "__init__"), (8, 9, "unknown", "no caller"))


def _diag(line: int, code: str = "ZL101", tier: str = "single-graph") -> Diagnostic:
    return Diagnostic("m.py", line, 4, code, "name", "msg", line, 9, tier=tier)


def _placed(diags, settings, **flags) -> list[tuple[int, str, str, str]]:
    scope = FileScope(REGIONS, **flags)
    return [(d.line, d.code, d.tier, d.scope) for d in place(diags, scope, settings)]


def test_target_default_hides_single_graph_findings_and_single_graph_shows_both():
    diags = [_diag(3), _diag(4, "ZL201", "default"), _diag(9)]
    assert _placed(diags, Settings(target="default")) == [(4, "ZL201", "default", "compiled")]
    assert _placed(diags, Settings(target="single-graph")) == [
        (3, "ZL101", "single-graph", "compiled"),
        (4, "ZL201", "default", "compiled"),
        (9, "ZL101", "single-graph", "unknown"),
    ]
    assert Settings().target == "single-graph"  # the default shows both, each with its tier


def test_a_single_graph_mode_in_the_file_makes_its_single_graph_findings_default_tier():
    diags = [_diag(3), _diag(9)]
    assert _placed(diags, Settings(target="default"), single_graph_here=True) == [
        (3, "ZL101", "default", "compiled"),
        (9, "ZL101", "default", "unknown"),
    ]


def test_a_single_graph_mode_elsewhere_in_the_run_promotes_compiled_code_only():
    diags = [_diag(3), _diag(9)]
    assert _placed(diags, Settings(target="default"), single_graph_project=True) == [
        (3, "ZL101", "default", "compiled"),
    ]
    assert _placed(diags, Settings(), single_graph_project=True) == [
        (3, "ZL101", "default", "compiled"),
        (9, "ZL101", "single-graph", "unknown"),
    ]


def test_scope_default_hides_never_compiled_findings_of_code_rules_only():
    diags = [_diag(3, tier="default"), _diag(6, tier="default"), _diag(6, "ZL410", "default"), _diag(8, tier="default")]
    assert _placed(diags, Settings()) == [
        (3, "ZL101", "default", "compiled"),
        (6, "ZL410", "default", "never"),  # a compile-call finding is not about compiled code
        (8, "ZL101", "default", "unknown"),
    ]
    assert [line for line, *_ in _placed(diags, Settings(scope="all"))] == [3, 6, 6, 8]
    assert _placed(diags, Settings(compiled_only=True)) == [
        (3, "ZL101", "default", "compiled"),
        (6, "ZL410", "default", "never"),
    ]


def test_every_finding_gets_a_scope_reason():
    [d] = place([_diag(7)], FileScope(REGIONS), Settings(scope="all"))
    assert (d.scope, d.scope_reason, d.compiled) == ("never", "__init__", False)
    [d] = place([_diag(1)], FileScope(REGIONS), Settings(scope="all"))
    assert (d.scope, d.scope_reason) == ("never", "module level (runs at import)")


# -- ZL104 --------------------------------------------------------------------------------------

OBLIVIOUS = "from torch.fx.experimental import _config\n_config.backed_size_oblivious = True\n"
BRANCHES = """
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x, t: torch.Tensor):
        if x.size(0) == 0:
            return x
        if x.numel() == 0:
            return x
        if not x.numel():
            return x
        if len(t) == 0:
            return x
        if 0 < x.shape[0]:
            return x
        if x.size(0) >= 1:
            return x
        if x.size(0) == 1:
            return x
        if x.size(0) > 1:
            return x
        if x.size(0) == 2:
            return x
        y = torch.where(x.new_tensor(x.size(0) == 0), x, x)
        return y
"""
ZL104 = Settings(select=("ZL104",), scope="all")


def test_zl104_flags_branches_on_size_zero_where_the_file_enables_size_oblivious():
    assert codes_at(OBLIVIOUS + BRANCHES, ZL104) == [
        (10, 12, "ZL104"),  # x.size(0) == 0
        (12, 12, "ZL104"),  # x.numel() == 0
        (14, 16, "ZL104"),  # not x.numel()
        (16, 12, "ZL104"),  # len(t) == 0
        (18, 12, "ZL104"),  # 0 < x.shape[0]
        (20, 12, "ZL104"),  # x.size(0) >= 1
    ]


@pytest.mark.parametrize(
    "prefix",
    [
        "",  # the default config is sound at size 0
        "from torch.fx.experimental import _config\n_config.backed_size_oblivious = False\n",
        "import torch\ntorch._dynamo.decorators.mark_unbacked(x, 0)\n",  # a break, not a wrong result
    ],
)
def test_zl104_is_quiet_without_backed_size_oblivious(prefix):
    assert codes_at(prefix + BRANCHES, ZL104) == []


def test_zl104_applies_to_the_measured_releases_only():
    assert codes_at(OBLIVIOUS + BRANCHES, replace(ZL104, torch_version="2.12.0")) == []
    assert len(codes_at(OBLIVIOUS + BRANCHES, replace(ZL104, torch_version="2.15.0"))) == 6


def test_zl104_in_other_files_of_the_run_reports_compiled_code_only(tmp_path: Path):
    (tmp_path / "serve.py").write_text("import torch\n" + OBLIVIOUS)
    (tmp_path / "model.py").write_text(
        "import torch\nfrom torch import nn\n\n\n"
        "class Net(nn.Module):\n    def forward(self, x):\n        if x.size(0) == 0:\n            return x\n"
        "        return x\n\n\n"
        "def stats(x):\n    if x.size(0) == 0:\n        return x\n    return x\n"
    )
    proc = zlint("--select", "ZL104", "--format", "json", "--no-cache", ".", cwd=tmp_path)
    found = [(f["filename"], f["location"]["row"], f["scope"], f["severity"]) for f in json.loads(proc.stdout)]
    assert found == [("model.py", 7, "compiled", "error")]
    assert proc.returncode == 1
    (tmp_path / "serve.py").write_text("import torch\n")
    proc = zlint("--select", "ZL104", "--format", "json", "--no-cache", ".", cwd=tmp_path)
    assert json.loads(proc.stdout) == [] and proc.returncode == 0


def test_target_flag_and_setting(tmp_path: Path):
    (tmp_path / "m.py").write_text("import torch\n")
    assert zlint("--target", "default", "--no-cache", ".", cwd=tmp_path).returncode == 0
    bad = zlint("--target", "nope", ".", cwd=tmp_path)
    assert bad.returncode == 2 and "invalid choice: 'nope'" in bad.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.zlint]\ntarget = "one-graph"\n')
    bad = zlint("--no-cache", ".", cwd=tmp_path)
    assert bad.returncode == 2 and "target must be 'default' or 'single-graph'" in bad.stderr
    assert ALL.target == "single-graph"


MODEL = (
    "import torch\nfrom torch import nn\n\n\n"
    "class Net(nn.Module):\n    def forward(self, x):\n        if x.size(0) == 0:\n            return x\n"
    "        return x\n"
)


def _tiers(tmp_path: Path, **files: str) -> list[tuple[str, int, str, str]]:
    (tmp_path / "model.py").write_text(MODEL)
    for name, text in files.items():
        (tmp_path / f"{name}.py").write_text(text)
    proc = zlint("--select", "ZL101,ZL104", "--format", "json", "--no-cache", ".", cwd=tmp_path)
    return [(f["filename"], f["location"]["row"], f["code"], f["tier"]) for f in json.loads(proc.stdout)]


MARKED_HERE = """import torch
from model import Net


def main():
    net = torch.compile(Net())
    x = torch.ones(3)
    torch._dynamo.decorators.mark_unbacked(x, 0)
    net(x)
"""
MARKED_BY_A_HELPER = """import torch
from model import Net


def prepare(x):
    torch._dynamo.decorators.mark_unbacked(x, 0)
    return x


def main():
    net = torch.compile(Net())
    net(prepare(torch.ones(3)))
"""
PATCHED = """import torch
from torch.fx.experimental import _config
from model import Net


def main():
    net = torch.compile(Net())
    with _config.patch(backed_size_oblivious=True):
        net(torch.ones(3))
"""
# a harness that compiles whatever function it is handed: its marks reach nothing the run can name
HARNESS = """import torch


def run(fn, x):
    compiled = torch.compile(fn)
    torch._dynamo.decorators.mark_unbacked(x, 0)
    with torch.fx.experimental._config.patch(backed_size_oblivious=True):
        return compiled(x)
"""


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"train": MARKED_HERE}, [("model.py", 7, "ZL101", "default")]),
        ({"train": MARKED_BY_A_HELPER}, [("model.py", 7, "ZL101", "default")]),
        ({"serve": PATCHED}, [("model.py", 7, "ZL101", "default"), ("model.py", 7, "ZL104", "default")]),
        ({"harness": HARNESS}, [("model.py", 7, "ZL101", "single-graph")]),
        ({"harness": HARNESS, "other": "import torch\n"}, [("model.py", 7, "ZL101", "single-graph")]),
        # the config set for the process reaches every compile, whichever file makes it
        (
            {"serve": "import torch\n" + OBLIVIOUS},
            [("model.py", 7, "ZL101", "default"), ("model.py", 7, "ZL104", "default")],
        ),
        # a mark at module level: what the file runs
        ({"train": MARKED_HERE.replace("def main():\n", "if True:\n")}, [("model.py", 7, "ZL101", "default")]),
    ],
)
def test_a_mark_or_a_scoped_patch_reaches_the_code_its_caller_compiles(tmp_path: Path, files, expected):
    assert _tiers(tmp_path, **files) == expected


def test_a_mark_reaches_nothing_of_a_model_the_marking_code_never_calls(tmp_path: Path):
    other = MARKED_HERE.replace("from model import Net", "from torch.nn import Linear as Net")
    assert _tiers(tmp_path, train=other) == [("model.py", 7, "ZL101", "single-graph")]
