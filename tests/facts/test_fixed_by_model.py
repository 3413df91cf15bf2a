"""Sizes a model fixes, whatever its inputs: each principle, the findings it removes and the
near misses that stay (run on the fast and the full path: both must agree).

Measured on torch 2.13 CPU, torch._dynamo.testing.CompileCounter:

- static operands: a module that views a parameter, ``block_diag(*unbind(...))`` it,
  ``bmm``s it with a buffer and loops over ``range(m.shape[0])``, besides ``self.conv(x).flatten(2)
  .transpose(1, 2)`` tested on its last dim and a helper handed a parameter, compiles 2 graphs
  over inputs of 5 sizes, as many as the same module without them.
- stacked counts: ``if torch.stack(xs).shape[0] > 2`` over lists of 2 to 5 tensors passed in,
  or built by a loop over a size, 4 graphs with and without the comparison.
- ``k - n % k``: ``gap = K - (K // 2 + L % K) % K; if gap > 0:`` 2 graphs by default (1 under
  ``mark_unbacked``, 1 under ``backed_size_oblivious``), as many as without it; the near miss
  ``rest = T % 4; if rest > 0:`` 3 (4 and 2).
"""

from __future__ import annotations

import pytest

from conftest import codes_at


@pytest.fixture(autouse=True, params=["fast", "full"])
def both_paths(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test runs on the fast path (the candidate stage decides what to parse) and the full
    path: a fact the candidate stage does not keep the code for would tell them apart."""
    monkeypatch.setenv("ZLINT_FULL_PATH", "1" if request.param == "full" else "0")

HEADER = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
"""


def found(source: str) -> list[tuple[int, str]]:
    return [(line, code) for line, _, code in codes_at(HEADER + source)]


# -- static operands: a tensor computed only from static shapes ------------------------------
OPERANDS = """\
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.R = nn.Parameter(torch.randn(1, 4, 3, 3))
        self.register_buffer("P", torch.randn(1, 12, 12))
        self.block = Block()
    def forward(self, x, scale):
        N, D, H, _ = self.R.shape
        r = torch.relu(self.R).view(N, D, H, H).squeeze(0)
        b = torch.block_diag(*torch.unbind(r)).unsqueeze(0)
        m = torch.bmm(self.P, torch.bmm(b, self.P.permute(0, 2, 1)))
        {use}
"""


@pytest.mark.parametrize(
    "use",
    [
        "for i in range(1, m.shape[0]):\n            pass",
        "if (2 * m[0] - m[0] @ m[0]).shape[0] > 8:\n            pass",
        "for row in m.sum(dim=0, keepdim=True).float():\n            pass",
    ],
)
def test_a_tensor_computed_from_parameters_is_static(use):
    assert found(OPERANDS.format(use=use)) == []


@pytest.mark.parametrize(
    "use, line",
    [
        ("y = torch.bmm(b, x)\n        if y.shape[0] > 4:\n            pass", 16),  # an input operand
        ("y = torch.nonzero(m)\n        if y.shape[0] > 4:\n            pass", 16),  # sized by the data
        ("y = self.block(m)\n        if y.shape[0] > 4:\n            pass", 16),  # a module may keep state
        ("y = m * scale\n        if y.shape[0] > 4:\n            pass", 16),  # scale may be a tensor
        ("y = m[x.long()]\n        if y.shape[0] > 4:\n            pass", 16),  # indexed by a tensor
        ("y = F.one_hot(m.long())\n        if y.shape[-1] > 4:\n            pass", 16),  # as wide as the max
    ],
)
def test_an_operand_of_unknown_shape_keeps_the_size(use, line):
    codes = found(OPERANDS.format(use=use))
    assert (line, "ZL103") in codes
    assert all(code in ("ZL103", "ZL304") for _, code in codes)


# -- .weight/.bias of a module reached from self ---------------------------------------------
WEIGHTS = """\
class Adapter(nn.Module):
    def __init__(self):
        super().__init__()
        self.base = nn.Conv2d(3, 8, 3)
        self.lora_A = nn.ModuleDict({{"a": nn.Conv2d(3, 2, 1)}})
    def get_base_layer(self):
        return self.base
    def delta(self, name, layer):
        {use}
"""


@pytest.mark.parametrize(
    "use",
    [
        "if self.get_base_layer().weight.size()[2:4] == (1, 1):\n            pass",
        "if self.lora_A[name].weight.shape[0] > 4:\n            pass",
        "w = self.lora_A[name].weight.float()\n        for i in range(w.shape[1]):\n            pass",
    ],
)
def test_the_weight_of_a_submodule_is_a_parameter(use):
    assert found(WEIGHTS.format(use=use)) == []


def test_the_weight_of_an_object_passed_in_may_be_anything():
    use = "w = layer.weight\n        if w.shape[0] > 4:\n            pass"
    assert found(WEIGHTS.format(use=use)) == [(13, "ZL103")]


# -- values across calls: a parameter every call fills with a parameter ----------------------
CALLS = """\
def get_rel_pos(q_size: int, k_size: int, rel_pos: torch.Tensor) -> torch.Tensor:
    max_rel_dist = int(2 * max(q_size, k_size) - 1)
    if rel_pos.shape[0] != max_rel_dist:
        rel_pos = F.interpolate(rel_pos[None], size=max_rel_dist)[0]
    return rel_pos
def decomposed(q, rel_pos_h: torch.Tensor, q_size):
    q_h, q_w = q_size
    return get_rel_pos(q_h, q_h, rel_pos_h)
class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.rel_pos_h = nn.Parameter(torch.zeros(27, 8))
        self.grid = (14, 14)
    def forward(self, x):
        B, H, W, _ = x.shape
        return decomposed(x, {passed}, {size})
"""


@pytest.mark.parametrize("passed", ["self.rel_pos_h", "self.rel_pos_h.float()"])
def test_a_parameter_filled_with_a_parameter_at_every_call_is_static(passed):
    assert found(CALLS.format(passed=passed, size="self.grid")) == []


@pytest.mark.parametrize("passed", ["x", "self.rel_pos_h[:H]", "self.rel_pos_h * x"])
def test_one_call_with_another_tensor_keeps_the_size(passed):
    assert found(CALLS.format(passed=passed, size="self.grid")) == [(6, "ZL103")]


def test_every_call_counts():
    other = "def other(x):\n    return get_rel_pos(4, 4, x)\n"
    source = CALLS.format(passed="self.rel_pos_h", size="self.grid") + other
    assert found(source) == [(6, "ZL103")]


@pytest.mark.parametrize("size", ["(H, W)", "x.shape[1:3]", "(x.size(1), 14)"])
def test_a_function_handed_an_inputs_size_fits_the_table_to_it(size):
    """``q_size`` comes from ``x.shape`` two calls up: the table's length is compared with
    ``2 * q_size - 1``, which varies with the input (measured on torch 2.13: ``Ne(2*s0 - 1, 7)``),
    so the comparison stays reported though the table itself is static."""
    assert found(CALLS.format(passed="self.rel_pos_h", size=size)) == [(6, "ZL103")]


# -- class facts: what a base in the module registers, layers a class subclasses ------------
CLASSES = """\
class SafeConv3d(nn.Conv3d):
    def forward(self, x):
        return super().forward(x)
class Base(nn.Module):
    def update_layer(self, n):
        self.register_buffer("P", torch.zeros(n, n))
class {name}(nn.Module, Base):
    def __init__(self):
        super().__init__()
        self.conv = SafeConv3d(4, 8, 1)
        self.emb = nn.Embedding(10, 16)
    def forward(self, x, ids):
        {use}
"""


@pytest.mark.parametrize(
    "use",
    [
        "if self.P.shape[0] > 4:\n            pass",  # registered by a base
        "h = self.conv(x)\n        if h.shape[1] > 4:\n            pass",  # a Conv3d subclass's output
        "if x.shape[1] > 4:\n            pass\n        h = self.conv(x)",  # ... and input
        "e = self.emb(ids)\n        if e.shape[-1] > 8:\n            pass",  # an embedding's width
    ],
)
def test_what_a_class_inherits_fixes_dims(use):
    assert found(CLASSES.format(name="Layer", use=use)) == []


@pytest.mark.parametrize(
    "use, line",
    [
        ("h = self.conv(x)\n        if h.shape[2] > 4:\n            pass", 17),  # frames: not the channels
        ("e = self.emb(ids)\n        if e.shape[1] > 8:\n            pass", 17),  # tokens
        ("if ids.shape[-1] > 8:\n            pass\n        e = self.emb(ids)", 16),  # indices, not features
    ],
)
def test_the_other_dims_of_those_layers_vary(use, line):
    assert found(CLASSES.format(name="Layer", use=use)) == [(line, "ZL103")]


def test_a_class_that_is_no_base_gives_nothing():
    source = CLASSES.format(name="Layer", use="if self.P.shape[0] > 4:\n            pass").replace(
        "class Layer(nn.Module, Base)", "class Layer(nn.Module)"
    )
    assert found(source) == [(16, "ZL103")]


# -- rearranged dims: a layer's width through transpose, permute, flatten, unsqueeze ---------
REARRANGED = """\
class Patches(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 4)
        self.proj = nn.Linear(8, 8)
    def forward(self, x, h):
        t = {expr}
        if t.shape[{dim}] > 4:
            pass
"""


@pytest.mark.parametrize(
    "expr, dim",
    [
        ("self.conv(x).flatten(2).transpose(1, 2)", -1),
        ("self.conv(x).flatten(2).transpose(1, 2)", 2),
        ("self.proj(h).permute(0, 2, 1)", 1),
        ("self.proj(h).unsqueeze(0)", -1),
        ("self.proj(h).transpose(-1, -2)", -2),
        ("self.conv(x).unsqueeze(0)", 2),
    ],
)
def test_a_layers_width_keeps_its_place(expr, dim):
    assert found(REARRANGED.format(expr=expr, dim=dim)) == []


@pytest.mark.parametrize(
    "expr, dim",
    [
        ("self.conv(x).flatten(2).transpose(1, 2)", 1),  # the pixels
        ("self.proj(h).permute(0, 2, 1)", 2),  # the tokens
        ("self.proj(h).transpose(1, 2)", -1),  # the rank is unknown: no place for the width
        ("self.conv(x).flatten(1)", 1),  # channels times pixels
    ],
)
def test_the_dims_moved_beside_it_vary(expr, dim):
    assert found(REARRANGED.format(expr=expr, dim=dim)) == [(11, "ZL103")]


# -- counts a module fixes: stacked lists, len() of Python sequences -------------------------
COUNTS = """\
class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(8, 8) for _ in range(3)])
    def forward(self, x, xs, columns):
        {use}
"""


@pytest.mark.parametrize(
    "use",
    [
        "s = torch.stack([blk(x) for blk in self.blocks])\n        hints = s.unbind(0)",
        "s = torch.stack([blk(x) for blk in self.blocks], dim=1)\n        if s.shape[1] > 2:\n            pass",
        "s = torch.stack(tuple(blk(x) for blk in self.blocks))\n        for h in s:\n            pass",
        "names = list(columns)\n        e = torch.relu(x).reshape(len(names), -1)\n        parts = e.unbind(0)",
        "names = list(columns)\n        e = torch.relu(x)\n"
        "        parts = e.reshape(len(names), -1, *e.shape[1:]).unbind(0)",
    ],
)
def test_a_python_sequences_length_is_static(use):
    assert found(COUNTS.format(use=use)) == []


@pytest.mark.parametrize(
    "use, code",
    [
        ("s = torch.cat([blk(x) for blk in self.blocks])\n        hints = s.unbind(0)", "ZL204"),  # a sum of sizes
        ("s = torch.stack(xs)\n        if s.shape[0] > 2:\n            pass", "ZL103"),  # xs may be a tensor
        ("e = torch.relu(x)\n        parts = e.reshape(e.shape[0] // 2, -1, *e.shape[1:]).unbind(0)", "ZL204"),
        ("s = torch.stack([blk(x) for blk in self.blocks], dim=1)\n        if s.shape[0] > 2:\n            pass",
         "ZL103"),  # the batch beside the stacked dim
    ],
)
def test_sizes_beside_a_stacked_count_vary(use, code):
    assert [c for _, c in found(COUNTS.format(use=use))] == [code]


def test_a_list_of_a_tensors_rows_is_paid_where_it_iterates():
    use = "q = x.sum(dim=0)\n        s = torch.stack(list(x))\n        if s.shape[0] > 4:\n            pass"
    assert found(COUNTS.format(use=use)) == [(10, "ZL202")]


# -- k - n % k is at least 1 -----------------------------------------------------------------
PADDING = """\
class Pad(nn.Module):
    def __init__(self):
        super().__init__()
        self.segment_size = 4
    def forward(self, x, K: int):
        B, T, D = x.shape
        rest = self.segment_size - T % self.segment_size
        gap = K - (K // 2 + T % K) % K
        {test}
"""


@pytest.mark.parametrize(
    "test", ["if rest > 0:\n            pass", "if gap != 0:\n            pass", "if rest:\n            pass",
             "if gap >= 1:\n            pass", "while gap <= 0:\n            pass"]
)
def test_padding_up_to_a_multiple_is_never_zero(test):
    assert found(PADDING.format(test=test)) == []


@pytest.mark.parametrize(
    "test, code",
    [
        ("if T % K > 0:\n            pass", "ZL103"),  # a remainder is 0 for multiples
        ("if rest > 1:\n            pass", "ZL101"),  # 1 when T % k == k - 1
        ("if K - T % self.segment_size > 0:\n            pass", "ZL101"),  # another modulus
    ],
)
def test_other_paddings_stay_reported(test, code):
    assert found(PADDING.format(test=test)) == [(12, code)]


STATE = """\
class Cached(nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = torch.zeros(4, 8)
    def {method}(self, x):
        self.cache = torch.cat([self.cache, x])
    def forward(self, x):
        y = torch.cat([self.cache, self.cache])
        if y.shape[0] > 8:
            pass
"""


def test_an_attribute_a_method_reassigns_is_state():
    """``self.cache`` that ``update`` grows is no constant of the module; one only ``__init__``
    sets is."""
    assert found(STATE.format(method="update")) == [(12, "ZL103")]
    assert found(STATE.format(method="__init__")) == []


def test_a_call_that_leaves_it_none_keeps_the_fact():
    """``None`` passed (or left as the default) gives no shape: the other calls decide."""
    source = CALLS.format(passed="self.rel_pos_h", size="self.grid").replace(
        "rel_pos: torch.Tensor)", "rel_pos: torch.Tensor | None = None)"
    ) + "def other():\n    return get_rel_pos(4, 4)\n"
    assert found(source) == []


# -- indexing moves or resizes a fixed dim ---------------------------------------------------
INDEXED = """\
class Pooled(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(3, 8, 1)
        self.proj = nn.Linear(8, 8)
    def forward(self, x, h):
        n = x.shape[2]
        t = {expr}
        if t.shape[{dim}] > 4:
            pass
"""


@pytest.mark.parametrize(
    "expr, dim",
    [("self.conv(x)[:, :4]", 1), ("self.conv(x)[0]", 0), ("self.proj(h)[..., :4]", -1), ("self.proj(h)[None]", -1)],
)
def test_indexing_keeps_a_fixed_dim_where_it_lands(expr, dim):
    assert found(INDEXED.format(expr=expr, dim=dim)) == []


@pytest.mark.parametrize(
    "expr, dim",
    [
        ("self.conv(x)[:, :n]", 1),  # sliced by a size: n channels now
        ("self.proj(h)[:, 0]", -1),  # h may be 2-D: the last dim may be gone
        ("self.proj(h)[..., :n]", -1),
        ("self.proj(h)[x.long()]", -1),  # a tensor index: any layout
    ],
)
def test_indexing_by_sizes_or_tensors_loses_it(expr, dim):
    assert found(INDEXED.format(expr=expr, dim=dim)) == [(12, "ZL103")]


def test_state_a_base_grows_is_state_too():
    source = STATE.replace("class Cached(nn.Module):", "class Base(nn.Module):").format(method="update").replace(
        "    def forward(self, x):", "class Cached(Base):\n    def forward(self, x):"
    )
    assert found(source) == [(13, "ZL103")]
