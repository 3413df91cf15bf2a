"""timm/models/crossvit.py scale_image lines 306 (`H != ss[0] or W != ss[1]`) and 307 (`crop_scale
and ss[0] <= H and ss[1] <= W`): images around the target size."""
import torch
from timm.models import crossvit
from _common import sweep

path = crossvit.__file__
f = crossvit.scale_image
sweep(f, lambda n: ((torch.randn(2, 3, n, n), (224, 224), False), {}), [200, 210, 224, 240, 224], path, label="interpolate")
sweep(f, lambda n: ((torch.randn(2, 3, n, n), (224, 224), True), {}), [230, 240, 224, 200, 250], path, label="crop_scale")
