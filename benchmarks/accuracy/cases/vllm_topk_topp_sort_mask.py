"""Source: vllm-project/vllm, vllm/v1/sample/ops/topk_topp_sampler.py (apply_top_k_top_p).

Rewritten: per-request top-k and top-p masking by sorting the logits once; the vocab size
from the sorted tensor's shape feeds arithmetic on tensors, never a Python branch.
"""

import torch
import torch.nn as nn


def apply_top_k_top_p(logits, k, p):
    logits_sort, logits_idx = logits.sort(dim=-1, descending=False)
    top_k_mask = logits_sort.size(1) - k.to(torch.long)
    top_k_mask = logits_sort.gather(1, top_k_mask.unsqueeze(dim=1))
    top_k_mask = logits_sort < top_k_mask
    logits_sort.masked_fill_(top_k_mask, -float("inf"))
    probs_sort = logits_sort.softmax(dim=-1)
    probs_sum = torch.cumsum(probs_sort, dim=-1, out=probs_sort)
    top_p_mask = probs_sum <= 1 - p.unsqueeze(dim=1)
    top_p_mask[:, -1] = False
    logits_sort.masked_fill_(top_p_mask, -float("inf"))
    return logits_sort.scatter(dim=-1, index=logits_idx, src=logits_sort)


class Sampler(nn.Module):
    def forward(self, logits, k, p):
        return apply_top_k_top_p(logits, k, p).softmax(dim=-1)


CASE = dict(
    entry=lambda: Sampler(),
    make_inputs=lambda n: (torch.randn(n, 32), torch.full((n,), 5), torch.full((n,), 0.9)),
    dims=[(0, 0), (1, 0), (2, 0)],
)
