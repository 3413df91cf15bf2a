"""diffusers FirUpsample2D._upsample_2d line 285 (`assert output_padding[0] >= 0 and ...`: ZL101
x2) with use_conv, and the runtime-only ZL801 at 455 (upfirdn2d_native), batch and image sizes
varying as a UNet would."""
import torch
from diffusers.models import upsampling as u
from _common import sweep

path = u.__file__
m = u.FirUpsample2D(channels=8, out_channels=8, use_conv=True).eval()
sweep(m, lambda n: ((torch.randn(2, 8, n, n),), {}), [8, 12, 16, 1, 0], path, label="use_conv, H=W varies, default")
sweep(m, lambda n: ((torch.randn(2, 8, n, n),), {}), [8, 12, 16, 1], path, mode="mark_unbacked", dims={0: [2, 3]},
      label="use_conv, H=W varies, mark_unbacked")
sweep(m, lambda n: ((torch.randn(n, 8, 8, 8),), {}), [2, 3, 5, 8], path, label="use_conv, batch varies")
m2 = u.FirUpsample2D(channels=8, out_channels=8, use_conv=False).eval()
sweep(m2, lambda n: ((torch.randn(n, 8, 8, 8),), {}), [2, 3, 5, 8], path, label="no conv, batch varies")
