"""Source: facebookresearch/segment-anything, segment_anything/modeling/image_encoder.py
(window_partition, window_unpartition).

Rewritten: the feature map is padded up to a multiple of the window size only when it is not
already one, cut into windows and put back, cropping the padding again.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def window_partition(x, window_size: int):
    B, H, W, C = x.shape
    pad_h = (window_size - H % window_size) % window_size
    pad_w = (window_size - W % window_size) % window_size
    if pad_h > 0 or pad_w > 0:
        x = F.pad(x, (0, 0, 0, pad_w, 0, pad_h))
    Hp, Wp = H + pad_h, W + pad_w
    x = x.view(B, Hp // window_size, window_size, Wp // window_size, window_size, C)
    windows = x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size, window_size, C)
    return windows, (Hp, Wp)


class WindowBlock(nn.Module):
    def __init__(self, dim: int = 4, window_size: int = 4) -> None:
        super().__init__()
        self.window_size = window_size
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        windows, (Hp, Wp) = window_partition(x, self.window_size)
        return self.proj(windows).mean(dim=(1, 2)), Hp * Wp


CASE = dict(
    entry=lambda: WindowBlock(),
    make_inputs=lambda n: (torch.randn(1, n, 4, 4),),
    dims=[(0, 1)],
    sizes=(2, 3, 5, 1, 8, 4),
)
