"""timm BilinearAttnTransform.resize_mat line 111 (`_assert(block_size == block_size1, '')`):
runtime-only ZL802 under mark_unbacked, block size marked unbacked."""
import torch
from timm.layers import non_local_attn as nla
from _common import sweep

path = nla.__file__
m = nla.BilinearAttnTransform(in_channels=16, block_size=4, groups=4).eval()
sweep(m.resize_mat, lambda n: ((torch.randn(2, 4, n, n), 3), {}), [2, 3, 4, 5], path, mode="mark_unbacked",
      dims={0: [2, 3]}, label="resize_mat, mark_unbacked block size")
