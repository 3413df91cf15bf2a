"""Source: open-mmlab/mmdetection, mmdet/structures/bbox/transforms.py (bbox2roi) and
mmdet/models/utils/misc.py (images_to_levels).

Rewritten: per-image boxes get their image index prepended through new_full sized by the box
count; targets stacked over images are cut per feature level by a Python list of level sizes.
"""

import torch
import torch.nn as nn


def bbox2roi(bbox_list):
    rois_list = []
    for img_id, bboxes in enumerate(bbox_list):
        img_inds = bboxes.new_full((bboxes.size(0), 1), img_id)
        rois_list.append(torch.cat([img_inds, bboxes[:, :4]], dim=-1))
    return torch.cat(rois_list, 0)


def images_to_levels(target, num_levels):
    target = torch.stack(target, 0)
    level_targets = []
    start = 0
    for n in num_levels:
        end = start + n
        level_targets.append(target[:, start:end])
        start = end
    return level_targets


class RoiBuilder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.num_levels = [4, 2]

    def forward(self, boxes_a, boxes_b, anchors_a, anchors_b):
        rois = bbox2roi([boxes_a, boxes_b])
        levels = images_to_levels([anchors_a, anchors_b], self.num_levels)
        return rois, levels[0].sum() + levels[1].sum()


CASE = dict(
    entry=lambda: RoiBuilder(),
    make_inputs=lambda n: (torch.rand(n, 4), torch.rand(n, 4), torch.rand(6, 4), torch.rand(6, 4)),
    dims=[(0, 0), (1, 0)],
)
