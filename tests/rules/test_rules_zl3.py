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


def test_a_registered_buffer_or_parameter_is_a_tensor_whose_value_breaks_a_branch():
    # measured with the shared workloads' oracle (torch 2.14.1, sizes 0..8): a graph break at the
    # `if` on the buffer's value; its shape is static, so the shape tests stay quiet
    code = """\
import torch
from torch import nn
class Norm(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("initialized", torch.tensor(0))
        self.scale = nn.Parameter(torch.ones(4))
        self.proj = nn.Linear(4, 4)
        self.eps = 1e-5
    def forward(self, x):
        if not self.initialized:
            pass
        if self.scale.abs().max() > 10:
            pass
        if self.scale.shape[0] > 2:
            pass
        if self.eps > 0:
            pass
        if self.proj is not None and self.training:
            pass
        return self.proj(x)
"""
    assert zl3(code) == [(11, 16, "ZL303"), (13, 12, "ZL303")]


def test_a_comparison_a_tensor_only_method_is_called_on_is_a_mask():
    # `ids` is known as a tensor only by how the comparison is used: only a tensor has
    # unsqueeze/expand_as; measured with the workloads' oracle on 2.14.1: a graph break at e[mask]
    code = """\
import torch
def f(ids, e, tok: int, n: int, names):
    mask = (ids == tok).unsqueeze(-1).expand_as(e)
    picked = e[mask]
    same = (n == tok)
    kept = names[same]
    listed = (n == tok).bit_length()
    return picked, kept, listed
"""
    assert zl3(code) == [(4, 14, "ZL305")]


def test_a_mask_moved_to_a_device_is_still_a_mask():
    """BART's eos pooling: `eos_mask = input_ids.eq(eos).to(hidden.device)`, then
    `hidden[eos_mask, :]`: the workloads' oracle on 2.14.1 breaks the graph there ("Dynamic
    shape operator"). A `.to` that names a dtype, or another tensor (whose dtype it takes), is no
    mask any more."""
    code = """\
import torch
def f(input_ids: torch.Tensor, hidden: torch.Tensor, other: torch.Tensor, device):
    eos_mask = input_ids.eq(2).to(hidden.device)
    picked = hidden[eos_mask, :]
    moved = (input_ids > 0).to("cuda", non_blocking=True)
    kept = hidden[moved]
    to_device = input_ids.ne(0).to(device)
    rows = hidden[to_device]
    weights = input_ids.eq(2).to(torch.float32)
    scaled = hidden[weights.long()]
    like = input_ids.eq(2).to(other)
    gathered = hidden[like.long()]
    return picked, kept, rows, scaled, gathered
"""
    assert zl3(code) == [(4, 14, "ZL305"), (6, 12, "ZL305"), (8, 12, "ZL305")]


def test_numpy_random_draws_that_break_the_graph():
    # measured with the workloads' oracle on torch 2.13.0 and 2.14.1: a break at each reported
    # call; an array drawn with a size and kept an array traced without one
    code = """\
import numpy as np
import numpy.random as npr
from numpy.random import randint as draw_int
import torch
class M(torch.nn.Module):
    def forward(self, x):
        a = np.random.random()
        b = npr.uniform(0, 1)
        c = draw_int(0, 4)
        d = np.random.choice([1, 2, 3])
        e = np.random.rand(1).item()
        f = float(np.random.randn(1))
        g = np.random.permutation(8)
        h = np.random.default_rng(0)
        i = np.random.normal(0, 1, size=None)
        kept = np.random.rand(3)
        sized = np.random.uniform(0, 1, (2, 2))
        by_keyword = np.random.choice([1, 2], size=4)
        np.random.seed(0)
        np.random.shuffle(kept)
        other = torch.rand(())
        listed = [0, 1].copy()
        return x
"""
    found = codes_at(code, Settings(select=("ZL309",)))
    assert found == [
        (7, 13, "ZL309"), (8, 13, "ZL309"), (9, 13, "ZL309"), (10, 13, "ZL309"), (11, 13, "ZL309"),
        (12, 13, "ZL309"), (13, 13, "ZL309"), (14, 13, "ZL309"), (15, 13, "ZL309"),
    ]
    messages = [d.message for d in lint(code, Settings(select=("ZL309",)))]
    assert messages[0].startswith("`np.random.random()` draws a Python number, which dynamo reads back")
    assert messages[4].startswith("`np.random.rand(1).item()` reads a numpy draw back into Python")
    assert messages[6].startswith("`np.random.permutation(8)`: dynamo cannot trace `numpy.random.permutation`")


def test_the_numpy_random_functions_dynamo_traces_are_torchs():
    # the table is data: it must name what torch's numpy layer provides, no more and no less
    # (read from the installed torch's source: importing torch costs the test run seconds)
    import ast
    import importlib.util
    from pathlib import Path

    from zlint.rules.api import TRACED_NUMPY_RANDOM

    spec = importlib.util.find_spec("torch")
    assert spec is not None and spec.origin is not None
    tree = ast.parse((Path(spec.origin).parent / "_numpy" / "random.py").read_text(encoding="utf-8"))
    exported = next(
        node.value for node in tree.body
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets)
    )
    assert set(TRACED_NUMPY_RANDOM) == set(ast.literal_eval(exported))


def test_a_flag_named_like_a_parameter_is_no_tensor():
    # e3nn's NormActivation: `self.bias = bias` (a bool) and `self.biases = nn.Parameter(...)`
    code = """\
import torch
from torch import nn
class NormActivation(nn.Module):
    def __init__(self, bias: bool):
        super().__init__()
        self.bias = bias
        if self.bias:
            self.biases = nn.Parameter(torch.zeros(4))
    def forward(self, x):
        if self.bias:
            x = x + self.biases
        return x
"""
    assert zl3(code) == []
