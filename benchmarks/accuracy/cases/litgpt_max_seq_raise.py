"""Source: Lightning-AI/litgpt, litgpt/model.py (GPT.forward, rope cache slicing).

Rewritten: the sequence length is validated against the configured maximum with a raise, the
rotary cos/sin caches are sliced to T when no input positions are given, else gathered.
"""

import torch
import torch.nn as nn


class RopeGPT(nn.Module):
    def __init__(self, max_seq_length: int = 8, vocab: int = 16, dim: int = 4) -> None:
        super().__init__()
        self.max_seq_length = max_seq_length
        self.wte = nn.Embedding(vocab, dim)
        self.register_buffer("cos", torch.randn(max_seq_length, dim), persistent=False)
        self.register_buffer("sin", torch.randn(max_seq_length, dim), persistent=False)

    def forward(self, idx, input_pos=None):
        T = idx.size(1)
        if self.max_seq_length < T:
            raise ValueError(f"Cannot forward sequence of length {T}, max seq length is only {self.max_seq_length}.")
        if input_pos is not None:
            cos = self.cos.index_select(0, input_pos)
            sin = self.sin.index_select(0, input_pos)
        else:
            cos = self.cos[:T]
            sin = self.sin[:T]
        x = self.wte(idx)
        return x * cos + x.roll(1, -1) * sin


CASE = dict(
    entry=lambda: RopeGPT(),
    make_inputs=lambda n: (torch.randint(0, 16, (1, n)),),
    dims=[(0, 1)],
)
