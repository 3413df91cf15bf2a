"""timm/layers/median_pool.py MedianPool2d._padding lines 28/32 (`ih % self.stride[0] == 0`:
ZL103 x2), verified by zlint NOT OBSERVED through forward with the default stride 1; images of
odd and even sizes, with the default stride and with stride 2."""
import torch
from timm.layers import median_pool
from _common import sweep

path = median_pool.__file__
for stride in (1, 2):
    m = median_pool.MedianPool2d(kernel_size=3, stride=stride, same=True).eval()
    sweep(m, lambda n: ((torch.randn(2, 4, n, n),), {}), [8, 9, 10, 11, 12], path, label=f"stride {stride}, H=W varies")
