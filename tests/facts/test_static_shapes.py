"""Sizes dynamo never gives a symbol (zlint.facts.parameters, zlint.facts.written_shapes): the
findings each principle removes, and the near misses that stay.

Measured on torch 2.13 CPU, torch._dynamo.testing.CompileCounter, input sizes 2, 3, 4, 5, 7 (a
trivial function compiles 2 graphs over that sweep: static at 2, dynamic from 3):

- parameters: ``p.numel() > 100`` and ``s[0] == 1`` in a ``self.parameters()`` loop, 2 graphs;
  ``unbind`` over the depth dim of an ``nn.Parameter`` (x-transformers' memory kv), 2 graphs;
  ``torch.unbind`` of an ``nn.ParameterDict`` entry viewed as ``(N, D, H, H)`` (peft's BOFT
  blocks), 2 graphs. Near miss: ``x.numel() > 6`` on the input, 3 graphs; ``x.unbind(1)`` over an
  input dim that varies, 5 graphs.
- written sizes: a view to ``(b, cfg.nvt, cfg.layers * 2, cfg.heads, cfg.dim // cfg.heads)`` then
  compared on its heads and head dims (peft's prefix cache), 2 graphs.
- a loop counter named for a width: ``[channel for channel in range(x.shape[1])]`` with the
  batch varying at 3 channels, 2 graphs; near miss: the same with the channels varying, 5 graphs,
  and ``range(x.shape[0])`` over the batch, 5 graphs.
"""

from __future__ import annotations

import pytest

from conftest import codes_at

MODULE = """\
import torch
import torch.nn as nn
ROWS = 3
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.blocks = nn.ParameterDict({{"a": nn.Parameter(torch.randn(1, 3, 4, 4))}})
        self.scale = nn.Parameter(torch.ones(8))
        self.heads = 4
        self.dim = 32
    def forward(self, x, z, key, params, flag):
        total = 0
{body}
"""


def codes(body: str) -> list[str]:
    indented = "\n".join("        " + line for line in body.splitlines())
    return [code for _, _, code in codes_at(MODULE.format(body=indented))]


@pytest.mark.parametrize(
    "body",
    [
        # parameters and buffers: every dim static, however the code reaches them
        "for p in self.parameters():\n    if total + p.numel() > 100:\n        total = 0",
        "for name, p in self.named_parameters():\n    if p.shape[0] == 1:\n        pass",
        "for i, p in enumerate(self.parameters()):\n    for r in range(p.shape[0]):\n        pass",
        "if sum(p.numel() for p in self.parameters() if p.shape[0] > 4) > 9:\n    pass",
        "w = self.proj.weight\nif w.shape[0] > 3:\n    pass",
        "g = self.scale.grad\nif g.shape[0] == 1:\n    pass",
        "for p in self.blocks.values():\n    if p.shape[1] > 2:\n        pass",
        # an nn.ParameterDict entry, its sizes, and views written with them
        "R = self.blocks[key]\nN, D, H, _ = R.shape\nr = R.view(N * D, H, H)\n"
        "r = torch.relu(r).view(N, D, H, H).squeeze(0)\nparts = torch.unbind(r)",
        "N, D, H, _ = self.blocks[key].shape\nr = torch.relu(z).view(N, D, H, H)\nfor row in r:\n    pass",
        "m = self.scale.float().unsqueeze(0)\nparts = m.unbind(1)",
        # sizes written as arithmetic on attributes
        "q = torch.relu(z).view(z.shape[0], self.heads, self.dim // self.heads)\nif q.shape[2] > 8:\n    pass",
        # a loop counter named for a width
        "keep = [channel for channel in range(z.shape[1]) if channel != 1]",
        "for head in range(z.shape[1]):\n    pass",
    ],
)
def test_static_shapes_stay_quiet(body):
    assert codes(body) == []


@pytest.mark.parametrize(
    "body, code",
    [
        ("if x.numel() > 6:\n    pass", "ZL103"),  # an input's numel
        ("for p in params:\n    if p.numel() > 4:\n        pass", "ZL103"),  # a list the caller passes
        ("for p in self.parameters():\n    p = torch.relu(x)\n    if p.shape[0] > 4:\n        pass", "ZL103"),
        ("if any(p.shape[0] > 4 for p in params):\n    pass", "ZL103"),
        ("h = self.proj(z)\nif h.shape[0] > 3:\n    pass", "ZL103"),  # a Linear's output: only its last dim
        ("m = self.scale.float()[: x.shape[0]]\nfor row in m:\n    pass", "ZL202"),  # sliced by an input size
        ("m = self.scale.float()[torch.relu(x).long()]\nparts = m.unbind(0)", "ZL204"),  # indexed by a tensor
        ("N, D, H, _ = self.blocks[key].shape\nr = torch.relu(z).view(-1, D)\nfor row in r:\n    pass", "ZL202"),
        ("q = torch.relu(z).view(z.shape[0], self.heads, z.shape[1] // self.heads)\nif q.shape[2] > 8:\n    pass",
         "ZL103"),
        ("q = torch.relu(z).view(x.shape)\nif q.shape[0] > 4:\n    pass", "ZL103"),  # the input's sizes
        ("keep = [i for i in range(z.shape[1]) if i != 1]", "ZL201"),
        ("for frame in range(z.shape[1]):\n    pass", "ZL201"),
        ("for channel_len in range(z.shape[1]):\n    pass", "ZL201"),  # a length, whatever else it says
    ],
)
def test_near_misses_stay_flagged(body, code):
    assert codes(body) == [code]


OPTIMIZER = """\
import torch
class Opt(torch.optim.Optimizer):
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad.shape[0] == 1 or p.numel() > 10:
                    pass
                for row in p.detach().unbind(0):
                    pass
            for q in group["{key}"]:
                if q.shape[0] > 4:
                    pass
"""


def test_an_optimizers_params_are_static():
    """``group["params"]`` of ``param_groups`` holds parameters; another key of a group does not."""
    assert codes_at(OPTIMIZER.format(key="params")) == []
    assert [c for _, _, c in codes_at(OPTIMIZER.format(key="state"))] == ["ZL103"]


BRANCHES = """\
import torch
def f(z, flag):
    y = torch.relu(z)
    if flag:
        y = torch.tensor([])
    elif len(y) > 4:
        pass
    return y
"""


def test_an_else_branch_does_not_see_what_the_if_body_binds():
    """Only one branch runs: ``len(y)`` in the ``elif`` is the length of ``torch.relu(z)``, not of
    the empty tensor the ``if`` body binds (whose size is static)."""
    assert codes_at(BRANCHES) == [(6, 10, "ZL103")]
    after = BRANCHES.replace("    return y", "    if len(y) > 4:\n        pass\n    return y")
    # after the statement the latest binding in source order holds, as before
    assert [c for _, _, c in codes_at(after)] == ["ZL103"]
