"""timm/layers/pos_embed.py resample_abs_pos_embed_nhwc line 77: `new_size[0] == posemb.shape[-3]
and new_size[1] == posemb.shape[-2]` early-out; a pos-embed grid that sometimes equals new_size."""
import torch
from timm.layers import pos_embed
from _common import sweep

path = pos_embed.__file__
f = pos_embed.resample_abs_pos_embed_nhwc
sweep(f, lambda n: ((torch.randn(1, n, n, 32), [14, 14]), {}), [12, 13, 14, 16, 14], path, label="grid varies, new_size 14x14")
