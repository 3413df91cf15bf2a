"""Source: vllm-project/vllm, vllm/model_executor/layers/rotary_embedding.py
(RotaryEmbedding.forward_native and _apply_rotary_emb).

Rewritten: rotary embedding over flattened tokens; the token count goes straight into
view/reshape, the cos/sin cache is gathered with index_select, the half split is static.
"""

import torch
import torch.nn as nn


def rotate_halves(x, cos, sin):
    cos = cos.unsqueeze(-2)
    sin = sin.unsqueeze(-2)
    x1, x2 = torch.chunk(x, 2, dim=-1)
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)


class Rotary(nn.Module):
    def __init__(self, head_size: int = 8, max_pos: int = 64) -> None:
        super().__init__()
        self.head_size = head_size
        inv = 1.0 / (10000 ** (torch.arange(0, head_size, 2).float() / head_size))
        freqs = torch.outer(torch.arange(max_pos).float(), inv)
        self.register_buffer("cos_sin_cache", torch.cat((freqs.cos(), freqs.sin()), dim=-1))

    def forward(self, positions, query, key):
        positions = positions.flatten()
        num_tokens = positions.shape[0]
        cos_sin = self.cos_sin_cache.index_select(0, positions)
        cos, sin = cos_sin.chunk(2, dim=-1)
        q = query.view(num_tokens, -1, self.head_size)
        k = key.view(num_tokens, -1, self.head_size)
        q = rotate_halves(q, cos, sin).reshape(query.shape)
        k = rotate_halves(k, cos, sin).reshape(key.shape)
        return q, k


CASE = dict(
    entry=lambda: Rotary(),
    make_inputs=lambda n: (torch.arange(n) % 64, torch.randn(n, 16), torch.randn(n, 8)),
    dims=[(0, 0), (1, 0), (2, 0)],
)
