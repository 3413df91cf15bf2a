"""Source: pytorch-labs/gpt-fast, model.py (apply_rotary_emb, Transformer.forward).

Rewritten: rotary embedding in the complex-pair layout; shapes are re-derived from the input
with reshape(*x.shape[:-1], -1, 2) and view(1, x.size(1), 1, ...), positions index a static
frequency buffer; a cache check compares with None only.
"""

import torch
import torch.nn as nn


def apply_rotary_emb(x, freqs_cis):
    xshaped = x.float().reshape(*x.shape[:-1], -1, 2)
    freqs_cis = freqs_cis.view(1, xshaped.size(1), 1, xshaped.size(3), 2)
    x_out2 = torch.stack(
        [
            xshaped[..., 0] * freqs_cis[..., 0] - xshaped[..., 1] * freqs_cis[..., 1],
            xshaped[..., 1] * freqs_cis[..., 0] + xshaped[..., 0] * freqs_cis[..., 1],
        ],
        -1,
    )
    return x_out2.flatten(3).type_as(x)


class RotaryBlock(nn.Module):
    def __init__(self, head_dim: int = 8, max_len: int = 32) -> None:
        super().__init__()
        freqs = 1.0 / (10000 ** (torch.arange(0, head_dim, 2).float() / head_dim))
        angles = torch.outer(torch.arange(max_len).float(), freqs)
        self.register_buffer("freqs_cis", torch.stack([angles.cos(), angles.sin()], dim=-1))

    def forward(self, x, input_pos):
        assert self.freqs_cis is not None, "caches must be initialised first"
        freqs_cis = self.freqs_cis[input_pos]
        return apply_rotary_emb(x, freqs_cis)


CASE = dict(
    entry=lambda: RotaryBlock(),
    make_inputs=lambda n: (torch.randn(2, n, 2, 8), torch.arange(n)),
    dims=[(0, 1), (1, 0)],
)
