"""timm MobileVitBlock line 258 (runtime-only ZL801: zlint saw x.size(2) pinned to 8 at size 8),
H = W in 2, 3, 1, 8 with the block's default widths."""
import torch
from timm.models import mobilevit
from _common import sweep

path = mobilevit.__file__
b = mobilevit.MobileVitBlock(in_chs=4).eval()
sweep(b, lambda n: ((torch.randn(4, 4, n, n),), {}), [2, 3, 1, 8, 16], path, label="H=W 2,3,1,8,16")
