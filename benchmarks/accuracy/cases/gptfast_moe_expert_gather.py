"""Source: pytorch-labs/gpt-fast, mixtral-moe/model.py (MOEFeedForward, ConditionalFeedForward).

Rewritten: dense-gather MoE: top-k expert ids index the stacked expert weights directly
(one einsum per projection), so no data-dependent row selection happens.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class GatherMoE(nn.Module):
    def __init__(self, dim: int = 4, hidden: int = 8, num_experts: int = 3, k: int = 2) -> None:
        super().__init__()
        self.gate = nn.Linear(dim, num_experts, bias=False)
        self.w1 = nn.Parameter(torch.randn(num_experts, hidden, dim) * 0.1)
        self.w2 = nn.Parameter(torch.randn(num_experts, dim, hidden) * 0.1)
        self.k = k

    def forward(self, x):
        x = x.view(-1, x.shape[-1])
        scores = self.gate(x)
        expert_weights = F.softmax(scores, dim=-1)
        expert_weights, expert_indices = torch.topk(expert_weights, self.k, dim=-1)
        expert_weights /= expert_weights.sum(dim=-1, keepdim=True)
        w1 = self.w1[expert_indices]
        w2 = self.w2[expert_indices]
        h = F.silu(torch.einsum("ti,taoi->tao", x, w1))
        out = torch.einsum("tao,taio->tai", h, w2)
        return torch.einsum("tai,ta->ti", out, expert_weights)


CASE = dict(
    entry=lambda: GatherMoE(),
    make_inputs=lambda n: (torch.randn(1, n, 4),),
    dims=[(0, 1)],
)
