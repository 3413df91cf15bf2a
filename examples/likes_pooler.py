"""A sparse "likes on a page" pooler: most pages have 0, 1 or 2 likes.

Every size check below is a torch.compile hazard (see `zlint examples/`); the fixed version is
`likes_pooler_fixed.py`.
"""

import torch
from torch import Tensor, nn


class LikesPooler(nn.Module):
    def __init__(self, dim: int = 16, max_likes: int = 64) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.max_likes = max_likes

    def forward(self, likes: Tensor) -> Tensor:
        # likes: (num_likes, dim) embeddings of the users who liked the page
        if likes.size(0) == 0:  # an empty page: its own graph, a data-dependent branch when unbacked
            return likes.new_zeros(likes.shape[1])
        if likes.shape[0] == 1:  # a single like: skip the projection
            return likes[0]
        n = likes.shape[0]
        if n > 32:  # a threshold: recompiles whenever a page crosses it
            likes = likes[: self.max_likes]
        return self.proj(likes).mean(0)


def score(pages: Tensor, likes: Tensor) -> Tensor:
    # pages: (num_pages, dim); likes: (num_likes, dim)
    if not likes.numel():  # truthiness of a size: guards Ne(s, 0)
        return pages.sum(-1)
    return pages @ likes.mean(0)
