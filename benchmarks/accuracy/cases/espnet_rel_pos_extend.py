"""Source: espnet/espnet, espnet/nets/pytorch_backend/transformer/embedding.py
(RelPositionalEncoding.extend_pe, forward).

Rewritten: the cached relative positional table is rebuilt only when it is shorter than the
2 * T - 1 positions the input needs; the centre rows are then sliced out for T.
"""

import math

import torch
import torch.nn as nn


class RelPositionalEncoding(nn.Module):
    def __init__(self, d_model: int = 4, max_len: int = 3) -> None:
        super().__init__()
        self.d_model = d_model
        self.pe = None
        self.extend_pe(torch.zeros(1, max_len))

    def extend_pe(self, x):
        if self.pe is not None:
            if self.pe.size(1) >= x.size(1) * 2 - 1:
                return
        pos = torch.arange(-(x.size(1) - 1), x.size(1), dtype=torch.float32).unsqueeze(1)
        div = torch.exp(torch.arange(0, self.d_model, 2, dtype=torch.float32) * -(math.log(10000.0) / self.d_model))
        pe = torch.zeros(pos.size(0), self.d_model)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.pe = pe.unsqueeze(0)

    def forward(self, x):
        self.extend_pe(x)
        center = self.pe.size(1) // 2
        pos_emb = self.pe[:, center - x.size(1) + 1 : center + x.size(1)]
        return x * math.sqrt(self.d_model), pos_emb


CASE = dict(
    entry=lambda: RelPositionalEncoding(),
    make_inputs=lambda n: (torch.randn(1, n, 4),),
    dims=[(0, 1)],
    sizes=(2, 3, 5, 1, 8),
)
