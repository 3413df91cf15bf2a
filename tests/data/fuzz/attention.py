"""A small attention block written for zlint's fuzz tests (mutated, never imported)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class Attention(nn.Module):
    def __init__(self, dim: int, heads: int = 8, dropout: float = 0.0) -> None:
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=False)
        self.proj = nn.Linear(dim, dim)
        self.dropout = dropout

    def forward(self, hidden: Tensor, mask: Tensor | None = None) -> Tensor:
        bsz, q_len, _ = hidden.size()
        q, k, v = self.qkv(hidden).chunk(3, dim=-1)
        q = q.view(bsz, q_len, self.heads, -1).transpose(1, 2)
        k = k.view(bsz, q_len, self.heads, -1).transpose(1, 2)
        v = v.view(bsz, q_len, self.heads, -1).transpose(1, 2)
        is_causal = q.shape[2] > 1 and mask is None
        if q_len == 1:  # decoding one token
            scores = (q * k).sum(-1, keepdim=True) * self.scale
        elif hidden.size(0) > 512:
            scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
        else:
            scores = q @ k.transpose(-1, -2) * self.scale
        if mask is not None and mask.numel():
            scores = scores.masked_fill(mask[:, None, None, : k.shape[-2]] == 0, float("-inf"))
        weights = F.softmax(scores, dim=-1)
        if self.training and self.dropout > 0:
            weights = F.dropout(weights, p=self.dropout)
        out = (weights @ v).transpose(1, 2).reshape(bsz, q_len, -1)
        assert out.dim() == 3, f"expected 3 dims, got {out.shape}"  # noqa: ZL206
        return self.proj(out) if not is_causal else self.proj(out).contiguous()


def rotate_half(x: Tensor) -> Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rotary(q: Tensor, cos: Tensor, sin: Tensor, position_ids=None) -> Tensor:
    if position_ids is not None and len(position_ids) == 0:
        return q
    seq = q.size(-2)
    for i in range(seq):  # unrolled by dynamo
        q[..., i, :] = q[..., i, :] * cos[i] + rotate_half(q[..., i, :]) * sin[i]
    return q
