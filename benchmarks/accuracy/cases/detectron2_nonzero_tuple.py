"""Source: facebookresearch/detectron2, detectron2/layers/wrappers.py (cat, nonzero_tuple) and
modeling/roi_heads/roi_heads.py (select_foreground_proposals).

Rewritten: foreground proposals are selected with a class mask turned into indices by
nonzero(); the cat helper short-cuts a one-element list (a Python list length).
"""

import torch
import torch.nn as nn


def cat(tensors, dim: int = 0):
    assert isinstance(tensors, (list, tuple))
    if len(tensors) == 1:
        return tensors[0]
    return torch.cat(tensors, dim)


def nonzero_tuple(x):
    if x.dim() == 0:
        return x.unsqueeze(0).nonzero().unbind(1)
    return x.nonzero().unbind(1)


class ForegroundSelector(nn.Module):
    def __init__(self, bg_label: int = 3) -> None:
        super().__init__()
        self.bg_label = bg_label

    def forward(self, proposals, gt_classes):
        fg_mask = (gt_classes != -1) & (gt_classes != self.bg_label)
        fg_idxs = nonzero_tuple(fg_mask)[0]
        return cat([proposals[fg_idxs]])


CASE = dict(
    entry=lambda: ForegroundSelector(),
    make_inputs=lambda n: (torch.rand(n, 4), torch.arange(n) % 5 - 1),
    dims=[(0, 0), (1, 0)],
)
