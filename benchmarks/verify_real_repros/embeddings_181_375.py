"""diffusers PatchEmbed.forward line 375 (`self.height != height or self.width != width`: ZL103 x2)
and the runtime-only ZL801 at 181 (get_2d_sincos_pos_embed's arange over the grid), images around
the native 224x224."""
import torch
from diffusers.models import embeddings as e
from _common import sweep

path = e.__file__
m = e.PatchEmbed(height=224, width=224, patch_size=16, in_channels=3, embed_dim=64).eval()
sweep(m, lambda n: ((torch.randn(2, 3, n, n),), {}), [192, 208, 224, 256, 224], path, label="H=W around 224")
