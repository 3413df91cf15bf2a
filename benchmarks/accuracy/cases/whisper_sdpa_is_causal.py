"""Source: openai/whisper, whisper/model.py (MultiHeadAttention.qkv_attention, SDPA path).

Rewritten: heads are split with view(*q.shape[:2], n_head, -1); the fused attention is causal
only when a mask is given and more than one query position is fed (decode steps feed one).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class WhisperAttention(nn.Module):
    def __init__(self, n_state: int = 8, n_head: int = 2) -> None:
        super().__init__()
        self.n_head = n_head
        self.query = nn.Linear(n_state, n_state)
        self.key = nn.Linear(n_state, n_state, bias=False)
        self.value = nn.Linear(n_state, n_state)

    def forward(self, x, causal: bool = True):
        q, k, v = self.query(x), self.key(x), self.value(x)
        n_batch, n_ctx, n_state = q.shape
        q = q.view(*q.shape[:2], self.n_head, -1).permute(0, 2, 1, 3)
        k = k.view(*k.shape[:2], self.n_head, -1).permute(0, 2, 1, 3)
        v = v.view(*v.shape[:2], self.n_head, -1).permute(0, 2, 1, 3)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=causal and n_ctx > 1)
        return a.permute(0, 2, 1, 3).flatten(start_dim=2)


CASE = dict(
    entry=lambda: WhisperAttention(),
    make_inputs=lambda n: (torch.randn(2, n, 8),),
    dims=[(0, 1)],
)
