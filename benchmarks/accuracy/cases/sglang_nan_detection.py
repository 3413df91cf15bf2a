"""Source: sgl-project/sglang, python/sglang/srt/layers/sampler.py (Sampler.forward, the NaN
detection path).

Rewritten: temperature scaling and softmax with an optional NaN check that scans the logits
and replaces NaNs when any are present.
"""

import torch
import torch.nn as nn


class NanCheckingSampler(nn.Module):
    def __init__(self, use_nan_detection: bool = True) -> None:
        super().__init__()
        self.use_nan_detection = use_nan_detection

    def forward(self, logits, temperatures):
        logits = logits / temperatures.unsqueeze(-1)
        if self.use_nan_detection and torch.any(torch.isnan(logits)):
            logits = torch.where(torch.isnan(logits), torch.full_like(logits, -1e5), logits)
        probs = torch.softmax(logits, dim=-1)
        return torch.argmax(probs, dim=-1)


CASE = dict(
    entry=lambda: NanCheckingSampler(),
    make_inputs=lambda n: (torch.randn(n, 32), torch.ones(n)),
    dims=[(0, 0), (1, 0)],
)
