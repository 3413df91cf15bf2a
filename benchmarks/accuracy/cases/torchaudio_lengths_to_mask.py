"""Source: pytorch/audio, src/torchaudio/models/conformer.py (_lengths_to_padding_mask,
Conformer.forward).

Rewritten: a padding mask is built from per-utterance lengths with the longest length read back
as a Python int, then used to zero padded frames before a feed-forward.
"""

import torch
import torch.nn as nn


def lengths_to_padding_mask(lengths):
    batch_size = lengths.shape[0]
    max_length = int(torch.max(lengths).item())
    return torch.arange(max_length, device=lengths.device, dtype=lengths.dtype).expand(batch_size, max_length) >= lengths.unsqueeze(1)


class ConformerFront(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.ff = nn.Linear(dim, dim)

    def forward(self, x, lengths):
        mask = lengths_to_padding_mask(lengths)
        x = x[:, : mask.shape[1]].masked_fill(mask.unsqueeze(-1), 0.0)
        return self.ff(x)


CASE = dict(
    entry=lambda: ConformerFront(),
    make_inputs=lambda n: (torch.randn(2, 8, 8), torch.tensor([max(n, 1), 1])),
    dims=[],
)
