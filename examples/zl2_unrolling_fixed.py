"""The box head of `zl2_unrolling.py`, written so one graph serves every number of boxes."""

import torch
from torch import Tensor, nn


class BoxHead(nn.Module):
    def __init__(self, dim: int = 32, classes: int = 5) -> None:
        super().__init__()
        self.fc = nn.Linear(dim, classes)

    def forward(self, feats: Tensor) -> Tensor:
        # feats: (num_boxes, dim): one batched op over all boxes
        return self.fc(feats)


def box_areas(boxes: Tensor) -> Tensor:
    x0, y0, x1, y1 = boxes.unbind(-1)  # four coordinates: a fixed count
    return (x1 - x0) * (y1 - y0)


def anchor_scale(feats: Tensor) -> Tensor:
    # arange over a size traces symbolically; no per-size cache needed
    steps = torch.arange(feats.shape[0], dtype=feats.dtype, device=feats.device)
    scale = steps / (feats.shape[0] - 1 + 1e-6)
    return feats * scale[:, None]


def per_box(boxes: Tensor) -> Tensor:
    return boxes.sum(-1)  # a reduction instead of one output per box


def box_tag(feats: Tensor) -> Tensor:
    return feats * 9  # a constant tag instead of a size in a string
