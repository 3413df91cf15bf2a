"""Source: facebookresearch/segment-anything, segment_anything/utils/transforms.py
(ResizeLongestSide.apply_image_torch, get_preprocess_shape) and predictor.py (set_torch_image).

Rewritten: the pre-processing transform computes the target shape from the image's height and
width in Python (rounding, max) before the model runs; only the encoder's forward is compiled.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class ResizeLongestSide:
    def __init__(self, target_length: int = 8) -> None:
        self.target_length = target_length

    @staticmethod
    def get_preprocess_shape(oldh: int, oldw: int, long_side_length: int):
        scale = long_side_length * 1.0 / max(oldh, oldw)
        newh, neww = oldh * scale, oldw * scale
        return int(newh + 0.5), int(neww + 0.5)

    def apply_image_torch(self, image):
        target_size = self.get_preprocess_shape(image.shape[2], image.shape[3], self.target_length)
        return F.interpolate(image, target_size, mode="bilinear", align_corners=False, antialias=True)


class TinyImageEncoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.patch = nn.Conv2d(3, 4, 2, 2)
        self.transform = ResizeLongestSide()

    def preprocess(self, image):
        image = self.transform.apply_image_torch(image)
        h, w = image.shape[-2:]
        return F.pad(image, (0, self.transform.target_length - w, 0, self.transform.target_length - h))

    def forward(self, x):
        return self.patch(x).flatten(2).transpose(1, 2)


CASE = dict(
    entry=lambda: TinyImageEncoder(),
    make_inputs=lambda n: (torch.randn(n, 3, 8, 8),),
)
