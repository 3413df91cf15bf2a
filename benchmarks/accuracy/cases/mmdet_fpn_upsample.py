"""Source: open-mmlab/mmdetection, mmdet/models/necks/fpn.py (FPN.forward).

Rewritten: lateral 1x1 convs then a top-down pathway; the number of levels (a list length)
drives range(), the previous level's spatial shape is passed straight to interpolate.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyFPN(nn.Module):
    def __init__(self, in_channels=(4, 8), out_channels: int = 4) -> None:
        super().__init__()
        self.in_channels = in_channels
        self.lateral_convs = nn.ModuleList(nn.Conv2d(c, out_channels, 1) for c in in_channels)

    def forward(self, c3, c4):
        inputs = [c3, c4]
        assert len(inputs) == len(self.in_channels)
        laterals = [conv(inputs[i]) for i, conv in enumerate(self.lateral_convs)]
        used_backbone_levels = len(laterals)
        for i in range(used_backbone_levels - 1, 0, -1):
            prev_shape = laterals[i - 1].shape[2:]
            laterals[i - 1] = laterals[i - 1] + F.interpolate(laterals[i], size=prev_shape, mode="nearest")
        return tuple(laterals)


CASE = dict(
    entry=lambda: TinyFPN(),
    make_inputs=lambda n: (torch.randn(1, 4, 2 * n + 2, 8), torch.randn(1, 8, n + 1, 4)),
    dims=[(0, 2), (1, 2)],
)
