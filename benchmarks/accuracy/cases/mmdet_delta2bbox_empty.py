"""Source: open-mmlab/mmdetection, mmdet/models/task_modules/coders/delta_xywh_bbox_coder.py
(delta2bbox).

Rewritten: decode (dx, dy, dw, dh) deltas against anchor boxes; an early return for zero boxes,
the class count from the delta width (static), reshapes by -1.
"""

import math

import torch
import torch.nn as nn


def delta2bbox(rois, deltas, max_shape=None, wh_ratio_clip: float = 16 / 1000):
    num_bboxes, num_classes = deltas.size(0), deltas.size(1) // 4
    if num_bboxes == 0:
        return deltas
    deltas = deltas.reshape(-1, 4)
    rois_ = rois.repeat(1, num_classes).reshape(-1, 4)
    max_ratio = abs(math.log(wh_ratio_clip))
    dxy = deltas[:, :2]
    dwh = deltas[:, 2:].clamp(min=-max_ratio, max=max_ratio)
    pxy = (rois_[:, :2] + rois_[:, 2:]) * 0.5
    pwh = rois_[:, 2:] - rois_[:, :2]
    gxy = pxy + pwh * dxy
    gwh = pwh * dwh.exp()
    bboxes = torch.cat([gxy - gwh * 0.5, gxy + gwh * 0.5], dim=-1)
    if max_shape is not None:
        bboxes[..., 0::2].clamp_(min=0, max=max_shape[1])
        bboxes[..., 1::2].clamp_(min=0, max=max_shape[0])
    return bboxes.reshape(num_bboxes, -1)


class BoxDecoder(nn.Module):
    def forward(self, rois, deltas):
        return delta2bbox(rois, deltas, max_shape=(32, 32))


CASE = dict(
    entry=lambda: BoxDecoder(),
    make_inputs=lambda n: (torch.rand(n, 4) * 10, torch.randn(n, 8) * 0.1),
    dims=[(0, 0), (1, 0)],
)
