"""diffusers CogVideoXDownsample3D.forward with compress_time=True: line 327 (`x.shape[-1] % 2 ==
1`, frames odd: ZL103) and 329 (`x_rest.shape[-1] > 0`: ZL101), frames varying."""
import torch
from diffusers.models import downsampling as d
from _common import sweep

path = d.__file__
m = d.CogVideoXDownsample3D(in_channels=8, out_channels=8, compress_time=True).eval()
make = lambda n: ((torch.randn(1, 8, n, 8, 8),), {})  # noqa: E731
sweep(m, make, [4, 6, 5, 7, 9, 8], path, label="default, frames vary")
sweep(m, make, [4, 6, 5, 7, 1, 2], path, mode="backed_size_oblivious", dims={0: [2]}, label="backed_size_oblivious")
sweep(m, make, [4, 6, 5, 7, 1, 2], path, mode="mark_unbacked", dims={0: [2]}, label="mark_unbacked")
