"""Source: facebookresearch/detectron2, detectron2/modeling/poolers.py (ROIPooler.forward,
convert_boxes_to_pooler_format).

Rewritten: boxes of every image are tagged with their batch index and pooled; the number of
feature levels (a module list length) picks the single-level path, and the number of box lists
is asserted to match the batch size of the features.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def boxes_to_pooler_format(box_lists):
    rows = []
    for i, boxes in enumerate(box_lists):
        idx = torch.full((boxes.shape[0], 1), float(i), dtype=boxes.dtype)
        rows.append(torch.cat([idx, boxes], dim=1))
    return torch.cat(rows, dim=0)


class TinyPooler(nn.Module):
    def __init__(self, levels: int = 1) -> None:
        super().__init__()
        self.level_poolers = nn.ModuleList(nn.AdaptiveAvgPool2d(2) for _ in range(levels))

    def forward(self, x, box_lists):
        num_level_assignments = len(self.level_poolers)
        assert len(box_lists) == x.size(0), "one box list per image"
        rois = boxes_to_pooler_format(box_lists)
        if num_level_assignments == 1:
            pooled = self.level_poolers[0](x)
            return pooled[rois[:, 0].long()] + rois[:, 1:].mean()
        return F.adaptive_avg_pool2d(x, 2)


CASE = dict(
    entry=lambda: TinyPooler(),
    make_inputs=lambda n: (torch.randn(n, 3, 8, 8), [torch.rand(2, 4) for _ in range(n)]),
    sizes=(2, 3, 5, 1, 8),
)
