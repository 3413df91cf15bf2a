"""Source: meta-llama/llama, llama/model.py (repeat_kv, Attention.forward).

Rewritten: grouped-query attention repeats the key/value heads; the early return compares the
repeat count (a config int) with 1, and the unpacked sizes only feed expand/reshape/view.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def repeat_kv(x, n_rep: int):
    bs, slen, n_kv_heads, head_dim = x.shape
    if n_rep == 1:
        return x
    return x[:, :, :, None, :].expand(bs, slen, n_kv_heads, n_rep, head_dim).reshape(bs, slen, n_kv_heads * n_rep, head_dim)


class GQAttention(nn.Module):
    def __init__(self, dim: int = 16, heads: int = 4, kv_heads: int = 2) -> None:
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, dim // heads
        self.n_rep = heads // kv_heads
        self.wq = nn.Linear(dim, heads * self.head_dim, bias=False)
        self.wk = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(heads * self.head_dim, dim, bias=False)

    def forward(self, x):
        bsz, seqlen, _ = x.shape
        xq = self.wq(x).view(bsz, seqlen, self.heads, self.head_dim)
        xk = self.wk(x).view(bsz, seqlen, self.kv_heads, self.head_dim)
        keys = repeat_kv(xk, self.n_rep)
        out = F.scaled_dot_product_attention(xq.transpose(1, 2), keys.transpose(1, 2), keys.transpose(1, 2))
        return self.wo(out.transpose(1, 2).contiguous().view(bsz, seqlen, -1))


CASE = dict(
    entry=lambda: GQAttention(),
    make_inputs=lambda n: (torch.randn(2, n, 16),),
    dims=[(0, 1)],
)
