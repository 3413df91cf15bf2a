"""Source: karpathy/nanoGPT, model.py (GPT.forward and CausalSelfAttention.forward).

Rewritten: a tiny GPT body that checks the sequence length against the configured block size,
builds positions with arange, and runs attention with a causal buffer sliced to T. The config
is a plain dataclass; the attention uses the masked-softmax path.
"""

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class TinyConfig:
    block_size: int = 6
    vocab: int = 32
    width: int = 16
    heads: int = 2


class MaskedSelfAttention(nn.Module):
    def __init__(self, cfg: TinyConfig) -> None:
        super().__init__()
        self.qkv = nn.Linear(cfg.width, 3 * cfg.width)
        self.heads = cfg.heads
        causal = torch.tril(torch.ones(cfg.block_size, cfg.block_size))
        self.register_buffer("causal", causal.view(1, 1, cfg.block_size, cfg.block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.qkv(x).split(C, dim=2)
        q = q.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        k = k.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        v = v.view(B, T, self.heads, C // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.causal[:, :, :T, :T] == 0, float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return y.transpose(1, 2).contiguous().view(B, T, C)


class TinyGPT(nn.Module):
    def __init__(self, cfg: TinyConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.tok = nn.Embedding(cfg.vocab, cfg.width)
        self.pos = nn.Embedding(cfg.block_size, cfg.width)
        self.attn = MaskedSelfAttention(cfg)
        self.head = nn.Linear(cfg.width, cfg.vocab, bias=False)

    def forward(self, idx):
        b, t = idx.size()
        assert t <= self.cfg.block_size, f"sequence of {t} exceeds block size {self.cfg.block_size}"
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.tok(idx) + self.pos(pos)
        x = x + self.attn(x)
        return self.head(x[:, [-1], :])


CASE = dict(
    entry=lambda: TinyGPT(TinyConfig()).eval(),
    make_inputs=lambda n: (torch.randint(0, 32, (2, n)),),
    dims=[(0, 1)],
    sizes=(2, 3, 5, 1, 6, 4),
)
