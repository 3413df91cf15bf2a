"""Source: speechbrain/speechbrain, speechbrain/dataio/dataio.py (length_to_mask) as used by
speechbrain/lobes/models/ECAPA_TDNN.py (AttentiveStatisticsPooling.forward).

Rewritten: relative lengths are turned into absolute ones against the frame count and a mask
is built whose width is the longest length read back from the tensor.
"""

import torch
import torch.nn as nn


def length_to_mask(length, max_len=None):
    assert len(length.shape) == 1
    if max_len is None:
        max_len = length.max().long().item()
    mask = torch.arange(max_len, device=length.device, dtype=length.dtype).expand(len(length), max_len) < length.unsqueeze(1)
    return mask


class AttentiveStatsPool(nn.Module):
    def __init__(self, channels: int = 4) -> None:
        super().__init__()
        self.attention = nn.Conv1d(channels, channels, 1)

    def forward(self, x, lengths=None):
        L = x.shape[-1]
        if lengths is None:
            lengths = torch.ones(x.shape[0], device=x.device)
        mask = length_to_mask(lengths * L).unsqueeze(1)
        attn = self.attention(x).masked_fill(~mask[..., :L], float("-inf")).softmax(dim=2)
        return (attn * x).sum(dim=2)


CASE = dict(
    entry=lambda: AttentiveStatsPool(),
    make_inputs=lambda n: (torch.randn(2, 4, n),),
    dims=[(0, 2)],
    sizes=(2, 3, 5, 1, 8),
)
