"""Source: vllm-project/vllm, vllm/model_executor/layers/fused_moe/fused_moe.py (fused_topk).

Rewritten: router top-k over experts; the token counts of the hidden states and of the
gating logits are asserted equal (both come from the same batch), then renormalised.
"""

import torch
import torch.nn as nn


def fused_topk(hidden_states, gating_output, topk: int, renormalize: bool):
    assert hidden_states.shape[0] == gating_output.shape[0], "number of tokens mismatch"
    M, _ = hidden_states.shape
    scores = torch.softmax(gating_output, dim=-1, dtype=torch.float32)
    topk_weights, topk_ids = torch.topk(scores, topk, dim=-1)
    if renormalize:
        topk_weights = topk_weights / topk_weights.sum(dim=-1, keepdim=True)
    return topk_weights.view(M, topk), topk_ids.view(M, topk)


class Router(nn.Module):
    def __init__(self, hidden: int = 16, experts: int = 8, topk: int = 2) -> None:
        super().__init__()
        self.gate = nn.Linear(hidden, experts, bias=False)
        self.topk = topk

    def forward(self, x):
        logits = self.gate(x)
        return fused_topk(x, logits, self.topk, renormalize=True)


CASE = dict(
    entry=lambda: Router(),
    make_inputs=lambda n: (torch.randn(n, 16),),
)
