"""Source: facebookresearch/dlrm, dlrm_s_pytorch.py (DLRM_Net.interact_features, the "dot"
interaction).

Rewritten: dense and embedding features are stacked and every pair's dot product taken; the
pair indices come from a double loop over the number of features (ni, a static count of
tables plus one), not over the batch.
"""

import torch
import torch.nn as nn


class DotInteraction(nn.Module):
    def __init__(self, interaction_itself: bool = False) -> None:
        super().__init__()
        self.interaction_itself = interaction_itself

    def forward(self, x, e0, e1):
        ly = [e0, e1]
        (batch_size, d) = x.shape
        T = torch.cat([x] + ly, dim=1).view((batch_size, -1, d))
        Z = torch.bmm(T, torch.transpose(T, 1, 2))
        _, ni, nj = Z.shape
        offset = 1 if self.interaction_itself else 0
        li = torch.tensor([i for i in range(ni) for j in range(i + offset)])
        lj = torch.tensor([j for i in range(nj) for j in range(i + offset)])
        Zflat = Z[:, li, lj]
        return torch.cat([x, Zflat], dim=1)


CASE = dict(
    entry=lambda: DotInteraction(),
    make_inputs=lambda n: (torch.randn(n, 4), torch.randn(n, 4), torch.randn(n, 4)),
    dims=[(0, 0), (1, 0), (2, 0)],
)
