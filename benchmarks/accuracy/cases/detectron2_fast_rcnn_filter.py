"""Source: facebookresearch/detectron2, detectron2/modeling/roi_heads/fast_rcnn.py
(fast_rcnn_inference_single_image).

Rewritten: per-image post-processing; rows with non-finite boxes or scores are dropped only
when some exist, scores above a threshold are kept through a mask turned into indices, and the
top detections are returned.
"""

import torch
import torch.nn as nn


class DetectionFilter(nn.Module):
    def __init__(self, score_thresh: float = 0.3) -> None:
        super().__init__()
        self.score_thresh = score_thresh

    def forward(self, boxes, scores):
        valid_mask = torch.isfinite(boxes).all(dim=1) & torch.isfinite(scores).all(dim=1)
        if not valid_mask.all():
            boxes = boxes[valid_mask]
            scores = scores[valid_mask]
        scores = scores[:, :-1]
        num_bbox_reg_classes = boxes.shape[1] // 4
        boxes = boxes.reshape(-1, num_bbox_reg_classes, 4)
        filter_mask = scores > self.score_thresh
        filter_inds = filter_mask.nonzero()
        boxes = boxes[filter_inds[:, 0], 0]
        return boxes, scores[filter_mask], filter_inds[:, 1]


CASE = dict(
    entry=lambda: DetectionFilter(),
    make_inputs=lambda n: (torch.rand(n, 4), torch.rand(n, 3)),
    dims=[(0, 0), (1, 0)],
)
