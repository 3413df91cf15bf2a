"""Source: facebookresearch/dlrm, dlrm_s_pytorch.py (DLRM_Net.apply_emb, apply_mlp).

Rewritten: one EmbeddingBag per sparse feature, looked up with its offsets; the loop runs over
the Python list of tables, the MLP is an nn.Sequential.
"""

import torch
import torch.nn as nn


class SparseArch(nn.Module):
    def __init__(self, tables=(10, 12), dim: int = 4) -> None:
        super().__init__()
        self.emb_l = nn.ModuleList(nn.EmbeddingBag(n, dim, mode="sum") for n in tables)
        self.bot_l = nn.Sequential(nn.Linear(3, dim), nn.ReLU())

    def apply_emb(self, lS_o, lS_i):
        ly = []
        for k, sparse_index_group_batch in enumerate(lS_i):
            sparse_offset_group_batch = lS_o[k]
            E = self.emb_l[k]
            ly.append(E(sparse_index_group_batch, sparse_offset_group_batch))
        return ly

    def forward(self, dense_x, offsets_a, indices_a, offsets_b, indices_b):
        x = self.bot_l(dense_x)
        ly = self.apply_emb([offsets_a, offsets_b], [indices_a, indices_b])
        return torch.cat([x] + ly, dim=1)


CASE = dict(
    entry=lambda: SparseArch(),
    make_inputs=lambda n: (
        torch.randn(n, 3),
        torch.arange(n) * 2,
        torch.arange(2 * n) % 10,
        torch.arange(n) * 2,
        torch.arange(2 * n) % 12,
    ),
    dims=[(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)],
)
