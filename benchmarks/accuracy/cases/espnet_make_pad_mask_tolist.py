"""Source: espnet/espnet, espnet/nets/pytorch_backend/nets_utils.py (make_pad_mask) as called
from an encoder forward.

Rewritten: lengths given as a tensor are turned into a Python list, the mask width is the
largest of them, and the mask is built by comparing a range with the lengths.
"""

import torch
import torch.nn as nn


def make_pad_mask(lengths, maxlen=None):
    if not isinstance(lengths, list):
        lengths = lengths.long().tolist()
    bs = int(len(lengths))
    if maxlen is None:
        maxlen = int(max(lengths))
    seq_range = torch.arange(0, maxlen, dtype=torch.int64).unsqueeze(0).expand(bs, maxlen)
    seq_length_expand = seq_range.new_tensor(lengths).unsqueeze(-1)
    return seq_range >= seq_length_expand


class MaskedEncoder(nn.Module):
    def __init__(self, dim: int = 4) -> None:
        super().__init__()
        self.linear = nn.Linear(dim, dim)

    def forward(self, xs, ilens):
        masks = ~make_pad_mask(ilens, maxlen=xs.size(1)).unsqueeze(-1)
        return self.linear(xs) * masks


CASE = dict(
    entry=lambda: MaskedEncoder(),
    make_inputs=lambda n: (torch.randn(2, n, 4), torch.tensor([n, max(n - 1, 0)])),
    dims=[(0, 1)],
)
