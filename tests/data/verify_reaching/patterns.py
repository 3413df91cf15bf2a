"""Patterns from real model code (timm, transformers, diffusers) that ``--verify`` must run with
no registration: inputs that reach each flagged line and sweep what it reads. Used by
tests/verify/test_verify_reaching.py; each function names the real code it stands for."""

from typing import List, Tuple, Union

import torch
import torch.nn as nn
import torch.nn.functional as F


# timm.layers.drop.calculate_drop_path_rates: no tensor argument; each branch needs its own depths
def rates(rate: float, depths: Union[int, List[int]], stagewise: bool = False):
    if isinstance(depths, int):
        return [x.item() for x in torch.linspace(0, rate, depths)]
    total = sum(depths)
    if stagewise:
        return [x.tolist() for x in torch.linspace(0, rate, total).split(depths)]
    return [x.item() for x in torch.linspace(0, rate, total)]


# diffusers CogVideoXUpsample3D: the flagged lines run only when built with compress_time=True
class Up(nn.Module):
    def __init__(self, channels: int = 4, compress: bool = False):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.compress = compress

    def forward(self, x):
        if self.compress:
            if x.shape[2] > 1 and x.shape[2] % 2 == 1:
                x = torch.cat([x[:, :, :1], x[:, :, 1:]], dim=2)
        b, c, t, h, w = x.shape
        x = x.permute(0, 2, 1, 3, 4).reshape(b * t, c, h, w)
        return self.conv(x).reshape(b, t, c, h, w)


# timm.layers.drop.drop_block_2d: kh = min(block_size, H); a helper verified through its caller
def drop_blocks(x, block_size: int = 7):
    B, C, H, W = x.shape
    kh, kw = min(block_size, H), min(block_size, W)
    mask = F.max_pool2d(x, kernel_size=(kh, kw), stride=1, padding=(kh // 2, kw // 2))
    if kh % 2 == 0 or kw % 2 == 0:
        mask = mask[..., (kh + 1) % 2:, (kw + 1) % 2:]
    return x * mask


class Dropper(nn.Module):
    def forward(self, x):
        return drop_blocks(x)


# timm.models.crossvit.scale_image: an annotated Tuple[int, int] compared with the input's H, W
def rescale(x, ss: Tuple[int, int], crop: bool = False):
    H, W = x.shape[-2:]
    if H != ss[0] or W != ss[1]:
        if crop and ss[0] <= H and ss[1] <= W:
            x = x[:, :, :ss[0], :ss[1]]
        else:
            x = F.interpolate(x, size=ss, mode="bilinear", align_corners=False)
    return x


# timm BilinearAttnTransform.resize_mat: asserted-equal dims; a split's count read through a view
def tile(x, t: int):
    B, C, s, s1 = x.shape
    torch._assert(s == s1, "square")
    x = x.view(B * C, s, s, 1)
    x = torch.cat(torch.split(x, 1, dim=1), dim=2)
    return x.view(B, C, s * s) * t


# diffusers PatchEmbed: a patch conv, and its grid compared with the input's, counted in patches
class Patches(nn.Module):
    def __init__(self, size: int = 64, patch: int = 8):
        super().__init__()
        self.proj = nn.Conv2d(3, 8, kernel_size=patch, stride=patch)
        self.patch = patch
        self.height = self.width = size // patch
        self.pos = nn.Parameter(torch.zeros(1, 8, self.height, self.width))

    def forward(self, latent):
        height, width = latent.shape[-2] // self.patch, latent.shape[-1] // self.patch
        x = self.proj(latent)
        if self.height != height or self.width != width:
            return x
        return x + self.pos


# a graph break under mark_unbacked before a line whose cost would show by default
def per_mode(x: "Float[torch.Tensor, 'batch 4']"):
    if x.shape[0] == 0:
        return x
    parts = x.unbind(1)
    return torch.stack(parts[::-1], 1)


# optional arguments that never reach the flagged line keep their default (attention_mask=None)
def masked(x, mask=None, scale=None):
    if x.size(0) > 3:
        x = x * 2
    if mask is not None:
        x = x.masked_fill(~mask, 0)
    return x


# transformers Wav2Vec2: raw audio shorter than the front end's kernel fails eagerly
class Audio(nn.Module):
    def __init__(self):
        super().__init__()
        self.frontend = nn.Conv1d(1, 4, kernel_size=40, stride=20)

    def forward(self, input_values):
        if input_values.size(0) > 3:
            input_values = input_values * 2
        return self.frontend(input_values[:, None])


# a line behind a module flag the inputs cannot set
DEBUG = False


def debug_only(x):
    if DEBUG:
        if x.size(0) > 3:
            print("large")
    return x * 2


# a helper whose sizes come from a layer's output, not from its caller's input: the caller's sweep
# says nothing about it, so it is verified on its own
def halve_odd(x):
    if x.shape[-1] % 2 == 1:
        x = x[..., :-1]
    return x


class Projected(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        return halve_odd(self.proj(x))
