"""Source: lucidrains/rotary-embedding-torch, rotary_embedding_torch/rotary_embedding_torch.py
(RotaryEmbedding.rotate_queries_or_keys, forward with cache_key).

Rewritten: rotary frequencies are cached in a dict under a string key built from the sequence
length and offset, computed on a miss and reused on a hit.
"""

import torch
import torch.nn as nn


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class CachedRotary(nn.Module):
    def __init__(self, dim: int = 4) -> None:
        super().__init__()
        self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim)))
        self.cache = {}

    def freqs_for(self, seq_len: int, offset: int = 0):
        cache_key = f"freqs:{seq_len}|offset:{offset}"
        if cache_key in self.cache:
            return self.cache[cache_key]
        t = torch.arange(seq_len, dtype=self.inv_freq.dtype) + offset
        freqs = torch.einsum("i,j->ij", t, self.inv_freq)
        freqs = torch.cat((freqs, freqs), dim=-1)
        self.cache[cache_key] = freqs
        return freqs

    def forward(self, q):
        seq_len = q.shape[-2]
        freqs = self.freqs_for(seq_len)
        return q * freqs.cos() + rotate_half(q) * freqs.sin()


CASE = dict(
    entry=lambda: CachedRotary(),
    make_inputs=lambda n: (torch.randn(2, n, 4),),
    dims=[(0, 1)],
)
