"""ZL201-ZL209: exact findings, and the near misses they must stay quiet on."""

from __future__ import annotations

import pytest

from conftest import codes_at, lint
from zlint.core.settings import Settings

ZL2 = Settings(select=("ZL2",))


def zl2(code: str, settings: Settings = ZL2) -> list[tuple[int, int, str]]:
    return codes_at(code, settings)


def test_loops_over_sizes():
    code = """\
import torch
def f(x: torch.Tensor, t: torch.Tensor):
    for i in range(x.size(0)):
        pass
    n = x.shape[1]
    ys = [i for i in range(1, n - 1)]
    for j in range(len(t)):
        pass
    idx = list(range(x.numel()))
"""
    assert zl2(code) == [(3, 14, "ZL201"), (6, 22, "ZL201"), (7, 14, "ZL201"), (9, 16, "ZL201")]
    assert "loops over a size: recompiles for every size" in lint(code, ZL2)[0].message


def test_loops_that_are_not_over_sizes_are_quiet():
    code = """\
import torch
def f(x: torch.Tensor, names, cfg):
    for i in range(4):
        pass
    for i in range(len(names)):
        pass
    for i in range(x.dim()):
        pass
    for i in range(len(x.shape)):
        pass
    for i in range(cfg.num_layers):
        pass
    for d in x.shape:
        pass
    for i, d in enumerate(x.shape):
        pass
    y = torch.arange(x.size(0))
"""
    assert zl2(code) == []


def test_iterating_tensors():
    code = """\
import torch
def f(x: torch.Tensor, y: torch.Tensor):
    for row in x:
        pass
    a = [r.sum() for r in y]
    for i, row in enumerate(x):
        pass
    for p, q in zip(x, y):
        pass
    rows = list(x)
    cols = tuple(x.t())
    z = torch.cat([x, y])
    for r in z:
        pass
"""
    assert zl2(code) == [
        (3, 16, "ZL202"), (5, 27, "ZL202"), (6, 19, "ZL202"), (8, 17, "ZL202"),
        (10, 12, "ZL202"), (11, 12, "ZL202"), (13, 14, "ZL202"),
    ]


def test_iterating_lists_of_tensors_and_shapes_is_quiet():
    code = """\
import torch
def f(x: torch.Tensor, layers, hidden_states):
    for layer in layers:
        x = layer(x)
    for h in hidden_states:
        pass
    for a, b in zip(layers, hidden_states):
        pass
    dims = list(x.shape)
    sizes = tuple(x.size())
    pieces = [x, x]
    for p in pieces:
        pass
    for p in x.split([1, 2]):
        pass
"""
    assert zl2(code) == []


def test_unpacking_a_tensor_is_opt_in():
    code = """\
import torch
def f(qkv: torch.Tensor):
    q, k, v = qkv
    a, b = qkv.shape[:2]
    c, d = 1, 2
    return q
"""
    assert [c for c in codes_at(code, Settings()) if c[2] == "ZL203"] == []  # not on by default
    assert zl2(code, Settings(select=("ZL203",))) == [(3, 15, "ZL203")]


def test_output_counts_that_follow_a_size():
    code = """\
import torch
def f(x: torch.Tensor):
    n = x.size(1)
    a = x.unbind(0)
    b = torch.unbind(x)
    c = x.split(2)
    d = torch.split(x, 4, dim=1)
    e = x.chunk(3)
    g = x.chunk(n, dim=1)
    h = x.tensor_split(3)
    for part in x.split(n):
        pass
"""
    assert zl2(code) == [
        (4, 9, "ZL204"), (5, 9, "ZL204"), (6, 9, "ZL204"), (7, 9, "ZL204"),
        (8, 9, "ZL204"), (9, 9, "ZL204"), (10, 9, "ZL204"), (11, 17, "ZL204"),
    ]


def test_output_counts_fixed_by_the_code_are_quiet():
    code = """\
import torch
def f(x: torch.Tensor, qkv: torch.Tensor, sizes, line: str):
    q, k, v = qkv.unbind(0)
    a, b = x.split(2)
    h = x.chunk(2)
    i = x.chunk(3, dim=-1)
    j = x.split([1, 2], dim=1)
    k2 = x.split(sizes, dim=0)
    m = x.unbind(-1)
    words = line.split(" ")
    parts = "a,b".split(",")
    t = x.tensor_split([1, 3])
"""
    assert zl2(code) == []


def test_sizes_as_python_container_keys():
    code = """\
import torch
from collections import OrderedDict
class Cache(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.tables = {}
        self.order = OrderedDict()

    def forward(self, x: torch.Tensor):
        h, w = x.shape[-2:]
        if (h, w) in self.tables:
            return self.tables[(h, w)]
        self.order[h] = 1
        table = self.tables.get(x.size(0))
        local = {x.size(1): 1}
        widths = [1, 2, 3]
        return widths[w]
"""
    # the lookup of line 11 specializes `h` and `w` for the frame's graph: the keys of lines 12 and
    # 13 are already paid for (zlint.scope.pinned), and shown with `scope = "all"`
    assert zl2(code) == [(11, 12, "ZL205"), (14, 17, "ZL205"), (15, 18, "ZL205"), (17, 16, "ZL205")]
    assert zl2(code, Settings(select=("ZL2",), scope="all")) == [
        (11, 12, "ZL205"), (12, 20, "ZL205"), (13, 9, "ZL205"), (14, 17, "ZL205"),
        (15, 18, "ZL205"), (17, 16, "ZL205"),
    ]


def test_sizes_indexing_tensors_and_unknown_objects_are_quiet():
    code = """\
import torch
class M(torch.nn.Module):
    def forward(self, x: torch.Tensor, table, layers):
        n = x.size(0)
        a = x[n - 1]
        b = self.pos_embed[:, :n]
        c = table[n]
        d = layers[n]
        e = {"n": 1, "k": n}
        f = {i: i for i in range(3)}[1]
        return x
"""
    assert zl2(code) == []


def test_sizes_formatted_into_strings():
    # measured on 2.13.0 and 2.14.1 (dynamic=True, sizes 2..5, tests/rules/test_message_claims.py):
    # an f-string field that is one size takes a graph per size, str() breaks the graph, `%` leaves
    # the function uncompiled
    code = """\
import torch
def f(x: torch.Tensor):
    n = x.size(0)
    a = f"layer_{n}"
    b = str(x.shape[1])
    c = "%d tokens" % n
    g = f"{x.numel()} elements"
    s = str(x.shape)
"""
    assert zl2(code) == [(4, 18, "ZL206"), (5, 9, "ZL206"), (6, 9, "ZL206"), (7, 12, "ZL206"), (8, 9, "ZL206")]


def test_a_whole_shape_in_an_f_string_and_format_add_no_guard():
    # near misses, measured on 2.13.0 and 2.14.1: one graph for every size, no break; dynamo builds
    # these strings at run time from the symbolic sizes
    code = """\
import torch
def f(x: torch.Tensor):
    n, w = x.shape[0], x.shape[1]
    a = f"{x.shape}"
    b = f"got {x.size()} and {x.shape[1:]}"
    c = f"{tuple(x.shape)} {list(x.shape)}"
    d = f"{(n, w)}"
    e = "{}x{}".format(n, x.size(1))
    g = "{}".format(x.shape)
    return x, a, b, c, d, e, g
"""
    assert zl2(code) == []


def test_formatting_on_the_error_path_and_non_sizes_is_quiet():
    code = """\
import logging
import torch
logger = logging.getLogger(__name__)
def f(x: torch.Tensor, name: str):
    n = x.size(0)
    if x.dim() != 2:
        raise ValueError(f"bad shape {x.shape} with {n} rows")
    if x.dim() == 5:
        msg = f"5-d input with {n} rows"
        raise ValueError(msg)
    assert x.dim() == 2, f"got {x.shape}"
    torch._check(n > 0, lambda: "empty input")
    names = sorted(["a"], key=lambda v: f"{v}_{n}")
    logger.warning("seq %d", n)
    key = f"{name}_{x.dim()}"
    s = str(x.dim())
    return key
class Block(torch.nn.Module):
    def extra_repr(self):
        return f"{self.weight.shape[0]}"
"""
    assert zl2(code) == []


def test_messages_built_on_the_normal_path_are_reported():
    # measured on 2.13 (automatic dynamic, sizes 2..6): each of these takes one graph per size,
    # since the string is built on every call, whatever reads it later
    code = """\
import logging
import warnings
import torch
logger = logging.getLogger(__name__)
def f(x: torch.Tensor):
    H = x.shape[0]
    torch._assert(H % 2 == 0, f"height {H} not divisible by 2")
    warnings.warn(f"slow path for {H}")
    logger.info(f"seq {H}")
    print(f"{x.shape}")
    msg = f"{H} rows"
    if x.dim() == 5:
        raise ValueError(msg)
    return x
"""
    # print(f"{x.shape}"): print breaks the graph, the whole shape in the message adds no graph
    assert zl2(code) == [(7, 41, "ZL206"), (8, 36, "ZL206"), (9, 24, "ZL206"), (11, 14, "ZL206")]


def test_int_float_and_squeeze_follow_the_torch_version():
    code = """\
import math
import torch
def f(x: torch.Tensor):
    n = x.size(0)
    a = int(n)
    b = float(x.shape[1])
    c = math.ceil(n / 2)
    d = x.squeeze()
    e = torch.squeeze(x)
    g = x.squeeze(1)
    h = int("3")
"""
    # measured on 2.13: all of these trace symbolically
    assert zl2(code, Settings(select=("ZL2",), torch_version="2.13")) == []
    old = Settings(select=("ZL2",), torch_version="2.5")
    assert zl2(code, old) == [
        (5, 9, "ZL207"), (6, 9, "ZL207"), (7, 9, "ZL207"), (8, 9, "ZL208"), (9, 9, "ZL208"),
    ]


def test_branches_on_layout():
    code = """\
import torch
def f(x: torch.Tensor):
    if not x.is_contiguous():
        x = x.contiguous()
    y = x if x.stride(-1) == 1 else x.clone()
    while x.stride()[0] != 1:
        break
    if not x.is_contiguous():
        raise ValueError("need contiguous")
    assert x.is_contiguous()
    z = torch.empty_like(x).copy_(x) if x.dim() == 2 else x
"""
    assert zl2(code) == [(3, 12, "ZL209"), (5, 14, "ZL209"), (6, 11, "ZL209")]


def test_messages_passed_to_checks_are_built_eagerly_but_reprs_and_lambdas_are_quiet():
    # timm's PatchEmbed: `_assert(H == 224, f"...{H}...")` builds its message on every call, so
    # every input height gets its own graph; torch._check builds its lambda lazily, but on 2.13
    # a message closure over a size breaks the graph ("Can't convert torch._check*() message")
    code = """\
import torch
from timm.layers import _assert
class PatchEmbed(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        B, C, H, W = x.shape
        _assert(H == 224, f"Input height ({H}) doesn't match model.")
        torch._assert(x.dim() == 4, f"Expected 4-D input, got {x.shape}")
        torch._check(x.size(1) == 3, lambda: f"got {x.size(1)} channels")
        err = ValueError(f"bad {W}")
        logger.warning_once(f"resizing {H}x{W}")
        return x

    def extra_repr(self) -> str:
        return f"{self.weight.shape[0]}, eps={self.eps}"

    def __repr__(self):
        return "Norm(%d)" % self.weight.shape[0]
"""
    # torch._assert(..., f"... {x.shape}"): the whole shape is formatted without a guard (2.13.0,
    # 2.14.1); in a torch._check message closure a shape breaks the graph as a size does
    assert zl2(code) == [(6, 44, "ZL206"), (8, 53, "ZL206"), (9, 33, "ZL206"), (10, 41, "ZL206"), (10, 45, "ZL206")]
    check = [d for d in lint(code, ZL2) if d.line == 8][0]
    assert "graph break (a torch._check message may hold only constants)" in check.message


def test_membership_in_a_literal_is_a_comparison_not_a_lookup():
    code = """\
import torch
def f(img: torch.Tensor, cache):
    c = img.shape[-3]
    if c not in [1, 3]:
        raise TypeError("channels")
    return img
"""
    assert zl2(code) == []


def test_calls_returning_tuples_or_objects_are_not_tensors():
    code = """\
import torch
from torch.nn.init import _calculate_fan_in_and_fan_out
def f(x: torch.Tensor, path):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(x)
    widths, depths = torch.unique(x, return_counts=True)
    values, idx = x.topk(3)
    best, where = x.max(dim=1)
    lo, hi = torch.aminmax(x)
    data, labels = torch.load(path)
    for t in torch.broadcast_tensors(x, x):
        pass
"""
    assert zl2(code, Settings(select=("ZL2",))) == []


def test_messages_assigned_or_passed_to_project_checks_are_built_eagerly():
    code = """\
import torch
def f(x: torch.Tensor, batch_size: int):
    n = x.shape[0]
    torch_compilable_check(n % 2 == 0, f"length {n} is odd")
    deprecation_message = f"You passed {batch_size} prompts but {n} images"
    error_msg = "got %d rows" % n
    top, idx = torch.where(x > 0)
    return x
"""
    assert zl2(code) == [(4, 50, "ZL206"), (5, 66, "ZL206"), (6, 17, "ZL206")]


def test_output_counts_unpacked_through_a_name_are_quiet():
    code = """\
import torch
def f(x: torch.Tensor, table: torch.Tensor):
    e = (table + x).chunk(6, dim=1)
    a, b, c, d, g, h = [p.squeeze(1) for p in e]
    parts = x.chunk(3, dim=1)
    first, second, third = parts
    kept = x.chunk(4, dim=1)
    y = kept[0]
    other = x.chunk(5, dim=1)
    u, v = [p for p in (x, x)]
    both = x.chunk(7, dim=1)
    w, z = [p * q for p in both for q in both]
"""
    assert zl2(code) == [(7, 12, "ZL204"), (9, 13, "ZL204"), (11, 12, "ZL204")]


def test_loops_whose_counter_picks_a_module_entry_are_quiet():
    code = """\
import torch
class Head(torch.nn.Module):
    def forward(self, hidden: torch.Tensor, ids: torch.Tensor, cache: list):
        outs = []
        for level in range(hidden.shape[1]):
            outs.append(self.class_embed[level](hidden[:, level]))
        for i in range(ids.shape[-1]):
            outs.append(self.config.axes_dim[i])
        for j in range(hidden.shape[0]):
            outs.append(cache[j])
        for k in range(hidden.shape[2]):
            outs.append(self.class_embed[k + 1])
        for m in range(hidden.shape[3]):
            outs.append(self.table[m] if m else None)
        return outs
"""
    assert zl2(code) == [(9, 18, "ZL201"), (11, 18, "ZL201")]


def test_math_and_numpy_functions_dynamo_runs_on_the_concrete_int():
    # measured on 2.14 (sizes 2..6): copysign/log and np.ceil took a graph per size; the SymNode
    # ops (ceil, sqrt, log2: TorchData.symbolic_math) and numpy on tensors took none
    code = """\
import math
import numpy as np
import torch
def f(x: torch.Tensor, scale: float):
    batch = x.shape[0]
    s = math.copysign(1.0, batch)
    k = np.ceil(x.size(1) / 4)
    g = math.log(batch)
    a = math.ceil(batch / 2)
    b = math.sqrt(batch)
    c = math.log2(batch)
    d = math.log(scale)
    e = np.ones(3)
    h = np.sqrt(x.dim())
    return x
"""
    for version in ("2.13", "2.14"):
        assert zl2(code, Settings(select=("ZL207",), torch_version=version)) == [
            (6, 9, "ZL207"), (7, 9, "ZL207"), (8, 9, "ZL207"),
        ]


def test_a_slice_among_several_axes_says_tensor():
    # torchvision's heatmaps_to_keypoints: `rois` is only indexed as rois[:, 0], which no list,
    # tuple or dict accepts; the loop over len(rois) recompiled for every box count (workload oracle)
    code = """\
import torch
def heatmaps_to_keypoints(maps, rois, table):
    widths = rois[:, 2] - rois[:, 0]
    pairs = table[1, 2]
    for i in range(len(rois)):
        maps = maps + widths[i]
    for j in range(len(table)):
        maps = maps + j
    return maps, pairs
"""
    assert zl2(code) == [(5, 14, "ZL201")]
    # where numpy is imported, rois[:, 0] may be an array: no evidence either way
    assert zl2("import numpy as np\n" + code) == []


def test_a_torch_check_message_closure_over_a_shape_breaks_like_one_over_a_size():
    # measured on 2.13.0 and 2.14.1: dynamo accepts a message closure over constants only
    code = """\
import torch
def f(x: torch.Tensor):
    torch._check(x.size(1) == 3, lambda: f"got {x.shape}")
    torch._check(x.size(1) == 3, lambda: "got three")
    torch._assert(x.dim() == 2, f"got {x.shape}")
    return x
"""
    assert zl2(code) == [(3, 49, "ZL206")]


def test_sizes_handed_to_arguments_torch_takes_as_plain_numbers():
    """Measured on torch 2.14.1 (sizes 4..13): the schema's `int`/`int[2]`/`float?` arguments take
    a graph per size; `SymInt` and `Scalar` ones take the size symbolically."""
    code = """\
import torch
import torch.nn.functional as F
from torch import nn


def f(x: torch.Tensor, t: torch.Tensor):
    h, w = x.shape[-2:]
    a = torch.linspace(-1, 1, w)
    b = F.avg_pool2d(x, (h, w))
    c = F.max_pool2d(x, kernel_size=x.shape[2:])
    d = F.one_hot(t, num_classes=x.size(0))
    e = x.unfold(2, h, 1)
    g = nn.functional.pad(x, (1, 1), value=w - 1)
    k = torch.histc(x, bins=x.size(0))
    return a, b, c, d, e, g, k


def quiet(x: torch.Tensor, t: torch.Tensor):
    h, w = x.shape[-2:]
    a = torch.linspace(-1, 1, 16)
    b = F.avg_pool2d(x, (2, 2))
    c = F.adaptive_avg_pool2d(x, 1)
    d = torch.tril(x, w - 3)
    e = torch.arange(w) + torch.full((1,), h)
    g = x.view(x.size(0), -1)
    k = torch.kthvalue(t, x.size(0) // 2)
    m = x.chunk(x.size(0))
    return a, b, c, d, e, g, k, m


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(4, 4))

    def forward(self, x: torch.Tensor):
        return torch.linspace(0, 1, self.weight.shape[0]) + x
"""
    settings = Settings(select=("ZL210",), scope="all", torch_version="2.14.1")
    assert zl2(code, settings) == [
        (8, 9, "ZL210"), (9, 9, "ZL210"), (10, 9, "ZL210"), (11, 9, "ZL210"), (12, 9, "ZL210"), (13, 9, "ZL210"),
        (14, 9, "ZL210"),
    ]
    messages = [d.message for d in lint(code, settings)]
    assert messages[0] == (
        "`torch.linspace(-1, 1, w)` hands a size to `steps`, which `linspace` takes as a plain number: "
        "recompiles for every size; `start + torch.arange(n) * ((end - start) / (n - 1))` takes the size "
        "symbolically"
    )
    assert "`F.max_pool2d(x, kernel_si...` hands a size to `kernel_size`" in messages[2]


def test_the_plain_number_arguments_are_torchs_schemas():
    """The table is read from the installed torch's ATen schemas (and regenerating the shipped
    data from it changes nothing: tests/core/test_torch_data.py)."""
    torch = pytest.importorskip("torch")
    from zlint.core.torch_versions import concrete_arguments

    table = concrete_arguments(torch)
    assert table["torch.linspace"] == {"steps": 2}
    assert table["Tensor.unfold"] == {"size": 1, "step": 2}
    assert table["torch.nn.functional.max_pool2d"]["kernel_size"] == 1
    assert table["torch.nn.functional.one_hot"] == {"num_classes": 1}
    for symbolic in ("torch.tril", "torch.arange", "torch.full", "Tensor.view", "torch.kthvalue", "Tensor.expand"):
        assert symbolic not in table


def test_a_size_through_a_math_function_is_a_size():
    """`range(ceil(log2(n)))`: dynamo unrolls a loop over a count computed from the size (a graph
    per count, measured on 2.14.1); `math.log2` itself is traced symbolically there."""
    code = """\
import math
import torch


def f(x: torch.Tensor):
    for i in range(math.ceil(math.log2(x.size(0)))):
        x = x + i
    for i in range(math.ceil(math.log2(8))):
        x = x + i
    return x
"""
    assert zl2(code, Settings(select=("ZL2",), torch_version="2.14.1")) == [(6, 14, "ZL201")]
