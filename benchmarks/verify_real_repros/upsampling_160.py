"""diffusers Upsample2D.forward line 160 (`if hidden_states.shape[0] >= 64`: ZL103)."""
import torch
from diffusers.models import upsampling as u
from _common import sweep

path = u.__file__
m = u.Upsample2D(channels=8, use_conv=True).eval()
sweep(m, lambda n: ((torch.randn(n, 8, 8, 8),), {}), [16, 32, 63, 64, 70], path, label="batch around 64")
