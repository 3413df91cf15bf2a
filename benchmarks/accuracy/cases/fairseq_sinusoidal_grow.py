"""Source: facebookresearch/fairseq, fairseq/modules/sinusoidal_positional_embedding.py
(SinusoidalPositionalEmbedding.forward).

Rewritten: the sinusoid table is recomputed and stored on the module whenever the longest
position needed exceeds the rows it has; positions are built from the non-pad mask.
"""

import math

import torch
import torch.nn as nn


class SinusoidalPositions(nn.Module):
    def __init__(self, dim: int = 4, padding_idx: int = 1, init_size: int = 5) -> None:
        super().__init__()
        self.dim, self.padding_idx = dim, padding_idx
        self.weights = self.get_embedding(init_size, dim, padding_idx)

    @staticmethod
    def get_embedding(num_embeddings: int, dim: int, padding_idx: int):
        half = dim // 2
        scale = math.log(10000) / (half - 1)
        freqs = torch.exp(torch.arange(half, dtype=torch.float) * -scale)
        table = torch.arange(num_embeddings, dtype=torch.float).unsqueeze(1) * freqs.unsqueeze(0)
        table = torch.cat([torch.sin(table), torch.cos(table)], dim=1)
        table[padding_idx, :] = 0
        return table

    def forward(self, tokens):
        bsz, seq_len = tokens.shape[0], tokens.shape[1]
        max_pos = self.padding_idx + 1 + seq_len
        if self.weights is None or max_pos > self.weights.size(0):
            self.weights = self.get_embedding(max_pos, self.dim, self.padding_idx)
        mask = tokens.ne(self.padding_idx).int()
        positions = (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + self.padding_idx
        return self.weights.index_select(0, positions.view(-1)).view(bsz, seq_len, -1)


CASE = dict(
    entry=lambda: SinusoidalPositions(),
    make_inputs=lambda n: (torch.randint(2, 16, (2, n)),),
    dims=[(0, 1)],
)
