"""Source: ultralytics/yolov5, models/yolo.py (Detect.forward, Detect._make_grid).

Rewritten: each level's output is reshaped by its unpacked sizes; at inference the cached grid
is rebuilt when its spatial shape no longer matches the feature map's.
"""

import torch
import torch.nn as nn


class YoloDetect(nn.Module):
    def __init__(self, na: int = 2, no: int = 3) -> None:
        super().__init__()
        self.na, self.no = na, no
        self.m = nn.Conv2d(4, na * no, 1)
        self.grid = torch.empty(0)

    def _make_grid(self, nx: int, ny: int):
        yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
        return torch.stack((xv, yv), 2).expand(1, self.na, ny, nx, 2).float()

    def forward(self, feat):
        x = self.m(feat)
        bs, _, ny, nx = x.shape
        x = x.view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
        if self.grid.shape[2:4] != x.shape[2:4]:
            self.grid = self._make_grid(nx, ny)
        xy = x[..., :2].sigmoid() * 2 + self.grid
        return torch.cat((xy, x[..., 2:]), -1).view(bs, -1, self.no)


CASE = dict(
    entry=lambda: YoloDetect(),
    make_inputs=lambda n: (torch.randn(1, 4, n, 3),),
    dims=[(0, 2)],
)
