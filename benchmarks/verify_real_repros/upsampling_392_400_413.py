"""diffusers CogVideoXUpsample3D.forward with compress_time=True: line 392 (`inputs.shape[2] > 1
and inputs.shape[2] % 2 == 1`: ZL101 + ZL103), 400 (`elif inputs.shape[2] > 1`: ZL101) and the
runtime-only ZL802 at 413 (single-graph modes at 1 frame)."""
import torch
from diffusers.models import upsampling as u
from _common import sweep

path = u.__file__
m = u.CogVideoXUpsample3D(in_channels=8, out_channels=8, compress_time=True).eval()
make = lambda n: ((torch.randn(1, 8, n, 4, 4),), {})  # noqa: E731 (frames vary)
sweep(m, make, [4, 6, 5, 7, 1, 8], path, label="default, frames vary")
sweep(m, make, [4, 6, 5, 7, 1], path, mode="mark_unbacked", dims={0: [2]}, label="mark_unbacked, frames vary")
sweep(m, make, [4, 6, 5, 7, 1], path, mode="backed_size_oblivious", dims={0: [2]}, label="backed_size_oblivious")
