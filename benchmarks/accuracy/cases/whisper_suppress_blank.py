"""Source: openai/whisper, whisper/decoding.py (SuppressBlank.apply, ApplyTimestampRules).

Rewritten: at the first sampled position (the token sequence length equals the prompt length
the decoder started from) blank and end tokens are suppressed in the logits.
"""

import torch
import torch.nn as nn


class SuppressBlank(nn.Module):
    def __init__(self, sample_begin: int = 3, blank_ids=(1, 2)) -> None:
        super().__init__()
        self.sample_begin = sample_begin
        self.blank_ids = list(blank_ids)

    def forward(self, logits, tokens):
        if tokens.shape[1] == self.sample_begin:
            logits = logits.clone()
            logits[:, self.blank_ids] = -float("inf")
        return logits.softmax(-1)


CASE = dict(
    entry=lambda: SuppressBlank(),
    make_inputs=lambda n: (torch.randn(2, 16), torch.zeros(2, n, dtype=torch.long)),
    dims=[(1, 1)],
)
