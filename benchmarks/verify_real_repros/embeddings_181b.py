"""diffusers PatchEmbed runtime-only ZL801 at line 181 (zlint: recompile at 224 after a graph for a
16-pixel image): a one-patch image, then larger ones, then the native size."""
import torch
from diffusers.models import embeddings as e
from _common import sweep

path = e.__file__
m = e.PatchEmbed(height=224, width=224, patch_size=16, in_channels=3, embed_dim=64).eval()
sweep(m, lambda n: ((torch.randn(2, 3, n, n),), {}), [32, 48, 16, 128, 224], path, label="16px among others, then 224")
sweep(m, lambda n: ((torch.randn(2, 3, n, n),), {}), [32, 48, 128, 224], path, label="no 16px image")
