"""A box head for a detector that finds 0, 1, 2 ... boxes per image.

Every loop and lookup below makes torch.compile unroll or specialize on the number of boxes, so
each new count compiles a new graph (see `zlint examples/`); the fixed version is
`zl2_unrolling_fixed.py`. Each hazard sits in its own function so `zlint --verify` can confirm
each one (a first specialization would otherwise mask the ones after it).
"""

import torch
from torch import Tensor, nn

ANCHORS: dict = {}  # a per-size cache of anchor grids


class BoxHead(nn.Module):
    def __init__(self, dim: int = 32, classes: int = 5) -> None:
        super().__init__()
        self.fc = nn.Linear(dim, classes)

    def forward(self, feats: Tensor) -> Tensor:
        # feats: (num_boxes, dim)
        logits = []
        for i in range(feats.size(0)):  # one unrolled step per box
            logits.append(self.fc(feats[i]))
        return torch.stack(logits)


def box_areas(boxes: Tensor) -> Tensor:
    # boxes: (num_boxes, 4)
    return torch.stack([(b[2] - b[0]) * (b[3] - b[1]) for b in boxes])  # iterating a tensor


def anchor_scale(feats: Tensor) -> Tensor:
    grid = ANCHORS.get(feats.size(0))  # a size as a dict key: one lookup per count
    if grid is None:
        grid = torch.linspace(0, 1, feats.shape[0])
    return feats * grid[:, None]


def per_box(boxes: Tensor) -> Tensor:
    parts = boxes.unbind(0)  # as many outputs as boxes
    return torch.stack([p.sum() for p in parts]) if parts else boxes.sum(-1)


def box_tag(feats: Tensor) -> Tensor:
    name = f"boxes_{feats.size(0)}"  # a size formatted into a string
    return feats * len(name)
