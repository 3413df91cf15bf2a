"""Source: open-mmlab/mmdetection, mmdet/models/dense_heads/yolox_head.py
(YOLOXHead._bbox_decode, predict_by_feat's flattening of the per-level outputs).

Rewritten: per-level predictions are flattened with permute/reshape by the batch size read from
the input, concatenated, and decoded against priors (centre and stride columns).
"""

import torch
import torch.nn as nn


def bbox_decode(priors, bbox_preds):
    xys = (bbox_preds[..., :2] * priors[:, 2:]) + priors[:, :2]
    whs = bbox_preds[..., 2:].exp() * priors[:, 2:]
    tl_x = xys[..., 0] - whs[..., 0] / 2
    tl_y = xys[..., 1] - whs[..., 1] / 2
    br_x = xys[..., 0] + whs[..., 0] / 2
    br_y = xys[..., 1] + whs[..., 1] / 2
    return torch.stack([tl_x, tl_y, br_x, br_y], -1)


class YoloxDecode(nn.Module):
    def forward(self, bbox_pred, priors):
        num_imgs = bbox_pred.shape[0]
        flatten = bbox_pred.permute(0, 2, 3, 1).reshape(num_imgs, -1, 4)
        return bbox_decode(priors, flatten)


CASE = dict(
    entry=lambda: YoloxDecode(),
    make_inputs=lambda n: (torch.randn(n, 4, 2, 3), torch.rand(6, 4)),
)
