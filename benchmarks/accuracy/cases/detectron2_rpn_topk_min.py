"""Source: facebookresearch/detectron2, detectron2/modeling/proposal_generator/proposal_utils.py
(find_top_rpn_proposals).

Rewritten: per feature level, keep the top-scoring anchors; the count is the smaller of the
anchors available and the pre-NMS budget, passed to topk.
"""

import torch
import torch.nn as nn


class TopProposals(nn.Module):
    def __init__(self, pre_nms_topk: int = 4) -> None:
        super().__init__()
        self.pre_nms_topk = pre_nms_topk

    def forward(self, proposals, logits):
        batch = proposals.shape[0]
        batch_idx = torch.arange(batch, device=proposals.device)
        hi_wh = logits.shape[1]
        num_proposals_i = min(hi_wh, self.pre_nms_topk)
        topk_scores, topk_idx = logits.topk(num_proposals_i, dim=1)
        topk_props = proposals[batch_idx[:, None], topk_idx]
        return topk_props, topk_scores


CASE = dict(
    entry=lambda: TopProposals(),
    make_inputs=lambda n: (torch.rand(2, n, 4), torch.rand(2, n)),
    dims=[(0, 1), (1, 1)],
)
