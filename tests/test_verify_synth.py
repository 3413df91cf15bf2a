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
    from zlint.verify.subjects import build

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
