"""Source: ultralytics/ultralytics, ultralytics/nn/modules/head.py (Detect._inference) and
ultralytics/utils/tal.py (make_anchors).

Rewritten: anchors are rebuilt whenever the feature-map shape differs from the one cached on
the module (the shape tuple is compared and stored on self); the anchor grid itself is built
from the feature sizes passed into arange.
"""

import torch
import torch.nn as nn


def make_anchors(feats, strides, grid_cell_offset: float = 0.5):
    anchor_points, stride_tensor = [], []
    for i, stride in enumerate(strides):
        _, _, h, w = feats[i].shape
        sx = torch.arange(end=w, dtype=feats[i].dtype) + grid_cell_offset
        sy = torch.arange(end=h, dtype=feats[i].dtype) + grid_cell_offset
        sy, sx = torch.meshgrid(sy, sx, indexing="ij")
        anchor_points.append(torch.stack((sx, sy), -1).view(-1, 2))
        stride_tensor.append(torch.full((h * w, 1), stride, dtype=feats[i].dtype))
    return torch.cat(anchor_points), torch.cat(stride_tensor)


class DetectHead(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stride = [8.0]
        self.shape = None
        self.dynamic = False
        self.anchors = torch.empty(0)
        self.strides = torch.empty(0)

    def forward(self, feat):
        x = [feat]
        shape = x[0].shape
        if self.dynamic or self.shape != shape:
            self.anchors, self.strides = (a.transpose(0, 1) for a in make_anchors(x, self.stride, 0.5))
            self.shape = shape
        flat = feat.flatten(2)
        return flat[:, :2] + self.anchors * self.strides


CASE = dict(
    entry=lambda: DetectHead(),
    make_inputs=lambda n: (torch.randn(1, 4, n, 4),),
    dims=[(0, 2)],
)
