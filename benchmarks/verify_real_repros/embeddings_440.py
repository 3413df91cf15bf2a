"""diffusers LuminaPatchEmbed.forward line 440 (ZL201: a Python loop over a size)."""
import torch
from diffusers.models import embeddings as e
from _common import sweep
import inspect

path = e.__file__
m = e.LuminaPatchEmbed(patch_size=2, in_channels=4, embed_dim=32).eval()
src, first = inspect.getsourcelines(e.LuminaPatchEmbed.forward)
print("forward starts at", first)
sweep(m, lambda n: ((torch.randn(n, 4, 8, 8), torch.randn(64, 64, dtype=torch.complex64)), {}), [2, 3, 4, 5], path,
      label="batch varies")
