"""Inputs ``--verify`` synthesizes for real code, end to end on real torch.compile (eager backend):
they follow the annotations, hold a layer's fixed width at the module's own value, run training
branches in training mode, and an UNVERIFIABLE finding says what was tried and what to register."""

from __future__ import annotations

import json
import textwrap

import pytest

from conftest import run_zlint

torch = pytest.importorskip("torch")

MODELS = textwrap.dedent(
    """\
    from typing import List, Union

    import torch
    import torch.nn as nn
    import torch.nn.functional as F


    class Stem(nn.Module):
        def __init__(self, in_chans: int = 3, dim: int = 8):
            super().__init__()
            self.conv = nn.Conv2d(in_chans, dim, 3, padding=1)

        def forward(self, x):
            x = self.conv(x)
            if x.shape[-1] > 4:
                x = F.avg_pool2d(x, 2)
            return x


    class Dropper(nn.Module):
        def forward(self, x):
            if self.training and x.size(0) > 1:
                return x * 2
            return x


    def scale_to(x: torch.Tensor, size: Union[int, List[int]]):
        if size == 1:
            return x
        if x.size(0) > 16:
            return x[:16] * size
        return x * size


    class NeedsConfig(nn.Module):
        def __init__(self, config: "NetConfig", depth: int):
            super().__init__()
            self.width = config.width

        def forward(self, x):
            if x.size(0) == 1:
                return x
            return x * 2
    """
)


@pytest.fixture(scope="module")
def verified(tmp_path_factory):
    root = tmp_path_factory.mktemp("fitted")
    (root / "pyproject.toml").write_text("[tool.zlint]\n", encoding="utf-8")
    (root / "models.py").write_text(MODELS, encoding="utf-8")
    proc = run_zlint("--verify", "--backend", "eager", "--format", "json", "--verbose", "models.py", cwd=root)
    assert proc.returncode == 1, proc.stderr
    return {(d["location"]["row"], d["code"]): d for d in json.loads(proc.stdout)}, proc.stderr


def test_a_conv_width_is_held_at_the_module_value(verified):
    found, _ = verified
    verify = found[(15, "ZL103")]["verify"]
    assert verify["status"] == "CONFIRMED"
    # the channel dim at the conv's in_channels (3), the dim the flagged line reads swept
    assert verify["inputs"] == "synthesized: x[4,3,4,n]"


def test_a_training_branch_is_verified_in_training_mode(verified):
    found, _ = verified
    verify = found[(22, "ZL101")]["verify"]
    assert verify["status"] == "CONFIRMED"  # in eval mode the branch never runs: NOT OBSERVED
    assert verify["inputs"] == "synthesized: x[n,4] on Dropper() in training mode"


def test_an_int_annotation_gets_an_int_and_no_runtime_only_finding(verified):
    found, _ = verified
    verify = found[(30, "ZL103")]["verify"]
    assert verify["status"] == "CONFIRMED"
    assert verify["inputs"] == "synthesized: x[n,4] size=4"
    assert not [key for key in found if key[1].startswith("ZL8")]  # a tensor `size` broke the graph


def test_unverifiable_carries_the_inputs_and_a_registration(verified):
    found, stderr = verified
    verify = found[(41, "ZL101")]["verify"]
    assert verify["status"] == "UNVERIFIABLE"
    assert "NeedsConfig() cannot build" in verify["reason"]
    assert verify["inputs"] == "none built"
    assert verify["example"].splitlines() == [
        "import torch",
        "from zlint.verify import example",
        "from models import NeedsConfig",
        "example(NeedsConfig.forward, lambda n: (torch.randn(n, 4),), "
        "factory=lambda: NeedsConfig(config=NetConfig(), depth=4))",
    ]
    # --verbose puts the same on stderr, under the finding's location
    assert "zlint: verify: models.py:41: ZL101: inputs tried: none built\n" in stderr
    assert "zlint: verify: models.py:41: ZL101: register an example:\n    import torch\n" in stderr
