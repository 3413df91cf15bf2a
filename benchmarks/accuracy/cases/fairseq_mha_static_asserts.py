"""Source: facebookresearch/fairseq, fairseq/modules/multihead_attention.py
(MultiheadAttention.forward, the input checks).

Rewritten: the embedding dim (static) is asserted against the module's, the full size is
asserted equal to its own unpacking, the key padding mask's two dims are asserted against the
batch and source lengths, and a 0-dim mask is treated as absent.
"""

import torch
import torch.nn as nn


class CheckedAttention(nn.Module):
    def __init__(self, embed_dim: int = 8, num_heads: int = 2) -> None:
        super().__init__()
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.in_proj = nn.Linear(embed_dim, 3 * embed_dim)

    def forward(self, query, key_padding_mask):
        tgt_len, bsz, embed_dim = query.size()
        src_len = tgt_len
        assert embed_dim == self.embed_dim, f"query dim {embed_dim} != {self.embed_dim}"
        assert list(query.size()) == [tgt_len, bsz, embed_dim]
        if key_padding_mask is not None and key_padding_mask.dim() == 0:
            key_padding_mask = None
        if key_padding_mask is not None:
            assert key_padding_mask.size(0) == bsz
            assert key_padding_mask.size(1) == src_len
        q, k, v = self.in_proj(query).chunk(3, dim=-1)
        q = q.contiguous().view(tgt_len, bsz * self.num_heads, self.head_dim).transpose(0, 1)
        k = k.contiguous().view(-1, bsz * self.num_heads, self.head_dim).transpose(0, 1)
        attn = torch.bmm(q, k.transpose(1, 2)).view(bsz, self.num_heads, tgt_len, src_len)
        attn = attn.masked_fill(key_padding_mask.unsqueeze(1).unsqueeze(2), float("-inf"))
        return attn.softmax(-1)


CASE = dict(
    entry=lambda: CheckedAttention(),
    make_inputs=lambda n: (torch.randn(n, 2, 8), torch.zeros(2, n, dtype=torch.bool)),
    dims=[(0, 0), (1, 1)],
)
