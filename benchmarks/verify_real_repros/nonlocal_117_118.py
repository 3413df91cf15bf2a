"""timm/layers/non_local_attn.py BilinearAttnTransform.resize_mat lines 117/118: torch.split(x, 1,
dim=1/2): the count is block_size (x.shape[2]). Through the module (block_size fixed by the
module) and on its own with varying block sizes."""
import torch
from timm.layers import non_local_attn as nla
from _common import sweep

path = nla.__file__
m = nla.BilinearAttnTransform(in_channels=16, block_size=4, groups=4).eval()
sweep(m, lambda n: ((torch.randn(2, 16, 8 * n, 8 * n),), {}), [1, 2, 3, 4], path, label="module, image size varies")
sweep(m.resize_mat, lambda n: ((torch.randn(2, 4, n, n), 3), {}), [2, 3, 4, 5], path, label="resize_mat, block size varies")
