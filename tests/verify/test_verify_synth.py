"""Inputs ``--verify`` infers for functions with no registered example: rank and dtype from how
each parameter is used (no torch needed to plan)."""

from __future__ import annotations

import ast
import textwrap

from zlint.verify.synth import plan_inputs


def _plan(source: str, focus: list[int] | None = None, is_method: bool = False):
    func = ast.parse(textwrap.dedent(source)).body[0]
    return plan_inputs(func, focus or [], is_method)


def _shapes(plan) -> dict[str, tuple[int, str]]:
    return {p.name: (len(p.labels), p.dtype) for p in plan.params if p.kind == "tensor"}


def test_conv_and_pool_inputs_get_their_rank():
    plan = _plan(
        """\
        def head(self, x, y, z):
            a = F.conv2d(x, self.w)
            b = self.conv1d_block(y)
            c = torch.nn.functional.max_pool3d(z, 2)
            return a, b, c
        """,
        is_method=True,
    )
    assert _shapes(plan) == {"x": (4, "float"), "y": (3, "float"), "z": (5, "float")}


def test_a_conv_submodule_means_four_dims():
    plan = _plan(
        """\
        def forward(self, x):
            return self.conv(x).flatten(1)
        """,
        is_method=True,
    )
    assert _shapes(plan) == {"x": (4, "float")}
    assert plan.describe() == "x[n,4,4,4]"  # the batch dim swept, the rest fixed


def test_embedding_inputs_are_integer_indices():
    plan = _plan(
        """\
        def forward(self, ids, mask):
            h = self.embed(ids)
            g = F.embedding(mask, self.table)
            return h + g
        """,
        is_method=True,
    )
    assert _shapes(plan) == {"ids": (2, "int"), "mask": (2, "int")}


def test_near_misses_keep_the_default_plan():
    plan = _plan(
        """\
        def forward(self, x, y):
            h = self.proj(x)           # not a conv: rank is not implied
            return conv2d_like(y) + h  # a free function merely named like one
        """,
        is_method=True,
    )
    assert _shapes(plan) == {"x": (2, "float"), "y": (2, "float")}


def test_unpacking_the_shape_still_decides_the_rank():
    plan = _plan(
        """\
        def forward(self, x):
            b, c, h, w = x.shape
            return x.view(b, c, h * w)
        """,
        is_method=True,
    )
    assert _shapes(plan) == {"x": (4, "float")}


def test_a_conv_head_verifies_without_a_registered_example(tmp_path):
    import pytest

    torch = pytest.importorskip("torch")
    from zlint.verify.sandbox.subjects import build

    path = tmp_path / "det_head.py"
    path.write_text(textwrap.dedent(
        """\
        import torch
        from torch import nn


        class DetHead(nn.Module):
            def __init__(self, in_channels: int = 4, num_classes=3):
                super().__init__()
                self.conv = nn.Conv2d(in_channels, num_classes, 1)
                self.embed = nn.Embedding(8, in_channels)

            def forward(self, x, ids):
                b, c, h, w = x.shape
                return self.conv(x).flatten(2).mean(-1) + self.embed(ids).mean(1)[:, :3]
        """
    ))
    subject, source, detail, _ = build(str(path), "DetHead.forward", [13])
    assert (source, detail) == ("synthesized", "x[n,4,4,4] ids[n,4]")
    args, kwargs = subject.make_inputs(3)
    assert args[1].dtype == torch.int64
    assert tuple(subject.call(*args, **kwargs).shape) == (3, 3)


def test_the_last_dims_unpacked_from_a_negative_slice_set_a_minimum_rank():
    plan = _plan(
        """\
        def merge(x, y):
            h, w, _ = x.shape[-3:]
            a, b, c, d = y.shape[-4:1]  # bounded on both ends: not "the last four dims"
            return x[..., : h // 2, : w // 2, :], y
        """,
        focus=[4],
    )
    assert _shapes(plan) == {"x": (3, "float"), "y": (2, "float")}
    assert set(plan.swept) == {"x.0", "x.1"}  # h, w: dims -3 and -2 of a rank-3 x


_LAYERS = """\
    import torch
    from torch import nn


    class Fire(nn.Module):
        def __init__(self, inplanes: int, squeeze_planes: int, stride: int, use_bias: bool) -> None:
            super().__init__()
            assert stride == 1
            self.squeeze = nn.Sequential(nn.Conv2d(inplanes, squeeze_planes, 1, bias=use_bias), nn.ReLU())
            self.head = nn.Linear(squeeze_planes, 2)

        def forward(self, x):
            return self.squeeze(x).mean((2, 3))


    class Block(nn.Module):
        def __init__(self, block, dim):
            super().__init__()
            self.proj = nn.Linear(dim, dim)

        def forward(self, x):
            return self.proj(x)


    class Tokens(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.proj = nn.Linear(dim, dim)

        def forward(self, x):
            return self.proj(x)
    """


def test_a_layer_with_required_widths_is_built_and_its_first_conv_sets_the_rank(tmp_path):
    import pytest

    pytest.importorskip("torch")
    from zlint.verify.sandbox.subjects import Unverifiable, build

    path = tmp_path / "layers.py"
    path.write_text(textwrap.dedent(_LAYERS))
    subject, source, detail, _ = build(str(path), "Fire.forward", [])
    assert (source, detail) == (
        "synthesized", "x[n,4,4,4] on Fire(inplanes=4, squeeze_planes=4, stride=1, use_bias=False)"
    )
    args, kwargs = subject.make_inputs(3)
    assert tuple(subject.call(*args, **kwargs).shape) == (3, 4)
    # a Linear says nothing about rank: the default plan stays
    _, _, detail, _ = build(str(path), "Tokens.forward", [])
    assert detail == "x[n,4] on Tokens(dim=4)"
    # an unannotated ``block`` is not a number to guess: no instance, and why
    with pytest.raises(Unverifiable, match=r"^method of Block, which Block\(\) cannot build \(TypeError: "):
        build(str(path), "Block.forward", [])


def test_an_asserted_rank_is_the_rank():
    plan = _plan(
        """\
        def block(x, y, z, w):
            torch._assert(x.dim() == 3, "want (batch, seq, dim)")
            assert y.ndim == 4
            assert z.dim() >= 3  # a bound, not a rank
            if w.dim() == 3:  # a branch, not an assertion
                w = w.flatten(1)
            return x, y, z, w
        """
    )
    assert _shapes(plan) == {"x": (3, "float"), "y": (4, "float"), "z": (2, "float"), "w": (2, "float")}


# -- what reaches a flagged line (zlint.verify.flow) ------------------------------------------


def _func(source: str):
    return ast.parse(textwrap.dedent(source)).body[0]


def test_branch_choices_follow_flags_unions_guard_clauses_and_constructor_flags():
    from zlint.verify.flow import choices

    rates = _func(
        """\
        def rates(rate, depths: Union[int, List[int]], stagewise: bool = False, mask=None):
            if isinstance(depths, int):
                return depths
            if stagewise:
                a = 1
            else:
                a = 2
            if mask is not None and depths[0] > 1:
                a = 3
            return a
        """
    )
    assert choices(rates, 3) == {"params": {"depths": "isinstance:int"}}
    assert choices(rates, 5) == {"params": {"depths": "not isinstance:int", "stagewise": "true"}}
    assert choices(rates, 7) == {"params": {"depths": "not isinstance:int", "stagewise": "false"}}
    # the flagged test itself: its comparison runs only once the flags before it hold
    assert choices(rates, 8) == {"params": {"depths": "not isinstance:int", "mask": "not-none"}}
    cls = ast.parse(textwrap.dedent(
        """\
        class Up:
            def __init__(self, channels: int = 4, compress: bool = False, scale=2.0):
                self.compress = compress
                self.scale = scale

            def forward(self, x):
                if self.compress:
                    if self.scale:
                        return x
                return x
        """
    )).body[0]
    forward = cls.body[1]
    # a flag with a bool default is set; one with another default (2.0) is left alone
    assert choices(forward, 9, cls) == {"init": {"compress": True}}
    assert choices(forward, 10, cls) == {}
    contradicting = _func(
        """\
        def f(x, a: bool = False):
            if a:
                if not a:
                    return x
            return x
        """
    )
    assert choices(contradicting, 4) == {}


def test_parameters_reach_a_line_through_the_names_bound_from_them():
    from zlint.verify.flow import reaching

    func = _func(
        """\
        def forward(self, x, mask=None, scale=None):
            out = self.model(x, mask=mask)
            y = out.sum()
            if y > 0:
                return y
            return scale
        """
    )
    assert reaching(func, [4], {"x", "mask", "scale"}) == {"x", "mask"}


def test_masks_are_boolean_and_annotations_give_integer_tensors():
    plan = _plan(
        """\
        def f(x, keep, ids: torch.LongTensor):
            x = x.masked_fill(~keep, 0)
            return x[ids]
        """
    )
    assert {p.name: p.dtype for p in plan.params} == {"x": "float", "keep": "bool", "ids": "int"}


def test_optional_tensors_reach_or_keep_their_default():
    plan = _plan(
        """\
        def f(x, mask: Optional[torch.Tensor] = None, bias: Optional[torch.Tensor] = None):
            if x.size(0) > mask.size(0):
                return x
            return x + bias
        """,
        focus=[2],
    )
    assert plan.describe() == "x[n,4] mask[n,4]"  # bias never reaches line 2: left at None


def test_sizes_through_views_tuples_asserts_and_divisions():
    plan = _plan(
        """\
        def tile(x, t: int):
            B, C, s, s1 = x.shape
            torch._assert(s == s1, "square")
            x = x.view(B * C, s, s, 1)
            return torch.cat(torch.split(x, 1, dim=1), dim=2)
        """,
        focus=[5],
    )
    assert plan.describe() == "x[4,4,n,n] t=4"  # the split count is dim 1 of the view: s
    plan = _plan(
        """\
        def forward(self, latent):
            height, width = latent.shape[-2] // self.patch, latent.shape[-1] // self.patch
            if self.height != height:
                return latent
            return latent * 2
        """,
        focus=[3],
        is_method=True,
    )
    assert plan.swept == ["latent.0"] and plan.unit_sources == {"latent.0": "self.patch"}
    assert plan.grow_front == {"latent"}  # dims read from the end: more dims go in front


def test_a_swept_int_when_no_tensor_reaches_the_line():
    plan = _plan(
        """\
        def rates(rate: float, depths: int):
            return [x.item() for x in torch.linspace(0, rate, depths)]
        """,
        focus=[2],
    )
    assert plan.describe() == "rate=1.0 depths=n" and plan.swept == ["depths"]


def test_a_helpers_sizes_map_to_its_callers_arguments():
    from zlint.verify.synth import find_function, through_sizes

    tree = ast.parse(textwrap.dedent(
        """\
        def helper(x, k: int = 7):
            kh = min(k, x.shape[2])
            if kh % 2 == 0:
                return x
            return x


        class M:
            def forward(self, x):
                y = x
                return helper(y) + helper(self.proj(x))

            def other(self, x):
                return helper(self.proj(x))
        """
    ))
    mapped, untraced = through_sizes(tree, find_function(tree, "M.forward"), [3], True)
    assert (mapped, untraced) == ({("x", 2)}, {})
    mapped, untraced = through_sizes(tree, find_function(tree, "M.other"), [3], True)
    assert mapped == set() and list(untraced) == [3]


def test_a_method_run_on_its_own_takes_what_its_class_passes_it():
    from zlint.verify.synth import caller_attributes, find_function

    tree = ast.parse(textwrap.dedent(
        """\
        class Up:
            def forward(self, h):
                if self.use_conv:
                    return self._up(h, self.conv.weight, kernel=self.kernel)
                return self._up(h, kernel=self.kernel, factor=2)

            def _up(self, h, weight=None, kernel=None, factor=2):
                if h.shape[2] > weight.shape[2]:
                    return h
                return h * 2
        """
    ))
    attributes = caller_attributes(tree, "Up._up")
    assert attributes == {"weight": "self.conv.weight", "kernel": "self.kernel"}
    plan = plan_inputs(find_function(tree, "Up._up"), [8], True, attributes=attributes)
    assert plan.describe() == "h[4,4,n] weight=self.conv.weight kernel=self.kernel"
