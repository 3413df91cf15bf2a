"""Source: espnet/espnet, espnet/nets/pytorch_backend/transformer/subsampling.py
(Conv2dSubsampling.forward).

Rewritten: two strided convs over (time, freq), the unpacked output sizes feed view(b, t, c * f),
and the frame mask is subsampled by the same strides with slicing; a None mask returns early.
"""

import torch
import torch.nn as nn


class Conv2dSubsampling(nn.Module):
    def __init__(self, idim: int = 9, odim: int = 4) -> None:
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, odim, 3, 2), nn.ReLU(), nn.Conv2d(odim, odim, 3, 2), nn.ReLU())
        self.out = nn.Linear(odim * (((idim - 1) // 2 - 1) // 2), odim)

    def forward(self, x, x_mask):
        x = x.unsqueeze(1)
        x = self.conv(x)
        b, c, t, f = x.size()
        x = self.out(x.transpose(1, 2).contiguous().view(b, t, c * f))
        if x_mask is None:
            return x, None
        return x, x_mask[:, :, :-2:2][:, :, :-2:2]


CASE = dict(
    entry=lambda: Conv2dSubsampling(),
    make_inputs=lambda n: (torch.randn(2, 4 * n + 7, 9), torch.ones(2, 1, 4 * n + 7, dtype=torch.bool)),
    dims=[(0, 1), (1, 2)],
)
