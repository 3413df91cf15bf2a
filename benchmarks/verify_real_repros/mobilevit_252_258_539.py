"""timm/models/mobilevit.py MobileVitBlock.forward line 252 (`new_h != H or new_w != W`: ceil to
a multiple of the patch) / 258 (runtime-only ZL801) and MobileVitV2Block.forward line 539."""
import torch
from timm.models import mobilevit
from _common import sweep

path = mobilevit.__file__
b1 = mobilevit.MobileVitBlock(in_chs=16, out_chs=16, transformer_dim=32, transformer_depth=1, patch_size=2).eval()
sweep(b1, lambda n: ((torch.randn(2, 16, n, n),), {}), [8, 10, 9, 12, 14, 15], path, label="MobileVitBlock, H=W varies")
b2 = mobilevit.MobileVitV2Block(in_chs=16, out_chs=16, transformer_depth=1, patch_size=2).eval()
sweep(b2, lambda n: ((torch.randn(2, 16, n, n),), {}), [8, 10, 9, 12, 14, 15], path, label="MobileVitV2Block, H=W varies")
