"""Source: ultralytics/ultralytics, ultralytics/utils/tal.py (dist2bbox) and
ultralytics/nn/modules/head.py (Detect.decode_bboxes).

Rewritten: distances (left-top, right-bottom) are split in two along the static coordinate
dim with chunk(2, dim) and turned into xywh boxes.
"""

import torch
import torch.nn as nn


def dist2bbox(distance, anchor_points, xywh: bool = True, dim: int = -1):
    lt, rb = distance.chunk(2, dim)
    x1y1 = anchor_points - lt
    x2y2 = anchor_points + rb
    if xywh:
        c_xy = (x1y1 + x2y2) / 2
        wh = x2y2 - x1y1
        return torch.cat((c_xy, wh), dim)
    return torch.cat((x1y1, x2y2), dim)


class BoxDecode(nn.Module):
    def __init__(self, reg_max: int = 4) -> None:
        super().__init__()
        self.reg_max = reg_max
        self.register_buffer("proj", torch.arange(reg_max, dtype=torch.float))

    def forward(self, pred_dist, anchor_points):
        b, a, c = pred_dist.shape
        dist = pred_dist.view(b, a, 4, c // 4).softmax(3).matmul(self.proj)
        return dist2bbox(dist, anchor_points, xywh=True)


CASE = dict(
    entry=lambda: BoxDecode(),
    make_inputs=lambda n: (torch.randn(2, n, 16), torch.rand(n, 2)),
    dims=[(0, 1), (1, 0)],
)
