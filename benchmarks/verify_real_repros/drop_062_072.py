"""timm/layers/drop.py drop_block_2d: line 62 (bernoulli_ with gamma from H, W: runtime-only ZL801)
and line 72 (`kh % 2 == 0 or kw % 2 == 0`, ZL103 x2), through DropBlock2d in training mode with
images of varying size: does each line recompile/guard?"""
import torch
from timm.layers import drop
from _common import sweep

m = drop.DropBlock2d(drop_prob=0.1, block_size=7).train()
path = drop.__file__
sizes = [4, 5, 6, 9, 12, 16]  # H = W, around block_size 7 (odd/even kernels)
sweep(m, lambda n: ((torch.randn(2, 8, n, n),), {}), sizes, path, label="DropBlock2d.train, H=W varies")
