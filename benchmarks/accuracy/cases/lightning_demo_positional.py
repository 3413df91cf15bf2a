"""Source: Lightning-AI/pytorch-lightning, src/lightning/pytorch/demos/transformer.py
(PositionalEncoding.forward, Transformer.forward).

Rewritten: the positional table is created lazily on the first call (checked against None),
then added to the input by slicing its rows to the sequence length; the target mask is built
from the target's length with a library helper.
"""

import math

import torch
import torch.nn as nn


class PositionalEncoding(nn.Module):
    def __init__(self, dim: int = 4, max_len: int = 64) -> None:
        super().__init__()
        self.dim, self.max_len = dim, max_len
        self.pe = None

    def _init_pos_encoding(self):
        pe = torch.zeros(self.max_len, self.dim)
        position = torch.arange(0, self.max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, self.dim, 2).float() * (-math.log(10000.0) / self.dim))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        return pe.unsqueeze(1)

    def forward(self, x):
        if self.pe is None:
            self.pe = self._init_pos_encoding()
        x = x + self.pe[: x.size(0)]
        mask = nn.Transformer.generate_square_subsequent_mask(x.size(0))
        return x, mask


CASE = dict(
    entry=lambda: PositionalEncoding(),
    make_inputs=lambda n: (torch.randn(n, 2, 4),),
)
