"""Source: mistralai/mistral-inference, src/mistral_inference/moe.py (MoeLayer.forward).

Rewritten: tokens are routed to their top-k experts; for each expert, torch.where on the
selection gives the rows routed to it, which are gathered, transformed and added back.
"""

import torch
import torch.nn as nn


class MoeLayer(nn.Module):
    def __init__(self, dim: int = 4, num_experts: int = 3, k: int = 2) -> None:
        super().__init__()
        self.experts = nn.ModuleList(nn.Linear(dim, dim) for _ in range(num_experts))
        self.gate = nn.Linear(dim, num_experts, bias=False)
        self.k = k

    def forward(self, inputs):
        gate_logits = self.gate(inputs)
        weights, selected_experts = torch.topk(gate_logits, self.k)
        weights = torch.softmax(weights, dim=1, dtype=torch.float).to(inputs.dtype)
        results = torch.zeros_like(inputs)
        for i, expert in enumerate(self.experts):
            batch_idx, nth_expert = torch.where(selected_experts == i)
            results[batch_idx] += weights[batch_idx, nth_expert, None] * expert(inputs[batch_idx])
        return results


CASE = dict(
    entry=lambda: MoeLayer(),
    make_inputs=lambda n: (torch.randn(n, 4),),
)
