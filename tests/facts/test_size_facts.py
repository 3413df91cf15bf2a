"""The shared size facts (zlint.facts.size_facts): which expressions are sizes, shapes, ranks,
tensors; which sizes are static (parameters, channels, features, fixed widths), what a size is
compared with (literals, attributes, parameters, derived thresholds), clamps, helpers."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper

from conftest import codes_at, lint
from zlint.facts.imports import ImportMap
from zlint.facts.lattice import Kind
from zlint.facts.size_facts import SizeFactsProvider


class _InOrder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.nodes: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.BaseExpression):
            self.nodes.append(node)
        return True


def facts(code: str) -> dict[str, Kind]:
    """Source text of each expression -> its kind; for repeated text the last in source order
    wins (so ``use(n)`` at the end of a test function tells what ``n`` holds there)."""
    module = cst.parse_module(textwrap.dedent(code))
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    found = wrapper.resolve(SizeFactsProvider)
    order = _InOrder()
    module.visit(order)
    out: dict[str, Kind] = {}
    for node in order.nodes:
        text = module.code_for_node(node)
        if node in found:
            out[text] = found[node].kind
        else:
            out.pop(text, None)
    return out


@pytest.mark.parametrize(
    "expr",
    ["x.size(0)", "x.size()[1]", "x.shape[0]", "x.shape[-1]", "x.numel()", "x.nelement()",
     "x.size(dim=0)", "torch.numel(x)", "x.shape[0] * 2", "x.size(1) - 1", "x.shape[0] // 4",
     "-x.shape[0]", "int(x.shape[0])", "max(x.shape[0], 1)"],
)
def test_size_expressions(expr):
    assert facts(f"import torch\ndef f(x):\n    y = {expr}\n")[expr] is Kind.SIZE


@pytest.mark.parametrize(
    "binding, name",
    [
        ("n = x.size(0)", "n"),
        ("b, s, _ = x.shape", "b"),
        ("b, s, _ = x.shape", "s"),
        ("b, s = x.shape[:2]", "s"),
        ("bsz, q_len, _ = hidden.size()", "q_len"),
        ("*rest, d = x.shape", "d"),
        ("n = x.size(0) if x is not None else 0", "n"),
        ("n = x.shape[0]\n    n += 1", "n"),
        ("m = x.shape[1]\n    n = m * 2", "n"),
    ],
)
def test_names_bound_from_sizes(binding, name):
    code = f"def f(x, hidden):\n    {binding}\n    use({name})\n"
    assert facts(code)[name] is Kind.SIZE


@pytest.mark.parametrize("expr", ["x.dim()", "x.ndim", "len(x.shape)", "len(x.size())", "x.ndimension()"])
def test_ranks_are_static(expr):
    assert facts(f"def f(x):\n    y = {expr}\n")[expr] is Kind.RANK


def test_tensors_from_annotations_and_torch_calls():
    found = facts(
        """
        import torch as T
        from torch import Tensor
        from typing import Optional
        def f(a: Tensor, b: T.Tensor, c: Optional[Tensor], d: "torch.Tensor", e: list[Tensor], g: int):
            h = T.zeros(3)
            i = a.view(-1)
            use(a, b, c, d, e, g, h, i)
        """
    )
    tensors = {name for name, kind in found.items() if kind is Kind.TENSOR}
    assert {"a", "b", "c", "d", "h", "i"} <= tensors
    assert "e" not in tensors and "g" not in tensors


def test_len_is_a_size_only_for_tensors():
    found = facts(
        """
        import torch
        def f(t: torch.Tensor, names, u):
            a = len(t)
            b = len(names)
            c = len(u)
            return u.shape
        """
    )
    assert found["len(t)"] is Kind.SIZE
    assert "len(names)" not in found  # unknown objects are not tensors
    assert found["len(u)"] is Kind.SIZE  # u's .shape is read in the function


def test_plain_ints_and_lists_are_not_sizes():
    found = facts(
        """
        def f(x, names, n: int):
            k = 4
            m = len(names)
            s = x.shape[0]
            s = 3
            use(k, m, n, s)
        """
    )
    for name in ("k", "m", "n"):
        assert name not in found or found[name] is not Kind.SIZE
    # the most recent binding wins: `s = 3` rebinds s to a plain int
    assert "s" not in found or found["s"] is not Kind.SIZE


def test_bindings_do_not_leak_between_functions():
    found = facts(
        """
        def f(x):
            n = x.size(0)
        def g(n):
            return n
        """
    )
    assert "n" not in found or found["n"] is not Kind.SIZE


def test_size_comparisons_are_predicates_and_flow_through_bools():
    found = facts(
        """
        def f(q, mask):
            is_causal = q.shape[2] > 1 and mask is None
            use(is_causal)
        """
    )
    assert found["q.shape[2] > 1"] is Kind.PREDICATE
    assert found["is_causal"] is Kind.PREDICATE


def test_container_attributes_found_in_every_block_but_not_in_nested_classes():
    import libcst as cst

    from zlint.facts.values import container_attributes

    module = cst.parse_module(
        "class K:\n"
        "    def __init__(self, flag):\n"
        "        self.a = {}\n"
        "        if flag:\n            self.b = []\n        else:\n            self.c: set = set()\n"
        "        for _ in range(2):\n            try:\n                self.d = dict()\n"
        "            except ValueError:\n                self.e = [i for i in range(3)]\n"
        "            finally:\n                self.f = 1\n"
        "        with open('x') as fh: self.g = {}; self.h = fh\n"
        "        def helper():\n            self.i = list()\n"
        "        class Inner:\n            def m(self):\n                self.j = {}\n"
        "        self.k = (lambda: {})()\n"
    )
    names = container_attributes(module.body[0], ImportMap().qualify)
    assert names == {"a", "b", "c", "d", "e", "g", "i"}


# -- static sizes and what they are compared with ---------------------------------------------

MODULE = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.proj = nn.Linear(8, 8)
        self.scale = nn.Parameter(torch.ones(8))
        self.register_buffer("table", torch.zeros(4, 4))
        self.block_size = 4
    def forward(self, x, z):
{body}
"""


def module_codes(body: str) -> list[tuple[int, int, str]]:
    indented = "\n".join("        " + line for line in body.splitlines())
    return codes_at(MODULE.format(body=indented))


@pytest.mark.parametrize(
    "expr",
    [
        "self.weight.shape[0]", "self.conv.weight.size(1)", "self.scale.shape[0]", "self.table.size(0)",
        "self.scale.numel()", "len(self.scale.shape)",
    ],
)
def test_parameter_and_buffer_dims_are_static(expr):
    code = MODULE.format(body=f"        y = {expr}\n        use(y)")
    assert facts(code)["y"] in (Kind.STATIC, Kind.RANK)


@pytest.mark.parametrize(
    "body",
    [
        "if self.scale.shape[0] == 1:\n    pass",
        "y = self.conv(x)\nb, c, h, w = y.shape\nif c == 8:\n    pass",
        "if x.shape[1] != 3:\n    pass\ny = self.conv(x)",
        "h = self.proj(z)\nif h.shape[-1] > 4:\n    pass",
        "if z.size(-1) > 64:\n    pass\nh = F.layer_norm(z, (8,))",
        "if x.shape[-1] != self.hidden_size:\n    pass",
        "if x.size(1) != self.config.num_channels:\n    pass",
        "if x.shape[2] == self.num_heads * 2:\n    pass",
        "a, b = torch.split(self.conv(x), 4, dim=1)\nparts = torch.split(self.conv(x), 4, dim=1)",
        "for a, w in zip([1, 2], torch.logspace(0, 1, 5)):\n    pass",
        "for v in torch.arange(self.block_size):\n    pass",
    ],
)
def test_static_dims_stay_quiet(body):
    assert module_codes(body) == []


@pytest.mark.parametrize(
    "body, code",
    [
        ("y = self.conv(x)\nb, c, h, w = y.shape\nif h == 8:\n    pass", "ZL103"),
        ("if x.shape[0] > self.block_size:\n    pass", "ZL103"),
        ("if x.shape[-1] > self.config.max_position_embeddings:\n    pass", "ZL103"),
        ("if z.shape[-1] > self.tile_latent_min_size:\n    pass", "ZL103"),
        ("parts = torch.split(x, 4, dim=2)", "ZL204"),
        ("for v in torch.arange(x.shape[0]):\n    pass", "ZL202"),
        ("for v in torch.arange(n):\n    pass", "ZL202"),
    ],
)
def test_varying_dims_next_to_static_ones_are_reported(body, code):
    assert [c for _, _, c in module_codes(body)] == [code]


@pytest.mark.parametrize(
    "condition",
    [
        "x.shape[1] > limit", "x.shape[1] > LIMIT", "x.size(0) >= cfg['max_len']", "n > self.block_size",
        "n - self.block_size > 0", "n - 3 > 0", "n + 2 < 8", "n // 4 > 0", "2 * self.window < n",
        "any(c.size(1) < self.block_size for c in xs)", "(m := x.shape[0]) > 7", "4 < n < 64",
        "n != self.pos_embed.shape[1] - 1",
    ],
)
def test_thresholds_are_zl103_in_the_default_tier(condition):
    code = (
        f"import torch\nLIMIT = 8\ndef f(self, x: torch.Tensor, xs, limit, cfg):\n"
        f"    n = x.shape[1]\n    if {condition}:\n        pass\n"
    )
    found = lint(code)
    assert [(d.line, d.code, d.tier) for d in found] == [(5, "ZL103", "default")]


@pytest.mark.parametrize(
    "condition",
    ["n - 1 > 0", "n >= 2", "n < 2", "n + 1 == 2", "n // 2 > 0", "n * 4 == 0", "x.shape[0] == 1"],
)
def test_derived_zero_one_comparisons_are_zl101_single_graph(condition):
    code = f"import torch\ndef f(x: torch.Tensor):\n    n = x.shape[1]\n    if {condition}:\n        pass\n"
    found = lint(code)
    assert [(d.line, d.code, d.tier) for d in found] == [(4, "ZL101", "single-graph")]


@pytest.mark.parametrize(
    "condition",
    [
        "x.dim() == 1", "x.ndim > 2", "len(x.shape) == 4", "k > 4", "limit > 4", "name == 'fir'",
        "n is None", "self.weight.shape[1] == self.weight.shape[0]", "x.shape[-1] == hidden_size",
    ],
)
def test_near_misses_are_quiet(condition):
    code = (
        f"import torch\ndef f(self, x: torch.Tensor, limit, name, hidden_size):\n"
        f"    n = x.shape[1]\n    k = 3\n    if {condition}:\n        pass\n"
    )
    assert codes_at(code) == []


def test_truthiness_and_raise_only_validations_are_single_graph():
    code = """\
import torch
def f(x: torch.Tensor):
    if x.shape[0] % 8:
        raise ValueError("need a multiple of 8")
    if x.numel():
        pass
"""
    found = [(d.line, d.code, d.tier) for d in lint(code)]
    assert found == [(3, "ZL102", "single-graph"), (5, "ZL102", "single-graph")]


def test_clamped_loops_say_below_which_size_they_recompile():
    code = """\
import torch
def f(x: torch.Tensor):
    for i in range(min(x.shape[0], 4)):
        pass
    for i in range(min(x.shape[0], 2)):
        pass
    for i in range(min(x.shape[0], limit)):
        pass
"""
    found = lint(code)
    assert [(d.line, d.code) for d in found] == [(3, "ZL201"), (7, "ZL201")]
    assert "recompiles for each size below 4" in found[0].message
    assert "recompiles for every size" in found[1].message


def test_a_list_as_long_as_a_size():
    code = """\
import torch
def f(x: torch.Tensor, n: int):
    a = [0] * x.shape[0]
    b = x.shape[0] * [None]
    c = [0] * n
    d = [0] * 4
    e = (1,) * x.dim()
"""
    assert codes_at(code) == [(3, 9, "ZL201"), (4, 9, "ZL201")]


def test_helpers_in_the_same_module_return_sizes_and_tensors():
    code = """\
import torch
def seq_len(t):
    return t.shape[1]
def rotate(t):
    return torch.cat([t, t], dim=-1)
class M:
    def forward(self, x):
        if seq_len(x) > 16:
            pass
        if self._tokens(x) > 16:
            pass
        if later(x) > 16:
            pass
        for row in rotate(x):
            pass
        if count(x) > 16:
            pass
    def _tokens(self, t):
        return t.size(1)
def later(t):
    return t.numel()
def count(t):
    return 3
"""
    assert codes_at(code) == [(8, 12, "ZL103"), (10, 12, "ZL103"), (12, 12, "ZL103"), (14, 20, "ZL202")]


def test_a_local_name_shadows_a_helper():
    code = """\
import torch
def seq_len(t):
    return t.shape[1]
def f(x, seq_len):
    if seq_len(x) > 16:
        pass
"""
    assert codes_at(code) == []


def test_a_loop_counter_is_no_threshold():
    code = """\
import torch
def f(x: torch.Tensor, steps):
    for i, t in enumerate(steps):
        if i + 1 == x.shape[0]:
            pass
    for j in range(3):
        if x.shape[0] > j:
            pass
    j = 4
"""
    assert codes_at(code) == []


REMAINDERS = """\
def f(x, hop):
    b, c, n = x.shape
    rest = n % hop
    if rest != 0:
        x = x + 1
    if n % 2:
        x = x * 2
    if n % 8:
        raise ValueError("n must be a multiple of 8")
    m = n - 1
    if m == 0:
        x = x - 1
    return x
"""


def test_a_remainder_tested_against_zero_is_a_divisibility_threshold_even_through_a_name():
    found = [(d.line, d.code, d.tier) for d in lint(REMAINDERS)]
    assert found == [
        (4, "ZL103", "default"),  # rest = n % hop; rest != 0
        (6, "ZL103", "default"),  # n % 2 as a truth value is n % 2 != 0
        (8, "ZL102", "single-graph"),  # raise-only: costs nothing by default, blocks single-graph
        (11, "ZL101", "single-graph"),  # near miss: n - 1 == 0 is n == 1, no remainder
    ]


@pytest.mark.parametrize(
    "body",
    [
        # a dim the call that builds the tensor writes down: a literal, a constant, an attribute
        "p = z.expand(3, z.shape[0], -1)\nif p.shape[0] == 4:\n    pass",
        "p = z[None].expand(3, z.shape[0], -1)\nif p.shape[-3] == 4:\n    pass",
        "p = torch.zeros(3, z.shape[0])\nif p.size(0) > 2:\n    pass",
        "p = torch.zeros((ROWS, z.shape[0]))\nt, n = p.shape\nif t > 2:\n    pass",
        "q = z.view(z.shape[0], self.block_size, -1)\nif q.shape[1] > 8:\n    pass",
        "p = z.new_zeros((6, z.shape[0]))\nfor i in range(p.shape[0]):\n    pass",
        "p = torch.stack([z, z, z])\nif p.shape[0] == 4:\n    pass",
        "p = torch.stack([z, z], dim=-1)\nif p.shape[-1] > 2:\n    pass",
        # methods that keep the shape keep such a dim
        "p = z.expand(3, z.shape[0], -1).float().contiguous()\nif p.shape[0] == 4:\n    pass",
    ],
)
def test_dims_written_where_the_tensor_is_built_are_static(body):
    assert module_codes(f"ROWS = 3\n{body}") == []


@pytest.mark.parametrize(
    "body",
    [
        "p = z.expand(3, z.shape[0], -1)\nif p.shape[1] == 4:\n    pass",  # the size beside the literal
        "p = z.expand(3, z.shape[0], -1)\nif p.shape[2] > 4:\n    pass",  # -1 keeps the input's size
        "p = z.view(torch.float16)\nif p.shape[0] > 4:\n    pass",  # a dtype, not a shape
        "p = torch.zeros(*z.shape)\nif p.shape[0] > 4:\n    pass",  # starred: positions unknown
        "p = z.reshape(z.shape[0], -1)\nif p.shape[1] > 4:\n    pass",  # -1 is inferred
        "p = z.expand(3, z.shape[0], -1).flatten(0, 1)\nif p.shape[0] > 4:\n    pass",  # reshaped again
    ],
)
def test_dims_beside_written_ones_still_vary(body):
    assert [c for _, _, c in module_codes(body)] == ["ZL103"]


@pytest.mark.parametrize(
    "body",
    [
        "num_channels = z.shape[1]\nif num_channels != 3:\n    pass",
        "head_dim = z.shape[-1]\nfor i in range(head_dim):\n    pass",
        "ndim = z.shape[-1]\nparts = [z[..., k] for k in range(ndim)]",
        "n_axes = z.shape[-1]\nfor i in range(n_axes):\n    pass",
        "b, num_heads, s, d = z.shape\nif num_heads > 4:\n    pass",
        "kv_heads = z.shape[2]\nn_rep = self.block_size // kv_heads\nif n_rep >= 1:\n    pass",
    ],
)
def test_a_size_named_for_a_fixed_width_is_static(body):
    assert module_codes(body) == []


@pytest.mark.parametrize(
    "body, code",
    [
        ("dim = z.size(0)\nif dim > 4:\n    pass", "ZL103"),  # a bare `dim` also names lengths
        ("max_channels = z.shape[1]\nif max_channels > 4:\n    pass", "ZL103"),  # a limit
        ("b, num_heads, s, d = z.shape\nif s > 4:\n    pass", "ZL103"),  # its neighbours vary
        ("for hidden in z.shape[2:]:\n    for i in range(hidden):\n        pass", "ZL201"),  # a loop target
        ("seq_len = z.shape[1]\nif seq_len > 4:\n    pass", "ZL103"),
        # a width word beside a word for what varies: a batch, image tokens, a length along a dim
        ("bs_embed, seq_len, _ = z.shape\nfor i in range(bs_embed):\n    pass", "ZL201"),
        ("n_image_features = z.shape[0]\nif n_image_features > 4:\n    pass", "ZL103"),
        ("dim_size = z.size(1)\nif dim_size > 4:\n    pass", "ZL103"),
    ],
)
def test_sizes_named_otherwise_still_vary(body, code):
    assert [c for _, _, c in module_codes(body)] == [code]


@pytest.mark.parametrize(
    "body",
    [
        # the function enumerates the values the dim takes: a layout, not a varying size
        "n = z.shape[-1]\nif n == 2:\n    pass\nelif n == 4:\n    pass",
        "if z.shape[-1] == 4:\n    pass\nelif z.shape[-1] != 2:\n    raise ValueError(z.shape)",
        "if z.shape[1] in (3, 4):\n    pass",
        "rows = z.shape[0]\nif rows == 4:\n    pass\nelif rows == 1:\n    pass\nif rows not in (3, 4):\n    pass",
    ],
)
def test_a_dim_tested_against_several_small_values_is_a_layout(body):
    assert module_codes(body) == []


@pytest.mark.parametrize(
    "body, lines",
    [
        ("n = z.shape[-1]\nif n == 2:\n    pass\nelif n == 16:\n    pass", [14, 16]),  # 16: a length
        ("n = z.shape[-1]\nif n == 4:\n    pass\nif n == 4:\n    pass", [14, 16]),  # one value
        ("n, m = z.shape[:2]\nif n == 2:\n    pass\nif m == 4:\n    pass", [14, 16]),  # two sizes
        ("n = z.shape[-1]\nif n == 2:\n    pass\nif n > 4:\n    pass", [14, 16]),  # an order
        ("if z.shape[1] in (128, 256):\n    pass", [13]),
        ("num_frames = z.shape[0]\nif num_frames == 4:\n    pass\nelif num_frames == 2:\n    pass", [14, 16]),
    ],
)
def test_a_dim_tested_against_one_value_or_lengths_still_varies(body, lines):
    assert [(line, c) for line, _, c in module_codes(body)] == [(line, "ZL103") for line in lines]
