"""Source: open-mmlab/mmdetection, mmdet/models/layers/bbox_nms.py (multiclass_nms, the
preparation before NMS).

Rewritten: class-specific or shared boxes are expanded per class (a test on the static box
width), scores above a threshold are selected with a mask, and an empty selection is caught
with numel().
"""

import torch
import torch.nn as nn


class MultiClassSelect(nn.Module):
    def __init__(self, score_thr: float = 0.5) -> None:
        super().__init__()
        self.score_thr = score_thr

    def forward(self, multi_bboxes, multi_scores):
        num_classes = multi_scores.size(1) - 1
        if multi_bboxes.shape[1] > 4:
            bboxes = multi_bboxes.view(multi_scores.size(0), -1, 4)
        else:
            bboxes = multi_bboxes[:, None].expand(multi_scores.size(0), num_classes, 4)
        scores = multi_scores[:, :-1]
        labels = torch.arange(num_classes, dtype=torch.long).view(1, -1).expand_as(scores)
        bboxes = bboxes.reshape(-1, 4)
        scores = scores.reshape(-1)
        labels = labels.reshape(-1)
        valid_mask = scores > self.score_thr
        inds = valid_mask.nonzero(as_tuple=False).squeeze(1)
        bboxes, scores, labels = bboxes[inds], scores[inds], labels[inds]
        if bboxes.numel() == 0:
            return torch.cat([bboxes, scores[:, None]], -1), labels
        return torch.cat([bboxes, scores[:, None]], -1), labels


CASE = dict(
    entry=lambda: MultiClassSelect(),
    make_inputs=lambda n: (torch.rand(n, 4), torch.rand(n, 4)),
    dims=[(0, 0), (1, 0)],
)
