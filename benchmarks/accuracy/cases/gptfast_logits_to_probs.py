"""Source: pytorch-labs/gpt-fast, generate.py (logits_to_probs, sample).

Rewritten: temperature and top-k sampling on the last position; top-k is clamped to the vocab
size with min() (a static dim), and the pivot is taken with select().
"""

import torch
import torch.nn as nn


def logits_to_probs(logits, temperature: float = 1.0, top_k=None):
    logits = logits / max(temperature, 1e-5)
    if top_k is not None:
        v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
        pivot = v.select(-1, -1).unsqueeze(-1)
        logits = torch.where(logits < pivot, -float("Inf"), logits)
    return torch.nn.functional.softmax(logits, dim=-1)


class LastTokenSampler(nn.Module):
    def forward(self, logits):
        probs = logits_to_probs(logits[:, -1], temperature=0.8, top_k=4)
        q = torch.empty_like(probs).exponential_(1)
        return torch.argmax(probs / q, dim=-1, keepdim=True)


CASE = dict(
    entry=lambda: LastTokenSampler(),
    make_inputs=lambda n: (torch.randn(2, n, 32),),
    dims=[(0, 1)],
    sizes=(2, 3, 5, 1, 8),
)
