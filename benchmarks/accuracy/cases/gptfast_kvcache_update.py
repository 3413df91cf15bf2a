"""Source: pytorch-labs/gpt-fast, model.py (KVCache.update, Attention.forward).

Rewritten: a static KV cache written at the given positions; the number of positions and the
new keys' length are asserted equal (they come from the same step), the mask is gathered from
a static causal buffer by the positions.
"""

import torch
import torch.nn as nn


class KVCache(nn.Module):
    def __init__(self, heads: int = 2, max_len: int = 16, head_dim: int = 4) -> None:
        super().__init__()
        shape = (1, heads, max_len, head_dim)
        self.register_buffer("k_cache", torch.zeros(shape))
        self.register_buffer("v_cache", torch.zeros(shape))
        self.register_buffer("causal", torch.tril(torch.ones(max_len, max_len, dtype=torch.bool)))

    def update(self, input_pos, k_val, v_val):
        assert input_pos.shape[0] == k_val.shape[2]
        k_out = self.k_cache.clone()
        v_out = self.v_cache.clone()
        k_out[:, :, input_pos] = k_val
        v_out[:, :, input_pos] = v_val
        return k_out, v_out

    def forward(self, q, k, v, input_pos):
        k, v = self.update(input_pos, k, v)
        mask = self.causal[None, None, input_pos]
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)


CASE = dict(
    entry=lambda: KVCache(),
    make_inputs=lambda n: (torch.randn(1, 2, n, 4), torch.randn(1, 2, n, 4), torch.randn(1, 2, n, 4), torch.arange(n)),
    dims=[(0, 2), (1, 2), (2, 2), (3, 0)],
)
