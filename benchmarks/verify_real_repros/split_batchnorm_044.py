"""timm/layers/split_batchnorm.py SplitBatchNorm2d.forward line 44 (ZL204: input.split(split_size)
in training, split_size = batch // num_splits), batch varying in multiples of num_splits."""
import torch
from timm.layers import split_batchnorm as sb
from _common import sweep

path = sb.__file__
m = sb.SplitBatchNorm2d(num_features=4, num_splits=2).train()
sweep(m, lambda n: ((torch.randn(2 * n, 4, 4, 4),), {}), [2, 3, 1, 4, 5], path, label="training, batch 2n (n=1: batch 2)")
