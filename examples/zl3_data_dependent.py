"""A sparse "likes" pooler: each page has a varying number of likes, many of them masked out.

Every line flagged below reads data into Python or produces a size that depends on the data, so
torch.compile breaks the graph there (see `zlint examples/`); the fixed version is
`zl3_data_dependent_fixed.py`.
"""

import torch
from torch import Tensor, nn


class SparseLikesPooler(nn.Module):
    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, likes: Tensor, weights: Tensor, user_ids: Tensor) -> Tensor:
        # likes: (n, dim); weights: (n,); user_ids: (n,)
        valid = weights > 0
        if not valid.any():  # a branch on tensor data
            return likes.new_zeros(likes.shape[1])
        kept = likes[valid]  # as many rows as positive weights
        rows = valid.nonzero()  # ditto, as indices
        users = torch.unique(user_ids)  # as many entries as distinct users
        scale = weights.max().item()  # a tensor value read into Python
        pooled = self.proj(kept).sum(0) / scale
        return pooled + rows.numel() + users.numel()
