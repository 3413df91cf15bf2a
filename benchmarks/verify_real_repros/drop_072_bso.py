"""timm drop_block_2d line 72 under backed_size_oblivious (H, W marked dynamic), DropBlock2d in
training mode: does the parity test at 72 cost a graph there?"""
import torch
from timm.layers import drop
from _common import sweep

m = drop.DropBlock2d(drop_prob=0.1, block_size=7).train()
sweep(m, lambda n: ((torch.randn(2, 8, n, n),), {}), [4, 5, 6, 9, 12, 16], drop.__file__,
      mode="backed_size_oblivious", dims={0: [2, 3]}, label="backed_size_oblivious, H=W varies")
