"""Source: vllm-project/vllm, vllm/model_executor/models/llama.py (LlamaAttention.forward,
LlamaMLP.forward).

Rewritten: fused qkv projection split by static per-head widths, a gate/up split of the MLP
projection, and a SiLU-and-mul; token count only flows through ops.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class FusedAttentionProj(nn.Module):
    def __init__(self, hidden: int = 16, heads: int = 4, kv_heads: int = 2) -> None:
        super().__init__()
        head_dim = hidden // heads
        self.q_size = heads * head_dim
        self.kv_size = kv_heads * head_dim
        self.qkv_proj = nn.Linear(hidden, self.q_size + 2 * self.kv_size, bias=False)
        self.gate_up = nn.Linear(hidden, 2 * 32, bias=False)
        self.down = nn.Linear(32, hidden, bias=False)

    def silu_and_mul(self, x):
        d = x.shape[-1] // 2
        return F.silu(x[..., :d]) * x[..., d:]

    def forward(self, hidden_states):
        qkv = self.qkv_proj(hidden_states)
        q, k, v = qkv.split([self.q_size, self.kv_size, self.kv_size], dim=-1)
        mixed = q.sum(-1, keepdim=True) + k.sum(-1, keepdim=True) + v.sum(-1, keepdim=True)
        return self.down(self.silu_and_mul(self.gate_up(hidden_states))) + mixed


CASE = dict(
    entry=lambda: FusedAttentionProj(),
    make_inputs=lambda n: (torch.randn(n, 16),),
)
