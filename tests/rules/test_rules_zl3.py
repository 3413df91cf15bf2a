"""ZL301-ZL307: exact findings, and the near misses they must stay quiet on."""

from __future__ import annotations

from conftest import codes_at, lint
from zlint.core.settings import Settings

ZL3 = Settings(select=("ZL3",))


def zl3(code: str) -> list[tuple[int, int, str]]:
    return codes_at(code, ZL3)


def test_values_read_into_python():
    code = """\
import torch
def f(x: torch.Tensor, y):
    a = x.sum().item()
    b = y.item()
    c = int(x.max())
    d = float(x[0])
    e = bool((x > 0).all())
    g = x.tolist()
    h = torch.argmax(x).tolist()
"""
    assert zl3(code) == [
        (3, 9, "ZL301"), (4, 9, "ZL301"), (5, 9, "ZL301"), (6, 9, "ZL301"), (7, 9, "ZL301"),
        (8, 9, "ZL302"), (9, 9, "ZL302"),
    ]
    assert "reads a tensor value into Python: graph break" in lint(code, ZL3)[0].message


def test_python_numbers_sizes_and_numpy_are_quiet():
    code = """\
import numpy as np
import torch
def f(x: torch.Tensor, arr, cfg):
    n = int(x.size(0))
    m = float(x.shape[-1])
    k = int(cfg.hidden)
    flag = bool(cfg.flag)
    lst = arr.tolist()
    v = np.float32(3).item()
    w = np.array([1]).tolist()
    items = cfg.items()
"""
    assert zl3(code) == []


def test_item_needs_torch_in_the_file():
    assert zl3("def f(a):\n    return a.item()\n") == []


def test_branches_on_tensor_values():
    code = """\
import torch
def f(x: torch.Tensor, t: torch.Tensor):
    if t:
        pass
    if (x > 0).any():
        pass
    while x.sum() > 1:
        break
    y = x if torch.isnan(x).any() else t
    if torch.isinf(x).any():
        raise ValueError("inf")
    z = [a for a in range(3) if x.max() > a]
"""
    assert zl3(code) == [(3, 8, "ZL303"), (5, 8, "ZL303"), (7, 11, "ZL303"), (9, 14, "ZL303"),
                         (10, 8, "ZL303"), (12, 33, "ZL303")]


def test_branches_on_runtime_state_and_python_values_are_quiet():
    code = """\
import torch
class M(torch.nn.Module):
    def forward(self, x: torch.Tensor, mask=None):
        if self.training:
            pass
        if mask is not None:
            pass
        if torch.cuda.is_available():
            pass
        if torch.jit.is_tracing() or torch.jit.is_scripting():
            pass
        if torch.is_grad_enabled():
            pass
        if torch.distributed.is_initialized():
            pass
        if x.requires_grad:
            pass
        if x.size(0) > 4 and x.dim() == 2:
            pass
        if torch.is_tensor(x) and x.is_floating_point():
            pass
        assert (x >= 0).all()
        torch._assert(x.numel() > 0, "empty")
        return x
"""
    assert zl3(code) == []


def test_data_dependent_output_shapes():
    code = """\
import torch
def f(x: torch.Tensor, r: torch.Tensor, m: torch.BoolTensor):
    a = x.nonzero()
    b = torch.nonzero(x, as_tuple=True)
    c = torch.where(x > 0)
    d = torch.argwhere(x)
    e = x[x > 0]
    g = x[~m]
    h = x[torch.isnan(x) | (x < 0)]
    i = torch.masked_select(x, m)
    j = x.masked_select(m)
    k = torch.unique(x)
    l2 = x.unique_consecutive()
    n = r.bincount()
    o = x.repeat_interleave(r, dim=0)
    p = torch.repeat_interleave(x, r)
    q = x[m.bool(), :]
"""
    assert zl3(code) == [
        (3, 9, "ZL304"), (4, 9, "ZL304"), (5, 9, "ZL304"), (6, 9, "ZL304"),
        (7, 9, "ZL305"), (8, 9, "ZL305"), (9, 9, "ZL305"), (10, 9, "ZL305"), (11, 9, "ZL305"),
        (12, 9, "ZL306"), (13, 10, "ZL306"), (14, 9, "ZL306"),
        (15, 9, "ZL307"), (16, 9, "ZL307"), (17, 9, "ZL305"),
    ]


def test_static_shaped_near_misses_are_quiet():
    code = """\
import numpy as np
import torch
def f(x: torch.Tensor, r: torch.Tensor, idx: torch.Tensor, n_rep: int, mask):
    a = torch.where(x > 0, x, 0)
    b = torch.nonzero_static(x, size=4)
    x[x > 0] = 0
    c = x[idx]
    d = x[:, 0]
    e = x[mask]
    g = x.repeat_interleave(2, dim=0)
    h = x.repeat_interleave(n_rep, dim=1)
    i = x.repeat_interleave(r, dim=0, output_size=8)
    j = np.unique([1, 2])
    k = x.masked_fill(x > 0, 0)
    m = x[x.float() > 0.5 if x.dim() else 0]
"""
    assert zl3(code) == []


def test_one_finding_per_data_dependent_condition():
    code = """\
import torch
def check(w: torch.Tensor):
    if not torch.isfinite(w).all() or (w < 0).any():
        raise ValueError("bad weights")
"""
    assert zl3(code) == [(3, 12, "ZL303")]


def test_an_assert_that_takes_a_tensors_truth_in_python_breaks():
    # measured on 2.13: `not t`, and every `and`/`or` operand but the last, are truth-tested in
    # Python (4 graphs over 3 sizes, "Data-dependent branching"); one tensor asserted, or the
    # last operand, is a runtime assert (2 graphs)
    code = """\
import torch
def f(tokens: torch.Tensor, n: int, x, vocab: int):
    assert (tokens.min() >= 0) and (tokens.max() < vocab), "range"
    assert not (tokens < 0).any()
    assert tokens.max() < vocab or n > 0
    assert n > 0 and tokens.min() >= 0
    assert tokens.min() >= 0
    assert (tokens.min() >= 0) & (tokens.max() < vocab)
    assert x.shape[0] == 2 and n > 3
"""
    assert zl3(code) == [(3, 13, "ZL303"), (4, 16, "ZL303"), (5, 12, "ZL303")]
    assert "tested for truth inside an assert: graph break" in lint(code, ZL3)[0].message


def test_a_mask_at_any_index_position_selects():
    code = """\
import torch
def f(edges: torch.Tensor, batch: torch.Tensor, x: torch.Tensor, idx: torch.Tensor):
    a = edges[:, batch[edges[0]] == batch[edges[1]]]
    b = x[0, ..., x[1] > 0]
    c = x[:, idx]
    d = x[:, 0:3]
    x[:, x[0] > 0] = 0
    return a, b, c, d
"""
    assert zl3(code) == [(3, 9, "ZL305"), (4, 9, "ZL305")]


def test_writes_through_masks_in_tuple_targets_are_quiet():
    code = """\
import torch
def f(out: torch.Tensor, logits: torch.Tensor, x: torch.Tensor, m: torch.BoolTensor):
    out[~m], logits[~m] = x, x
    [out[m]] = [x]
    return out
"""
    assert zl3(code) == []


def test_tensors_used_as_sizes_are_read_into_python():
    code = """\
import torch
def f(x: torch.Tensor, counts, n: int, idx):
    m = counts.max(dim=0).values
    for i in range(counts.sum(dim=0)):
        pass
    a = torch.zeros(m, 3)
    b = x[: m]
    c = x[:n]
    d = torch.zeros(n, 3)
    e = torch.full((3,), m)
    g = x[x.shape[0] - 1:]
    h = torch.arange(x.shape[0])
    k = x[idx]
"""
    assert zl3(code) == [(4, 14, "ZL301"), (6, 9, "ZL301"), (7, 13, "ZL301")]
    assert "is a tensor used as a size: graph break" in lint(code, ZL3)[0].message
