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
