"""The pooler of `zl3_data_dependent.py`, with every shape independent of the data."""

import torch
from torch import Tensor, nn


class SparseLikesPooler(nn.Module):
    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, likes: Tensor, weights: Tensor, user_ids: Tensor, num_users: int) -> Tensor:
        # likes: (n, dim); weights: (n,); user_ids: (n,) in [0, num_users)
        valid = weights > 0
        # masked rows contribute zero: same shape for every page, no branch on the data
        kept = torch.where(valid[:, None], self.proj(likes), 0)
        count = valid.sum()
        seen = torch.zeros(num_users, dtype=torch.long, device=user_ids.device)
        seen = seen.scatter_add_(0, user_ids, torch.ones_like(user_ids))  # a fixed-size histogram
        users = (seen > 0).sum()
        scale = weights.max().clamp(min=1e-6)  # stays a 0-dim tensor
        return kept.sum(0) / scale + count + users
