"""Source: openai/whisper, whisper/model.py (LayerNorm, Linear, sinusoids, ResidualAttentionBlock).

Rewritten: dtype-casting wrappers around LayerNorm and Linear; the sinusoid table is built in
__init__ with an assertion on the (static) channel count; the block's forward only casts and adds.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def sinusoids(length: int, channels: int, max_timescale: int = 10000):
    assert channels % 2 == 0
    log_timescale_increment = math.log(max_timescale) / (channels // 2 - 1)
    inv_timescales = torch.exp(-log_timescale_increment * torch.arange(channels // 2))
    scaled_time = torch.arange(length)[:, None] * inv_timescales[None, :]
    return torch.cat([torch.sin(scaled_time), torch.cos(scaled_time)], dim=1)


class CastLayerNorm(nn.LayerNorm):
    def forward(self, x):
        return super().forward(x.float()).type(x.dtype)


class CastLinear(nn.Linear):
    def forward(self, x):
        return F.linear(x, self.weight.to(x.dtype), None if self.bias is None else self.bias.to(x.dtype))


class Block(nn.Module):
    def __init__(self, n_state: int = 4, n_ctx: int = 8) -> None:
        super().__init__()
        self.ln = CastLayerNorm(n_state)
        self.fc = CastLinear(n_state, n_state)
        self.register_buffer("positional_embedding", sinusoids(n_ctx, n_state))

    def forward(self, x):
        return x + self.fc(self.ln(x))


CASE = dict(
    entry=lambda: Block(),
    make_inputs=lambda n: (torch.randn(2, n, 4),),
    dims=[(0, 1)],
)
