"""Source: pytorch-labs/gpt-fast, generate.py (speculative_decode, the acceptance test).

Rewritten: draft tokens are accepted where a random draw stays under p/q; the first rejected
position is found with nonzero(), and a branch on how many were rejected picks the next token.
"""

import torch
import torch.nn as nn


class SpeculativeAccept(nn.Module):
    def forward(self, draft_probs, target_probs, draft_tokens):
        k = draft_tokens.shape[0]
        idx = torch.arange(k)
        q = draft_probs[idx, draft_tokens]
        p = target_probs[idx, draft_tokens]
        accept = torch.rand_like(q) < (p / q).clamp(max=1.0)
        rejected_locations = (~accept).nonzero()
        if rejected_locations.shape[0] == 0:
            return draft_tokens, target_probs[-1].argmax()
        first = rejected_locations[0, 0]
        residual = (target_probs[first] - draft_probs[first]).clamp(min=0)
        return draft_tokens[:first], residual.argmax()


CASE = dict(
    entry=lambda: SpeculativeAccept(),
    make_inputs=lambda n: (torch.rand(n, 16) + 0.1, torch.rand(n, 16) + 0.1, torch.randint(0, 16, (n,))),
    dims=[(0, 0), (1, 0), (2, 0)],
    sizes=(2, 3, 5, 1, 8),
)
